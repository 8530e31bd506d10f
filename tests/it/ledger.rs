//! Fixtures that survive reruns: the real binary run again and again against one `covenant
//! serve`, with one state file. Each run deletes fixtures no earlier run deleted; when the
//! profile's deletable lists run out, the delete cases are skipped with the reason, never
//! failed. Two runs at once against one target and state file never take one fixture twice.
//! `--dry-run` and `--read-only` consume nothing, a corrupt state file is a usage error, and the
//! embedded reference reads and writes no state at all.

use covenant::profile::Profile;
use covenant::verdict::{CaseResult, RunRecord, Verdict};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};

const TAG: &str = "tag.delete-twice";
const ACCOUNT: &str = "bank-account.delete-twice";

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    crate::support::scratch(&format!("ledger-{name}"))
}

/// `covenant serve --port 0`, stopped when dropped.
struct RunningServe {
    child: Child,
    profile: Profile,
}

impl RunningServe {
    fn start(dir: &Path) -> RunningServe {
        let path = dir.join("served.toml");
        let mut child = crate::support::covenant()
            .args(["serve", "--port", "0", "--seed", "4", "--profile-out"])
            .arg(&path)
            .stdout(Stdio::piped())
            .spawn()
            .expect("covenant serve starts");
        let stdout = child.stdout.take().expect("a stdout pipe");
        // It says where it listens, then that the profile is written, then serves.
        let written = std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.starts_with("profile written"));
        assert!(written, "covenant serve wrote no profile");
        let profile = Profile::load(&path).expect("the served profile loads");
        RunningServe { child, profile }
    }
}

impl Drop for RunningServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The served profile with only the first `n` fixtures of each deletable list, written to `dir`.
fn profile_with(serve: &RunningServe, n: usize, dir: &Path) -> PathBuf {
    let mut profile = serve.profile.clone();
    let finops = profile
        .finops
        .as_mut()
        .expect("the reference gives [finops]");
    assert!(
        finops.deletable_tag_ids.len() >= 3 && finops.deletable_bank_accounts.len() >= 3,
        "the reference gives at least 3 deletable fixtures of each list"
    );
    finops.deletable_tag_ids.truncate(n);
    finops.deletable_bank_accounts.truncate(n);
    let path = dir.join(format!("profile-{n}.toml"));
    std::fs::write(&path, profile.to_toml()).expect("write the profile");
    path
}

fn covenant(args: &[&str], state: &Path) -> Output {
    crate::support::covenant()
        .args(args)
        .arg("--state")
        .arg(state)
        .output()
        .expect("covenant runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The arguments of `covenant run --profile P` with `extra`, reporting to `reports-NAME` beside
/// the profile, and that directory.
fn run_args(name: &str, profile: &Path, extra: &[&str]) -> (Vec<String>, PathBuf) {
    let reports = profile.with_file_name(format!("reports-{name}"));
    let args: Vec<String> = [
        "run",
        "--quiet",
        "--seed",
        "1",
        "--profile",
        profile.to_str().expect("utf-8"),
        "--report-dir",
        reports.to_str().expect("utf-8"),
        // The deletes of passing cases are read from their exchanges.
        "--keep-exchanges",
    ]
    .iter()
    .chain(extra)
    .map(|a| (*a).to_owned())
    .collect();
    (args, reports)
}

/// The record a run wrote to `reports`.
fn record_in(name: &str, reports: &Path, output: &Output) -> RunRecord {
    let text = std::fs::read_to_string(reports.join("report.json"))
        .unwrap_or_else(|e| panic!("{name}: no report.json ({e}): {}", stderr(output)));
    serde_json::from_str(&text).expect("report.json is a RunRecord")
}

/// `covenant run --profile P --state S` with `extra`, and its record.
fn run(name: &str, profile: &Path, state: &Path, extra: &[&str]) -> (Output, RunRecord) {
    let (args, reports) = run_args(name, profile, extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = covenant(&args, state);
    let record = record_in(name, &reports, &output);
    (output, record)
}

fn case<'a>(record: &'a RunRecord, id: &str) -> &'a CaseResult {
    record
        .cases
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("{id} is in the report"))
}

/// The paths a case sent DELETEs to.
fn deleted(record: &RunRecord, id: &str) -> Vec<String> {
    case(record, id)
        .exchanges
        .iter()
        .filter(|e| e.request.method == "DELETE")
        .map(|e| e.request.url.clone())
        .collect()
}

fn tag_path(serve: &RunningServe, i: usize) -> String {
    let f = serve.profile.finops.as_ref().expect("[finops]");
    format!("/finops/v1/tags/{}", f.deletable_tag_ids[i])
}

fn account_path(serve: &RunningServe, i: usize) -> String {
    let a = &serve
        .profile
        .finops
        .as_ref()
        .expect("[finops]")
        .deletable_bank_accounts[i];
    format!(
        "/finops/v1/counterparts/{}/bank-accounts/{}",
        a.counterpart_id, a.bank_account_id
    )
}

