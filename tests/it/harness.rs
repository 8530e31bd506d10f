//! The suite as a libtest harness: `examples/conformance.rs` (which `cargo test` builds) starts
//! the embedded reference and runs the plan through libtest-mimic; its `--list` names one trial
//! per case, `SUITE::ID`, user cases included; `--exact` runs one case alone; a user case that
//! fails fails its trial with its rule and libtest's exit code.

use crate::support::{says, scratch};
use std::path::PathBuf;
use std::process::{Command, Output};

/// The example's binary, beside this test's in cargo's target directory.
fn conformance() -> Command {
    let exe = std::env::current_exe().expect("the test binary");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/PROFILE/deps");
    let example: PathBuf = profile_dir.join("examples").join("conformance");
    assert!(
        example.exists(),
        "{} is missing: `cargo test` builds the examples (with --test it alone, first run `cargo \
         build --release --example conformance`)",
        example.display()
    );
    let mut command = Command::new(example);
    command.env("NO_PROXY", "127.0.0.1,localhost");
    command.env_remove("CONFORMANCE_CASE_DIR");
    command
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_harness_lists_one_trial_per_case_named_by_suite_and_id() {
    let output = conformance()
        .arg("--list")
        .output()
        .expect("the example runs");
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let out = stdout(&output);
    let trials: Vec<&str> = out.lines().filter(|l| l.ends_with(": test")).collect();
    assert!(trials.len() > 100, "{out}");
    for name in [
        "vat::vat.create-then-get: test",
        "user::user.tenancy.vat-id-hidden-from-other-organization: test",
        "user::user.regression.get-answers-the-vat-id-asked-for: test",
    ] {
        assert!(trials.contains(&name), "{name}: {out}");
    }
}

#[test]
fn the_harness_runs_one_exact_case_alone() {
    let name = "user::user.tenancy.vat-id-hidden-from-other-organization";
    let output = conformance()
        .args(["--exact", name])
        .output()
        .expect("the example runs");
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let out = stdout(&output);
    assert!(out.contains(&format!("test {name} ... ok")), "{out}");
    assert!(out.contains("1 passed; 0 failed"), "{out}");
}

#[test]
fn a_failing_user_case_fails_its_trial_under_its_rule_with_libtests_exit_code() {
    let dir = scratch("harness-failing");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).expect("a case directory");
    let text = "[[case]]\nname = \"wrong-country\"\nrule = \"VAT-ROUNDTRIP\"\n\
                [[case.step]]\noperation = \"create-vat-id\"\n\
                body = { value = \"DE555555555\", country = \"DE\", type = \"eu_vat\" }\n\
                expect.json = { \"/country\" = \"FR\" }\n";
    std::fs::write(cases.join("mine.toml"), text).expect("a case file");
    let name = "user::user.mine.wrong-country";
    let output = conformance()
        .env("CONFORMANCE_CASE_DIR", &cases)
        .arg(name)
        .output()
        .expect("the example runs");
    assert_eq!(output.status.code(), Some(101), "{}", says(&output));
    let out = stdout(&output);
    assert!(out.contains(&format!("test {name} ... FAILED")), "{out}");
    assert!(
        out.contains("VAT-ROUNDTRIP: step 1: \"/country\" is \"DE\" where the case expects \"FR\""),
        "{out}"
    );
}
