//! Exit codes of the `covenant` binary, in one documented place.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | no failure (with `--strict`: no warning either) |
//! | 1 | at least one failure (with `--strict`, a warning counts too); for `compare`, something newly fails; for `selftest`, a fault undetected or a check unproven |
//! | 2 | usage or profile error: the message names the bad key, value or file |
//! | 3 | the target was unreachable before any case ran |
//!
//! A panic (101) is never an outcome of any profile, command line or target behaviour.

use std::process::ExitCode;

pub const SUCCESS: u8 = 0;
pub const FAILURES: u8 = 1;
pub const USAGE: u8 = 2;
pub const UNREACHABLE: u8 = 3;

/// An error that ends the command, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Fatal {
    pub code: u8,
    pub message: String,
}

impl Fatal {
    pub fn usage(message: impl Into<String>) -> Fatal {
        Fatal {
            code: USAGE,
            message: message.into(),
        }
    }
    pub fn unreachable(message: impl Into<String>) -> Fatal {
        Fatal {
            code: UNREACHABLE,
            message: message.into(),
        }
    }
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.code)
    }
}
