//! The self-test: prove that every check can fail.
//!
//! It runs the whole suite against the embedded reference clean, then once per deliberate fault
//! (several at once, each server on its own port), and asks two questions: is every fault
//! detected (a finding on the rule the fault breaks), and is every check of the catalogue made to
//! fail by some fault. Everything goes over HTTP through the reference's profile, exactly as a
//! run against a stranger's server: the self-test knows which fault is on, the suite does not.

use crate::catalogue::Catalogue;
use crate::exit::Fatal;
use crate::reference::{Fault, FaultSet, TOKEN_LIFETIME};
use crate::runner::Audience;
use crate::settings::RunSettings;
use crate::verdict::{CaseResult, Verdict};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Seed of every self-test run, so that the self-test is reproducible.
const SEED: u64 = 1;

/// What one fault's run showed.
#[derive(Debug, Clone, Serialize)]
pub struct FaultOutcome {
    pub fault: String,
    pub rule: String,
    pub detected: bool,
    /// Cases with a finding on the fault's rule.
    pub by: Vec<String>,
    /// Cases with findings on other rules only.
    pub also: Vec<String>,
}

/// The self-test's record, written as `selftest.json`.
#[derive(Debug, Clone, Serialize)]
pub struct SelftestRecord {
    pub seed: u64,
    pub cases_per_operation: u32,
    pub clean_failures: Vec<String>,
    pub clean_warnings: Vec<String>,
    pub faults: Vec<FaultOutcome>,
    pub detected: usize,
    pub mutation_score: f64,
    /// Catalogue checks that no fault made fail.
    pub unproven_checks: Vec<String>,
    pub duration_ms: f64,
}

impl SelftestRecord {
    pub fn passed(&self) -> bool {
        self.clean_failures.is_empty()
            && self.clean_warnings.is_empty()
            && self.detected == self.faults.len()
            && self.unproven_checks.is_empty()
    }
}

/// Runs the clean reference and each fault; `partial` (a chosen subset of faults) skips the
/// unproven-check verdict, which only means something over all faults.
pub async fn selftest(
    faults: &[Fault],
    cases: u32,
    jobs: usize,
    partial: bool,
) -> Result<SelftestRecord, Fatal> {
    let start = Instant::now();
    let clean = run_reference(None, cases).await?;
    let permits = Arc::new(tokio::sync::Semaphore::new(jobs.max(1)));
    let mut tasks = Vec::new();
    for fault in faults {
        let (fault, permits) = (*fault, permits.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await;
            run_reference(Some(fault), cases).await.map(|r| (fault, r))
        }));
    }
    let mut runs = Vec::new();
    for task in tasks {
        let run = task
            .await
            .map_err(|e| Fatal::Startup(format!("a self-test run panicked: {e}")))??;
        runs.push(run);
    }
    let outcomes: Vec<FaultOutcome> = runs.iter().map(|(f, cases)| outcome(*f, cases)).collect();
    let detected = outcomes.iter().filter(|o| o.detected).count();
    let unproven = if partial {
        Vec::new()
    } else {
        unproven_checks(Catalogue::embedded(), &runs)
    };
    let pick = |v: Verdict| {
        clean
            .iter()
            .filter(|c| c.verdict == v)
            .map(|c| c.id.clone())
            .collect::<Vec<_>>()
    };
    let mut clean_failures = pick(Verdict::Fail);
    clean_failures.extend(pick(Verdict::Error));
    Ok(SelftestRecord {
        seed: SEED,
        cases_per_operation: cases,
        clean_failures,
        clean_warnings: pick(Verdict::Warn),
        mutation_score: if outcomes.is_empty() {
            1.0
        } else {
            detected as f64 / outcomes.len() as f64
        },
        detected,
        faults: outcomes,
        unproven_checks: unproven,
        duration_ms: start.elapsed().as_secs_f64() * 1000.0,
    })
}

/// One run of the suite against a reference with at most one fault on: the default run's
/// settings at the self-test's seed, `cases` generated per operation, eight cases at once,
/// adjusted for the fault by [`token_age`].
pub async fn run_reference(fault: Option<Fault>, cases: u32) -> Result<Vec<CaseResult>, Fatal> {
    let faults = fault.map_or_else(FaultSet::none, FaultSet::only);
    let mut settings = RunSettings::new(SEED, faults);
    settings.generation.cases_per_operation = cases;
    settings.token_age = token_age(fault);
    // The self-test keeps the records itself: no report directory.
    settings.report_dir = None;
    let ran = crate::runner::plan(&settings)
        .await?
        .run(Audience::Program)
        .await;
    Ok(ran
        .records
        .into_iter()
        .next()
        .map(|record| record.cases)
        .unwrap_or_default())
}

/// The `--token-age` a fault's run needs. Tokens that expire a second after they are issued
/// show only when the stored tokens are used again later than that, and the default run is
/// shorter than a second: that fault's run waits until its tokens are a second and a half old
/// (about a second more than the run). No other run waits.
pub fn token_age(fault: Option<Fault>) -> Option<Duration> {
    match fault? {
        Fault::BankingTokenExpires => Some(TOKEN_LIFETIME + Duration::from_millis(500)),
        _ => None,
    }
}

