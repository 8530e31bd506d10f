//! What the integration tests share, as ripgrep's one test target shares its command builder:
//! the real binary as a new user runs it, scratch directories, the runtime that serves stand-ins,
//! and the stand-in servers themselves (`standin`), which play implementations with other choices.

pub mod standin;
pub mod wire;

use std::path::PathBuf;
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

/// A fresh, empty scratch directory under cargo's temporary directory of the tests. Every test
/// shares one process, so each module prefixes `name` with its own.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// A reqwest client builder for a test's own requests, with rustls's provider installed as
/// the engine installs it (reqwest is built without one: see `covenant::client::tls_provider`).
pub fn http() -> reqwest::ClientBuilder {
    covenant::client::tls_provider();
    reqwest::Client::builder()
}

/// The runtime a test serves its reference or stand-in on.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A run's exit code and output, for a failed assertion's message.
pub fn says(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
