//! Rule coverage: for every rule of the catalogue, the cases that cover it and what they found.
//!
//! A rule is covered by a case that lists it in `CaseResult::rules`, and also by any case with a
//! finding on it (a generic check may catch a rule in a case written for another). The status of
//! a rule is derived from those cases alone; it never guesses beyond them.

use crate::catalogue::{Catalogue, Level, Rule};
use crate::verdict::{RunRecord, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a run shows about one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleStatus {
    /// A finding at `must` level names the rule.
    Fail,
    /// Only findings at `should` level name it.
    Warn,
    /// Every case that covers it ended in an error.
    Error,
    /// No case that covers it reached a verdict, and some were blocked by a refused baseline.
    Inconclusive,
    /// A case covering it ran to a verdict and no finding names it.
    Pass,
    /// Every case that covers it was skipped.
    Skipped,
    /// No case of this run covers it (filtered out, or in another shard).
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
}

/// One row of the coverage matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleCoverage<'a> {
    pub rule: &'a Rule,
    pub status: RuleStatus,
    /// The cases that cover the rule, in run order, with their verdicts.
    pub cases: Vec<(&'a str, Verdict)>,
}

/// The coverage of every rule of `catalogue` by `run`, in catalogue order.
pub fn rule_coverage<'a>(run: &'a RunRecord, catalogue: &'a Catalogue) -> Vec<RuleCoverage<'a>> {
    let index = CoverIndex::of(run);
    catalogue
        .rules
        .iter()
        .map(|rule| {
            let covering = index.cases.get(rule.id.as_str());
            let cases = covering.cloned().unwrap_or_default();
            let findings = index.findings.get(rule.id.as_str());
            RuleCoverage {
                rule,
                status: status_of(rule, findings, &cases),
                cases,
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

/// Rule id -> covering cases and the levels of the findings naming it.
struct CoverIndex<'a> {
    cases: BTreeMap<&'a str, Vec<(&'a str, Verdict)>>,
    findings: BTreeMap<&'a str, Vec<Level>>,
}

impl<'a> CoverIndex<'a> {
    fn of(run: &'a RunRecord) -> CoverIndex<'a> {
        let mut index = CoverIndex {
            cases: BTreeMap::new(),
            findings: BTreeMap::new(),
        };
        for case in &run.cases {
            let named = case.rules.iter().map(String::as_str);
            let found = case.findings.iter().map(|f| f.rule.as_str());
            for rule in named.chain(found) {
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
        }
        index
    }
}

fn status_of(rule: &Rule, findings: Option<&Vec<Level>>, cases: &[(&str, Verdict)]) -> RuleStatus {
    if let Some(levels) = findings {
        return if levels.contains(&Level::Must) {
            RuleStatus::Fail
        } else {
            RuleStatus::Warn
        };
    }
    if !rule.observable {
        return RuleStatus::NotObservable;
    }
    let ran = |v: &Verdict| matches!(v, Verdict::Pass | Verdict::Warn | Verdict::Fail);
    if cases.iter().any(|(_, v)| ran(v)) {
        RuleStatus::Pass
    } else if cases.iter().any(|(_, v)| *v == Verdict::Error) {
        RuleStatus::Error
    } else if cases.iter().any(|(_, v)| *v == Verdict::Inconclusive) {
        RuleStatus::Inconclusive
    } else if cases.is_empty() {
        RuleStatus::NotRun
    } else {
        RuleStatus::Skipped
    }
}
