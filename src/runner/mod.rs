//! The runner: plans cases, runs them against a target, collects verdicts. (Being built in
//! issue 5.)

use crate::cli::{RunArgs, SelftestArgs};
use crate::exit::Fatal;

/// `covenant run`.
pub fn command(_args: RunArgs) -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant run` is not built yet"))
}

/// `covenant selftest`.
pub fn selftest_command(_args: SelftestArgs) -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant selftest` is not built yet"))
}
