//! Coverage that tells the truth, through the real binary and the embedded reference: evidence
//! per rule (the generic checks included), status coverage per operation, and the
//! `--require-coverage` gate with its own exit code.

use covenant::catalogue::{Catalogue, Level};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

/// The rules the generic checks apply to every response, which no case names.
const GENERIC: [&str; 6] = [
    "GEN-JSON-BODY",
    "GEN-IDS-UUID",
    "ERR-FIN-BODY",
    "ERR-FIN-422-BODY",
    "ERR-BANK-BODY",
    "ERR-BANK-STATUS-MATCH",
];

struct ReportedRun {
    output: Output,
    dir: PathBuf,
    report: Value,
}

impl ReportedRun {
    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).expect("report written")
    }

    /// The coverage row of `rule` in report.json.
    fn rule(&self, rule: &str) -> &Value {
        self.report["coverage"]["rules"]
            .as_array()
            .expect("coverage.rules")
            .iter()
            .find(|r| r["id"] == rule)
            .unwrap_or_else(|| panic!("no coverage row for {rule}"))
    }

    fn statuses(&self, operation: &str) -> &Value {
        self.report["coverage"]["statuses"]
            .as_array()
            .expect("coverage.statuses")
            .iter()
            .find(|r| r["operation"] == operation)
            .unwrap_or_else(|| panic!("no status row for {operation}"))
    }
}

