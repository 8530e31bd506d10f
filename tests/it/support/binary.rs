//! The real binary, as ripgrep's tests build their command: run as a new user runs it (no proxy
//! for loopback, none of a CI job's or a terminal's conventions unless a test sets them), and
//! what it said, for a failed assertion's message.

use std::process::{Command, Output};

/// The real binary, as a new user runs it: loopback never goes through a proxy of the machine's.
pub fn covenant() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_covenant"));
    command.env("NO_PROXY", "127.0.0.1,localhost");
    // Whatever job runs the tests: no GitHub annotations, no colours unless a test asks.
    for var in CONVENTIONS {
        command.env_remove(var);
    }
    command
}

/// The environment variables of CI and colour conventions covenant follows.
pub const CONVENTIONS: [&str; 5] = [
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "NO_COLOR",
    "CLICOLOR_FORCE",
    "CLICOLOR",
];

/// A run's exit code and output, for a failed assertion's message.
pub fn says(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
