//! `covenant compare` on prepared reports, through the real binary.

use super::sample;
use covenant::verdict::{Counts, RunRecord, Verdict};
use std::path::{Path, PathBuf};
use std::process::Output;

fn write_report(dir: &Path, name: &str, run: &RunRecord) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(run).unwrap()).unwrap();
    path
}

fn covenant(args: &[&std::ffi::OsStr]) -> Output {
    crate::support::covenant()
        .args(args)
        .output()
        .expect("the covenant binary runs")
}

/// `covenant compare OLD NEW` and `extra` arguments.
fn compare_output(old: &Path, new: &Path, extra: &[&std::ffi::OsStr]) -> Output {
    let mut args = vec!["compare".as_ref(), old.as_os_str(), new.as_os_str()];
    args.extend_from_slice(extra);
    covenant(&args)
}

fn compare(old: &Path, new: &Path, report_dir: Option<&Path>) -> (i32, String, String) {
    let extra: Vec<&std::ffi::OsStr> = match report_dir {
        Some(dir) => vec!["--report-dir".as_ref(), dir.as_os_str()],
        None => Vec::new(),
    };
    let out = compare_output(old, new, &extra);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Whether compare listed the sample's quote as newly failing, with the rule it broke.
fn quote_newly_fails(stdout: &str) -> bool {
    section(stdout, "newly failing")
        .contains("receivable.quote-minimal: pass -> fail (RCV-CREATE-201: answered 200, not 201)")
}

/// A section of compare's output; empty when compare left it out (it prints no empty one).
fn section<'a>(stdout: &'a str, title: &str) -> &'a str {
    let Some(start) = stdout.find(&format!("\n{title} (")) else {
        return "";
    };
    let rest = &stdout[start + 1..];
    let end = rest.find("\n\n").unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn newly_failing_case_exits_1_and_is_listed_with_the_fix() {
    let dir = sample::scratch_dir("compare-regressed");
    let old = write_report(&dir, "old.json", &sample::run());
    let new = write_report(&dir, "new.json", &sample::regressed());
    let out_dir = dir.join("out");

    let (code, stdout, stderr) = compare(&old, &new, Some(&out_dir));

    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(quote_newly_fails(&stdout), "{stdout}");
    let fixed = section(&stdout, "fixed");
    assert!(
        fixed.contains("receivable.unknown-property: fail -> pass"),
        "{fixed}"
    );
    assert!(section(&stdout, "still failing").contains("events.list-limit: error -> error"));
    assert!(section(&stdout, "cases added").contains("vat-id.create: absent -> pass"));
    assert!(section(&stdout, "cases removed").contains("velocity.card-scoped: skip -> absent"));
    let rules = section(&stdout, "rule verdicts changed");
    assert!(rules.contains("RCV-CREATE-201: pass -> fail"), "{rules}");
    assert!(rules.contains("RCV-UNKNOWN-PROPS: fail -> pass"), "{rules}");

    let markdown = sample::read(&out_dir.join("compare.md"));
    assert!(markdown.starts_with("## Covenant compare: ❌ 1 newly failing"));
    let json: serde_json::Value =
        serde_json::from_str(&sample::read(&out_dir.join("compare.json"))).unwrap();
    assert_eq!(json["newly_failing"][0]["id"], "receivable.quote-minimal");
    assert_eq!(json["fixed"][0]["id"], "receivable.unknown-property");
}

#[test]
fn only_fixed_cases_exit_0() {
    let dir = sample::scratch_dir("compare-fixed");
    let old = write_report(&dir, "old.json", &sample::run());
    let new = write_report(&dir, "new.json", &sample::fixed());

    let (code, stdout, stderr) = compare(&old, &new, None);

    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(section(&stdout, "newly failing").is_empty(), "{stdout}");
    assert!(section(&stdout, "fixed").contains("receivable.unknown-property: fail -> pass"));
}

#[test]
fn malformed_report_is_a_usage_error_naming_file_and_line() {
    let dir = sample::scratch_dir("compare-malformed");
    let good = write_report(&dir, "good.json", &sample::run());
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        "{\n  \"meta\": {\n    \"seed\": \"not a number\"\n  }\n}\n",
    )
    .unwrap();

    let (code, _, stderr) = compare(&good, &bad, None);

    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("{}:3:", bad.display())),
        "{stderr}"
    );
}

