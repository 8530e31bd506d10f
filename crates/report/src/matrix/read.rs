//! One report.json read as far as the matrix needs it, whatever covenant version wrote it:
//! every part beyond the run's meta is optional, unknown keys are passed over (the exchanges,
//! the bulk of a report, are skipped unread), and a rule status this version does not know is
//! not run. What is not a covenant report at all is refused, naming the file.

use super::{Cell, MatrixError, RuleOutcome, Run, SilentChoice};
use crate::report::Subject;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `report.json`, as far as the matrix reads it; each `Json*` type below is one of its parts.
#[derive(Deserialize)]
struct JsonReport {
    #[serde(default)]
    verdict: Option<String>,
    meta: JsonMeta,
    #[serde(default)]
    cases: Vec<JsonCase>,
    #[serde(default)]
    coverage: Option<JsonCoverage>,
    #[serde(default)]
    silent: BTreeMap<String, JsonGap>,
}

#[derive(Deserialize)]
struct JsonMeta {
    covenant_version: String,
    target: String,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    started_at: Option<String>,
    #[serde(default)]
    shard: Option<String>,
    #[serde(default)]
    profile: Option<JsonProfile>,
    #[serde(default)]
    traffic: Option<serde::de::IgnoredAny>,
}

/// The redacted profile, for its name alone.
#[derive(Deserialize)]
struct JsonProfile {
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct JsonCase {
    id: String,
    #[serde(default)]
    verdict: String,
    #[serde(default)]
    rules: Vec<String>,
    #[serde(default)]
    findings: Vec<JsonFinding>,
}

#[derive(Deserialize)]
struct JsonFinding {
    rule: String,
    #[serde(default)]
    level: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    known: Option<String>,
}

#[derive(Deserialize)]
struct JsonCoverage {
    #[serde(default)]
    rules: Vec<JsonCoveredRule>,
}

#[derive(Deserialize)]
struct JsonCoveredRule {
    id: String,
    status: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct JsonGap {
    #[serde(default)]
    text: String,
    #[serde(default)]
    observations: Vec<JsonObservation>,
}

#[derive(Deserialize)]
struct JsonObservation {
    #[serde(default)]
    operation: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    condition: Option<String>,
    what: String,
    value: String,
}

/// Reads the report at `path`, named `label` if the command line named it.
pub fn read(path: &Path, label: Option<String>) -> Result<Run, MatrixError> {
    let bytes = std::fs::read(path).map_err(|source| MatrixError::Read {
        path: path.to_owned(),
        source,
    })?;
    let not_a_report = |why: String| MatrixError::NotAReport {
        path: path.to_owned(),
        why,
    };
    let document: JsonReport = serde_json::from_slice(&bytes).map_err(|e| {
        if e.is_data() {
            not_a_report(format!("line {}, column {}: {e}", e.line(), e.column()))
        } else {
            not_a_report(format!("not JSON: {e}"))
        }
    })?;
    if let Some(shard) = document.meta.shard.clone() {
        return Err(MatrixError::Shard {
            path: path.to_owned(),
            shard,
        });
    }
    Ok(run_of(document, path, label))
}

fn run_of(document: JsonReport, path: &Path, label: Option<String>) -> Run {
    let findings = findings_by_rule(&document.cases);
    let (results, lists_rules) = match &document.coverage {
        Some(coverage) if !coverage.rules.is_empty() => (
            coverage
                .rules
                .iter()
                .map(|rule| (rule.id.clone(), covered(rule, findings.get(&rule.id))))
                .collect(),
            true,
        ),
        _ => (derived(&document.cases, &findings), false),
    };
    let mut seen = Vec::new();
    let mut gap_texts = BTreeMap::new();
    for (gap, observed) in document.silent {
        for o in observed.observations {
            seen.push(SilentChoice {
                gap: gap.clone(),
                subject: Subject {
                    operation: o.operation,
                    kind: o.kind,
                    condition: o.condition,
                },
                what: o.what,
                value: o.value,
            });
        }
        gap_texts.insert(gap, observed.text);
    }
    let meta = document.meta;
    Run {
        path: path.to_owned(),
        label,
        profile_name: meta.profile.and_then(|p| p.name),
        target: meta.target,
        covenant_version: meta.covenant_version,
        seed: meta.seed,
        date: meta.started_at,
        verdict: document.verdict.unwrap_or_else(|| "unknown".to_owned()),
        traffic: meta.traffic.is_some(),
        results,
        lists_rules,
        gap_texts,
        seen,
    }
}

/// Each rule's findings, in run order, with the case that made each.
fn findings_by_rule(cases: &[JsonCase]) -> BTreeMap<String, Vec<(&str, &JsonFinding)>> {
    let mut by_rule: BTreeMap<String, Vec<(&str, &JsonFinding)>> = BTreeMap::new();
    for case in cases {
        for finding in &case.findings {
            by_rule
                .entry(finding.rule.clone())
                .or_default()
                .push((case.id.as_str(), finding));
        }
    }
    by_rule
}

/// A rule's cell from the status the report's coverage gives it, with the first failing case
/// and its message; a failure the baseline holds wholly is known.
fn covered(rule: &JsonCoveredRule, findings: Option<&Vec<(&str, &JsonFinding)>>) -> Cell {
    let outcome = match rule.status.as_str() {
        "fail" => RuleOutcome::Fail,
        "warn" => RuleOutcome::Warn,
        "error" | "inconclusive" => RuleOutcome::Inconclusive,
        "pass" => RuleOutcome::Pass,
        "skipped" => RuleOutcome::Skipped,
        _ => RuleOutcome::NotRun,
    };
    let mut cell = from_findings(outcome, findings.map(Vec::as_slice).unwrap_or_default());
    if cell.message.is_none() {
        cell.message = rule.reason.clone();
    }
    cell
}

/// The cell of a rule judged `outcome`: a failure whose every must finding the baseline holds
/// is known; the first finding of its level gives the case and the message.
fn from_findings(outcome: RuleOutcome, findings: &[(&str, &JsonFinding)]) -> Cell {
    let of_level = |level: &'static str| findings.iter().filter(move |(_, f)| f.level == level);
    let outcome = match outcome {
        RuleOutcome::Fail if of_level("must").all(|(_, f)| f.known.is_some()) => RuleOutcome::Known,
        other => other,
    };
    let shown = match outcome {
        RuleOutcome::Fail => of_level("must").find(|(_, f)| f.known.is_none()),
        RuleOutcome::Known => of_level("must").next(),
        RuleOutcome::Warn => of_level("should").next(),
        _ => None,
    };
    Cell {
        result: outcome,
        case: shown.map(|(case, _)| (*case).to_owned()),
        message: shown.map(|(_, f)| f.message.clone()),
    }
}

/// Results worked out from the cases alone, for a report without coverage (covenant before
/// it): a rule with findings fails or warns; one a judged case names passes; one only skipped
/// cases name is skipped; the rest were not run.
fn derived(
    cases: &[JsonCase],
    findings: &BTreeMap<String, Vec<(&str, &JsonFinding)>>,
) -> BTreeMap<String, Cell> {
    let mut results = BTreeMap::new();
    for case in cases {
        let outcome = match case.verdict.as_str() {
            "pass" | "warn" | "fail" => RuleOutcome::Pass,
            "skip" => RuleOutcome::Skipped,
            _ => RuleOutcome::Inconclusive,
        };
        for rule in &case.rules {
            let cell = results
                .entry(rule.clone())
                .or_insert_with(|| Cell::of(outcome));
            cell.result = cell.result.min(outcome);
        }
    }
    for (rule, findings) in findings {
        let outcome = if findings.iter().any(|(_, f)| f.level == "must") {
            RuleOutcome::Fail
        } else {
            RuleOutcome::Warn
        };
        results.insert(rule.clone(), from_findings(outcome, findings));
    }
    results
}

/// Reads every report, in order: `(label, path)`, the label `None` where `--name` gave none.
/// Reports are read on every core, since a report of a run holds every exchange (megabytes).
pub fn read_all(inputs: &[(Option<String>, PathBuf)]) -> Result<Vec<Run>, MatrixError> {
    if inputs.is_empty() {
        return Err(MatrixError::Nothing);
    }
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(inputs.len());
    let per = inputs.len().div_ceil(workers);
    let parts: Vec<Vec<Result<Run, MatrixError>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = inputs
            .chunks(per)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(label, path)| read(path, label.clone()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("reading a report never panics"))
            .collect()
    });
    parts.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Run {
        let document: JsonReport = serde_json::from_str(text).expect("a document");
        run_of(document, Path::new("r.json"), None)
    }

