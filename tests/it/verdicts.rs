//! Honest verdicts, through the real binary: a profile mistake is named as one (exit 2), never
//! blamed on the target and never a pass; a run that tested less than it planned is INCOMPLETE
//! (exit 4); `--strict` fails on every surface; a skipped case gives its real reason in all four
//! reports. The target is `covenant serve`, started on its own port with the profile it writes,
//! which each test then gets wrong in one way.

use crate::support::covenant;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    crate::support::scratch(&format!("verdicts-{name}"))
}

/// A `covenant serve` of this test, and the profile it wrote.
struct Served {
    child: Child,
    dir: PathBuf,
    profile: String,
}

impl Served {
    fn start(name: &str) -> Served {
        Served::start_with(name, &[])
    }

    /// A reference served with `args` (`--fault NAME`).
    fn start_with(name: &str, args: &[&str]) -> Served {
        let dir = temp_dir(name);
        let path = dir.join("served.toml");
        let child = covenant()
            .args(["serve", "--port", "0", "--profile-out"])
            .arg(&path)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("covenant serve starts");
        let start = Instant::now();
        let profile = loop {
            if let Ok(text) = std::fs::read_to_string(&path) {
                if text.contains("[banking.oauth]") {
                    break text;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no profile written"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Served {
            child,
            dir,
            profile,
        }
    }

    /// Runs covenant against this server with `profile` and `args`; reports in `reports/`.
    fn run(&self, profile: &str, args: &[&str]) -> RunOutput {
        self.run_with_env(profile, args, &[])
    }

    /// [`Served::run`] with environment variables set (a profile's `token_env`).
    fn run_with_env(&self, profile: &str, args: &[&str], env: &[(&str, &str)]) -> RunOutput {
        self.launch(profile, &[&["--quiet"], args].concat(), env)
    }

    /// The run a user sees: the console with its per-case lines (no `--quiet`).
    fn run_loud(&self) -> RunOutput {
        self.launch(&self.profile, &[], &[])
    }

    fn launch(&self, profile: &str, args: &[&str], env: &[(&str, &str)]) -> RunOutput {
        let path = self.dir.join("profile.toml");
        std::fs::write(&path, profile).expect("write the profile");
        let reports = self.dir.join("reports");
        let _ = std::fs::remove_dir_all(&reports);
        let output = covenant()
            .args(["run", "--seed", "5", "--profile"])
            .arg(&path)
            .arg("--report-dir")
            .arg(&reports)
            .args(args)
            .env("COVENANT_STATE", self.dir.join("state.json"))
            .envs(env.iter().copied())
            .output()
            .expect("covenant runs");
        RunOutput { output, reports }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct RunOutput {
    output: Output,
    reports: PathBuf,
}

impl RunOutput {
    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.reports.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}; stderr:\n{}", self.stderr()))
    }
    /// Exit 2 before any case, the error naming `what`.
    fn assert_stops_naming(&self, what: &str) {
        assert_eq!(self.code(), Some(2), "{}", self.stdout());
        assert!(self.stderr().contains(what), "{}", self.stderr());
    }
    fn report(&self) -> Value {
        serde_json::from_str(&self.file("report.json")).expect("report.json is JSON")
    }
    fn cases(&self) -> Vec<Value> {
        self.report()["cases"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// The profile with the first line starting `key = ` replaced by `key = value`.
fn with_line(profile: &str, key: &str, value: &str) -> String {
    with_line_in(profile, "", key, value)
}

/// Like [`with_line`], looking only after the line `section` (e.g. `[banking]`).
fn with_line_in(profile: &str, section: &str, key: &str, value: &str) -> String {
    let mut inside = section.is_empty();
    let mut done = false;
    profile
        .lines()
        .map(|line| {
            inside |= line == section;
            if inside && !done && line.starts_with(&format!("{key} = ")) {
                done = true;
                format!("{key} = {value}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The profile with the multi-line array `key = [ ... ]` replaced by `key = value`.
fn with_array(profile: &str, key: &str, value: &str) -> String {
    let start = profile
        .find(&format!("{key} = ["))
        .unwrap_or_else(|| panic!("no {key} in the profile"));
    let end = start + profile[start..].find(']').expect("the array closes") + 1;
    format!("{}{key} = {value}{}", &profile[..start], &profile[end..])
}

const ABSENT: &str = "\"0b4a0a6e-6d2b-4b8e-9c77-000000000001\"";

fn assert_profile_problem(ran: &RunOutput, key: &str) {
    assert_eq!(ran.code(), Some(2), "stdout:\n{}", ran.stdout());
    assert!(
        ran.stdout().contains("covenant: PROFILE PROBLEM.") && ran.stdout().contains(key),
        "{}",
        ran.stdout()
    );
    let report = ran.report();
    assert_eq!(report["verdict"], "profile_problem");
    let problems = report["meta"]["profile_problems"].to_string();
    assert!(problems.contains(key), "{problems}");
    let failed: Vec<String> = ran
        .cases()
        .iter()
        .filter(|c| c["verdict"] == "fail")
        .map(|c| format!("{}: {}", c["id"], c["findings"]))
        .collect();
    assert!(
        failed.is_empty(),
        "cases failed for the profile's mistake: {failed:#?}"
    );
    let blocked = ran
        .cases()
        .iter()
        .filter(|c| {
            c["skip_reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("blocked by the profile") && r.contains(key))
        })
        .count();
    assert!(blocked > 0, "no case says it was blocked by {key}");
}

#[test]
fn a_wrong_counterpart_id_is_a_profile_problem_not_a_failure() {
    let served = Served::start("counterpart");
    let profile = with_line(&served.profile, "counterpart_id", ABSENT);
    let ran = served.run(&profile, &[]);
    assert_profile_problem(&ran, "finops.counterpart_id");
}

#[test]
fn a_wrong_comment_id_is_a_profile_problem_not_a_failure() {
    let served = Served::start("comment");
    let profile = with_array(&served.profile, "comment_ids", &format!("[{ABSENT}]"));
    let ran = served.run(&profile, &[]);
    assert_profile_problem(&ran, "finops.comment_ids");
}

#[test]
fn an_id_that_is_not_a_uuid_stops_in_the_preflight_before_any_request() {
    // A typo that breaks the UUID: a target may refuse it with 400 or 422 anywhere, which the
    // cases would otherwise take for the target's refusal of a valid request.
    let served = Served::start("malformed-id");
    let typo = with_line(
        &served.profile,
        "counterpart_id",
        "\"x0b4a0a6e-6d2b-4b8e-9c77-000000000001\"",
    );
    let ran = served.run(&typo, &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr());
    assert!(
        ran.stderr().contains(
            "finops.counterpart_id: \"x0b4a0a6e-6d2b-4b8e-9c77-000000000001\" is not a UUID"
        ),
        "{}",
        ran.stderr()
    );
    assert_stopped_report(&ran.reports);
}

#[test]
fn a_wrong_finance_token_stops_in_the_preflight_naming_the_key() {
    let served = Served::start("token");
    let profile = with_line(&served.profile, "token", "\"fin_wrong\"");
    let ran = served.run(&profile, &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr());
    assert!(
        ran.stderr()
            .contains("finops.token: GET /finops/v1/events?limit=1 answered 401"),
        "{}",
        ran.stderr()
    );
    assert_stopped_report(&ran.reports);
}

#[test]
fn a_wrong_oauth_secret_stops_in_the_preflight_naming_the_key() {
    let served = Served::start("oauth");
    let profile = with_line(&served.profile, "client_secret", "\"cs_wrong\"");
    let ran = served.run(&profile, &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr());
    assert!(ran.stderr().contains("banking.oauth"), "{}", ran.stderr());
}

#[test]
fn a_wrong_bank_account_stops_in_the_preflight_naming_the_key() {
    let served = Served::start("account");
    let profile = with_line_in(&served.profile, "[banking]", "bank_account_id", ABSENT);
    let ran = served.run(&profile, &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr());
    assert!(
        ran.stderr().contains("banking.bank_account_id:"),
        "{}",
        ran.stderr()
    );
}

#[test]
fn an_empty_token_variable_is_a_profile_error_and_a_dry_run_needs_no_secret() {
    let served = Served::start("env");
    let profile = with_line(&served.profile, "token", "\"\"");
    let ran = served.run(&profile, &[]);
    assert_eq!(ran.code(), Some(2), "{}", ran.stderr());
    assert!(
        ran.stderr().contains("`finops.token` is empty"),
        "{}",
        ran.stderr()
    );
    let from_env = with_line(&served.profile, "token", "\"x\"")
        .replace("token = \"x\"", "token_env = \"COVENANT_TEST_UNSET_TOKEN\"");
    let ran = served.run(&from_env, &["--dry-run"]);
    assert_eq!(ran.code(), Some(0), "{}", ran.stderr());
    assert!(
        ran.stdout().contains("nothing was sent (--dry-run)"),
        "{}",
        ran.stdout()
    );
    assert!(
        !ran.stdout().contains("does not give finops.token"),
        "{}",
        ran.stdout()
    );
}

#[test]
fn a_skipped_case_gives_its_real_reason_in_all_four_reports() {
    let served = Served::start("skip");
    let profile = without_lines(&served.profile, "other_organization_id");
    let ran = served.run(&profile, &["--filter", "vat."]);
    assert_eq!(ran.code(), Some(0), "{}", ran.stdout());
    let reason = "the profile does not give finops.other_organization_id";
    let case = ran
        .cases()
        .into_iter()
        .find(|c| c["id"] == "vat.isolated-between-organizations")
        .expect("the isolation case is planned");
    assert_eq!(case["verdict"], "skip");
    assert_eq!(case["skip_reason"], reason);
    for name in ["junit.xml", "summary.md", "summary.html"] {
        // Markdown escapes the underscores of the key.
        let text = ran.file(name).replace('\\', "");
        assert!(text.contains(reason), "{name} lacks the reason");
    }
}

/// A run against the embedded reference with `args`: its exit code, stdout, `report.json`,
/// and the directory of its reports.
fn embedded_run(name: &str, args: &[&str]) -> (Option<i32>, String, Value, PathBuf) {
    let dir = temp_dir(name);
    let output = covenant()
        .args(["run", "--quiet", "--seed", "3"])
        .args(args)
        .arg("--report-dir")
        .arg(&dir)
        .output()
        .expect("covenant runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = serde_json::from_str(&read(&dir, "report.json")).unwrap_or(Value::Null);
    (output.status.code(), stdout, report, dir)
}

#[test]
fn a_filter_that_matches_nothing_is_incomplete() {
    let (code, stdout, report, dir) = embedded_run("nothing", &["--filter", "no-such-case"]);
    assert_eq!(code, Some(4), "{stdout}");
    assert!(
        stdout.contains("covenant: INCOMPLETE: ") && stdout.contains("no case was planned"),
        "{stdout}"
    );
    assert_eq!(report["verdict"], "incomplete");
    assert!(read(&dir, "summary.md").contains("INCOMPLETE"));
    assert!(read(&dir, "junit.xml").contains("run.verdict"));
}

#[test]
fn a_run_filtered_to_a_rule_no_client_can_see_is_incomplete_and_says_why() {
    let dir = temp_dir("unseen-rule");
    let output = covenant()
        .args(["run", "--filter", "VER-FINOPS-HEADER", "--report-dir"])
        .arg(&dir)
        .output()
        .expect("covenant runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("--filter VER-FINOPS-HEADER matches no case")
            && stderr.contains("VER-FINOPS-HEADER is not observable, so no case judges it"),
        "{stderr}"
    );
}

#[test]
fn strict_fails_on_every_surface_when_a_rule_only_warns() {
    let args = [
        "--strict",
        "--filter",
        "tag.delete-twice",
        "--fault",
        "tag-delete-idempotent",
    ];
    let (code, stdout, report, dir) = embedded_run("strict", &args);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("covenant: FAILED.") && stdout.contains("--strict"),
        "{stdout}"
    );
    assert!(!stdout.contains("test result: ok"), "{stdout}");
    assert!(
        stdout.contains("1 failed (1 of them warnings under --strict)")
            && !stdout.contains("0 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("broken rules (1):") && stdout.contains("[TAG-DELETE-GONE] (should)"),
        "the warned case is a failing case, under its rule: {stdout}"
    );
    assert!(!stdout.contains("\nwarnings ("), "{stdout}");
    assert_eq!(report["verdict"], "fail");
    // report.json counts the warned case among the failures, and calls it failed.
    assert_eq!(
        (&report["counts"]["fail"], &report["counts"]["warn"]),
        (&serde_json::json!(1), &serde_json::json!(0)),
        "{}",
        report["counts"]
    );
    let warned = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["id"] == "tag.delete-twice")
        .expect("the case");
    assert_eq!(warned["verdict"], "fail", "{warned}");
    let rule = report["coverage"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == "TAG-DELETE-GONE")
        .expect("the rule");
    assert_eq!(rule["status"], "fail", "{rule}");
    let summary = read(&dir, "summary.md");
    assert!(summary.contains("FAILED"), "{summary}");
    assert!(
        summary.contains("**1 failed (1 of them warnings under --strict)**")
            && summary.contains("### Broken rules (1)")
            && summary.contains("#### `TAG-DELETE-GONE` (should)")
            && !summary.contains("### Warnings")
            && !summary.contains("0 failed"),
        "{summary}"
    );
    let junit = read(&dir, "junit.xml");
    assert!(!junit.contains("run.verdict"), "no synthetic case: {junit}");
    let case = junit
        .split("<testcase ")
        .find(|c| c.starts_with("name=\"tag.delete-twice\""))
        .expect("the warned case");
    assert!(
        case.contains("<failure") && case.contains("type=\"TAG-DELETE-GONE\""),
        "{case}"
    );
    let html = read(&dir, "summary.html");
    assert!(html.contains("id=\"broken-TAG-DELETE-GONE\""), "{html}");
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

/// The profile without the lines starting with `prefix`.
fn without_lines(profile: &str, prefix: &str) -> String {
    profile
        .lines()
        .filter(|l| !l.starts_with(prefix))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The value of the first line starting `key = "` of a profile.
fn value_of(profile: &str, key: &str) -> String {
    let prefix = format!("{key} = \"");
    profile
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no {key} in the profile"))
        .to_owned()
}

#[test]
fn one_broken_rule_adds_at_most_80_console_lines_to_a_clean_run() {
    let clean = Served::start("loud-clean").run_loud();
    let broken = Served::start_with("loud-broken", &["--fault", "rcv-create-200"]).run_loud();
    assert_eq!(clean.code(), Some(0), "{}", clean.stdout());
    assert_eq!(broken.code(), Some(1), "{}", broken.stdout());
    let (clean, broken) = (clean.stdout(), broken.stdout());
    let added = broken.lines().count() as i64 - clean.lines().count() as i64;
    assert!((1..=80).contains(&added), "{added} lines added:\n{broken}");
    // Each broken rule said once, with its one example to replay: the 201 the creates broke,
    // and the status set the other creates' 200 broke.
    assert!(broken.contains("broken rules (2):"), "{broken}");
    for rule in ["[RCV-CREATE-201] (must)", "[RCV-STATUS-SET] (must)"] {
        assert_eq!(broken.matches(rule).count(), 1, "{broken}");
    }
    assert_eq!(broken.matches("request:  curl").count(), 2, "{broken}");
}

#[test]
fn the_first_curl_of_summary_md_runs_as_printed_with_its_variable_exported() {
    let served = Served::start_with("curl", &["--fault", "rcv-create-200"]);
    let token = value_of(&served.profile, "token");
    let profile = with_line(&served.profile, "token", "\"x\"")
        .replace("token = \"x\"", "token_env = \"MY_FIN_TOKEN\"");
    let ran = served.run_with_env(&profile, &[], &[("MY_FIN_TOKEN", &token)]);
    assert_eq!(ran.code(), Some(1), "{}", ran.stderr());
    let md = ran.file("summary.md");
    assert!(md.len() < 65_536, "{} bytes", md.len());
    let head: Vec<&str> = md.lines().take(40).collect();
    assert!(
        head.iter()
            .any(|l| l.contains("`RCV-CREATE-201`") || l.contains("`RCV-STATUS-SET`")),
        "{md}"
    );
    assert!(
        md.contains(
            "To run a curl as printed, export `MY_FIN_TOKEN` (the profile's `finops.token`)"
        ),
        "{md}"
    );
    assert!(ran
        .stdout()
        .contains("export MY_FIN_TOKEN (the profile's finops.token)"));
    for name in ["junit.xml", "report.json", "summary.html", "summary.md"] {
        assert!(!ran.file(name).contains(&token), "{name} holds the token");
    }
    assert!(!ran.stdout().contains(&token) && !ran.stderr().contains(&token));
    let curl = md
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("curl "))
        .expect("summary.md shows a curl");
    assert!(curl.contains("\"authorization: Bearer $MY_FIN_TOKEN\"") && curl.contains(" -i "));
    let has_curl = Command::new("curl")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_curl {
        eprintln!("curl is not installed: the printed command is not run");
        return;
    }
    let replayed = Command::new("sh")
        .args(["-c", curl])
        .env("MY_FIN_TOKEN", &token)
        .output()
        .expect("sh runs");
    let answer = String::from_utf8_lossy(&replayed.stdout);
    // The fault answers 200 where the spec states 201: the status under test.
    assert!(answer.starts_with("HTTP/1.1 200"), "{curl}\n{answer}");
    let without = Command::new("sh")
        .args(["-c", curl])
        .env_remove("MY_FIN_TOKEN")
        .output()
        .expect("sh runs");
    assert!(String::from_utf8_lossy(&without.stdout).starts_with("HTTP/1.1 401"));
}

#[test]
fn a_profile_missing_a_required_key_or_with_equal_tokens_exits_2_naming_the_key() {
    let served = Served::start("required");
    let without_org = without_lines(&served.profile, "organization_id = ");
    served
        .run(&without_org, &[])
        .assert_stops_naming("finops.organization_id: needed by");
    // A filter that plans no case needing the key needs no key.
    let ran = served.run(&without_org, &["--filter", "transactions.full-read"]);
    assert_ne!(ran.code(), Some(2), "{}", ran.stderr());
    let scopeless = value_of(&served.profile, "token_without_scope");
    let same = with_line_in(&served.profile, "[banking]", "token_without_scope", "\"t\"").replace(
        "token_without_scope = \"t\"",
        &format!("token_without_scope = \"{scopeless}\"\ntoken = \"{scopeless}\""),
    );
    served
        .run(&same, &[])
        .assert_stops_naming("is the same token as `banking.token`");
    let bogus = with_line_in(
        &served.profile,
        "[banking]",
        "token_without_scope",
        "\"at_bogus\"",
    );
    served
        .run(&bogus, &[])
        .assert_stops_naming("banking.token_without_scope: GET");
}

/// No case ran, yet the report says why: PROFILE PROBLEM, no request of a case.
fn assert_stopped_report(reports: &std::path::Path) {
    let text = std::fs::read_to_string(reports.join("report.json")).expect("a report");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(json["verdict"], "profile_problem", "{json}");
    assert_eq!(json["counts"]["requests"], 0, "{json}");
}
