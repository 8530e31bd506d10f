//! The suite as a libtest harness, as a crate that implements the API would run it from its own
//! `tests/conformance.rs` (`harness = false` in its `[[test]]`): start the server under test,
//! write its profile, and hand covenant's settings to `covenant::harness::main`. Here the server
//! is covenant's embedded reference on a free port; the user cases of `cases/examples` run too.
//!
//! ```sh
//! cargo run --release --example conformance -- --list
//! cargo run --release --example conformance -- --exact user::user.tenancy.vat-id-hidden-from-other-organization
//! cargo run --release --example conformance -- vat.          # a name filter, as with any test
//! ```

use covenant::reference::{start, FaultSet, ReferenceConfig};
use covenant::settings::{RunSettings, TargetChoice};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    // The server under test, in a runtime of its own that lives as long as the trials run.
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let server = runtime
        .block_on(start(ReferenceConfig::default()))
        .expect("the reference starts");
    let scratch = std::env::temp_dir().join(format!("covenant-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let profile = scratch.join("profile.toml");
    std::fs::write(&profile, server.profile().to_toml()).expect("the profile is written");

    // One seed for every process: `cargo nextest run` starts one per trial, and each must plan
    // the same cases.
    let mut settings = RunSettings::new(1, FaultSet::none());
    settings.target = TargetChoice::Given {
        url: None,
        profile: Some(profile),
    };
    settings.state = scratch.join("fixtures.json");
    settings.case_dirs = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases/examples")];
    // More case files, as `--case-dir` would give them (covenant's tests add a failing one).
    if let Some(dir) = std::env::var_os("CONFORMANCE_CASE_DIR") {
        settings.case_dirs.push(PathBuf::from(dir));
    }
    let code = covenant::harness::main(settings);
    let _ = std::fs::remove_dir_all(&scratch);
    code
}
