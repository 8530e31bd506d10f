//! A baseline of known failures through the real binary, as a team adopting covenant would use
//! it: write one from a run against an implementation that breaks one rule, gate the next run on
//! it, then break one more rule, then fix the first, then misspell a rule.

// Only its runtime, scratch directories and output helpers are used here.
#[allow(dead_code)]
use crate::support::standin;

use covenant::reference::{start, FaultSet, ReferenceConfig, RunningReference};
use standin::{runtime, says};
use std::path::{Path, PathBuf};
use std::process::Output;

const SEED: &str = "5";

/// A reference with `faults`, its fixtures of `seed`, and the path of its profile.
fn reference(
    rt: &tokio::runtime::Runtime,
    faults: &[&str],
    dir: &Path,
    name: &str,
) -> (RunningReference, PathBuf) {
    let server = rt
        .block_on(start(ReferenceConfig {
            seed: 11,
            faults: FaultSet::from_names(faults).expect("known faults"),
            ..ReferenceConfig::default()
        }))
        .expect("the reference starts");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, server.profile().to_toml()).expect("write the profile");
    (server, path)
}

/// `covenant ARGS`, in `dir`, with a state file of the test's own.
fn covenant(dir: &Path, args: &[&str]) -> Output {
    crate::support::covenant()
        .args(args)
        .current_dir(dir)
        .env("COVENANT_STATE", dir.join("state.json"))
        .output()
        .expect("covenant runs")
}

fn run(dir: &Path, profile: &Path, reports: &str, baseline: Option<&str>) -> Output {
    let profile = profile.to_str().expect("a path");
    let mut args = vec![
        "run",
        "--profile",
        profile,
        "--seed",
        SEED,
        "--report-dir",
        reports,
    ];
    if let Some(file) = baseline {
        args.extend(["--baseline", file]);
    }
    covenant(dir, &args)
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn a_baseline_gates_on_what_is_new_and_fails_a_fixed_rule_until_its_entry_is_removed() {
    let rt = runtime();
    let dir = standin::scratch("baseline-gate");
    let broken = ["rcv-create-200"];
    let (_a, today) = reference(&rt, &broken, &dir, "today");

    // Today's failures, written down.
    let first = run(&dir, &today, "r0", None);
    assert_eq!(first.status.code(), Some(1), "{}", says(&first));
    let written = covenant(&dir, &["baseline", "r0/report.json", "-o", "known.toml"]);
    assert_eq!(written.status.code(), Some(0), "{}", says(&written));
    let text = read(&dir, "known.toml").replace("reason = \"\"", "reason = \"tracked in #123\"");
    std::fs::write(dir.join("known.toml"), &text).expect("fill in the reason");
    assert!(text.contains("rule = \"RCV-CREATE-201\""), "{text}");

    // The same implementation, gated: the failures are known, named, and pass.
    let (_b, again) = reference(&rt, &broken, &dir, "again");
    let gated = run(&dir, &again, "r1", Some("known.toml"));
    let stdout = String::from_utf8_lossy(&gated.stdout);
    assert_eq!(gated.status.code(), Some(0), "{}", says(&gated));
    assert!(
        stdout.contains("known failures (held by the baseline known.toml"),
        "{stdout}"
    );
    assert!(stdout.contains("tracked in #123"), "{stdout}");
    let junit = read(&dir, "r1/junit.xml");
    assert!(
        !junit.contains("<failure"),
        "a known failure is no <failure>"
    );
    assert!(junit.contains("type=\"known\""), "{junit}");
    let summary = read(&dir, "r1/summary.md");
    assert!(
        summary.contains("### Known failures (held by the baseline)"),
        "{summary}"
    );
    assert!(summary.contains("`RCV-CREATE-201`"), "{summary}");
    let report: serde_json::Value = serde_json::from_str(&read(&dir, "r1/report.json")).unwrap();
    assert_eq!(report["verdict"], "pass");
    assert!(
        report["counts"]["known"].as_u64() > Some(0),
        "{}",
        report["counts"]
    );

    // One rule more broken: only the new rule fails.
    let (_c, worse) = reference(
        &rt,
        &["rcv-create-200", "cmt-status-uppercase"],
        &dir,
        "worse",
    );
    let new = run(&dir, &worse, "r2", Some("known.toml"));
    assert_eq!(new.status.code(), Some(1), "{}", says(&new));
    let report: serde_json::Value = serde_json::from_str(&read(&dir, "r2/report.json")).unwrap();
    let failed_rules: std::collections::BTreeSet<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] == "fail")
        .flat_map(|c| c["findings"].as_array().unwrap())
        .filter(|f| f["known"].is_null())
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed_rules,
        ["CMT-STATUS-ENUM"].into(),
        "only the new rule fails"
    );

    // Fixed: the entries are stale, and the gate fails by name until they go.
    let (_d, fixed) = reference(&rt, &[], &dir, "fixed");
    let stale = run(&dir, &fixed, "r3", Some("known.toml"));
    let stdout = String::from_utf8_lossy(&stale.stdout);
    assert_eq!(stale.status.code(), Some(7), "{}", says(&stale));
    assert!(stdout.contains("covenant: STALE BASELINE."), "{stdout}");
    assert!(
        stdout.contains("remove the entry RCV-CREATE-201 from known.toml"),
        "{stdout}"
    );
    let (_e, fixed) = reference(&rt, &[], &dir, "accepted");
    let profile = fixed.to_str().unwrap();
    let accepted = covenant(
        &dir,
        &[
            "run",
            "--profile",
            profile,
            "--seed",
            SEED,
            "--report-dir",
            "r4",
            "--baseline",
            "known.toml",
            "--accept-stale",
        ],
    );
    assert_eq!(accepted.status.code(), Some(0), "{}", says(&accepted));
}

