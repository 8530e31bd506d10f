//! Views: each product of the reports (a run's summary, a compare, a diff) built once, from the
//! record and the catalogue, with its wording. A format only lays a view out (lines for the
//! console, a comment for Markdown, a page for HTML), as hurl builds one `Testcase` per run and
//! each of its formats writes it: what a sentence says, which rules a failure is told under, how
//! the skipped cases are grouped, is decided here once, never again by a format.
//!
//! A view renders nothing and escapes nothing: its text is plain, and each format escapes it as
//! its syntax needs.

mod broken;
mod compare;
mod counts;
mod diff;
mod run;

pub use crate::report::words::{
    baseline_lines, blocked_variants, curl_exports, headline, incomplete, inconclusive_sentence,
    judged_against_sentence, pace_sentence, provenance, traffic_seen, unanswered_sentence,
    verdict_sentence,
};
pub use broken::{
    broken_rules, case_rules, count_sentence, errors_apart, known_tally, lead_rule, request_of,
    shown_exchange, spec_citation, warned_rules, BrokenRule, CaseRule, WarnedRule, MORE_NAMED,
};
pub use compare::CompareView;
pub use counts::{CountWords, SideRow, Sides, SIDE_COLUMNS};
pub use diff::{alike_line, gap_line, listed, what, DiffView, OperationView, COMPARED};
pub use run::{RunView, Skipped};

/// A failed case with one `must` finding per rule named, for the formats' tests.
#[cfg(test)]
pub(crate) use broken::tests::case as failed_case;
