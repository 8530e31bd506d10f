//! Cursor pagination invariants. (Being built.)

use crate::runner::Case;

/// The pagination cases.
pub fn cases() -> Vec<Case> {
    Vec::new()
}
