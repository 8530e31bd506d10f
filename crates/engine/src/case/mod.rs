//! The case layer: what scenarios, generated cases and pagination cases are made of, below the
//! runner that executes them.
//!
//! A case is one scenario with an id, the rules it covers, the fixtures it needs, and its body;
//! [`CaseCx`] is what its body sees (the target, the profile, a recorder of exchanges and
//! findings). Nothing here imports the runner or knows which cases exist: the `suite` gathers
//! them, the runner receives them as a list. Cases import this module, never the runner.

mod bodies;
mod context;
mod control;
mod definition;
mod exercise;
mod expect;
mod findings;
mod harmless;
mod request;
mod run_context;
mod safety;
mod stash;
mod tally;
mod tamper;
mod unique;
mod watch;

pub use crate::check::AnswerShapes;
/// What a case needs of the profile: a fixture of the profile's table.
pub use crate::profile::Fixture as Need;
pub use bodies::Bodies;
pub use context::{Abort, BoxFuture, CaseCx, Dispatched, Outcome, Seat, WINDOW};
pub use control::{Control, Echo, Spelling, Variant};
pub use definition::{case_fn, Case, CaseFn};
pub use exercise::{Exercise, Lacking};
pub use expect::Expect;
pub use harmless::harmless;
pub use request::{Call, Given, Outgoing};
pub use run_context::{Generation, RunCx, Until};
pub use stash::{StoredPage, TokenStash};
pub use tally::Tally;
pub use tamper::Tamper;
pub use unique::{absent_uuid, run_tag, unique_code};
pub use watch::FixtureWatch;
