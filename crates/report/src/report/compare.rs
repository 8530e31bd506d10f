//! `covenant compare`: what changed between two runs, case by case and rule by rule.
//!
//! A regression is a case that now fails or errors and did not before (it passed, warned, was
//! skipped or was absent). Only regressions decide the exit code; everything else is news.
//! Coverage lost (a case that ran to a verdict and is skipped now, a rule that had evidence and
//! has none now) is listed on its own: it is a regression of the run, not of the target, so it
//! never changes the exit code.

use super::coverage::{rule_coverage, RuleStatus};
use crate::catalogue::{Catalogue, Level};
use crate::exit;
use crate::verdict::{CaseResult, Counts, RunRecord, RunVerdict, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

/// The difference between two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub old: RunSummary,
    pub new: RunSummary,
    /// Did not fail or error before; fails or errors now.
    pub newly_failing: Vec<CaseChange>,
    /// Failed or errored before; passes or warns now.
    pub fixed: Vec<CaseChange>,
    /// Failed or errored before and still does.
    pub still_failing: Vec<CaseChange>,
    /// Passed, was skipped or absent before; warns now.
    pub newly_warning: Vec<CaseChange>,
    /// Ran to a verdict before (pass, warn or fail); skipped now, `why` says why.
    pub newly_skipped: Vec<CaseChange>,
    /// In the new run only.
    pub added: Vec<CaseChange>,
    /// In the old run only.
    pub removed: Vec<CaseChange>,
    /// Rules that had evidence before (pass, warn or fail) and are not run or skipped now.
    pub newly_not_run: Vec<RuleChange>,
    /// Rules whose status differs.
    pub rules: Vec<RuleChange>,
    /// Why the two runs may not be comparable case for case (different seed or target).
    pub notes: Vec<String>,
}

/// What identifies a run in a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub seed: u64,
    pub target: String,
    pub started_at: String,
    pub verdict: RunVerdict,
    pub counts: Counts,
}

/// One case in both runs, or in one of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseChange {
    pub id: String,
    pub old: Option<Verdict>,
    pub new: Option<Verdict>,
    /// Why the case does not pass in the new run: `RULE-ID: message` of its first finding at
    /// `must` level (or its first finding, or its error, or why it was skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A rule whose status changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleChange {
    pub rule: String,
    pub old: RuleStatus,
    pub new: RuleStatus,
}

/// Compares `old` against `new`; rule statuses are judged against `catalogue`. Whatever their
/// targets, the cases and rules are compared; `as_targets` says the two are taken for two
/// targets even where they differ only by port (the notes say which they were taken for).
pub fn compare(
    old: &RunRecord,
    new: &RunRecord,
    catalogue: &Catalogue,
    as_targets: bool,
) -> Comparison {
    let rules = rule_changes(old, new, catalogue);
    let mut comparison = Comparison {
        old: summary(old),
        new: summary(new),
        newly_failing: Vec::new(),
        fixed: Vec::new(),
        still_failing: Vec::new(),
        newly_warning: Vec::new(),
        newly_skipped: Vec::new(),
        added: Vec::new(),
        removed: Vec::new(),
        newly_not_run: rules
            .iter()
            .filter(|r| r.lost_evidence())
            .cloned()
            .collect(),
        rules,
        notes: notes(old, new, as_targets),
    };
    let old_cases: BTreeMap<&str, &CaseResult> =
        old.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let new_cases: BTreeMap<&str, &CaseResult> =
        new.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    for (id, case) in &new_cases {
        let before = old_cases.get(id).map(|c| c.verdict);
        comparison.classify(case, before);
    }
    for (id, case) in &old_cases {
        if !new_cases.contains_key(id) {
            comparison.removed.push(CaseChange {
                id: (*id).to_owned(),
                old: Some(case.verdict),
                new: None,
                why: None,
            });
        }
    }
    comparison
}

impl Comparison {
    /// Whether something newly fails: the exit code of `covenant compare`.
    pub fn regressed(&self) -> bool {
        !self.newly_failing.is_empty()
    }

    /// The exit code of `covenant compare`: 1 when something newly fails; else, when the new run
    /// is incomplete, blocked by its profile or short of its required coverage, that run's own
    /// code (4, 2 or 5), since it cannot show that nothing regressed; else 0.
    pub fn exit_code(&self) -> u8 {
        if self.regressed() {
            return exit::FAILURES;
        }
        match self.new.verdict {
            RunVerdict::Incomplete | RunVerdict::ProfileProblem | RunVerdict::CoverageShort => {
                self.new.verdict.exit_code()
            }
            _ => exit::SUCCESS,
        }
    }

    fn classify(&mut self, case: &CaseResult, before: Option<Verdict>) {
        let change = CaseChange {
            id: case.id.clone(),
            old: before,
            new: Some(case.verdict),
            why: why(case),
        };
        let failed_before = matches!(before, Some(Verdict::Fail | Verdict::Error));
        let fails_now = matches!(case.verdict, Verdict::Fail | Verdict::Error);
        if before.is_none() {
            self.added.push(change.clone());
        }
        match (failed_before, fails_now) {
            (false, true) => self.newly_failing.push(change),
            (true, true) => self.still_failing.push(change),
            (true, false) if matches!(case.verdict, Verdict::Pass | Verdict::Warn) => {
                self.fixed.push(change)
            }
            (false, false) if case.verdict == Verdict::Warn && before != Some(Verdict::Warn) => {
                self.newly_warning.push(change)
            }
            (_, false) if case.verdict == Verdict::Skip && before.is_some_and(ran_to_verdict) => {
                self.newly_skipped.push(change)
            }
            _ => {}
        }
    }

