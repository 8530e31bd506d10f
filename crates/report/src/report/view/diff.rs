//! The view of a behaviour diff: its English. The diff itself (`report::diff`) is data: which
//! answers differed and what each side answered; here it becomes the headline, one line per fact
//! and per gap, and the table of the two sides, as the console, `diff.md` and `diff.html` say it.

use super::counts::Sides;
use crate::report::diff::{Alike, BehaviourDiff, GapDifference, NotCompared};
use crate::report::plural;
use crate::report::words::case_list;
use std::collections::BTreeSet;
use std::fmt::Write;

/// What the diff compares, as the files of a diff say it.
pub const COMPARED: &str = "Only statuses, bodies' kinds, field names and types, page sizes and error codes are compared: never a value, so generated ids and timestamps are never differences.";

/// Conditions named on a line before the rest are counted.
const CONDITIONS_NAMED: usize = 3;

/// A behaviour diff, as every format says it.
pub struct DiffView<'a> {
    pub diff: &'a BehaviourDiff,
    /// Whether the two answered alike, as far as both ran.
    pub alike: bool,
    /// `3 differences in 2 cases over 1 operation`, or `no difference in behaviour`.
    pub headline: String,
    /// Both runs, side by side.
    pub sides: Sides,
    /// What limits the comparison.
    pub notes: &'a [String],
    /// Per operation, each fact once.
    pub operations: Vec<OperationView>,
    /// The gaps chosen differently that no fact above says.
    pub gaps: Vec<&'a GapDifference>,
    pub not_compared: &'a [NotCompared],
}

/// The facts of one operation.
pub struct OperationView {
    pub operation: String,
    pub facts: Vec<Alike>,
}

impl<'a> DiffView<'a> {
    pub fn new(diff: &'a BehaviourDiff) -> DiffView<'a> {
        let operations: Vec<OperationView> = diff
            .grouped()
            .into_iter()
            .map(|o| OperationView {
                operation: o.operation,
                facts: o.alike,
            })
            .collect();
        let gaps = diff.gaps_apart();
        let side = |s: &'a crate::report::diff::Side| {
            (
                s.name.as_str(),
                s.target.as_str(),
                s.seed,
                s.verdict,
                &s.counts,
            )
        };
        DiffView {
            diff,
            alike: diff.is_empty(),
            headline: headline(diff, &operations, gaps.len()),
            sides: Sides::of([side(&diff.a), side(&diff.b)]),
            notes: &diff.notes,
            operations,
            gaps,
            not_compared: &diff.not_compared,
        }
    }

    /// How many differences the diff holds, each fact and gap counted.
    pub fn count(&self) -> usize {
        self.diff.differences.len() + self.diff.gaps.len()
    }
}

/// How many differences, where.
fn headline(diff: &BehaviourDiff, operations: &[OperationView], apart: usize) -> String {
    if diff.is_empty() {
        return "no difference in behaviour".to_owned();
    }
    let facts: usize = operations.iter().map(|o| o.facts.len()).sum();
    let cases: BTreeSet<&str> = diff.differences.iter().map(|d| d.case.as_str()).collect();
    let mut line = format!(
        "{} in {} over {}",
        plural(facts, "difference"),
        plural(cases.len(), "case"),
        plural(operations.len(), "operation"),
    );
    if apart > 0 {
        let _ = write!(
            line,
            "; {} where the spec is silent",
            plural(apart, "other choice")
        );
    }
    line
}

/// What differed: `status (quote, invoice) under RULE-A, RULE-B and 3 more`.
pub fn what(alike: &Alike) -> String {
    let d = &alike.difference;
    let mut what = d.aspect.as_str().to_owned();
    if let Some(field) = &d.field {
        let _ = write!(what, " of {field}");
    }
    if !alike.kinds.is_empty() {
        let _ = write!(what, " ({})", alike.kinds.join(", "));
    }
    if !alike.conditions.is_empty() {
        let _ = write!(
            what,
            " under {}",
            case_list(&alike.conditions, CONDITIONS_NAMED)
        );
    }
    if !alike.gaps.is_empty() {
        let _ = write!(
            what,
            ", where the spec is silent ({})",
            alike.gaps.join(", ")
        );
    }
    what
}

/// `status (quote) under RULE: A 201; B 200`.
pub fn alike_line(alike: &Alike) -> String {
    let d = &alike.difference;
    format!("{}: A {}; B {}", what(alike), d.a, d.b)
}

/// `GAP-X: operation, what: A one; B other`.
pub fn gap_line(gap: &GapDifference) -> String {
    format!(
        "{}: {}, {}: A {}; B {}",
        gap.gap,
        gap.subject,
        gap.what,
        listed(&gap.a),
        listed(&gap.b)
    )
}

/// Values as one phrase; `none` for no value.
pub fn listed(values: &[String]) -> String {
    if values.is_empty() {
        "none".to_owned()
    } else {
        values.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::{Aspect, Difference};

    #[test]
    fn one_fact_is_said_with_its_kinds_conditions_and_gaps() {
        let fact = Alike {
            difference: Difference {
                operation: "create-vat-id".to_owned(),
                case: "vat.refusals".to_owned(),
                kind: None,
                condition: None,
                aspect: Aspect::Status,
                field: None,
                a: "422".to_owned(),
                b: "400".to_owned(),
            },
            cases: vec!["vat.refusals".to_owned()],
            kinds: vec!["invoice".to_owned(), "quote".to_owned()],
            conditions: ["R-2", "R-1", "R-3", "R-4"].map(str::to_owned).to_vec(),
            gaps: vec!["GAP-STATUS-MAPPING".to_owned()],
        };
        assert_eq!(
            alike_line(&fact),
            "status (invoice, quote) under R-2, R-1, R-3 and 1 more, where the spec is silent \
             (GAP-STATUS-MAPPING): A 422; B 400"
        );
    }
}
