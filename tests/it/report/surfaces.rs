//! What a run's surfaces say, through the binary against the embedded reference: a clean run's
//! summary.md fits 16 KiB with each choice of the target said once per operation; every folded
//! line names its request, and a refusal its reason.

use crate::support::{covenant, says, scratch};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `covenant run` against the embedded reference with `args`; its stdout and report directory.
fn run(name: &str, args: &[&str]) -> (String, PathBuf) {
    let dir = scratch(&format!("surfaces-{name}"));
    let output = covenant()
        .arg("run")
        .args(args)
        .arg("--report-dir")
        .arg(&dir)
        .env("COVENANT_STATE", dir.join("state.json"))
        .output()
        .expect("covenant runs");
    assert!(output.status.code().is_some(), "{}", says(&output));
    (String::from_utf8_lossy(&output.stdout).into_owned(), dir)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn a_clean_runs_summary_fits_16_kib_and_says_each_choice_once_per_operation() {
    let (stdout, dir) = run("clean", &[]);
    assert!(stdout.contains("covenant: PASS."), "{stdout}");
    let summary = read(&dir, "summary.md");
    assert!(
        summary.len() <= 16 * 1024,
        "{} bytes:\n{summary}",
        summary.len()
    );
    let silent = summary
        .split("### What this target chose where the spec is silent")
        .nth(1)
        .expect("the silent-area section");
    let mut said = BTreeSet::new();
    let mut gap = "";
    for line in silent.lines() {
        if let Some(rest) = line.strip_prefix("- `") {
            gap = rest.split('`').next().unwrap_or("");
        } else if let Some(choice) = line.strip_prefix("  - ").filter(|c| !c.starts_with("and ")) {
            // `operation (kinds) under CONDITIONS: what `value` (n responses)`
            let (subject, rest) = choice.split_once(": ").expect("subject: choice");
            let operation = subject.split([' ']).next().unwrap_or("");
            let value = rest.rsplit_once(" (").map_or(rest, |(v, _)| v);
            assert!(
                said.insert((gap.to_owned(), operation.to_owned(), value.to_owned())),
                "said twice in {gap}: {line}\n{silent}"
            );
        }
    }
    assert!(!said.is_empty(), "{silent}");
    assert!(
        !silent.contains("<details><summary>Example"),
        "the examples are in summary.html: {silent}"
    );
    assert!(read(&dir, "summary.html").contains("Example"));
}

#[test]
fn every_folded_line_names_its_request_and_a_refusal_its_reason() {
    let (stdout, dir) = run(
        "folded",
        &[
            "--fault",
            "gen-valid-memo-rejected",
            "--filter",
            "generated.create-receivable.valid",
        ],
    );
    let reason = "POST /finops/v1/receivables, refused 422: memo is not supported for this entity";
    assert!(
        stdout.contains(&format!("    request: {reason}")),
        "the console's warning names the request and the target's reason:\n{stdout}"
    );
    let summary = read(&dir, "summary.md");
    let lines: Vec<&str> = summary
        .lines()
        .filter(|l| l.starts_with("  - `GEN-VALID-ACCEPTED` (should)"))
        .collect();
    assert!(lines.len() > 1, "{summary}");
    let named = summary
        .lines()
        .filter(|l| *l == format!("    - {reason}"))
        .count();
    assert_eq!(
        named,
        lines.len(),
        "each folded line names its request:\n{summary}"
    );
    let junit = read(&dir, "junit.xml");
    assert!(junit.contains(&format!("({reason})")), "{junit}");
}
