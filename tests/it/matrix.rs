//! `covenant matrix` through the binary: three implementations run for real (the embedded
//! reference behind `covenant serve`, a stand-in that keeps the contract with other choices, the
//! reference with one fault), their reports put side by side. Every rule of the catalogue has a
//! row, the broken rule fails in its implementation's column alone, the silent-area table shows
//! the success statuses they chose differently, matrix.json validates against its schema,
//! matrix.md fits a pull-request comment, and matrix.html is well-formed and sorts in a real
//! browser. A file that is no report is exit 2 naming it; a shard's report is refused; a report
//! of another covenant version is read as far as it goes.

use crate::report::browser::dump_dom;
use crate::support::standin::{self, Choices, Incoming};
use crate::support::{covenant, says, scratch};
use serde_json::Value;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The fault of the broken implementation, and the rule it breaks.
const FAULT: &str = "gen-mailbox-id-not-uuid";
const BROKEN_RULE: &str = "GEN-IDS-UUID";

/// `covenant run` with `args`, its report written to `dir/name`; its report.json.
fn run(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let reports = dir.join(name);
    let output = covenant()
        .arg("run")
        .args(args)
        .arg("--report-dir")
        .arg(&reports)
        .output()
        .expect("covenant runs");
    let expected = if args.contains(&"--fault") { 1 } else { 0 };
    assert_eq!(
        output.status.code(),
        Some(expected),
        "{name}: {}",
        says(&output)
    );
    reports.join("report.json")
}

/// The reference behind `covenant serve`, its profile naming it `reference`: its report.
fn served_reference(dir: &Path) -> PathBuf {
    let profile = dir.join("served.toml");
    let mut child = covenant()
        .args(["serve", "--port", "0", "--seed", "7", "--profile-out"])
        .arg(&profile)
        .stdout(Stdio::piped())
        .spawn()
        .expect("covenant serve starts");
    let stdout = child.stdout.take().expect("a stdout pipe");
    let written = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .any(|line| line.starts_with("profile written"));
    assert!(written, "covenant serve wrote no profile");
    let text = std::fs::read_to_string(&profile).expect("the served profile");
    let named = dir.join("reference.toml");
    std::fs::write(&named, format!("name = \"reference\"\n{text}")).expect("write the profile");
    let report = run(dir, "reference", &["--profile", named.to_str().unwrap()]);
    let _ = child.kill();
    let _ = child.wait();
    report
}

/// A stand-in answering 200 where the reference answers 201 to a new VAT ID (the spec states
/// no success status for it): its report.
fn other_choices(dir: &Path) -> PathBuf {
    let rt = standin::runtime();
    let choices = Choices {
        answer: Box::new(|seen: &Incoming, (status, body)| {
            let create = seen.method == "POST" && seen.path.ends_with("/vat-ids");
            (if create && status == 201 { 200 } else { status }, body)
        }),
        ..Choices::default()
    };
    let (_behind, profile) = standin::stand_in(&rt, 8, dir, "other", choices);
    run(dir, "other", &["--profile", profile.to_str().unwrap()])
}

/// The three reports and the matrix of them, written once for every test of this file.
pub(crate) fn matrix() -> &'static (PathBuf, Value) {
    static MATRIX: OnceLock<(PathBuf, Value)> = OnceLock::new();
    MATRIX.get_or_init(|| {
        let dir = scratch("matrix-three");
        let reference = served_reference(&dir);
        let other = other_choices(&dir);
        let broken = run(&dir, "broken", &["--fault", FAULT]);
        let out = dir.join("matrix");
        let output = covenant()
            .arg("matrix")
            .arg(&reference)
            .arg(format!("--name=other={}", other.display()))
            .arg(format!("--name=broken={}", broken.display()))
            .arg("--report-dir")
            .arg(&out)
            .output()
            .expect("covenant matrix runs");
        assert_eq!(output.status.code(), Some(0), "{}", says(&output));
        let text = std::fs::read_to_string(out.join("matrix.json")).expect("matrix.json");
        (
            out,
            serde_json::from_str(&text).expect("matrix.json is JSON"),
        )
    })
}

fn result<'a>(matrix: &'a Value, rule: &str, name: &str) -> &'a Value {
    let row = matrix["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == rule)
        .unwrap_or_else(|| panic!("no row of {rule}"));
    &row["results"][name]
}

