//! The generated cases: payloads drawn by the generator (`crate::generate`) from the schemas and
//! sent to the target, apart from the hand-written scenarios.
//!
//! `body` draws request bodies (a valid and an invalid case per operation that takes a body);
//! `accept` sends every value the schemas state as valid (limits, listed values, nulls) beside a
//! baseline;
//! `params` draws invalid query and header values of the list operations. Both name the rule each
//! drawn value breaks, so a finding is always about a rule of the catalogue.

mod accept;
mod body;
mod params;

pub use accept::cases as accept_cases;
pub use params::cases as param_cases;

use crate::case::{Case, RunCx};

/// Every generated case of the run: the body cases, the acceptance cases, then the parameter
/// cases.
pub fn cases(run: &RunCx) -> Vec<Case> {
    let mut cases = body::cases(run);
    cases.extend(accept::cases());
    cases.extend(params::cases());
    cases
}
