//! The embedded reference implementation of the API, with deliberate faults.
//! (Being built in issue 4.)

use crate::cli::ServeArgs;
use crate::exit::Fatal;

/// `covenant serve`.
pub fn command(_args: ServeArgs) -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant serve` is not built yet"))
}

/// `covenant list faults`.
pub fn list_faults_command() -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant list faults` is not built yet"))
}
