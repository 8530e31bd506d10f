//! A run that stops before its first case still writes what a CI job reads: report.json with its
//! verdict and the reason, junit.xml with one errored test case naming the problem and its
//! profile key, summary.md and summary.html, and the GitHub annotation and step summary; with
//! the exit code it always had. A wrong flag, a listing or a dry run writes none.

use crate::support::covenant;
use crate::support::standin::{reference, runtime, says, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `covenant run --profile PROFILE` with reports in DIR/reports, annotations on and the step
/// summary in DIR/step-summary.md, plus `extra`.
fn run(dir: &Path, profile: &Path, extra: &[&str]) -> Output {
    covenant()
        .args([
            "run",
            "--seed",
            "3",
            "--ci-annotations",
            "always",
            "--profile",
        ])
        .arg(profile)
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .args(extra)
        .env("GITHUB_STEP_SUMMARY", dir.join("step-summary.md"))
        .env("COVENANT_STATE", dir.join("state.json"))
        .output()
        .expect("covenant runs")
}

/// The reference's profile with `edit` made to its text, written beside it as `name`.
fn edited(profile: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(profile).expect("the profile");
    let out = profile.with_file_name(name);
    std::fs::write(&out, edit(&text)).expect("write the profile");
    out
}

/// The profile's first line starting with `key = ` replaced by `line` (or left out).
fn with_line(text: &str, key: &str, line: &str) -> String {
    let mut done = false;
    text.lines()
        .filter_map(|l| match !done && l.starts_with(&format!("{key} = ")) {
            true => {
                done = true;
                (!line.is_empty()).then(|| line.to_owned())
            }
            false => Some(l.to_owned()),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every report of a stopped run, checked for its verdict, its reason and the key it names.
fn assert_reports(dir: &Path, output: &Output, verdict: &str, headline: &str, names: &str) {
    let reports = dir.join("reports");
    let json: Value = serde_json::from_str(&read(&reports.join("report.json"))).expect("JSON");
    assert_eq!(json["verdict"], verdict, "{}", says(output));
    assert_eq!(json["counts"]["requests"], 0, "no case sent a request");
    assert_eq!(json["cases"].as_array().map(Vec::len), Some(0));
    assert!(json["meta"].to_string().contains(names), "{json}");
    assert_eq!(
        crate::report::run_schema::errors(&json),
        Vec::<String>::new(),
        "report.json keeps its schema"
    );
    let junit = read(&reports.join("junit.xml"));
    assert_eq!(junit.matches("<testcase ").count(), 1, "{junit}");
    assert!(junit.contains("errors=\"1\""), "{junit}");
    assert!(
        junit.contains(&format!("<error message=\"{headline}: ")) && junit.contains(names),
        "{junit}"
    );
    let summary = read(&reports.join("summary.md"));
    assert!(
        summary.contains(headline) && summary.contains(names),
        "{summary}"
    );
    assert!(
        !summary.contains("Rule coverage"),
        "a run that judged nothing shows no coverage: {summary}"
    );
    let html = read(&reports.join("summary.html"));
    assert!(html.contains(headline), "summary.html gives the verdict");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let title = format!("::error title=covenant%3A {headline}::");
    let annotation = stdout.lines().find(|l| l.starts_with(&title));
    assert!(
        annotation.is_some_and(|a| a.contains(names)),
        "{}",
        says(output)
    );
    assert_eq!(read(&dir.join("step-summary.md")), summary);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("report: {}", reports.join("junit.xml").display())),
        "{}",
        says(output)
    );
}

/// Exit 2, and every report a PROFILE PROBLEM naming `key`.
fn assert_profile_problem(dir: &Path, output: &Output, key: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", says(output));
    assert_reports(dir, output, "profile_problem", "PROFILE PROBLEM", key);
}

/// Starts a reference, runs covenant with its profile as `edit` makes it (given the profile's
/// text and the reference's base URL) and `extra`; the scratch directory, the output and the
/// base URL.
fn run_edited(
    name: &str,
    extra: &[&str],
    edit: impl Fn(&str, &str) -> String,
) -> (PathBuf, Output, String) {
    let rt = runtime();
    let dir = scratch(name);
    let (server, profile) = reference(&rt, 4, &dir, "right");
    let base = server.base_url();
    let edited = edited(&profile, "edited.toml", |text| edit(text, &base));
    let output = run(&dir, &edited, extra);
    (dir, output, base)
}

/// The profile's finance token replaced by one the target refuses.
fn wrong_token(text: &str, _: &str) -> String {
    with_line(text, "token", "token = \"fin_wrong\"")
}

#[test]
fn a_token_the_target_refuses_writes_every_report_with_exit_2() {
    let (dir, output, _) = run_edited("stopped-token", &[], wrong_token);
    assert_profile_problem(&dir, &output, "finops.token");
    let junit = read(&dir.join("reports/junit.xml"));
    assert!(
        !junit.contains("fin_wrong"),
        "no secret in a report: {junit}"
    );
    let summary = read(&dir.join("reports/summary.md"));
    assert!(
        summary.contains("found before the first case, so no case ran"),
        "{summary}"
    );
}

#[test]
fn a_key_the_planned_cases_need_missing_writes_every_report_with_exit_2() {
    let (dir, output, _) = run_edited("stopped-missing-key", &[], |text, _| {
        with_line(text, "entity_user_id", "")
    });
    assert_profile_problem(&dir, &output, "finops.entity_user_id");
}

#[test]
fn a_wrong_path_prefix_writes_every_report_with_exit_2() {
    let (dir, output, base) = run_edited("stopped-prefix", &[], |text, base| {
        text.replace(&format!("\"{base}\""), &format!("\"{base}/api\""))
    });
    assert_profile_problem(&dir, &output, "base_url");
    let err = String::from_utf8_lossy(&output.stderr);
    let tried = format!("GET {base}/api/finops/v1/events?limit=1 answered 404");
    assert_eq!(err.matches(&tried).count(), 1, "the URL tried, once: {err}");
}

#[test]
fn an_unreachable_target_writes_every_report_with_exit_3() {
    let gone = "http://127.0.0.1:9";
    let (dir, output, _) = run_edited("stopped-unreachable", &["--timeout", "2"], |text, base| {
        text.replace(&format!("\"{base}\""), &format!("\"{gone}\""))
    });
    assert_eq!(output.status.code(), Some(3), "{}", says(&output));
    assert_reports(&dir, &output, "unreachable", "UNREACHABLE", gone);
    let json: Value = serde_json::from_str(&read(&dir.join("reports/report.json"))).expect("JSON");
    assert_eq!(json["meta"]["target"], gone);
}

#[test]
fn a_wrong_flag_a_listing_or_a_dry_run_writes_no_report() {
    for extra in [&["--concurrency", "0"][..], &["--list"], &["--dry-run"]] {
        let (dir, output, _) = run_edited("stopped-none", extra, wrong_token);
        assert!(
            !dir.join("reports/report.json").exists(),
            "{extra:?}: {}",
            says(&output)
        );
    }
}
