//! The view of `covenant compare`: what changed between two runs, as the console and
//! `compare.md` say it.

use super::counts::Sides;
use crate::report::compare::{CaseChange, Comparison, RuleChange};

/// A comparison of two runs, as every format says it.
pub struct CompareView<'a> {
    pub comparison: &'a Comparison,
    /// Whether something newly fails (the exit code).
    pub regressed: bool,
    /// `1 newly failing`, or `nothing newly fails`; then the coverage lost, if any.
    pub headline: String,
    /// The old run and the new, side by side.
    pub sides: Sides,
    /// Why the two runs may not be comparable case for case.
    pub notes: &'a [String],
    /// The case lists, titled (`newly failing`), each case on one line, empty ones included.
    pub cases: Vec<(&'static str, Vec<String>)>,
    /// The rule lists, titled (`rules newly not run`), with each rule's old and new status.
    pub rules: Vec<(&'static str, &'a [RuleChange])>,
}

impl<'a> CompareView<'a> {
    pub fn new(comparison: &'a Comparison) -> CompareView<'a> {
        let mut headline = if comparison.regressed() {
            format!("{} newly failing", comparison.newly_failing.len())
        } else {
            "nothing newly fails".to_owned()
        };
        if !comparison.newly_skipped.is_empty() || !comparison.newly_not_run.is_empty() {
            headline.push_str(&format!(
                "; coverage lost: {} cases newly skipped, {} rules newly not run",
                comparison.newly_skipped.len(),
                comparison.newly_not_run.len()
            ));
        }
        let (old, new) = (&comparison.old, &comparison.new);
        let sides = Sides::of([
            (
                "old",
                old.target.as_str(),
                old.seed,
                old.verdict,
                &old.counts,
            ),
            (
                "new",
                new.target.as_str(),
                new.seed,
                new.verdict,
                &new.counts,
            ),
        ]);
        CompareView {
            comparison,
            regressed: comparison.regressed(),
            headline,
            sides,
            notes: &comparison.notes,
            cases: comparison
                .case_lists()
                .into_iter()
                .map(|(title, cases)| (title, cases.iter().map(CaseChange::to_string).collect()))
                .collect(),
            rules: comparison.rule_lists().into_iter().collect(),
        }
    }
}
