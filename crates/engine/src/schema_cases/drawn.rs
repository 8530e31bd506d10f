//! The one list of the cases drawn from the schemas, in their stable order: the body cases, the
//! acceptance cases, then the parameter cases. The suite asks for them here, so no caller needs
//! to know which kinds of drawn case exist.

use super::{acceptance, body, invalid_params};
use crate::case::{Case, RunCx};

/// Every case drawn from the schemas: the body cases, the acceptance cases, then the parameter
/// cases.
pub fn cases(run: &RunCx) -> Vec<Case> {
    let mut cases = body::cases(run);
    cases.extend(acceptance::cases());
    cases.extend(invalid_params::cases());
    cases
}