#[test]
fn the_matrix_of_three_runs_has_every_rule_and_the_broken_one_fails_in_its_column_alone() {
    let (_, m) = matrix();
    let names: Vec<&str> = m["implementations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["reference", "other", "broken"],
        "the profile's name, then --name"
    );
    let catalogue = covenant::catalogue::Catalogue::embedded();
    let ids: Vec<&str> = m["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = catalogue.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids, expected,
        "a row per rule of the catalogue, in its order"
    );

    let broken = result(m, BROKEN_RULE, "broken");
    assert_eq!(broken["result"], "fail", "{broken}");
    assert_eq!(broken["case"], "mailbox.create", "{broken}");
    assert!(
        broken["message"].as_str().unwrap().contains("uuid"),
        "{broken}"
    );
    for rule in m["rules"].as_array().unwrap() {
        for name in ["reference", "other"] {
            let cell = &rule["results"][name];
            assert_ne!(cell["result"], "fail", "{} in {name}: {cell}", rule["id"]);
        }
        if rule["id"] != BROKEN_RULE {
            assert_ne!(
                rule["results"]["broken"]["result"], "fail",
                "{}",
                rule["id"]
            );
        }
    }
    assert_eq!(result(m, BROKEN_RULE, "reference")["result"], "pass");
    let columns = &m["implementations"];
    assert_eq!(columns[2]["must_broken"], 1);
    assert_eq!(columns[0]["must_broken"], 0);
    assert_eq!(columns[0]["verdict"], "pass");
    assert_eq!(columns[2]["verdict"], "fail");
}

#[test]
fn the_silent_area_table_shows_the_success_statuses_they_chose_differently_first() {
    let (_, m) = matrix();
    let choices = m["choices"].as_array().unwrap();
    let status = choices
        .iter()
        .find(|c| c["gap"] == "GAP-SUCCESS-STATUS" && c["operation"] == "create-vat-id")
        .expect("the success status of create-vat-id");
    assert_eq!(status["distinct"], 2, "{status}");
    assert_eq!(status["choices"]["reference"], serde_json::json!(["201"]));
    assert_eq!(status["choices"]["other"], serde_json::json!(["200"]));
    assert_eq!(status["choices"]["broken"], serde_json::json!(["201"]));
    assert!(
        choices[0]["distinct"].as_u64() >= Some(2),
        "the most divergent first: {}",
        choices[0]
    );
    let ranks: Vec<u64> = choices
        .iter()
        .map(|c| c["distinct"].as_u64().unwrap())
        .collect();
    assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "{ranks:?}");
}

#[test]
fn matrix_json_validates_against_its_schema() {
    let (_, m) = matrix();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/matrix.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("the schema is JSON");
    jsonschema::meta::validate(&schema).expect("the schema obeys the 2020-12 meta-schema");
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(m)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let mut bad = m.clone();
    bad["rules"][0]["results"]["broken"]["result"] = "failed".into();
    assert!(
        !validator.is_valid(&bad),
        "a result the schema does not list"
    );
}

#[test]
fn matrix_md_fits_a_pull_request_comment_with_the_broken_rule_and_the_divergent_choice() {
    let (dir, _) = matrix();
    let md = std::fs::read_to_string(dir.join("matrix.md")).expect("matrix.md");
    assert!(md.len() < 65_536, "{} bytes", md.len());
    let broken = md
        .split("### Rules broken by any implementation (1)")
        .nth(1)
        .expect("one rule broken");
    let broken = broken.split("###").next().unwrap();
    assert!(
        broken.contains(&format!(
            "| `{BROKEN_RULE}` (must) | pass | pass | **fail** in `mailbox.create`"
        )),
        "{broken}"
    );
    let differ = md
        .split("they chose differently")
        .nth(1)
        .expect("the divergent choices");
    assert!(
        differ.contains("| `GAP-SUCCESS-STATUS` create-vat-id: success status | 201 | 200 | 201 |"),
        "{differ}"
    );
    assert!(md.contains("| **reference** | pass |"), "{md}");
    assert!(
        md.contains("<details><summary>The other "),
        "the rest folded: {md}"
    );
}

