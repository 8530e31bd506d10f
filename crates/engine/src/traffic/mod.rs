//! Real traffic judged: exchanges a client had with a target, seen through `covenant proxy` or
//! read from a HAR file, judged with the checks the suite applies to its own requests.
//!
//! Each exchange is matched to its operation by method and path (`operations.json`); an exchange
//! with a path the spec does not list is counted, never judged. The target's answer gets the
//! generic checks (statuses, body schemas per status, each area's error bodies, date-times,
//! ids), the stated success status, and what a client's sequence of list reads can show (the
//! page size against the `limit` in force, the first page's previous token, a token that leads
//! back to itself). The request is judged too, as the client's: a body the spec's schemas refuse,
//! a required header missing or malformed, a page token passed back without its `limit`. A
//! client's slip never fails the target; the target's answer to it is judged where the spec says
//! what it must be (a refusal, a 401, a 400, a 422 body of the stated shape).
//!
//! The verdicts are a plain [`RunRecord`]: one case per operation seen (`traffic.<operation>`),
//! holding its first exchange, every exchange with a finding and the first of each status, the
//! rules it judged as evidence, and the shapes of its answers (what the target chose, as a run's
//! cases record them), so that every report, the rule coverage, the section of what the target
//! chose where the spec is silent and the behaviour diff read it as they read a run; the client's
//! slips are cases of their own suite (`client.<operation>`), verdict `known`, so that they are
//! named in every report and never fail the run, not even under `--strict`.
//!
//! This module never writes a report and never prints: the command line does.

mod credential;
pub mod har;
mod judge;
mod operation;
pub mod proxy;
mod said;
mod seen;
mod sequence;
mod tally;

pub use crate::check::{Answer, Observed, KEPT_BODY};
pub use credential::is_credential;
pub use judge::{Judge, JudgeConfig};
pub use said::Said;
pub use seen::Seen;