#[test]
fn missing_report_is_a_usage_error_naming_the_file() {
    let dir = sample::scratch_dir("compare-missing");
    let good = write_report(&dir, "good.json", &sample::run());
    let missing = dir.join("nowhere.json");

    let (code, _, stderr) = compare(&missing, &good, None);

    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nowhere.json"), "{stderr}");
}

/// The fixed run, where the passing case (the only one covering RCV-CREATE-201) and the failing
/// one are skipped now.
fn skipped_run() -> RunRecord {
    let mut run = sample::fixed();
    for case in &mut run.cases[..2] {
        case.verdict = Verdict::Skip;
        case.skip_reason = Some("deadline of 1 s reached (--deadline): not run".to_owned());
        case.findings.clear();
        case.evidence.clear();
        case.statuses.clear();
    }
    run.counts = Counts::of(&run.cases);
    run
}

#[test]
fn cases_newly_skipped_and_rules_newly_not_run_are_listed_with_the_reason_and_exit_0() {
    let dir = sample::scratch_dir("compare-skipped");
    let old = write_report(&dir, "old.json", &sample::run());
    let new = write_report(&dir, "new.json", &skipped_run());
    let out_dir = dir.join("out");

    let (code, stdout, stderr) = compare(&old, &new, Some(&out_dir));

    assert_eq!(code, 0, "{stdout}{stderr}");
    let skipped = section(&stdout, "newly skipped");
    assert!(
        skipped.starts_with("newly skipped (2):")
            && skipped.contains(
                "receivable.quote-minimal: pass -> skip (deadline of 1 s reached (--deadline): not run)"
            )
            && skipped.contains("receivable.unknown-property: fail -> skip"),
        "{skipped}"
    );
    assert!(
        !section(&stdout, "fixed").contains("receivable.unknown-property"),
        "a failure that no longer runs is not fixed:\n{stdout}"
    );
    let rules = section(&stdout, "rules newly not run");
    assert!(rules.contains("RCV-CREATE-201: pass -> skipped"), "{rules}");
    assert!(
        rules.contains("RCV-UNKNOWN-PROPS: fail -> skipped"),
        "{rules}"
    );
    assert!(
        !rules.contains("VEL-CARD-SCOPE"),
        "skipped in both runs: {rules}"
    );

    let markdown = sample::read(&out_dir.join("compare.md"));
    assert!(
        markdown.starts_with(
            "## Covenant compare: ✅ nothing newly fails; coverage lost: 2 cases newly skipped, 2 rules newly not run"
        ),
        "{markdown}"
    );
    assert!(markdown.contains("### newly skipped (2)"), "{markdown}");
    assert!(
        markdown.contains("### Rules newly not run (2)"),
        "{markdown}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&sample::read(&out_dir.join("compare.json"))).unwrap();
    assert_eq!(json["newly_skipped"][0]["id"], "receivable.quote-minimal");
    assert_eq!(
        json["newly_skipped"][0]["why"],
        "deadline of 1 s reached (--deadline): not run"
    );
    let lost = json["newly_not_run"]
        .as_array()
        .and_then(|rules| rules.iter().find(|r| r["rule"] == "RCV-CREATE-201"))
        .unwrap_or_else(|| panic!("RCV-CREATE-201 not in {}", json["newly_not_run"]));
    assert_eq!(
        (&lost["old"], &lost["new"]),
        (&"pass".into(), &"skipped".into())
    );
}

#[test]
fn a_case_skipped_in_both_runs_is_not_newly_skipped() {
    let dir = sample::scratch_dir("compare-still-skipped");
    let old = write_report(&dir, "old.json", &sample::run());
    let new = write_report(&dir, "new.json", &sample::fixed());

    let (code, stdout, stderr) = compare(&old, &new, None);

    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(section(&stdout, "newly skipped").is_empty(), "{stdout}");
    assert!(
        section(&stdout, "rules newly not run").is_empty(),
        "{stdout}"
    );
}

/// `covenant compare OLD NEW` with more arguments: exit code and stdout.
fn compare_with(old: &Path, new: &Path, extra: &[&str]) -> (i32, String) {
    let extra: Vec<&std::ffi::OsStr> = extra.iter().map(std::ffi::OsStr::new).collect();
    let out = compare_output(old, new, &extra);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), said)
}

