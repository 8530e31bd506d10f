//! The contract as data: the JSON Schemas under `schemas/` and the operations (`operations.json`).
//! (Being built in issue 3.)

use crate::exit::Fatal;

/// `covenant schemas check`.
pub fn check_command() -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant schemas check` is not built yet"))
}

/// `covenant openapi`.
pub fn openapi_command() -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant openapi` is not built yet"))
}
