//! Coverage: for every rule of the catalogue, the responses and cases that gave evidence on it
//! and what they found; for every operation, the statuses the spec states against those the run
//! saw; and the `--require-coverage` gate.
//!
//! A rule has evidence only where a check judged a response against it ([`CaseResult::evidence`],
//! recorded by the generic checks and by every check of a case, whether it held or not). A case
//! that names a rule but never reached its check is no evidence: "not run" means that no response
//! was judged against the rule in this run, and the matrix says why.

use crate::catalogue::{Catalogue, Level, Rule};
use crate::schema::{status_matches, OperationId};
use crate::trace::Trace;
use crate::verdict::{
    CaseResult, ConstraintCoverage, CoverageMeasure, CoverageRequirement, RunRecord, Verdict,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Cases a row names before it only counts the rest.
const NAMED: usize = 3;

/// What a run shows about one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleStatus {
    /// A finding at `must` level names the rule.
    Fail,
    /// Only findings at `should` level name it.
    Warn,
    /// No response was judged against it, and a case that covers it ended in an error.
    Error,
    /// No response was judged against it, and a case that covers it was blocked by a refused
    /// baseline.
    Inconclusive,
    /// Responses were judged against it and none broke it.
    Pass,
    /// No response was judged against it: the cases that cover it were skipped.
    Skipped,
    /// No response was judged against it: no case of the run covers it (filtered out, in
    /// another shard), or the cases that do never reached its check.
    NotRun,
    /// No client can observe it through the ten operations; the catalogue says why.
    NotObservable,
}

impl RuleStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleStatus::Fail => "fail",
            RuleStatus::Warn => "warn",
            RuleStatus::Error => "error",
            RuleStatus::Inconclusive => "inconclusive",
            RuleStatus::Pass => "pass",
            RuleStatus::Skipped => "skipped",
            RuleStatus::NotRun => "not run",
            RuleStatus::NotObservable => "not observable",
        }
    }

    /// Every status, worst first: the order summaries list them in.
    pub const ALL: [RuleStatus; 8] = [
        RuleStatus::Fail,
        RuleStatus::Warn,
        RuleStatus::Error,
        RuleStatus::Inconclusive,
        RuleStatus::Pass,
        RuleStatus::Skipped,
        RuleStatus::NotRun,
        RuleStatus::NotObservable,
    ];

    /// Whether some response was judged against the rule.
    pub fn has_evidence(self) -> bool {
        matches!(self, RuleStatus::Fail | RuleStatus::Warn | RuleStatus::Pass)
    }
}

/// The evidence a run gave on one rule.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RuleEvidence<'a> {
    /// Responses judged against the rule.
    pub responses: u64,
    /// Cases that judged it, and how they came out on it.
    pub cases: usize,
    pub passed: usize,
    pub warned: usize,
    pub failed: usize,
    /// The first few of those cases, failing ones first.
    pub named: Vec<&'a str>,
}

/// One row of the coverage matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleCoverage<'a> {
    pub rule: &'a Rule,
    pub status: RuleStatus,
    /// The cases that name the rule or judged it, in run order, with their verdicts.
    pub cases: Vec<(&'a str, Verdict)>,
    pub evidence: RuleEvidence<'a>,
    /// Why there is no evidence, when there is none.
    pub reason: Option<String>,
}

/// The coverage of every rule of `catalogue` by `run`, in catalogue order.
pub fn rule_coverage<'a>(run: &'a RunRecord, catalogue: &'a Catalogue) -> Vec<RuleCoverage<'a>> {
    let index = CoverIndex::of(run);
    catalogue
        .rules
        .iter()
        .map(|rule| {
            let id = rule.id.as_str();
            let cases = index.cases.get(id).cloned().unwrap_or_default();
            let evidence = index.evidence.get(id).cloned().unwrap_or_default();
            let (status, reason) = status_of(rule, index.findings.get(id), &evidence, &cases, run);
            RuleCoverage {
                rule,
                status,
                cases,
                evidence,
                reason,
            }
        })
        .collect()
}

