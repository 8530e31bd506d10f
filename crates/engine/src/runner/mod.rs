//! The runner: resolve the target (or the two of a differential run), select and order the
//! suite's cases, run them concurrently on one scheduler, and collect a
//! [`RunRecord`](crate::verdict::RunRecord) per target.
//!
//! It takes [`RunSettings`](crate::settings::RunSettings) ([`plan`], then [`Planned::run`]); it
//! never sees a flag, and it does not know which cases exist (the `suite` gathers them). With the embedded
//! reference as its target it starts the reference in-process and tests it over HTTP, exactly as
//! it would test a stranger's server: the runner knows nothing of the reference but its profile.
//! It never writes a report: the command that called it does, from the record.

mod execute;
mod fixtures;
mod late;
mod phase;
mod plan;
mod preflight;
mod progress;
mod record;
mod results;
mod schedule;
mod select;
mod setup;
mod stop;

pub use plan::{plan, Audience, Planned, Ran, Sites};
pub use record::now_rfc3339;