fn run(name: &str, extra: &[&str]) -> ReportedRun {
    let dir = std::env::temp_dir().join(format!("covenant-coverage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = vec!["run", "--quiet", "--seed", "11", "--report-dir"];
    args.push(dir.to_str().expect("utf-8 temp path"));
    args.extend_from_slice(extra);
    let output = crate::support::covenant()
        .args(&args)
        .output()
        .expect("covenant runs");
    let text = std::fs::read_to_string(dir.join("report.json")).unwrap_or_else(|e| {
        panic!(
            "report.json of {name} ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let report = serde_json::from_str(&text).expect("report.json is JSON");
    ReportedRun {
        output,
        dir,
        report,
    }
}

#[test]
fn every_observable_rule_gets_evidence_in_a_run_against_the_reference() {
    let run = run("full", &["--require-coverage", "must=100,should=100"]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert_eq!(run.report["verdict"], "pass");
    let rules = run.report["coverage"]["rules"].as_array().expect("rules");
    let mut unproven = Vec::new();
    for row in rules {
        if row["status"] == "not-observable" {
            assert_eq!(row["responses"], 0, "{row}");
            continue;
        }
        let evidenced = row["status"] == "pass"
            && row["responses"].as_u64() > Some(0)
            && row["cases"].as_u64() > Some(0)
            && row["passed"] == row["cases"];
        if !evidenced {
            unproven.push(row.to_string());
        }
    }
    assert!(unproven.is_empty(), "rules without evidence: {unproven:#?}");
    for rule in GENERIC {
        let row = run.rule(rule);
        assert!(
            row["responses"].as_u64() > Some(5),
            "the generic checks judged many responses against {rule}: {row}"
        );
    }
    // Every observable rule of each level, as the catalogue has them.
    let observable = |level: Level| {
        let rules = &Catalogue::embedded().rules;
        rules
            .iter()
            .filter(|r| r.observable && r.level == level)
            .count()
    };
    let (must, should) = (observable(Level::Must), observable(Level::Should));
    assert!(must > 80 && should > 30, "{must} must, {should} should");
    let stdout = run.stdout();
    let all =
        format!("coverage: {must}/{must} must and {should}/{should} should rules with evidence");
    assert!(stdout.contains(&all), "{stdout}");
}

/// report.json's constraint rows: (id, broken, held, why not).
fn constraints(run: &ReportedRun) -> Vec<(String, u64, u64, String)> {
    let rows = run.report["meta"]["constraints"].as_array();
    rows.expect("meta.constraints")
        .iter()
        .map(|c| {
            let unbreakable = c.get("unbreakable").is_some();
            (
                c["id"].as_str().unwrap_or_default().to_owned(),
                c["broken"].as_u64().unwrap_or(0) + u64::from(unbreakable),
                c["held"].as_u64().unwrap_or(0),
                c["why_not"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_inventoried_constraint_is_broken_and_held_against_the_reference() {
    let run = run("constraints", &["--require-coverage", "constraints=100"]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    let rows = constraints(&run);
    assert!(rows.len() > 250, "{} constraints", rows.len());
    let lacking: Vec<_> = rows.iter().filter(|r| r.1 == 0 || r.2 == 0).collect();
    assert!(lacking.is_empty(), "not exercised: {lacking:#?}");
    // The fields the issue found unreached: a nested item's format, a based-on field's.
    for id in [
        "quote-create /line_items/*/vat_rate_id format uuid",
        "invoice-create /line_items/*/vat_rate_id format uuid",
        "based-on-create /tag_ids/* format uuid",
        "invoice-create /payment_page_url maxLength 2083",
        "velocity-control-create / usageLimit omitted when velocityWindow is \"TRANSACTION\"",
    ] {
        assert!(rows.iter().any(|r| r.0 == id), "{id} is inventoried");
    }
    let n = rows.len();
    let stdout = run.stdout();
    assert!(
        stdout.contains(&format!("{n}/{n} request constraints broken and held")),
        "{stdout}"
    );
    let html = run.file("summary.html");
    assert!(
        html.contains("id=\"constraints-create-vat-id\""),
        "summary.html lists them"
    );
}

#[test]
fn constraints_a_run_did_not_exercise_gate_the_run_and_say_why() {
    let run = run(
        "constraints-short",
        &[
            "--require-coverage",
            "constraints=100",
            "--skip",
            "generated.create-vat-id.invalid",
        ],
    );
    assert_eq!(run.code(), Some(5), "{}", run.stdout());
    assert_eq!(run.report["verdict"], "coverage_short");
    let rows = constraints(&run);
    let vat = rows
        .iter()
        .find(|r| r.0 == "vat-id-create /value maxLength 32")
        .expect("the VAT ID value's limit is inventoried");
    assert_eq!(vat.1, 0, "nothing broke it: {vat:?}");
    assert!(vat.2 > 0, "still held by the acceptance case: {vat:?}");
    assert!(
        vat.3
            .contains("generated.create-vat-id.invalid was not run"),
        "{vat:?}"
    );
    let stdout = run.stdout();
    assert!(stdout.contains("constraints=100"), "{stdout}");
    let md = run.file("summary.md");
    assert!(md.contains("Constraints not broken and held"), "{md}");
}

#[test]
fn a_fault_in_error_bodies_alone_fails_the_error_body_rule_in_the_matrix() {
    let run = run(
        "err-body",
        &["--fault", "err-fin-body-flat", "--filter", "auth."],
    );
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    let row = run.rule("ERR-FIN-BODY");
    assert_eq!(row["status"], "fail", "{row}");
    assert!(row["failed"].as_u64() > Some(0), "{row}");
    let named = row["named"][0].as_str().expect("a failing case named");
    assert!(named.starts_with("auth."), "{row}");
    let bank = run.rule("ERR-BANK-BODY");
    assert_eq!(
        bank["status"], "pass",
        "banking error bodies still hold: {bank}"
    );
    let html = run.file("summary.html");
    let at = html.find("id=\"rule-ERR-FIN-BODY\"").expect("a matrix row");
    let tr = &html[at..at + html[at..].find("</tr>").expect("row end")];
    assert!(tr.contains("class=\"fail\">fail<"), "{tr}");
}

#[test]
fn a_filtered_run_is_coverage_short_with_its_own_exit_code_and_says_what_lacked_evidence() {
    let run = run(
        "short",
        &["--filter", "vat", "--require-coverage", "must=100"],
    );
    assert_eq!(run.code(), Some(5), "{}", run.stdout());
    assert_eq!(run.report["verdict"], "coverage_short");
    let short = run.report["meta"]["coverage_short"][0]
        .as_str()
        .expect("a shortfall sentence");
    assert!(short.starts_with("must=100: "), "{short}");
    // A banking rule no case of the filter judges (the sentence names the first few, in the
    // catalogue's order).
    assert!(
        short.contains("AUTH-BANK-REQUIRED"),
        "it names rules without evidence: {short}"
    );
    let row = run.rule("VC-ID-ECHO");
    assert_eq!(row["status"], "not-run", "{row}");
    assert!(
        row["reason"]
            .as_str()
            .unwrap_or("")
            .contains("filtered out"),
        "{row}"
    );
    assert!(run.stdout().contains("COVERAGE SHORT"), "{}", run.stdout());
    assert!(run.file("summary.html").contains("id=\"coverage-short\""));
    assert!(run
        .file("summary.md")
        .contains("Coverage short of `--require-coverage`"));
    let junit = run.file("junit.xml");
    assert!(junit.contains("coverage_short"), "JUnit shows red too");
}

#[test]
fn the_status_table_lists_a_stated_status_a_filtered_run_never_saw() {
    let run = run("statuses", &["--filter", "vat"]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    let receivable = run.statuses("create-receivable");
    let missing: Vec<&str> = receivable["missing"]
        .as_array()
        .expect("missing")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        missing.contains(&"201") && missing.contains(&"422"),
        "{receivable}"
    );
    let vat = run.statuses("create-vat-id");
    assert_eq!(vat["missing"], serde_json::json!([]), "{vat}");
    assert!(vat["observed"]["401"].as_u64() > Some(0), "{vat}");
    let html = run.file("summary.html");
    let at = html
        .find("id=\"statuses-create-receivable\"")
        .expect("a status row");
    let tr = &html[at..at + html[at..].find("</tr>").expect("row end")];
    assert!(tr.contains("class=\"warn\">201, 400"), "{tr}");
}

#[test]
fn a_bad_coverage_requirement_is_a_usage_error_naming_the_flag() {
    let output = crate::support::covenant()
        .args(["run", "--dry-run", "--require-coverage", "mustt=100"])
        .output()
        .expect("covenant runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--require-coverage \"mustt=100\"") && stderr.contains("must=100"),
        "{stderr}"
    );
}

#[test]
fn shards_leave_the_requirement_to_the_merge_which_judges_the_whole_run() {
    let shards: Vec<ReportedRun> = ["1/2", "2/2"]
        .iter()
        .map(|shard| {
            let name = format!("shard-{}", &shard[..1]);
            run(&name, &["--shard", shard, "--require-coverage", "must=100"])
        })
        .collect();
    for shard in &shards {
        assert_eq!(
            shard.code(),
            Some(0),
            "a shard alone is not judged: {}",
            shard.stdout()
        );
    }
    let merge = |name: &str, extra: &[&str]| {
        let dir =
            std::env::temp_dir().join(format!("covenant-coverage-{name}-{}", std::process::id()));
        let mut args = vec!["merge".to_owned(), "--report-dir".to_owned()];
        args.push(dir.to_str().expect("utf-8").to_owned());
        args.extend(
            shards
                .iter()
                .map(|s| s.dir.join("report.json").display().to_string()),
        );
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        crate::support::covenant()
            .args(&args)
            .output()
            .expect("covenant merge runs")
    };
    let whole = merge("merged", &[]);
    assert_eq!(
        whole.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&whole.stdout)
    );
    let statuses = merge("merged-status", &["--require-coverage", "status=100"]);
    let stdout = String::from_utf8_lossy(&statuses.stdout);
    assert_eq!(statuses.status.code(), Some(5), "{stdout}");
    assert!(stdout.contains("create-receivable 400"), "{stdout}");
}

/// The `statements` measure of report.json: (got, of).
fn statements(run: &ReportedRun) -> (u64, u64) {
    let measures = run.report["coverage"]["measures"]
        .as_array()
        .expect("measures");
    let m = measures
        .iter()
        .find(|m| m["measure"] == "statements")
        .expect("a statements measure");
    (
        m["got"].as_u64().expect("got"),
        m["of"].as_u64().expect("of"),
    )
}

#[test]
fn every_stated_statement_a_client_can_observe_is_judged_against_the_reference() {
    let run = run("statements", &["--require-coverage", "statements=100"]);
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    let (got, of) = statements(&run);
    assert!(of > 150 && got == of, "{got} of {of}");
    let stdout = run.stdout();
    assert!(
        stdout.contains(&format!("{of}/{of} stated statements judged")),
        "{stdout}"
    );
    assert!(!run
        .file("summary.html")
        .contains("id=\"unjudged-statements\""));
}

#[test]
fn a_run_that_judges_part_of_the_spec_names_the_statements_it_left_unjudged() {
    let run = run(
        "statements-short",
        &["--filter", "vat", "--require-coverage", "statements=100"],
    );
    assert_eq!(run.code(), Some(5), "COVERAGE SHORT: {}", run.stdout());
    let (got, of) = statements(&run);
    assert!(got > 0 && got < of, "{got} of {of}");
    let html = run.file("summary.html");
    assert!(
        html.contains("id=\"unjudged-statements\""),
        "summary.html lists them"
    );
    // Each is named with its place in the spec: the velocity control's usageLimit, say.
    assert!(html.contains("Resources / Velocity control, line 157 (stated)"));
    let short = run.report["meta"]["coverage_short"].to_string();
    assert!(
        short.contains("statements=100") && short.contains("S-"),
        "{short}"
    );
}
