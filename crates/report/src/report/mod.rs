//! Reports: plain data in, files and console text out. Three products: a finished run
//! ([`RunRecord`]), the comparison of two runs ([`Comparison`], `covenant compare`) and the
//! behaviour diff of two targets ([`BehaviourDiff`]); plus `covenant merge`, which works on JSON
//! reports alone.
//!
//! What a product holds is worked out once, by a module that renders nothing ([`compare()`],
//! [`behaviour_diff`], the coverage, the gap observations, the latency), and what it says, once,
//! by its [`view`] (the counts sentence, the broken rules, the skipped cases by reason, the two
//! runs side by side, the diff's English). Each output format is one module that lays out every
//! view it has a file or a text for, with one signature per product: the run through
//! [`Reporter`], `compare(&Comparison) -> String` and `diff(&BehaviourDiff) -> String`.
//!
//! | format | run | compare | diff |
//! |---|---|---|---|
//! | [`console`] | `summary` | `compare` | `diff` |
//! | [`junit`] | `junit.xml` | | |
//! | [`json`] | `report.json` | `compare.json` | `diff.json` |
//! | [`html`] | `summary.html` | | `diff.html` |
//! | [`markdown`] | `summary.md` | `compare.md` | `diff.md` |
//! | [`github`] | workflow commands, the step summary | | |
//!
//! A reporter reads plain data and never sends a request; the runner hands it a finished
//! record. Everything a reporter writes passes through [`redact`] first, so a secret that
//! slipped into a body or header never reaches a file, whatever the format escapes.

#[cfg(test)]
mod agreement;
mod bodies;
mod compare;
mod coverage;
mod diff;
mod error;
mod gaps;
mod latency;
mod merge;
mod redact;
mod reporter;
mod traffic_diff;
mod words;
mod write;

pub mod trace;

pub mod view;

pub mod console;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;

use crate::style::plural;
pub use compare::{compare, two_targets, CaseChange, Comparison, RuleChange};
pub use coverage::{
    judge_requirements, measure, rule_coverage, status_coverage, Measured, OperationStatuses,
    RuleCoverage, RuleStatus,
};
pub use diff::{
    behaviour_diff, Alike, Aspect, BehaviourDiff, Difference, GapDifference, NotCompared,
    OperationDifferences, Side,
};
pub use error::ReportError;
pub use gaps::{
    field_list, fill_under, gap_observations, merged_types, stated_limit, Example, GapObservations,
    Observation, Subject,
};
pub use html::Html;
pub use json::Json;
pub use junit::Junit;
pub use latency::{latency_by_operation, Latency};
pub use markdown::Markdown;
pub use merge::merge;
pub use reporter::Reporter;
pub use traffic_diff::traffic_diff;
pub use view::{
    broken_rules, case_rules, count_sentence, errors_apart, lead_rule, BrokenRule, CaseRule,
    RunView,
};
pub use write::{
    as_shown, load, reporters, writable, write_all, write_all_with, write_compare, write_diff,
    write_file, write_view,
};

#[cfg(test)]
pub(crate) mod tests;
