//! The one shape of a fault found in the contract's own files (a schema, operations.json, a
//! rule reference): where it is and why, as data, so that `schemas check` and the registry
//! report alike and a test can compare what they found.

/// Something wrong with a schema file, operations.json or a rule reference: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file} {pointer}: {reason}")]
pub struct Problem {
    /// The file, relative to the repository root (`schemas/quote-create.json`).
    pub file: String,
    /// JSON pointer into the file (empty: the whole file).
    pub pointer: String,
    pub reason: String,
}

impl Problem {
    pub fn new(file: &str, pointer: &str, reason: impl Into<String>) -> Problem {
        Problem {
            file: file.to_string(),
            pointer: pointer.to_string(),
            reason: reason.into(),
        }
    }
}