    /// The case lists, titled, in the order the formats show them.
    pub fn case_lists(&self) -> [(&'static str, &[CaseChange]); 7] {
        [
            ("newly failing", &self.newly_failing),
            ("fixed", &self.fixed),
            ("still failing", &self.still_failing),
            ("newly warning", &self.newly_warning),
            ("newly skipped", &self.newly_skipped),
            ("cases added", &self.added),
            ("cases removed", &self.removed),
        ]
    }

    /// The rule lists, titled, in the order the formats show them.
    pub fn rule_lists(&self) -> [(&'static str, &[RuleChange]); 2] {
        [
            ("rules newly not run", &self.newly_not_run),
            ("rule verdicts changed", &self.rules),
        ]
    }
}

impl RuleChange {
    /// Whether the rule had evidence (a pass, a warning or a failure) and has none now.
    fn lost_evidence(&self) -> bool {
        matches!(
            self.old,
            RuleStatus::Pass | RuleStatus::Warn | RuleStatus::Fail
        ) && matches!(self.new, RuleStatus::NotRun | RuleStatus::Skipped)
    }
}

/// Whether `compare` takes the runs for two targets, and adds their behaviour diff: their base
/// URLs differ by more than a port (another host, scheme or base path), or `as_targets` asks.
pub fn two_targets(old: &RunRecord, new: &RunRecord, as_targets: bool) -> bool {
    as_targets || !old.meta.same_target_but_port(&new.meta)
}

/// Whether a case with this verdict judged the target: it passed, warned or failed.
fn ran_to_verdict(verdict: Verdict) -> bool {
    matches!(verdict, Verdict::Pass | Verdict::Warn | Verdict::Fail)
}

/// `id: pass -> fail (why)`, on one line.
impl std::fmt::Display for CaseChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verdict = |v: Option<Verdict>| v.map_or("absent", Verdict::as_str);
        write!(
            f,
            "{}: {} -> {}",
            self.id,
            verdict(self.old),
            verdict(self.new)
        )?;
        if let Some(why) = &self.why {
            write!(f, " ({})", why.replace(['\n', '\r'], " "))?;
        }
        Ok(())
    }
}

fn summary(run: &RunRecord) -> RunSummary {
    RunSummary {
        seed: run.meta.seed,
        target: run.meta.target.clone(),
        started_at: run.meta.started_at.clone(),
        verdict: run.verdict(),
        counts: run.counts.clone(),
    }
}

fn why(case: &CaseResult) -> Option<String> {
    match case.verdict {
        Verdict::Pass => return None,
        Verdict::Skip => return case.skip_reason.clone(),
        _ => {}
    }
    let first = case
        .findings
        .iter()
        .find(|f| f.level == Level::Must)
        .or_else(|| case.findings.first());
    match first {
        Some(f) => Some(format!("{}: {}", f.rule, f.message)),
        None => case.error.clone(),
    }
}

fn rule_changes(old: &RunRecord, new: &RunRecord, catalogue: &Catalogue) -> Vec<RuleChange> {
    rule_coverage(old, catalogue)
        .into_iter()
        .zip(rule_coverage(new, catalogue))
        .filter(|(before, after)| before.status != after.status)
        .map(|(before, after)| RuleChange {
            rule: before.rule.id.clone(),
            old: before.status,
            new: after.status,
        })
        .collect()
}

fn notes(old: &RunRecord, new: &RunRecord, as_targets: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let one_seed = old.meta.seed == new.meta.seed;
    if !one_seed {
        notes.push(format!(
            "the runs used different seeds ({} and {}): generated cases of the same id carry different payloads",
            old.meta.seed, new.meta.seed
        ));
    }
    let (a, b) = (&old.meta.target, &new.meta.target);
    if two_targets(old, new, as_targets) {
        let diff = if one_seed || old.is_traffic() || new.is_traffic() {
            "their behaviour diff follows"
        } else {
            "run both with the same --seed for the behaviour diff of the two"
        };
        notes.push(format!(
            "the runs tested different targets ({a} and {b}): newly failing means failing \
             against {b} and not against {a}; {diff}"
        ));
    } else if !old.meta.same_target(&new.meta) {
        notes.push(format!(
            "the runs tested one host on two ports ({a} and {b}): compared as one target \
             (--as-targets compares them as two)"
        ));
    }
    for (which, run) in [("old", old), ("new", new)] {
        if let Some(why) = super::words::incomplete(run) {
            notes.push(format!(
                "the {which} run is INCOMPLETE ({why}): what it did not run is not compared"
            ));
        }
        if !run.meta.profile_problems.is_empty() {
            notes.push(format!(
                "the {which} run was blocked by its profile: {}",
                run.meta.profile_problems.join("; ")
            ));
        }
    }
    notes
}
