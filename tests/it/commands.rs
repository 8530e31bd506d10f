//! The commands around a run say what the run says: `--filter RULE-ID` runs the cases that
//! judge the rule, `--list` names each case on a line of its own and says when a filter matches
//! nothing, `merge` prints the verdict and the broken rules as `run` does, `baseline` ends its
//! output with a newline, and `compare` leaves out the sections with nothing in them.

use crate::support::{covenant, says, scratch};
use covenant::catalogue::Catalogue;
use std::path::Path;
use std::process::Output;

fn run_in(dir: &Path, args: &[&str]) -> Output {
    covenant()
        .args(args)
        .current_dir(dir)
        .env("COVENANT_STATE", dir.join("state.json"))
        .output()
        .expect("covenant runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_filter_naming_a_rule_id_runs_the_cases_that_judge_it() {
    let dir = scratch("commands-filter-rule");
    let listed = run_in(&dir, &["run", "--list", "--filter", "BANK-TENANT"]);
    assert_eq!(listed.status.code(), Some(0), "{}", says(&listed));
    let ids: Vec<String> = stdout(&listed).lines().map(str::to_owned).collect();
    assert!(!ids.is_empty(), "{}", says(&listed));
    let all = stdout(&run_in(&dir, &["run", "--list"]));
    for id in &ids {
        assert!(all.lines().any(|l| l == id), "{id} is a case of the suite");
        assert!(!id.contains(": "), "a line is the case id alone: {id:?}");
    }
    assert!(ids.len() < all.lines().count(), "the filter selects");

    // Against a target that breaks the rule, those cases find it.
    let ran = run_in(
        &dir,
        &[
            "run",
            "--fault",
            "bank-tenant-header-ignored",
            "--filter",
            "bank-tenant",
            "--seed",
            "1",
            "--report-dir",
            "r",
        ],
    );
    assert_eq!(ran.status.code(), Some(1), "{}", says(&ran));
    assert!(stdout(&ran).contains("[BANK-TENANT]"), "{}", says(&ran));
}

#[test]
fn every_rule_id_of_the_catalogue_selects_cases_or_says_why_none() {
    let dir = scratch("commands-filter-every-rule");
    let all = stdout(&run_in(&dir, &["run", "--list"]));
    let mut selected = Vec::new();
    for rule in &Catalogue::embedded().rules {
        let listed = run_in(&dir, &["run", "--list", "--filter", &rule.id]);
        let ids = stdout(&listed);
        if rule.observable {
            assert_eq!(
                listed.status.code(),
                Some(0),
                "{}: {}",
                rule.id,
                says(&listed)
            );
            assert!(ids.lines().all(|id| all.lines().any(|l| l == id)), "{ids}");
            selected.push((rule.id.as_str(), ids.lines().count()));
        } else {
            assert_eq!(
                listed.status.code(),
                Some(2),
                "{}: {}",
                rule.id,
                says(&listed)
            );
            let err = String::from_utf8_lossy(&listed.stderr);
            let why = format!("{} is not observable, so no case judges it", rule.id);
            assert!(err.contains(&why), "{}: {err}", rule.id);
        }
    }
    // A rule only a response schema holds runs the cases of the operations it judges, not all.
    let comment = selected.iter().find(|(id, _)| *id == "CMT-STATUS-ENUM");
    assert!(
        comment.is_some_and(|(_, n)| *n > 0 && *n < all.lines().count()),
        "{selected:?}"
    );
}

#[test]
fn a_filter_naming_a_schema_rule_finds_its_breach() {
    let dir = scratch("commands-filter-schema-rule");
    let ran = run_in(
        &dir,
        &[
            "run",
            "--fault",
            "cmt-status-uppercase",
            "--filter",
            "CMT-STATUS-ENUM",
            "--seed",
            "1",
            "--report-dir",
            "r",
        ],
    );
    assert_eq!(ran.status.code(), Some(1), "{}", says(&ran));
    assert!(stdout(&ran).contains("[CMT-STATUS-ENUM]"), "{}", says(&ran));
}

#[test]
fn list_with_a_filter_matching_nothing_says_so_and_fails_as_a_usage_error() {
    let dir = scratch("commands-filter-nothing");
    let listed = run_in(&dir, &["run", "--list", "--filter", "NO-SUCH-RULE"]);
    assert_eq!(listed.status.code(), Some(2), "{}", says(&listed));
    let err = String::from_utf8_lossy(&listed.stderr);
    assert!(
        err.contains("--filter NO-SUCH-RULE matches no case"),
        "{}",
        says(&listed)
    );
    assert!(stdout(&listed).is_empty(), "{}", says(&listed));
}

#[test]
fn merge_baseline_and_compare_say_what_the_run_says() {
    let dir = scratch("commands-merge");
    let args = [
        "run",
        "--fault",
        "rcv-create-200",
        "--seed",
        "3",
        "--report-dir",
        "r",
    ];
    let ran = run_in(&dir, &args);
    assert_eq!(ran.status.code(), Some(1), "{}", says(&ran));

    let merged = run_in(&dir, &["merge", "r/report.json", "--report-dir", "m"]);
    assert_eq!(merged.status.code(), Some(1), "{}", says(&merged));
    let text = stdout(&merged);
    assert!(text.contains("covenant: FAILED."), "{}", says(&merged));
    assert!(
        text.contains("\n[RCV-CREATE-201] (must)"),
        "{}",
        says(&merged)
    );

    let baseline = run_in(&dir, &["baseline", "r/report.json"]);
    assert_eq!(baseline.status.code(), Some(0), "{}", says(&baseline));
    let text = stdout(&baseline);
    assert!(text.contains("RCV-CREATE-201"), "{}", says(&baseline));
    assert!(text.ends_with('\n') && !text.ends_with("\n\n"), "{text:?}");

    let compared = run_in(&dir, &["compare", "r/report.json", "r/report.json"]);
    assert_eq!(compared.status.code(), Some(0), "{}", says(&compared));
    let text = stdout(&compared);
    assert!(!text.contains("(0):"), "no empty section: {text}");
    assert!(text.contains("still failing ("), "{text}");
}