#[test]
fn a_misspelt_rule_or_case_in_a_baseline_is_the_users_mistake_named_with_its_line() {
    let rt = runtime();
    let dir = standin::scratch("baseline-typo");
    let (_a, profile) = reference(&rt, &[], &dir, "target");
    // Each baseline is refused with exit 2, naming its file and line and the closest id.
    let refused = |file: &str, text: &str, named: &str| {
        std::fs::write(dir.join(file), text).expect("write the baseline");
        let output = run(&dir, &profile, "r", Some(file));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{}", says(&output));
        assert!(stderr.contains(&format!("{file}:3:")), "{stderr}");
        assert!(stderr.contains(named), "{stderr}");
    };
    refused(
        "typo.toml",
        "# known failures\n[[known]]\nrule = \"RCV-CREATE-210\"\ncases = [\"receivable.create-quote\"]\n",
        "did you mean `RCV-CREATE-201`?",
    );
    refused(
        "case.toml",
        "[[known]]\nrule = \"RCV-CREATE-201\"\ncases = [\"receivable.create-quot\"]\n",
        "did you mean `receivable.create-quote`?",
    );
    assert!(
        !dir.join("r/report.json").exists(),
        "nothing is run, nothing is reported"
    );
}

/// A report of real traffic (`covenant check`, `covenant proxy`): the target broke
/// RCV-CREATE-201 in one case, the client slipped in another.
fn traffic_report() -> serde_json::Value {
    let case = |id: &str, suite: &str, verdict: &str, rule: &str| {
        serde_json::json!({
            "id": id, "suite": suite, "operation": "x", "rules": [rule], "verdict": verdict,
            "findings": [{"rule": rule, "level": "must", "message": format!("{rule} broken")}],
            "exchanges": [], "requests": 1, "duration_ms": 1.0
        })
    };
    serde_json::json!({
        "meta": {
            "covenant_version": "0", "seed": 0, "target": "http://127.0.0.1:1", "profile": {},
            "started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:01Z",
            "duration_ms": 1000.0, "cases_per_operation": 0
        },
        "counts": {"pass": 0, "warn": 0, "fail": 1, "error": 0, "skip": 0, "client": 1, "requests": 2},
        "cases": [
            case("receivable.create-quote", "receivable", "fail", "RCV-CREATE-201"),
            case("client.list-transactions", "client", "client", "BPAG-TOKEN-OPAQUE"),
        ]
    })
}

