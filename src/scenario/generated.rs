//! Generated cases: bodies drawn from the schemas (valid and invalid), sent to the target.
//! (Being built with the generator.)

use crate::runner::{Case, RunCx};

/// The generated cases for the run.
pub fn generated(_run: &RunCx) -> Vec<Case> {
    Vec::new()
}