/// Whether and by which cases a fault was detected in its run.
pub fn outcome(fault: Fault, cases: &[CaseResult]) -> FaultOutcome {
    let rule = fault.rule();
    let mut by = Vec::new();
    let mut also = Vec::new();
    for case in cases.iter().filter(|c| !c.findings.is_empty()) {
        if case.findings.iter().any(|f| f.rule == rule) {
            by.push(case.id.clone());
        } else {
            also.push(case.id.clone());
        }
    }
    FaultOutcome {
        fault: fault.name().to_owned(),
        rule: rule.to_owned(),
        detected: !by.is_empty(),
        by,
        also,
    }
}

/// Catalogue checks that no fault made fail: a check is proven when some fault's run has a
/// finding on a rule that names the check, in a case the check covers (`case:` and
/// `pagination:` checks name case ids or their prefixes; `schema:` and `generic:` checks apply
/// to every case).
pub fn unproven_checks(catalogue: &Catalogue, runs: &[(Fault, Vec<CaseResult>)]) -> Vec<String> {
    let mut proven = BTreeSet::new();
    let mut all = BTreeSet::new();
    let by_rule: BTreeMap<&str, &Vec<String>> = catalogue
        .rules
        .iter()
        .filter(|r| r.observable)
        .map(|r| (r.id.as_str(), &r.checks))
        .collect();
    for checks in by_rule.values() {
        all.extend(checks.iter().cloned());
    }
    for (_, cases) in runs {
        for case in cases.iter().filter(|c| !c.findings.is_empty()) {
            // The generated checks are proven by any finding of their cases: the rule is the
            // broken constraint's, which the check itself does not name.
            if let Some(check) = generated_check(&case.id) {
                proven.insert(check.to_owned());
            }
            for finding in &case.findings {
                let Some(checks) = by_rule.get(finding.rule.as_str()) else {
                    continue;
                };
                for check in checks.iter().filter(|c| covers(c, &case.id)) {
                    proven.insert(check.clone());
                }
            }
        }
    }
    all.difference(&proven).cloned().collect()
}

/// The catalogue check a generated case carries out.
fn generated_check(case_id: &str) -> Option<&'static str> {
    let rest = case_id.strip_prefix("generated.")?;
    if rest.ends_with(".invalid") {
        Some("generic:negative-rejected")
    } else if rest.ends_with(".valid") {
        Some("generic:positive-accepted")
    } else {
        None
    }
}

fn covers(check: &str, case_id: &str) -> bool {
    match check.split_once(':') {
        Some(("case" | "pagination", prefix)) => {
            case_id == prefix
                || case_id
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('.'))
        }
        _ => true,
    }
}

/// The table and verdict the command prints.
pub fn render(record: &SelftestRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<45} {:<30} {:<9} by", "fault", "rule", "detected");
    for o in &record.faults {
        let by = if o.by.is_empty() {
            format!(
                "(other findings: {})",
                if o.also.is_empty() {
                    "none".to_owned()
                } else {
                    o.also.join(", ")
                }
            )
        } else {
            o.by.join(", ")
        };
        let _ = writeln!(
            out,
            "{:<45} {:<30} {:<9} {}",
            o.fault,
            o.rule,
            if o.detected { "yes" } else { "NO" },
            by
        );
    }
    let _ = writeln!(out);
    for (what, list) in [
        ("failures", &record.clean_failures),
        ("warnings", &record.clean_warnings),
    ] {
        if !list.is_empty() {
            let _ = writeln!(out, "the clean reference has {what}: {}", list.join(", "));
        }
    }
    if !record.unproven_checks.is_empty() {
        let _ = writeln!(
            out,
            "checks no fault makes fail ({}):",
            record.unproven_checks.len()
        );
        for check in &record.unproven_checks {
            let _ = writeln!(out, "  {check}");
        }
    }
    let _ = writeln!(
        out,
        "mutation score: {}/{} faults detected ({:.1}%); {} unproven checks; clean run: {} failures, {} warnings; {:.1} s",
        record.detected,
        record.faults.len(),
        record.mutation_score * 100.0,
        record.unproven_checks.len(),
        record.clean_failures.len(),
        record.clean_warnings.len(),
        record.duration_ms / 1000.0
    );
    let _ = writeln!(
        out,
        "selftest: {}",
        if record.passed() { "ok" } else { "FAILED" }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_checks_cover_their_prefix_only() {
        assert!(covers(
            "case:auth.finance-missing-token",
            "auth.finance-missing-token.get-vat-id"
        ));
        assert!(covers("case:vat.get-unknown", "vat.get-unknown"));
        assert!(!covers("case:vat.get", "vat.get-unknown"));
        assert!(covers("generic:no-5xx", "anything"));
        assert_eq!(
            generated_check("generated.create-vat-id.invalid"),
            Some("generic:negative-rejected")
        );
        assert_eq!(
            generated_check("generated.create-vat-id.valid"),
            Some("generic:positive-accepted")
        );
        assert_eq!(generated_check("vat.create-then-get"), None);
    }
}