#[test]
fn a_baseline_never_lists_a_clients_slip_and_judging_with_one_keeps_it_the_clients() {
    let dir = standin::scratch("baseline-client");
    let report = dir.join("report.json");
    std::fs::write(&report, traffic_report().to_string()).expect("write the report");
    let written = covenant(&dir, &["baseline", "report.json", "-o", "known.toml"]);
    assert_eq!(written.status.code(), Some(0), "{}", says(&written));
    let text = read(&dir, "known.toml");
    assert!(
        text.contains("rule = \"RCV-CREATE-201\"") && text.contains("\"receivable.create-quote\""),
        "{text}"
    );
    assert!(
        !text.contains("BPAG-TOKEN-OPAQUE") && !text.contains("client."),
        "the client's slip is no failure of the target to hold:\n{text}"
    );
    assert_eq!(text.matches("[[known]]").count(), 1, "{text}");

    // Judged again with the baseline (merge --baseline forgets and reapplies it): the target's
    // failure is known, the client's slip stays the client's.
    let merged = covenant(
        &dir,
        &[
            "merge",
            "report.json",
            "--baseline",
            "known.toml",
            "--report-dir",
            "m",
        ],
    );
    assert_eq!(merged.status.code(), Some(0), "{}", says(&merged));
    let stdout = String::from_utf8_lossy(&merged.stdout);
    assert!(
        stdout.contains(", 1 known, 1 with the client's slips;"),
        "{stdout}"
    );
    let record: serde_json::Value =
        serde_json::from_str(&read(&dir, "m/report.json")).expect("JSON");
    let verdicts: Vec<(&str, &str)> = record["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("client.list-transactions", "client"),
            ("receivable.create-quote", "known")
        ]
    );
    assert_eq!(record["counts"]["client"], 1);
    assert_eq!(record["meta"]["baseline"]["known"], 1);
    assert!(record["cases"][0]["findings"][0].get("known").is_none());
}

/// How many times `needle` is in `text`.
fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

/// Where `needle` first is in `text`, failing the test when it is not there.
fn at(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("{needle:?} is not in:\n{text}"))
}

