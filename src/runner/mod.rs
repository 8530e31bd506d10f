//! The runner: resolve the target, select and order the cases it is given, run them
//! concurrently, and collect a [`RunRecord`](crate::verdict::RunRecord).
//!
//! It takes [`RunSettings`](crate::settings::RunSettings) and a list of cases; it never sees a
//! flag, and it does not know which cases exist (the `suite` gathers them). With the embedded
//! reference as its target it starts the reference in-process and tests it over HTTP, exactly as
//! it would test a stranger's server: the runner knows nothing of the reference but its profile.
//! It never writes a report: the command that called it does, from the record.

mod execute;
mod fixtures;
mod phase;
mod plan;
mod preflight;
mod progress;
mod setup;

pub use execute::{run_beside, run_plan, run_quiet};
pub use plan::{describe, execution_order, select};
pub use setup::{prepare, Prepared};
