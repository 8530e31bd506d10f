//! Hand-written scenarios: the stateful cases of the suite, one file per area.

use crate::runner::{Case, RunCx};

/// Every hand-written case, in a stable order.
pub fn all() -> Vec<Case> {
    Vec::new()
}

/// The generated cases for the run.
pub fn generated(_run: &RunCx) -> Vec<Case> {
    Vec::new()
}