#[test]
fn runs_against_one_server_take_fresh_fixtures_until_they_run_out_then_skip_with_the_reason() {
    let dir = scratch("reruns");
    let serve = RunningServe::start(&dir);
    let three = profile_with(&serve, 3, &dir);
    let state = dir.join("state").join("fixtures.json");
    for i in 0..3 {
        let (output, record) = run(&format!("run-{i}"), &three, &state, &[]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "run {i}: {}",
            stderr(&output)
        );
        let c = &record.counts;
        assert_eq!((c.fail, c.error), (0, 0), "run {i}: {c:?}");
        for id in [TAG, ACCOUNT] {
            let result = case(&record, id);
            assert_eq!(result.verdict, Verdict::Pass, "run {i}: {id}: {result:?}");
        }
        // Each run deletes the next fixture of each list: once under the other organization
        // (which must not act), then twice as its owner (the second must be refused).
        let tag = deleted(&record, TAG);
        assert_eq!(tag.len(), 3, "run {i}: {tag:?}");
        assert!(
            tag.iter().all(|u| u.ends_with(&tag_path(&serve, i))),
            "run {i}: {tag:?}"
        );
        let account = deleted(&record, ACCOUNT);
        assert_eq!(account.len(), 3, "run {i}: {account:?}");
        assert!(
            account
                .iter()
                .all(|u| u.ends_with(&account_path(&serve, i))),
            "run {i}: {account:?}"
        );
        if i == 0 {
            // --read-only consumes nothing: the fourth run below still finds none left.
            let (output, _) = run(
                "read-only",
                &three,
                &state,
                &["--read-only", "--cases", "0"],
            );
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        }
    }
    let ledger: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("the state is written"))
            .expect("the state is JSON");
    let consumed = &ledger["entries"][0]["consumed"];
    assert_eq!(
        consumed["finops.deletable_tag_ids"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "{ledger}"
    );

    // The ids ran out: the delete cases are skipped with the reason, and the run passes.
    let (output, record) = run("run-3", &three, &state, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for (id, key) in [
        (TAG, "finops.deletable_tag_ids"),
        (ACCOUNT, "finops.deletable_bank_accounts"),
    ] {
        let result = case(&record, id);
        assert_eq!(result.verdict, Verdict::Skip, "{id}: {result:?}");
        let why = result.skip_reason.as_deref().unwrap_or("");
        assert!(
            why.contains("all 3 ") && why.contains("deleted by earlier runs"),
            "{id}: {why}"
        );
        assert!(why.contains(&state.display().to_string()), "{id}: {why}");
        assert!(
            why.ends_with(&format!("add fresh ids to {key}")),
            "{id}: {why}"
        );
        assert!(deleted(&record, id).is_empty(), "{id} sent a DELETE");
    }

    // A fresh id added to the profile is taken next.
    let four = profile_with(&serve, 4, &dir);
    let filter = ["--filter", TAG, "--filter", ACCOUNT];
    let (output, record) = run("run-4", &four, &state, &filter);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(case(&record, TAG).verdict, Verdict::Pass);
    assert!(deleted(&record, TAG)[0].ends_with(&tag_path(&serve, 3)));
    assert!(deleted(&record, ACCOUNT)[0].ends_with(&account_path(&serve, 3)));
}

#[test]
fn two_runs_at_once_against_one_target_and_state_file_never_take_one_fixture_twice() {
    let dir = scratch("at-once");
    let serve = RunningServe::start(&dir);
    let three = profile_with(&serve, 3, &dir);
    let state = dir.join("state").join("fixtures.json");
    let filter = ["--filter", TAG, "--filter", ACCOUNT];
    // Both started before either is waited for: their takings overlap in time.
    let started: Vec<(&str, Child, PathBuf)> = ["a", "b"]
        .into_iter()
        .map(|name| {
            let (args, reports) = run_args(name, &three, &filter);
            let child = crate::support::covenant()
                .args(&args)
                .arg("--state")
                .arg(&state)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("covenant run starts");
            (name, child, reports)
        })
        .collect();
    let mut took: Vec<(String, String)> = Vec::new();
    for (name, child, reports) in started {
        let output = child.wait_with_output().expect("covenant run ends");
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        let record = record_in(name, &reports, &output);
        // A fixture the other run had deleted would meet a 404 and fail its case.
        for id in [TAG, ACCOUNT] {
            let result = case(&record, id);
            assert_eq!(result.verdict, Verdict::Pass, "{name}: {id}: {result:?}");
        }
        let first = |id: &str| deleted(&record, id).first().cloned().expect("a DELETE");
        took.push((first(TAG), first(ACCOUNT)));
    }
    let (a, b) = (&took[0], &took[1]);
    assert_ne!(a.0, b.0, "both runs deleted one tag");
    assert_ne!(a.1, b.1, "both runs deleted one bank account");
    // The state records each fixture once, the two runs' takings both kept.
    let ledger: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).expect("the state is written"))
            .expect("the state is JSON");
    assert_eq!(
        ledger["entries"].as_array().map(Vec::len),
        Some(1),
        "{ledger}"
    );
    let consumed = &ledger["entries"][0]["consumed"];
    for (key, paths) in [
        ("finops.deletable_tag_ids", [&a.0, &b.0]),
        ("finops.deletable_bank_accounts", [&a.1, &b.1]),
    ] {
        let ids: Vec<&str> = consumed[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {ledger}"))
            .iter()
            .filter_map(serde_json::Value::as_str)
            .collect();
        assert_eq!(ids.len(), 2, "{key}: {ledger}");
        assert_ne!(ids[0], ids[1], "{key} taken twice: {ledger}");
        for path in paths {
            assert!(
                // A bank account is recorded as `counterpart_id/bank_account_id`.
                ids.iter()
                    .any(|id| path.ends_with(id.rsplit('/').next().unwrap_or(id))),
                "{path} is not recorded: {ledger}"
            );
        }
    }
}

