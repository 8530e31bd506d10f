//! Checks: a response in, findings with rule ids out.
//!
//! The generic checks (`check::generic`) apply to every response of every case, so that no case can forget
//! them: no 5xx, JSON bodies with a JSON media type, the spec's error bodies, the declared status
//! set, and the success schema of the operation. A check names the rule it enforces; the level
//! (fail or warn) always comes from the catalogue, never from the check. A created quote's
//! answer is also judged against the body sent where the spec states what a field holds
//! (`check::receivable`). A check never sends a
//! request and never writes a report.
//!
//! [`AnswerShapes`] (`check::answer_shapes`) records what a target chose, as the shapes of its
//! answers: the runner's cases and the judge of real traffic keep one each.

mod answer_shapes;
mod finding;
mod generic;
pub mod http;
mod json;
mod observed;
mod receivable;
mod slips;

pub use answer_shapes::AnswerShapes;
pub use finding::{finding, Checked};
pub use generic::{
    answer_rules, declared_status, generic, is_json_media_type, json_body, no_5xx, schema_findings,
    schema_rules,
};
pub use observed::{Answer, Observed, KEPT_BODY};
/// What the spec asks of a client's request, and what the answer to a request that breaks it
/// must be: real traffic's requests and the explorer's deliberate ones are judged alike.
pub use slips::{also_allowed, answer_to, slips, stated_success, status_only, Expected, Slip};