/// How many rules have each status.
pub fn status_counts(coverage: &[RuleCoverage<'_>]) -> BTreeMap<RuleStatus, usize> {
    let mut counts = BTreeMap::new();
    for row in coverage {
        *counts.entry(row.status).or_insert(0) += 1;
    }
    counts
}

/// Rule id -> covering cases, evidence and the levels of the findings naming it.
struct CoverIndex<'a> {
    cases: BTreeMap<&'a str, Vec<(&'a str, Verdict)>>,
    evidence: BTreeMap<&'a str, RuleEvidence<'a>>,
    findings: BTreeMap<&'a str, Vec<Level>>,
}

impl<'a> CoverIndex<'a> {
    fn of(run: &'a RunRecord) -> CoverIndex<'a> {
        let legacy = is_legacy(run);
        let mut index = CoverIndex {
            cases: BTreeMap::new(),
            evidence: BTreeMap::new(),
            findings: BTreeMap::new(),
        };
        // A client's slips say nothing of the target's rules.
        let cases = run.cases.iter().filter(|c| c.verdict != Verdict::Client);
        for case in cases {
            let named = case.rules.iter().map(String::as_str);
            let judged = case.evidence.iter().map(|e| e.rule.as_str());
            let found = case.findings.iter().map(|f| f.rule.as_str());
            for rule in named.chain(judged).chain(found) {
                let entry = index.cases.entry(rule).or_default();
                if !entry.iter().any(|(id, _)| *id == case.id) {
                    entry.push((case.id.as_str(), case.verdict));
                }
            }
            for finding in &case.findings {
                index
                    .findings
                    .entry(finding.rule.as_str())
                    .or_default()
                    .push(finding.level);
            }
            index.add_evidence(case, legacy);
        }
        for evidence in index.evidence.values_mut() {
            evidence.named.truncate(NAMED);
        }
        index
    }

    /// The case's evidence on each rule it judged; a finding is evidence even where the check
    /// that made it recorded none. In a `legacy` record a case that ran to a verdict counts for
    /// the rules it names, on no response.
    fn add_evidence(&mut self, case: &'a CaseResult, legacy: bool) {
        let mut judged: BTreeMap<&str, u64> = case
            .evidence
            .iter()
            .map(|e| (e.rule.as_str(), u64::from(e.responses)))
            .collect();
        let ran = matches!(case.verdict, Verdict::Pass | Verdict::Warn | Verdict::Fail);
        if legacy && ran {
            for rule in &case.rules {
                judged.entry(rule.as_str()).or_insert(0);
            }
        }
        for finding in &case.findings {
            judged.entry(finding.rule.as_str()).or_insert(1);
        }
        for (rule, responses) in judged {
            let levels = case.findings.iter().filter(|f| f.rule == rule);
            let worst = levels.map(|f| f.level).max_by_key(|l| *l == Level::Must);
            let entry = self.evidence.entry(rule).or_default();
            entry.responses += responses;
            entry.cases += 1;
            match worst {
                Some(Level::Must) => entry.failed += 1,
                Some(_) => entry.warned += 1,
                None => entry.passed += 1,
            }
            // Cases that broke the rule are named first.
            if worst.is_some() {
                let broke = entry.failed + entry.warned - 1;
                entry
                    .named
                    .insert(broke.min(entry.named.len()), case.id.as_str());
            } else {
                entry.named.push(case.id.as_str());
            }
        }
    }
}

/// A record written before covenant recorded evidence (an old report kept for `compare`): no
/// case has any, though cases sent requests. Its coverage falls back to the rules its cases
/// name, as it was then worked out.
fn is_legacy(run: &RunRecord) -> bool {
    let recorded = run
        .cases
        .iter()
        .any(|c| !c.evidence.is_empty() || !c.statuses.is_empty());
    let sent = run
        .cases
        .iter()
        .any(|c| c.requests > 0 || !c.exchanges.is_empty());
    sent && !recorded
}

fn status_of(
    rule: &Rule,
    findings: Option<&Vec<Level>>,
    evidence: &RuleEvidence<'_>,
    cases: &[(&str, Verdict)],
    run: &RunRecord,
) -> (RuleStatus, Option<String>) {
    if let Some(levels) = findings {
        // Under --strict a warning fails the run: its rule is broken, as every surface says.
        let status = if levels.iter().any(|l| run.breaks(*l)) {
            RuleStatus::Fail
        } else {
            RuleStatus::Warn
        };
        return (status, None);
    }
    if !rule.observable {
        return (RuleStatus::NotObservable, rule.why_not.clone());
    }
    if evidence.cases > 0 {
        return (RuleStatus::Pass, None);
    }
    let of = |verdict: Verdict| -> Vec<&CaseResult> {
        cases
            .iter()
            .filter(|(_, v)| *v == verdict)
            .filter_map(|(id, _)| run.cases.iter().find(|c| c.id == *id))
            .collect()
    };
    if let Some(case) = of(Verdict::Error).first() {
        let why = case.error.as_deref().unwrap_or("an error");
        return (
            RuleStatus::Error,
            Some(format!("{} ended in an error: {why}", case.id)),
        );
    }
    if let Some(case) = of(Verdict::Inconclusive).first() {
        let why = case
            .inconclusive
            .first()
            .map(super::words::inconclusive_sentence);
        let why = why.unwrap_or_else(|| "its baseline was refused".into());
        return (
            RuleStatus::Inconclusive,
            Some(format!("{}: {why}", case.id)),
        );
    }
    let ran: Vec<&str> = cases
        .iter()
        .filter(|(_, v)| *v != Verdict::Skip)
        .map(|(id, _)| *id)
        .collect();
    if !ran.is_empty() {
        return (
            RuleStatus::NotRun,
            Some(format!(
                "{} ran, but judged no response against it",
                named_list(&ran)
            )),
        );
    }
    if let Some(case) = of(Verdict::Skip).first() {
        let why = case.skip_reason.as_deref().unwrap_or("skipped");
        return (
            RuleStatus::Skipped,
            Some(format!("{} skipped: {why}", case.id)),
        );
    }
    let reason = match &run.meta.shard {
        _ if run.meta.traffic.is_some() => "no traffic reached it: no exchange judged reached \
             the operation it is judged on, or none in the situation it states"
            .to_owned(),
        Some(shard) => {
            format!("no case of shard {shard} covers it (filtered out, or in another shard)")
        }
        None => "no case of this run covers it (filtered out by --filter or --skip, or left \
                 out by --read-only)"
            .to_owned(),
    };
    (RuleStatus::NotRun, Some(reason))
}

/// `a, b and 3 more`.
fn named_list(ids: &[&str]) -> String {
    let shown: Vec<&str> = ids.iter().take(NAMED).copied().collect();
    match ids.len().saturating_sub(NAMED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The statuses of one operation: those the spec states, those the run set out to provoke,
/// and those it saw.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperationStatuses {
    pub operation: &'static str,
    /// A status (`201`) or a class (`2xx`), as in `operations.json`.
    pub stated: Vec<String>,
    pub expected: Vec<String>,
    /// Status -> responses.
    pub observed: BTreeMap<u16, u64>,
    /// Stated statuses no response showed.
    pub missing: Vec<String>,
}

/// The status coverage of every operation, in `operations.json` order.
pub fn status_coverage(run: &RunRecord) -> Vec<OperationStatuses> {
    OperationId::ALL
        .iter()
        .map(|op| {
            let name = op.as_str();
            let mut observed = BTreeMap::new();
            let mut expected = BTreeSet::new();
            for case in &run.cases {
                for seen in case.statuses.iter().filter(|s| s.operation == name) {
                    *observed.entry(seen.status).or_insert(0) += u64::from(seen.count);
                }
                let wanted = case
                    .expected_statuses
                    .iter()
                    .filter(|s| s.operation == name);
                expected.extend(wanted.map(|s| s.status.clone()));
            }
            let stated = op.operation().stated_statuses.clone();
            let missing = stated
                .iter()
                .filter(|s| !observed.keys().any(|status| status_matches(s, *status)))
                .cloned()
                .collect();
            OperationStatuses {
                operation: name,
                stated,
                expected: expected.into_iter().collect(),
                observed,
                missing,
            }
        })
        .collect()
}

/// How much of one measure got evidence: `got` of `of`, and what lacked it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    pub measure: CoverageMeasure,
    pub got: usize,
    pub of: usize,
    /// Rule ids, or `operation status` pairs, without evidence.
    pub lacking: Vec<String>,
}

impl Measured {
    /// The share with evidence, in percent (100 when there is nothing to cover).
    pub fn percent(&self) -> f64 {
        if self.of == 0 {
            100.0
        } else {
            self.got as f64 * 100.0 / self.of as f64
        }
    }