#[test]
fn a_dry_run_names_the_fixture_it_would_take_and_consumes_nothing() {
    let dir = scratch("dry-run");
    let profile = dir.join("profile.toml");
    // Nothing listens there: a dry run sends nothing.
    std::fs::write(
        &profile,
        "base_url = \"http://127.0.0.1:9\"\n[finops]\ntoken = \"t\"\norganization_id = \"org\"\n\
         deletable_tag_ids = [\"tag-1\", \"tag-2\"]\n\
         [[finops.deletable_bank_accounts]]\ncounterpart_id = \"cp\"\nbank_account_id = \"ba\"\n",
    )
    .expect("write the profile");
    let state = dir.join("fixtures.json");
    let profile_arg = profile.to_str().expect("utf-8");
    let dry = |state: &Path| covenant(&["run", "--profile", profile_arg, "--dry-run"], state);
    let output = dry(&state);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let plan = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        plan.contains("finops.deletable_tag_ids (would delete tag-1)"),
        "{plan}"
    );
    assert!(plan.contains("(would delete cp/ba)"), "{plan}");
    assert!(!state.exists(), "a dry run wrote the state file");

    // With tag-1 and the account used up by an earlier run against the same target.
    std::fs::write(
        &state,
        r#"{"format": 1, "entries": [{"target": "http://127.0.0.1:9/", "organization_id": "org",
           "consumed": {"finops.deletable_tag_ids": ["tag-1"],
                        "finops.deletable_bank_accounts": ["cp/ba"]}}]}"#,
    )
    .expect("write the state");
    let before = std::fs::read(&state).expect("read the state");
    let output = dry(&state);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let plan = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(plan.contains("(would delete tag-2)"), "{plan}");
    let skipped = plan
        .lines()
        .find(|l| l.contains(ACCOUNT))
        .expect("the account case is planned");
    assert!(
        skipped.starts_with("skip")
            && skipped.contains("all 1 entries of finops.deletable_bank_accounts")
            && skipped.contains("add fresh ids to finops.deletable_bank_accounts"),
        "{skipped}"
    );
    assert_eq!(
        std::fs::read(&state).expect("read"),
        before,
        "a dry run changed the state"
    );
}

#[test]
fn a_corrupt_state_file_is_a_usage_error_naming_the_file_and_the_fix() {
    let dir = scratch("corrupt");
    let profile = dir.join("profile.toml");
    std::fs::write(&profile, "base_url = \"http://127.0.0.1:9\"\n").expect("write the profile");
    let state = dir.join("fixtures.json");
    std::fs::write(&state, "{ this is not json").expect("write the state");
    let output = covenant(
        &[
            "run",
            "--profile",
            profile.to_str().expect("utf-8"),
            "--report-dir",
            dir.join("reports").to_str().expect("utf-8"),
        ],
        &state,
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains(&state.display().to_string()), "{err}");
    assert!(
        err.contains("delete it") && err.contains("--state FILE"),
        "{err}"
    );
    assert!(
        !err.contains("unreachable"),
        "the state is read before the target: {err}"
    );
}

#[test]
fn the_embedded_reference_reads_and_writes_no_state() {
    let dir = scratch("embedded");
    let reports = dir.join("reports");
    let run = |state: &Path| {
        covenant(
            &[
                "run",
                "--quiet",
                "--filter",
                "delete-twice",
                "--report-dir",
                reports.to_str().expect("utf-8"),
            ],
            state,
        )
    };
    // A corrupt file is never read...
    let corrupt = dir.join("corrupt.json");
    std::fs::write(&corrupt, "{ this is not json").expect("write the state");
    let output = run(&corrupt);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // ...and a missing one never written, run after run.
    let missing = dir.join("state").join("fixtures.json");
    for _ in 0..2 {
        let output = run(&missing);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = std::fs::read_to_string(reports.join("report.json")).expect("report.json");
        let record: RunRecord = serde_json::from_str(&text).expect("a RunRecord");
        assert_eq!(record.counts.pass, 2, "{:?}", record.counts);
    }
    assert!(
        !dir.join("state").exists(),
        "the embedded reference wrote state"
    );
}
