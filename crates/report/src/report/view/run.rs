//! The view of a finished run: what its summary says in every format (the console's closing
//! lines, `summary.md`, `summary.html`), worked out once from the record and the catalogue.

use super::broken::{broken_rules, errors_apart, warned_rules, BrokenRule, WarnedRule};
use super::counts::CountWords;
use crate::catalogue::{Catalogue, Gap};
use crate::report::coverage::{
    measure, rule_coverage, status_counts, status_coverage, Measured, OperationStatuses,
    RuleCoverage, RuleStatus,
};
use crate::report::gaps::{gap_observations, GapObservations};
use crate::report::words::{self, verdict_line};
use crate::verdict::{CaseResult, CoverageMeasure, RunRecord, RunVerdict, Verdict};

/// A run's summary, as every format says it.
pub struct RunView<'a> {
    pub record: &'a RunRecord,
    /// The rules and gaps the run is told against.
    pub catalogue: &'a Catalogue,
    pub verdict: RunVerdict,
    /// Why the run is incomplete, where it is (a run may be incomplete and have failed too).
    pub incomplete: Option<String>,
    /// Why the verdict is what it is, where the cases' statuses alone do not say it (an
    /// incomplete run, the profile's problems, an unreachable target, coverage short): JUnit's
    /// `run.verdict` case and the CI annotation give it.
    pub reason: Option<String>,
    /// The verdict's word (with why, for an incomplete run): the console's verdict line.
    pub headline: String,
    /// The verdict in a sentence (its word and why, for an incomplete run): the heading of
    /// summary.md and summary.html.
    pub sentence: String,
    /// The line before the curls: the variables they name in place of secrets, and what each
    /// must hold (none when no curl names one).
    pub curl_exports: Option<String>,
    /// The counts sentence.
    pub tally: CountWords,
    /// Each broken rule once, with its first example and the other cases folded.
    pub broken: Vec<BrokenRule<'a>>,
    /// The failed cases no broken rule shows: errors without a `must` finding.
    pub errors: Vec<&'a CaseResult>,
    /// Each `should` rule warned of once, with its first case and the others.
    pub warned: Vec<WarnedRule<'a>>,
    /// The skipped cases, each reason once.
    pub skipped: Vec<Skipped<'a>>,
    /// Every rule of the catalogue: its status and its evidence.
    pub coverage: Vec<RuleCoverage<'a>>,
    /// How many rules have each status, in [`RuleStatus::ALL`]'s order (none left out).
    pub rule_counts: Vec<(RuleStatus, usize)>,
    /// The share of rules and statuses with evidence.
    pub measures: Vec<Measured>,
    /// Per operation, the statuses the spec states against those seen.
    pub statuses: Vec<OperationStatuses>,
    /// What the spec leaves open.
    pub gaps: &'a [Gap],
    /// Per gap, what the target chose there.
    pub silent: Vec<GapObservations>,
}

/// One reason cases were skipped for, and the cases it held back, in the order first skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped<'a> {
    pub reason: &'a str,
    pub cases: Vec<String>,
}

impl<'a> RunView<'a> {
    pub fn new(record: &'a RunRecord, catalogue: &'a Catalogue) -> RunView<'a> {
        let coverage = rule_coverage(record, catalogue);
        let counts = status_counts(&coverage);
        let rule_counts = RuleStatus::ALL
            .iter()
            .filter_map(|s| counts.get(s).map(|n| (*s, *n)))
            .collect();
        let verdict = record.verdict();
        let incomplete = words::incomplete(record);
        RunView {
            record,
            catalogue,
            verdict,
            headline: verdict_line(verdict, incomplete.as_deref(), true),
            sentence: verdict_line(verdict, incomplete.as_deref(), false),
            reason: words::verdict_reason(record),
            curl_exports: words::curl_exports(record, &|plain| plain.to_owned()),
            incomplete,
            tally: CountWords::of(&record.counts),
            broken: broken_rules(record, catalogue),
            errors: errors_apart(record),
            warned: warned_rules(record, catalogue),
            skipped: skipped_by_reason(record),
            coverage,
            rule_counts,
            measures: measure(record, catalogue),
            statuses: status_coverage(record),
            gaps: &catalogue.gaps,
            silent: gap_observations(record, catalogue),
        }
    }

    /// What the profile's problems held back, as every format says it after its heading: the
    /// cases that needed them, or the whole run where they were found before its first case.
    pub fn profile_problems_held(&self) -> &'static str {
        if self.record.stopped_before_cases() {
            "found before the first case, so no case ran"
        } else {
            "the cases that needed these were blocked, not judged"
        }
    }

    /// Why the run is incomplete where its verdict line does not say it already (a run that
    /// failed, and stopped early too): each cause said once.
    pub fn incomplete_apart(&self) -> Option<&str> {
        match self.verdict {
            RunVerdict::Incomplete => None,
            _ => self.incomplete.as_deref(),
        }
    }

    /// How many cases were skipped.
    pub fn skipped_count(&self) -> usize {
        self.skipped.iter().map(|s| s.cases.len()).sum()
    }

    /// `12/40`: how many of a measure have evidence, of how many.
    pub fn share(&self, measure: CoverageMeasure) -> String {
        self.measures
            .iter()
            .find(|m| m.measure == measure)
            .map_or_else(String::new, |m| format!("{}/{}", m.got, m.of))
    }

    /// Whether `--strict` alone failed the run: warnings, no failure.
    pub fn failed_by_strict(&self) -> bool {
        let c = &self.record.counts;
        c.warnings_failed > 0 && c.warnings_failed == c.fail && self.verdict == RunVerdict::Fail
    }

    /// What the spec-owners' section says the run saw by: a run's cases or a client's traffic.
    pub fn seen_by(&self) -> &'static str {
        if self.record.is_traffic() {
            "the traffic showed"
        } else {
            "the run saw"
        }
    }
}

/// The skipped cases of a run by their reason, in the order first skipped: one cause (a
/// profile key the target does not know, a fixture not given) is said once in every format,
/// with the cases it held back.
fn skipped_by_reason(run: &RunRecord) -> Vec<Skipped<'_>> {
    let mut reasons: Vec<Skipped<'_>> = Vec::new();
    for case in run.cases.iter().filter(|c| c.verdict == Verdict::Skip) {
        let reason = case.skip_reason.as_deref().unwrap_or("no reason recorded");
        match reasons.iter_mut().find(|s| s.reason == reason) {
            Some(skipped) => skipped.cases.push(case.id.clone()),
            None => reasons.push(Skipped {
                reason,
                cases: vec![case.id.clone()],
            }),
        }
    }
    reasons
}