#[test]
fn a_gate_run_counts_new_expired_and_known_failures_alike_on_every_surface() {
    let rt = runtime();
    let dir = standin::scratch("baseline-surfaces");
    let (_a, today) = reference(
        &rt,
        &["rcv-create-200", "gen-mailbox-id-not-uuid"],
        &dir,
        "a",
    );
    let first = run(&dir, &today, "r0", None);
    assert_eq!(first.status.code(), Some(1), "{}", says(&first));
    let written = covenant(&dir, &["baseline", "r0/report.json", "-o", "known.toml"]);
    assert_eq!(written.status.code(), Some(0), "{}", says(&written));
    // Reasons filled in, and the GEN-IDS-UUID entry expired.
    let mut text =
        read(&dir, "known.toml").replace("reason = \"\"", "reason = \"tracked in #123\"");
    let uuid = at(&text, "rule = \"GEN-IDS-UUID\"");
    let until = uuid + at(&text[uuid..], "# until = 2027-01-31");
    text.replace_range(
        until..until + "# until = 2027-01-31".len(),
        "until = 2026-01-01",
    );
    std::fs::write(dir.join("known.toml"), &text).expect("write the baseline");

    // The same failures, and one new rule broken beside them.
    let faults = [
        "rcv-create-200",
        "gen-mailbox-id-not-uuid",
        "cmt-status-uppercase",
    ];
    let (_b, worse) = reference(&rt, &faults, &dir, "b");
    let gated = run(&dir, &worse, "r1", Some("known.toml"));
    assert_eq!(gated.status.code(), Some(1), "{}", says(&gated));
    let console = String::from_utf8_lossy(&gated.stdout).into_owned();
    let md = read(&dir, "r1/summary.md");
    let html = read(&dir, "r1/summary.html");
    let junit = read(&dir, "r1/junit.xml");
    let report: serde_json::Value = serde_json::from_str(&read(&dir, "r1/report.json")).unwrap();
    let counts = &report["counts"];
    let (fail, known) = (
        counts["fail"].as_u64().unwrap(),
        counts["known"].as_u64().unwrap(),
    );
    assert!(fail > 0 && known > 0, "{counts}");

    // One count: the counts sentence, the counts table, JUnit's failures and skipped cases.
    assert!(
        console.contains(&format!("FAILED. {fail} failed, ")),
        "{console}"
    );
    assert!(console.contains(&format!(", {known} known;")), "{console}");
    assert!(md.contains(&format!("**{fail} failed**")), "{md}");
    assert!(md.contains(&format!(", {known} known:")), "{md}");
    assert!(
        html.contains("<th class=\"known\">known</th>"),
        "the counts table has a known column"
    );
    assert!(junit.contains(&format!("failures=\"{fail}\"")), "{junit}");
    let skipped = count(&junit, "<skipped message=\"known: ");
    assert_eq!(
        skipped as u64, known,
        "each known case is <skipped> in JUnit"
    );

    // The known failures in one sentence, the same on every surface, beside the counts.
    let summary = &console[at(&console, "\nbroken rules (")..];
    let tally_at = at(summary, " rules in ");
    let line_start = summary[..tally_at].rfind('\n').unwrap() + 1;
    let line_end = tally_at + summary[tally_at..].find('\n').unwrap();
    let tally = summary[line_start..line_end].trim();
    assert!(
        tally.contains(&format!(": {known} known (they break nothing else)")),
        "{tally}"
    );
    assert!(md.contains(&format!("{tally}.")), "{md}");
    assert!(
        html.contains(&format!("{tally}.")),
        "{tally} not in summary.html"
    );

    // The new rule first, marked new; the expired one marked expired; the known ones after,
    // under their own heading, each once.
    assert!(summary.contains("broken rules (2):"), "{console}");
    let new = at(summary, "[CMT-STATUS-ENUM] (must)");
    assert!(summary.contains("  new: broken in"), "{console}");
    assert!(
        summary.contains("broken, its baseline entry expired, in"),
        "{console}"
    );
    let heading = at(summary, "known failures (held by the baseline known.toml");
    assert!(
        new < at(summary, "[GEN-IDS-UUID] (must)") && new < heading,
        "{console}"
    );
    assert!(md.contains("new: broken in"), "{md}");
    assert!(
        at(&md, "#### `CMT-STATUS-ENUM`") < at(&md, "### Known failures"),
        "{md}"
    );
    assert!(
        html.contains("New: broken in"),
        "summary.html marks the new rule"
    );
    let html_new = at(&html, "id=\"broken-CMT-STATUS-ENUM\"");
    assert!(
        html_new < at(&html, "id=\"known-failures\""),
        "new before known in summary.html"
    );
    for rule in ["RCV-CREATE-201", "RCV-STATUS-SET"] {
        let line = summary
            .lines()
            .find(|l| l.starts_with(&format!("  [{rule}] known failure in ")))
            .unwrap_or_else(|| panic!("{rule} among the known: {console}"));
        assert_eq!(
            count(summary, &format!("[{rule}]")),
            1,
            "{rule} once: {console}"
        );
        assert!(at(summary, line) > heading, "{console}");
        // Its count of cases, the same in summary.md and summary.html.
        let cases: usize = line["  [".len() + rule.len() + "] known failure in ".len()..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a count of cases");
        assert_eq!(count(&md, &format!("| `{rule}` | {cases} |")), 1, "{md}");
        assert_eq!(
            count(&html, &format!("id=\"broken-{rule}\"")),
            1,
            "{rule} once in html"
        );
        let section = &html[at(&html, &format!("id=\"broken-{rule}\""))..];
        let section = &section[..at(section, "</section>")];
        assert!(
            section.contains(&format!("Known failure in {cases} case")),
            "{rule}: {section}"
        );
    }

    // JUnit: an expired entry's failure says so; a known case is skipped, never failed.
    assert!(junit.contains("expired: GEN-IDS-UUID"), "{junit}");
    assert!(!junit.contains("type=\"RCV-CREATE-201\""), "{junit}");
}