/// The sample run, then the same target regressed, started on `old` and `new` base URLs.
fn run_and_regressed(dir: &Path, old: &str, new: &str) -> (PathBuf, PathBuf) {
    let mut before = sample::run();
    before.meta.target = old.to_owned();
    let mut after = sample::regressed();
    after.meta.target = new.to_owned();
    (
        write_report(dir, "old.json", &before),
        write_report(dir, "new.json", &after),
    )
}

#[test]
fn a_target_started_on_another_port_that_newly_fails_a_must_rule_exits_1_and_names_it() {
    let dir = sample::scratch_dir("compare-port");
    let (old, new) = run_and_regressed(&dir, "http://127.0.0.1:8080", "http://127.0.0.1:41234/");

    for extra in [&[][..], &["--fail-on-difference"], &["--as-targets"]] {
        let (code, said) = compare_with(&old, &new, extra);
        assert_eq!(code, 1, "{extra:?}:\n{said}");
        assert!(quote_newly_fails(&said), "{extra:?}:\n{said}");
        assert!(
            section(&said, "rule verdicts changed").contains("RCV-CREATE-201: pass -> fail"),
            "{extra:?}:\n{said}"
        );
        // One seed: the behaviour diff follows the regressions, never instead of them.
        let diff = said
            .find("behaviour diff (seed")
            .expect("the behaviour diff");
        assert!(
            said.find("newly failing (1)").is_some_and(|at| at < diff),
            "{said}"
        );
    }
    // Only the port differs: one target before and after, unless --as-targets says two.
    let (_, said) = compare_with(&old, &new, &[]);
    assert!(
        said.contains("one host on two ports") && !said.contains("different targets"),
        "{said}"
    );
    assert!(said.contains("(old: ") && said.contains("(new: "), "{said}");
    let (_, said) = compare_with(&old, &new, &["--as-targets"]);
    assert!(
        said.contains("the runs tested different targets") && !said.contains("(old: "),
        "{said}"
    );
}

#[test]
fn two_hosts_get_the_regressions_and_then_their_behaviour_diff() {
    let dir = sample::scratch_dir("compare-hosts");
    let (old, new) = run_and_regressed(&dir, "http://127.0.0.1:8080", "https://api.example");

    let (code, said) = compare_with(&old, &new, &[]);

    assert_eq!(code, 1, "{said}");
    assert!(
        section(&said, "newly failing").contains("receivable.quote-minimal: pass -> fail"),
        "{said}"
    );
    assert!(section(&said, "fixed").contains("receivable.unknown-property: fail -> pass"));
    assert!(said.contains("the runs tested different targets"), "{said}");
    let headline = said
        .lines()
        .find(|l| l.starts_with("behaviour diff (seed"))
        .unwrap_or_else(|| panic!("no behaviour diff:\n{said}"));
    assert!(
        headline.contains("A = http://127.0.0.1:8080, B = https://api.example"),
        "{headline}"
    );
}

#[test]
fn a_nested_field_that_turned_from_a_boolean_into_a_string_is_a_difference() {
    let dir = sample::scratch_dir("compare-nested");
    let valid = "dns_records.receiving_dns_records[].valid";
    let with = |types: &str| {
        let mut run = sample::run();
        run.cases[0].shapes[0].nested = [(valid.to_owned(), types.to_owned())].into();
        run
    };
    let old = write_report(&dir, "old.json", &with("boolean"));
    let new = write_report(&dir, "new.json", &with("string"));

    let (code, said) = compare_with(&old, &new, &["--fail-on-difference"]);

    assert_eq!(code, 6, "{said}");
    let line = said
        .lines()
        .find(|l| l.contains(valid))
        .unwrap_or_else(|| panic!("{valid} not named:\n{said}"));
    assert!(line.contains("A boolean; B string"), "{line}");
    // The same nested types on both sides: no difference.
    let (code, said) = compare_with(&old, &old, &["--fail-on-difference"]);
    assert_eq!(code, 0, "{said}");
}