    const META: &str = r#""meta": {"covenant_version": "0.0.9", "target": "http://a:1/", "seed": 3,
        "profile": {"name": "partner", "finops": {"token": "***"}}}"#;

    #[test]
    fn a_report_without_coverage_is_read_from_its_cases() {
        let run = parse(&format!(
            r#"{{{META}, "cases": [
                {{"id": "a", "verdict": "fail", "rules": ["R-A"], "findings": [
                    {{"rule": "R-A", "level": "must", "message": "broke it"}}],
                  "exchanges": [{{"anything": [1, 2, {{"x": null}}]}}]}},
                {{"id": "b", "verdict": "pass", "rules": ["R-B"], "findings": []}},
                {{"id": "c", "verdict": "skip", "rules": ["R-C"], "findings": []}}],
              "future": {{"what": "a later covenant added"}}}}"#
        ));
        assert_eq!(run.profile_name.as_deref(), Some("partner"));
        assert!(!run.lists_rules);
        assert_eq!(run.verdict, "unknown");
        let a = &run.results["R-A"];
        assert_eq!(a.result, RuleOutcome::Fail);
        assert_eq!(
            (a.case.as_deref(), a.message.as_deref()),
            (Some("a"), Some("broke it"))
        );
        assert_eq!(run.results["R-B"].result, RuleOutcome::Pass);
        assert_eq!(run.results["R-C"].result, RuleOutcome::Skipped);
    }

    #[test]
    fn a_failure_the_baseline_holds_is_known_and_an_unknown_status_is_not_run() {
        let run = parse(&format!(
            r#"{{{META}, "verdict": "pass", "cases": [
                {{"id": "a", "verdict": "fail", "findings": [
                    {{"rule": "R-A", "level": "must", "message": "m", "known": "ticket 7"}}]}}],
              "coverage": {{"rules": [{{"id": "R-A", "status": "fail"}},
                                      {{"id": "R-B", "status": "brand-new"}}]}}}}"#
        ));
        assert!(run.lists_rules);
        assert_eq!(run.results["R-A"].result, RuleOutcome::Known);
        assert_eq!(run.results["R-A"].case.as_deref(), Some("a"));
        assert_eq!(run.results["R-B"].result, RuleOutcome::NotRun);
    }
}