#[test]
fn matrix_html_is_well_formed_links_failures_and_sorts_by_a_column_in_a_real_browser() {
    let (dir, _) = matrix();
    let page = dir.join("matrix.html").canonicalize().unwrap();
    let lint: Output = Command::new("xmllint")
        .arg("--noout")
        .arg(&page)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run xmllint ({e}); install it: apt-get install -y libxml2-utils")
        });
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<a href=\"../broken/summary.html#case-mailbox.create\">fail</a>"),
        "the failing cell links to the case in its summary"
    );
    assert!(
        html.contains("title=\"mailbox.create: "),
        "case and message on hover"
    );

    let profile = scratch("matrix-browser-profile");
    let dom = dump_dom(&format!("file://{}#sort=2", page.display()), &profile);
    assert!(
        dom.contains("<table id=\"rules\" class=\"sorted\" data-sorted-by=\"2\">"),
        "sorted by the third column"
    );
    let first = dom.find("<tr class=\"rule\"").expect("rule rows");
    assert!(
        dom[first..].starts_with(&format!("<tr class=\"rule\" id=\"rule-{BROKEN_RULE}\"")),
        "the broken rule first: {}",
        &dom[first..first + 80]
    );
    let dom = dump_dom(&format!("file://{}", page.display()), &profile);
    assert!(dom.contains("<table id=\"rules\">"), "by area unless asked");
    assert!(dom.contains("id=\"area-GEN\""), "grouped by area");
    assert!(dom.contains("id=\"choices\""), "the silent areas beside");
}

#[test]
fn a_file_that_is_no_report_is_exit_2_naming_it() {
    let dir = scratch("matrix-not-a-report");
    for (name, text) in [
        ("notes.txt", "not json at all\n"),
        ("other.json", "{\"a\": 1}\n"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let output = covenant()
            .arg("matrix")
            .arg(&path)
            .arg("--report-dir")
            .arg(dir.join("out"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", says(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&path.display().to_string()), "{stderr}");
        assert!(stderr.contains("not a covenant report"), "{stderr}");
    }
    assert!(!dir.join("out").join("matrix.json").exists());
}

/// A small report of covenant 0.0.1: two rules in its coverage, a key of its own.
fn old_report(shard: Option<&str>) -> Value {
    let mut meta = serde_json::json!({
        "covenant_version": "0.0.1", "seed": 1, "target": "http://old.example:9000/",
        "profile": {}, "started_at": "2025-01-01T00:00:00Z", "finished_at": "2025-01-01T00:00:01Z",
        "duration_ms": 1000.0, "cases_per_operation": 1, "a_key_of_that_version": true
    });
    if let Some(shard) = shard {
        meta["shard"] = shard.into();
    }
    serde_json::json!({
        "verdict": "pass", "meta": meta, "counts": {}, "cases": [],
        "coverage": {"rules": [
            {"id": "GEN-JSON-BODY", "status": "pass"},
            {"id": "GEN-NO-5XX", "status": "skipped", "reason": "no fixture"}]}
    })
}

#[test]
fn a_shard_is_refused_and_a_report_of_another_version_is_read_as_far_as_it_goes() {
    let dir = scratch("matrix-versions");
    let shard = dir.join("shard.json");
    std::fs::write(&shard, old_report(Some("1/2")).to_string()).unwrap();
    let output = covenant().arg("matrix").arg(&shard).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", says(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("shard 1/2") && stderr.contains("covenant merge"),
        "{stderr}"
    );

    let old = dir.join("old.json");
    std::fs::write(&old, old_report(None).to_string()).unwrap();
    let out = dir.join("out");
    let output = covenant()
        .arg("matrix")
        .arg(&old)
        .arg("--report-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("matrix.json")).unwrap()).unwrap();
    let name = "old.example:9000";
    assert_eq!(
        m["implementations"][0]["name"], name,
        "the target's host and port"
    );
    assert_eq!(m["implementations"][0]["covenant_version"], "0.0.1");
    assert_eq!(result(&m, "GEN-JSON-BODY", name)["result"], "pass");
    let skipped = result(&m, "GEN-NO-5XX", name);
    assert_eq!(skipped["result"], "skipped");
    assert_eq!(skipped["message"], "no fixture");
    assert_eq!(
        result(&m, BROKEN_RULE, name)["result"],
        "not in that version"
    );
}