    /// Whether it reaches `percent`.
    pub fn reaches(&self, percent: u8) -> bool {
        self.got * 100 >= usize::from(percent) * self.of
    }
}

/// Each measure `--require-coverage` can ask for. Rules that are not observable, and 5xx
/// statuses (which no request should provoke: GEN-NO-5XX), are left out of what is counted.
pub fn measure(run: &RunRecord, catalogue: &Catalogue) -> Vec<Measured> {
    let rows = rule_coverage(run, catalogue);
    let rules = |level: Level, measure: CoverageMeasure| {
        let counted: Vec<&RuleCoverage<'_>> = rows
            .iter()
            .filter(|r| r.rule.level == level && r.rule.observable)
            .collect();
        Measured {
            measure,
            got: counted.iter().filter(|r| r.status.has_evidence()).count(),
            of: counted.len(),
            lacking: counted
                .iter()
                .filter(|r| !r.status.has_evidence())
                .map(|r| r.rule.id.clone())
                .collect(),
        }
    };
    let statuses = status_coverage(run);
    let stated = statuses.iter().flat_map(|op| {
        op.stated
            .iter()
            .filter(|s| !s.starts_with('5'))
            .map(move |s| (op, s))
    });
    let (mut got, mut of, mut lacking) = (0, 0, Vec::new());
    for (op, status) in stated {
        of += 1;
        if op.missing.contains(status) {
            lacking.push(format!("{} {status}", op.operation));
        } else {
            got += 1;
        }
    }
    let mut measured = vec![
        rules(Level::Must, CoverageMeasure::Must),
        rules(Level::Should, CoverageMeasure::Should),
        Measured {
            measure: CoverageMeasure::Status,
            got,
            of,
            lacking,
        },
    ];
    // A record without an inventory (real traffic, an older run) has nothing to measure here.
    if !run.meta.constraints.is_empty() {
        measured.push(constraint_coverage(&run.meta.constraints));
        measured.push(statement_coverage(&rows, &run.meta.constraints, catalogue));
    }
    measured
}

/// Stated entries of the trace a client can observe ([`crate::trace::Entry::observable`]),
/// judged in this run: one of their rules got evidence, or one of their request constraints was
/// broken and held. Its `lacking` names each entry with its place in the spec, as summary.html
/// lists them.
fn statement_coverage(
    rows: &[RuleCoverage<'_>],
    constraints: &[ConstraintCoverage],
    catalogue: &Catalogue,
) -> Measured {
    let evidenced: BTreeSet<&str> = rows
        .iter()
        .filter(|r| r.status.has_evidence())
        .map(|r| r.rule.id.as_str())
        .collect();
    let observable = Trace::embedded()
        .entries
        .iter()
        .filter(|e| e.observable(catalogue));
    let (mut got, mut of, mut lacking) = (0, 0, Vec::new());
    for entry in observable {
        of += 1;
        let by_rule = entry
            .judged_by
            .iter()
            .any(|r| evidenced.contains(r.as_str()));
        let by_constraint = constraints
            .iter()
            .any(|c| c.covered() && entry.names_constraint(&c.id));
        if by_rule || by_constraint {
            got += 1;
        } else {
            lacking.push(format!("{} ({})", entry.id, entry.citation()));
        }
    }
    Measured {
        measure: CoverageMeasure::Statements,
        got,
        of,
        lacking,
    }
}

/// Constraints each broken alone and held at its edge (the inventory the generator derives).
fn constraint_coverage(constraints: &[ConstraintCoverage]) -> Measured {
    Measured {
        measure: CoverageMeasure::Constraints,
        got: constraints.iter().filter(|c| c.covered()).count(),
        of: constraints.len(),
        lacking: constraints
            .iter()
            .filter(|c| !c.covered())
            .map(|c| format!("{} ({})", c.id, c.operation))
            .collect(),
    }
}

/// The requirements of `run.meta.coverage_required` it falls short of, each in a sentence. A
/// shard is not judged on its own: its share of the cases covers only part of the contract, so
/// the requirement is judged where the shards are merged.
pub fn shortfalls(run: &RunRecord, catalogue: &Catalogue) -> Vec<String> {
    if run.meta.coverage_required.is_empty() || run.meta.shard.is_some() {
        return Vec::new();
    }
    let measured = measure(run, catalogue);
    run.meta
        .coverage_required
        .iter()
        .filter_map(|required| {
            let m = measured.iter().find(|m| m.measure == required.measure)?;
            (!m.reaches(required.percent)).then(|| shortfall(required, m))
        })
        .collect()
}

fn shortfall(required: &CoverageRequirement, m: &Measured) -> String {
    let what = match m.measure {
        CoverageMeasure::Must => "observable must rules got evidence",
        CoverageMeasure::Should => "observable should rules got evidence",
        CoverageMeasure::Status => "stated statuses (5xx aside) were seen",
        CoverageMeasure::Constraints => "inventoried constraints were broken alone and held",
        CoverageMeasure::Statements => "stated statements of the spec were judged",
    };
    let lacking: Vec<&str> = m.lacking.iter().map(String::as_str).collect();
    format!(
        "{required}: {} of {} {what} ({:.0}%); without: {}",
        m.got,
        m.of,
        m.percent(),
        named_list_long(&lacking)
    )
}

/// Up to ten ids, then a count.
fn named_list_long(ids: &[&str]) -> String {
    const SHOWN: usize = 10;
    let shown = ids
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    match ids.len().saturating_sub(SHOWN) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// Sets `run.meta.coverage_short` from its requirements (see [`shortfalls`]).
pub fn judge_requirements(run: &mut RunRecord, catalogue: &Catalogue) {
    run.meta.coverage_short = shortfalls(run, catalogue);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Evidence;

    fn case(id: &str, verdict: Verdict, rules: &[&str], evidence: &[&str]) -> CaseResult {
        let text = format!(
            r#"{{"id":"{id}","suite":"s","rules":{},"verdict":"{}","findings":[],
                "exchanges":[],"requests":3,"duration_ms":1.0}}"#,
            serde_json::json!(rules),
            verdict.as_str()
        );
        let mut case: CaseResult = serde_json::from_str(&text).expect("a case");
        case.evidence = evidence
            .iter()
            .map(|r| Evidence {
                rule: (*r).to_owned(),
                responses: 2,
            })
            .collect();
        case
    }

    fn row<'a>(rows: &'a [RuleCoverage<'a>], id: &str) -> &'a RuleCoverage<'a> {
        rows.iter().find(|r| r.rule.id == id).expect("a row")
    }

    #[test]
    fn a_case_that_names_a_rule_but_judged_none_of_its_responses_is_no_evidence() {
        let catalogue = Catalogue::embedded();
        let run = RunRecord::of_cases(vec![case(
            "vat.create",
            Verdict::Pass,
            &["VAT-ROUNDTRIP", "VAT-RESPONSE"],
            &["VAT-RESPONSE"],
        )]);
        let rows = rule_coverage(&run, catalogue);
        let judged = row(&rows, "VAT-RESPONSE");
        assert_eq!(judged.status, RuleStatus::Pass);
        assert_eq!((judged.evidence.responses, judged.evidence.passed), (2, 1));
        let named = row(&rows, "VAT-ROUNDTRIP");
        assert_eq!(named.status, RuleStatus::NotRun);
        let why = named.reason.as_deref().unwrap_or("");
        assert!(
            why.contains("vat.create ran, but judged no response"),
            "{why}"
        );
    }

    #[test]
    fn an_old_record_without_evidence_counts_the_rules_its_cases_name() {
        let catalogue = Catalogue::embedded();
        let run = RunRecord::of_cases(vec![case(
            "vat.create",
            Verdict::Pass,
            &["VAT-ROUNDTRIP"],
            &[],
        )]);
        let rows = rule_coverage(&run, catalogue);
        let named = row(&rows, "VAT-ROUNDTRIP");
        assert_eq!(named.status, RuleStatus::Pass);
        assert_eq!((named.evidence.cases, named.evidence.responses), (1, 0));
    }

    #[test]
    fn a_requirement_is_met_at_its_percent_and_short_below_it() {
        let m = Measured {
            measure: CoverageMeasure::Must,
            got: 9,
            of: 10,
            lacking: vec!["X".into()],
        };
        assert!(m.reaches(90) && !m.reaches(91));
        let empty = Measured { got: 0, of: 0, ..m };
        assert!(empty.reaches(100));
    }
}
