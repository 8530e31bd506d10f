//! The runner end to end, through the real binary and the embedded reference over HTTP: a clean
//! run, generated cases alone, profile errors, reproducibility, and shards merged back into one.

use covenant::verdict::{RunRecord, Verdict};
use std::path::{Path, PathBuf};
use std::process::Output;

fn covenant(args: &[&str]) -> Output {
    // The fixture ledger of a run against a profile lives in the test's temporary directory,
    // never in the home directory.
    let state =
        std::env::temp_dir().join(format!("covenant-runner-state-{}.json", std::process::id()));
    crate::support::covenant()
        .args(args)
        .env("COVENANT_STATE", state)
        .output()
        .expect("covenant runs")
}

/// The scratch directory of `name`, for this test process.
fn temp_dir_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("runner-{name}"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = temp_dir_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn record(dir: &Path) -> RunRecord {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("report.json is a RunRecord")
}

fn run(name: &str, extra: &[&str]) -> (Output, RunRecord) {
    let dir = temp_dir(name);
    let dir_arg = dir.to_str().expect("utf-8 temp path");
    let mut args = vec!["run", "--quiet", "--report-dir", dir_arg];
    args.extend_from_slice(extra);
    let output = covenant(&args);
    let record = record(&dir);
    (output, record)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_clean_reference_passes_with_no_failure_warning_error_or_skip() {
    let (output, record) = run("clean", &["--seed", "7"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let c = &record.counts;
    assert_eq!((c.fail, c.warn, c.error, c.skip), (0, 0, 0, 0), "{c:?}");
    assert!(c.pass > 100, "the whole suite ran: {c:?}");
    assert_eq!(record.meta.seed, 7);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("covenant: PASS."), "{stdout}");
}

#[test]
fn the_clean_reference_passes_with_200_generated_cases_per_operation() {
    let (output, record) = run(
        "cases200",
        &["--seed", "11", "--cases", "200", "--filter", "generated."],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Valid and invalid bodies of the five operations that take one, and the parameters of the
    // seven with a parameter breached there.
    assert_eq!(record.counts.pass, 17, "{:?}", record.counts);
    assert!(record.counts.requests > 2000, "{:?}", record.counts);
}

#[test]
fn generated_cases_alone_catch_faults_that_accept_invalid_bodies() {
    for (fault, rule) in [
        ("rcv-trade-name-max-ignored", "RCV-TRADE-NAME-MAX"),
        ("rcv-withholding-range-ignored", "RCV-WITHHOLDING-RANGE"),
        ("rcv-unknown-props-accepted", "RCV-UNKNOWN-PROPS"),
        ("vat-value-max-ignored", "VAT-VALUE-MAX"),
        ("vc-transaction-usage-accepted", "VC-TRANSACTION-NO-USAGE"),
        ("mbx-domain-charset-unchecked", "MBX-DOMAIN-PATTERN"),
    ] {
        let (output, record) = run(
            &format!("gen-{fault}"),
            &["--seed", "3", "--generated-only", "--fault", fault],
        );
        assert_eq!(
            output.status.code(),
            Some(1),
            "{fault}: {}",
            stderr(&output)
        );
        let hand_written: Vec<String> = covenant::scenario::all()
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert!(
            record.cases.iter().all(|c| !hand_written.contains(&c.id)),
            "{fault}: hand-written cases ran"
        );
        let caught: Vec<_> = record
            .cases
            .iter()
            .filter(|c| c.id.starts_with("generated.") && c.verdict == Verdict::Fail)
            .filter(|c| c.findings.iter().any(|f| f.rule == rule))
            .collect();
        assert!(
            !caught.is_empty(),
            "{fault} was not caught by a generated case under {rule}"
        );
        assert!(
            caught.iter().all(|c| c.payload.is_some()),
            "{fault}: the minimal payload is reported"
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_minimal_payload() {
    let args = [
        "--seed",
        "5",
        "--generated-only",
        "--filter",
        "generated.create-receivable.invalid",
        "--fault",
        "rcv-business-type-max-ignored",
    ];
    let (_, first) = run("seed-a", &args);
    let (_, second) = run("seed-b", &args);
    let payload = |r: &RunRecord| r.cases.iter().find_map(|c| c.payload.clone());
    assert!(
        payload(&first).is_some(),
        "the fault is caught and a payload reported"
    );
    assert_eq!(payload(&first), payload(&second));
}

#[test]
fn an_unknown_profile_key_is_a_usage_error_naming_the_key() {
    let dir = temp_dir("unknown-key");
    let profile = dir.join("p.toml");
    std::fs::write(
        &profile,
        "base_url = \"http://127.0.0.1:9\"\n[finops]\ntokne = \"x\"\n",
    )
    .expect("write profile");
    let output = covenant(&[
        "run",
        "--profile",
        profile.to_str().expect("utf-8"),
        "--report-dir",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("tokne") && err.contains("p.toml"), "{err}");
}

#[test]
fn a_missing_profile_file_is_a_usage_error_naming_the_file() {
    let output = covenant(&["run", "--profile", "/nonexistent/covenant-profile.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("/nonexistent/covenant-profile.toml"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_unreachable_target_exits_3_before_any_case() {
    let dir = temp_dir("unreachable");
    let output = covenant(&[
        "run",
        "--target",
        "http://127.0.0.1:9",
        "--timeout",
        "2",
        "--report-dir",
        dir.to_str().expect("utf-8"),
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("unreachable"),
        "{}",
        stderr(&output)
    );
}

/// Runs shard `shard` of the suite with seed 9; the path of its report.json.
fn shard_report(name: &str, shard: &str) -> PathBuf {
    let (output, _) = run(name, &["--seed", "9", "--shard", shard]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    temp_dir_path(name).join("report.json")
}

fn merge(reports: &[&Path], out_dir: &Path) -> Output {
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(reports.iter().map(|p| p.to_str().expect("utf-8 temp path")));
    args.extend(["--report-dir", out_dir.to_str().expect("utf-8 temp path")]);
    covenant(&args)
}

#[test]
fn shards_merged_give_the_cases_and_verdicts_of_a_single_run() {
    let (_, whole) = run("shard-whole", &["--seed", "9"]);
    let a = shard_report("shard-a", "1/2");
    let b = shard_report("shard-b", "2/2");
    let merged_dir = temp_dir("shard-merged");
    let output = merge(&[&a, &b], &merged_dir);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let merged = record(&merged_dir);
    let verdicts = |r: &RunRecord| {
        let mut v: Vec<(String, Verdict)> =
            r.cases.iter().map(|c| (c.id.clone(), c.verdict)).collect();
        v.sort();
        v
    };
    assert_eq!(verdicts(&merged), verdicts(&whole));
    assert_eq!(merged.counts.pass, whole.counts.pass);
    assert_eq!(
        merged.counts.fail + merged.counts.error,
        0,
        "{:?}",
        merged.counts
    );
    assert_eq!((merged.meta.seed, merged.meta.shard.as_deref()), (9, None));
    for name in ["junit.xml", "summary.html", "summary.md"] {
        assert!(merged_dir.join(name).exists(), "{name} written by merge");
    }
}

#[test]
fn a_shard_without_a_seed_is_a_usage_error_naming_seed_before_anything_is_sent() {
    let dir = temp_dir("shard-no-seed");
    let output = covenant(&[
        "run",
        "--shard",
        "1/2",
        "--report-dir",
        dir.to_str().expect("utf-8 temp path"),
    ]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--shard 1/2 needs --seed") && err.contains("--seed \"$GITHUB_RUN_ID\""),
        "{err}"
    );
    assert!(!dir.join("report.json").exists(), "nothing ran");
}

#[test]
fn merging_one_shard_of_two_is_refused_naming_the_missing_shard() {
    let a = shard_report("shard-alone", "1/2");
    let output = merge(&[&a], &temp_dir("shard-alone-merged"));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("missing shard 2/2 (1 of 2 shards given)"),
        "{err}"
    );
    assert!(
        err.contains(a.to_str().expect("utf-8")),
        "names the file: {err}"
    );
}

#[test]
fn merging_a_shard_twice_is_refused() {
    let a = shard_report("shard-twice", "1/2");
    let b = shard_report("shard-twice-b", "2/2");
    let output = merge(&[&a, &b, &a], &temp_dir("shard-twice-merged"));
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("reports #1 and #3 are both shard 1/2"),
        "{err}"
    );
}

#[test]
fn list_names_every_kind_of_case() {
    let output = covenant(&["run", "--list"]);
    assert_eq!(output.status.code(), Some(0));
    let listed = String::from_utf8_lossy(&output.stdout);
    for id in [
        "vat.create-then-get",
        "velocity.duplicate-id",
        "generated.create-receivable.invalid",
        "transactions.full-read",
    ] {
        assert!(listed.contains(id), "{id} listed");
    }
}

#[test]
fn a_case_that_sends_to_a_banking_operation_is_skipped_without_a_banking_token() {
    // A profile without [banking]: the robustness case sends unparseable bodies to every
    // operation that takes one, the banking velocity control too, so it needs the banking token
    // and is skipped (never passed on a 401 it did not provoke). A dry run sends nothing.
    let dir = temp_dir("no-banking");
    let profile = dir.join("profile.toml");
    std::fs::write(
        &profile,
        "base_url = \"http://127.0.0.1:9\"\n[finops]\ntoken = \"t\"\n\
         organization_id = \"6f9619ff-8b86-4d11-b42d-00c04fc964ff\"\n\
         counterpart_id = \"6f9619ff-8b86-4d11-b42d-00c04fc964fe\"\n\
         comment_ids = [\"6f9619ff-8b86-4d11-b42d-00c04fc964fd\"]\n",
    )
    .expect("write the profile");
    let output = covenant(&[
        "run",
        "--dry-run",
        "--profile",
        profile.to_str().expect("utf-8"),
        "--filter",
        "robustness.unparseable-body",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find(|line| line.contains("robustness.unparseable-body"))
        .unwrap_or_else(|| panic!("the case is planned: {stdout}"));
    assert!(line.starts_with("skip"), "{line}");
    assert!(line.contains("banking.token"), "{line}");
}

/// A run stopped by its request budget counts what it sent: exactly the budget, the requests of
/// parts a failing sibling cut short included (page reads at several sizes side by side).
#[test]
fn a_spent_request_budget_is_the_count_of_requests_said() {
    let (output, record) = run("budget", &["--max-requests", "50"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        record
            .meta
            .interrupted
            .as_deref()
            .is_some_and(|why| why.contains("--max-requests")),
        "{stdout}"
    );
    assert_eq!(record.counts.requests, 50, "{stdout}");
    assert!(stdout.contains(" 50 requests in "), "{stdout}");
}

#[test]
fn a_run_asked_to_end_once_it_has_shown_what_it_was_run_for_skips_the_cases_left() {
    use covenant::case::Until;
    use covenant::reference::FaultSet;
    use covenant::runner::Audience;
    use covenant::settings::RunSettings;
    use std::sync::Arc;
    let mut settings = RunSettings::new(1, FaultSet::none());
    settings.report_dir = None;
    // One case at a time: the first to pass ends the run.
    settings.concurrency = 1;
    settings.until = Some(Until(Arc::new(|case| case.verdict == Verdict::Pass)));
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let ran = rt.block_on(async {
        let planned = covenant::runner::plan(&settings).await.expect("a plan");
        planned.run(Audience::Program).await
    });
    let cases = &ran.records[0].cases;
    let passed = cases.iter().filter(|c| c.verdict == Verdict::Pass).count();
    assert_eq!(passed, 1, "only the case that ended the run passed");
    let skipped: Vec<_> = cases
        .iter()
        .filter(|c| c.verdict == Verdict::Skip)
        .collect();
    assert_eq!(
        skipped.len(),
        cases.len() - 1,
        "every other case is skipped"
    );
    assert!(
        skipped.iter().all(|c| c
            .skip_reason
            .as_deref()
            .is_some_and(|r| r.contains("the run has shown what it was run for"))),
        "{:?}",
        skipped.iter().map(|c| &c.skip_reason).collect::<Vec<_>>()
    );
    assert!(
        ran.records[0].meta.interrupted.is_some(),
        "the record says the run ended early"
    );
}
