//! Exit codes of the `covenant` binary, and the errors that end a command, in one documented
//! place.
//!
//! README.md (Exit codes) and `covenant --help` hold the same table; `tests/it/cli.rs` keeps the
//! three alike.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | no failure (with --strict, no warning either) |
//! | 1 | failures: run: a failure or an error of a case, or a warning under --strict; compare: something newly fails; selftest: a fault undetected or a check unproven; merge: the merged run has a failure or an error |
//! | 2 | usage, profile, file or environment error: the message names the bad flag, key, value or file; run and merge: a fixture the target showed to be wrong at its first use (PROFILE PROBLEM); compare: the new run had one |
//! | 3 | UNREACHABLE: the target did not answer before any case ran |
//! | 4 | INCOMPLETE: the run was interrupted (SIGINT or SIGTERM), hit --deadline or --max-requests, gave up on a target's rate limits, planned or ran no case, or its output closed; merge: a shard was incomplete; compare: the new run was |
//! | 5 | COVERAGE SHORT: nothing failed, but fewer rules or statuses got evidence than --require-coverage asks; merge: the merged run did; compare: the new run did |
//! | 6 | DIFFERENT: with --fail-on-difference, the two targets of a run with two --profile, or the two runs of one seed compare was given, behaved differently, and no verdict set another code |
//! | 7 | STALE BASELINE: with --baseline, nothing new failed, but entries of the baseline of known failures hold rules the target no longer breaks (remove them, or pass --accept-stale in the run that removes them) |
//!
//! A run with two `--profile` ends with the code of the worse of its two verdicts (in the
//! precedence of the verdict module's `RunVerdict`), and 6 only where that code is 0.
//!
//! `covenant compare` gives six of them its own meaning ([`COMPARE`]); its `--help` and the
//! README's *Exit codes of `covenant compare`* hold that table.
//!
//! A panic (101) is never an outcome of any profile, command line or target behaviour, nor of a
//! closed stdout.

use std::process::ExitCode;

pub const SUCCESS: u8 = 0;
pub const FAILURES: u8 = 1;
pub const USAGE: u8 = 2;
pub const UNREACHABLE: u8 = 3;
pub const INCOMPLETE: u8 = 4;
pub const COVERAGE: u8 = 5;
pub const DIFFERENT: u8 = 6;
pub const STALE_BASELINE: u8 = 7;

/// `code`, or 6 (DIFFERENT) where it is 0, two targets or two runs behaved differently and
/// `--fail-on-difference` asks: the one rule of exit 6, for `run` and `compare`.
pub fn different(code: u8, fail_on_difference: bool, differs: bool) -> u8 {
    if code == SUCCESS && fail_on_difference && differs {
        DIFFERENT
    } else {
        code
    }
}

/// What each exit code of `covenant compare` means. Coverage the new run lost (newly skipped
/// cases, rules newly not run) is a regression of the run, not of the target: it is listed and
/// never changes the code. What newly fails exits 1 whatever the two targets are; of two
/// targets (more than a port apart, or `--as-targets`), "the new run" is either of them.
pub const COMPARE: [(u8, &str); 6] = [
    (
        SUCCESS,
        "nothing newly fails (newly skipped cases and rules newly not run are listed, not counted); with one seed, the behaviour diff is printed too, and is empty or --fail-on-difference was not given",
    ),
    (
        FAILURES,
        "a case newly fails or errors, whatever the two targets are (another port, another host)",
    ),
    (
        USAGE,
        "a bad flag or a report that cannot be read, or the new run had a profile problem (PROFILE PROBLEM)",
    ),
    (
        INCOMPLETE,
        "the new run is INCOMPLETE, so it cannot show that nothing regressed",
    ),
    (
        COVERAGE,
        "the new run is COVERAGE SHORT of its --require-coverage, so it cannot show that nothing regressed",
    ),
    (
        DIFFERENT,
        "one seed with --fail-on-difference: the runs behaved differently (the behaviour diff is not empty), and no other code applies",
    ),
];

/// [`COMPARE`] as `covenant compare --help` prints it.
pub fn compare_help() -> String {
    let rows: Vec<String> = COMPARE
        .iter()
        .map(|(code, meaning)| format!("  {code}  {meaning}"))
        .collect();
    format!("Exit codes:\n{}", rows.join("\n"))
}

/// An error that ends a command, by cause; [`Fatal::code`] maps each cause to its exit code.
///
/// A target breaking the contract is never a `Fatal`: it is a finding of a case. A `Fatal` is
/// covenant unable to do its job, and the message says what to change.
#[derive(Debug, thiserror::Error)]
pub enum Fatal {
    /// A flag or an argument is wrong (a value out of range, an unknown fault name).
    #[error("{0}")]
    Usage(String),
    /// The profile cannot be read or is wrong; the message names the file and the key.
    #[error("{0}")]
    Profile(String),
    /// A report or output file cannot be read or written; the message names the file.
    #[error("{0}")]
    Files(String),
    /// Covenant could not start what it needs (its async runtime, the embedded reference).
    #[error("{0}")]
    Startup(String),
    /// The target did not answer at all before any case ran.
    #[error("{0}")]
    Unreachable(String),
}

impl Fatal {
    /// The exit code this error ends the process with (see the table above).
    pub fn code(&self) -> u8 {
        match self {
            Fatal::Usage(_) | Fatal::Profile(_) | Fatal::Files(_) | Fatal::Startup(_) => USAGE,
            Fatal::Unreachable(_) => UNREACHABLE,
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.code())
    }
}
