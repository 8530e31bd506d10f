//! The user's case files through the binary: the three examples of `cases/examples` pass
//! against the embedded reference, from `--case-dir` and from the profile's `cases`, and run in
//! the same plan as the built-in cases (`--list`, `--filter` by rule, `--read-only`,
//! `--dry-run`); each mistake of a case file is exit 2 before anything is sent, naming file,
//! line and column; a JSON pointer that matches nothing is the case's failure with the answer
//! shown; a user case that a fault of the reference breaks fails under its rule in report.json,
//! junit.xml and the matrix.

use crate::support::standin::{reference, runtime};
use crate::support::{covenant, says, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/examples")
}

/// `covenant run --seed 5` with `args`, its reports in `dir/reports`.
fn run(dir: &Path, args: &[&str]) -> Output {
    covenant()
        .args(["run", "--seed", "5", "--report-dir"])
        .arg(dir.join("reports"))
        .args(args)
        .output()
        .expect("covenant runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A case directory `dir/NAME` holding one file `cases.toml` of `text`.
fn case_dir(dir: &Path, name: &str, text: &str) -> PathBuf {
    let cases = dir.join(name);
    std::fs::create_dir_all(&cases).expect("the case directory");
    std::fs::write(cases.join("cases.toml"), text).expect("the case file");
    cases
}

#[test]
fn the_three_examples_pass_against_the_embedded_reference() {
    let dir = scratch("user-examples");
    let examples = examples();
    let output = run(
        &dir,
        &[
            "--case-dir",
            examples.to_str().unwrap(),
            "--filter",
            "user.",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let out = stdout(&output);
    for id in [
        "user.read-after-write.vat-id-reads-back",
        "user.regression.get-answers-the-vat-id-asked-for",
        "user.tenancy.vat-id-hidden-from-other-organization",
    ] {
        assert!(out.contains(&format!("[user] {id} ... ok")), "{id}: {out}");
    }
    assert!(out.contains("3 passed"), "{out}");
}

#[test]
fn the_profiles_cases_key_runs_the_examples_beside_the_suite() {
    let rt = runtime();
    let dir = scratch("user-profile-key");
    let (_server, profile) = reference(&rt, 5, &dir, "served");
    let text = std::fs::read_to_string(&profile).expect("the profile");
    let examples = examples();
    let with_cases = format!("cases = [{:?}]\n{text}", examples.display().to_string());
    std::fs::write(&profile, with_cases).expect("the profile");
    let output = covenant()
        .args(["run", "--seed", "5", "--filter", "user.", "--profile"])
        .arg(&profile)
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .env("COVENANT_STATE", dir.join("state.json"))
        .output()
        .expect("covenant runs");
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    assert!(stdout(&output).contains("3 passed"), "{}", says(&output));
}

#[test]
fn user_cases_are_planned_like_the_built_in_ones() {
    let dir = scratch("user-plan");
    let examples = examples();
    let cases = examples.to_str().unwrap();
    let listed = run(&dir, &["--case-dir", cases, "--list"]);
    assert_eq!(listed.status.code(), Some(0), "{}", says(&listed));
    let ids = stdout(&listed);
    assert!(ids
        .lines()
        .any(|l| l == "user.tenancy.vat-id-hidden-from-other-organization"));
    assert!(
        ids.lines().any(|l| l == "vat.create-then-get"),
        "the suite too"
    );

    // A rule a user case names selects it.
    let by_rule = run(
        &dir,
        &[
            "--case-dir",
            cases,
            "--list",
            "--filter",
            "FIN-ORG-ISOLATION",
        ],
    );
    let ids = stdout(&by_rule);
    assert!(
        ids.contains("user.tenancy.vat-id-hidden-from-other-organization"),
        "{ids}"
    );
    assert!(!ids.contains("user.regression"), "{ids}");

    // Every example writes: --read-only leaves them out.
    let read_only = run(&dir, &["--case-dir", cases, "--list", "--read-only"]);
    assert!(
        !stdout(&read_only).contains("user."),
        "{}",
        says(&read_only)
    );

    let dry = run(
        &dir,
        &["--case-dir", cases, "--dry-run", "--filter", "user.tenancy"],
    );
    assert_eq!(dry.status.code(), Some(0), "{}", says(&dry));
    assert!(
        stdout(&dry).contains("finops.other_organization_id"),
        "the fixtures its references name: {}",
        says(&dry)
    );
}

/// A run with the case file `text` is exit 2 before anything is sent, its message naming
/// `cases.toml:LINE:COLUMN: ` and `message`.
fn refused(name: &str, text: &str, at: &str, message: &str) {
    let dir = scratch(&format!("user-bad-{name}"));
    let cases = case_dir(&dir, "cases", text);
    let output = run(&dir, &["--case-dir", cases.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{name}: {}", says(&output));
    let err = stderr(&output);
    let file = cases.join("cases.toml");
    let expected = format!("{}:{at}: {message}", file.display());
    assert!(
        err.contains(&expected),
        "{name}: wants {expected:?}\n{}",
        says(&output)
    );
    assert!(
        err.contains("nothing was sent"),
        "{name}: {}",
        says(&output)
    );
    let report = dir.join("reports/report.json");
    assert!(
        !report.exists(),
        "{name}: no report of a run that sent nothing"
    );
}

const GOOD_STEP: &str = "[[case]]\nname = \"c\"\nrule = \"VAT-ROUNDTRIP\"\n[[case.step]]\n";

#[test]
fn a_syntax_error_names_its_line_and_column() {
    refused(
        "syntax",
        &format!("{GOOD_STEP}operation = \"create-vat-id\"\nbody = {{ value = \"DE1\" \n"),
        "6:23",
        "unclosed inline table, expected `}`",
    );
}

#[test]
fn a_misspelt_operation_is_named_with_the_one_it_resembles() {
    refused(
        "operation",
        &format!("{GOOD_STEP}operation = \"create-vat-idd\"\n"),
        "5:13",
        "unknown operation \"create-vat-idd\", did you mean `create-vat-id`?",
    );
}

#[test]
fn a_method_and_path_that_fit_no_operation_are_named() {
    refused(
        "method-path",
        &format!("{GOOD_STEP}method = \"GET\"\npath = \"/finops/v1/nothing\"\n"),
        "5:10",
        "no operation of the contract is GET /finops/v1/nothing",
    );
}

#[test]
fn a_capture_of_a_step_that_does_not_come_before_is_named() {
    refused(
        "capture",
        &format!(
            "{GOOD_STEP}operation = \"get-vat-id\"\nids = [\"${{step.2.json/id}}\"]\n\
             [[case.step]]\noperation = \"list-events\"\n"
        ),
        "6:9",
        "`${step.2.json/id}`: step 1 reads the answer of step 2, which comes after it",
    );
}

#[test]
fn a_profile_key_that_is_no_fixture_is_named_with_the_one_it_resembles() {
    refused(
        "profile-unknown",
        &format!(
            "{GOOD_STEP}operation = \"create-vat-id\"\n\
             body = {{ value = \"${{profile.finops.counterpart}}\" }}\n"
        ),
        "6:19",
        "`${profile.finops.counterpart}`: no fixture of the profile is \"finops.counterpart\", \
         did you mean `finops.counterpart_id`?",
    );
}

#[test]
fn a_rule_not_in_the_catalogue_is_named_with_the_one_it_resembles() {
    refused(
        "rule",
        "[[case]]\nname = \"c\"\nrule = \"VAT-ROUNDTRP\"\n[[case.step]]\noperation = \"list-events\"\n",
        "3:8",
        "rule \"VAT-ROUNDTRP\" is not in the catalogue, did you mean `VAT-ROUNDTRIP`?",
    );
}

#[test]
fn a_profile_key_the_profile_lacks_is_exit_2_before_the_target_is_tried() {
    let dir = scratch("user-bad-profile-lacks");
    let examples = examples();
    let profile = dir.join("p.toml");
    // Nothing listens on port 9: a probe would be exit 3.
    let text = "base_url = \"http://127.0.0.1:9\"\n[finops]\ntoken = \"t\"\n\
                organization_id = \"o\"\ncounterpart_id = \"c\"\n";
    std::fs::write(&profile, text).expect("the profile");
    let output = covenant()
        .args(["run", "--profile"])
        .arg(&profile)
        .arg("--case-dir")
        .arg(&examples)
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .output()
        .expect("covenant runs");
    assert_eq!(output.status.code(), Some(2), "{}", says(&output));
    let expected = format!(
        "{}:18:34: `${{profile.finops.other_organization_id}}`: the profile gives no \
         finops.other_organization_id",
        examples.join("tenancy.toml").display()
    );
    assert!(stderr(&output).contains(&expected), "{}", says(&output));
}

#[test]
fn a_json_pointer_that_matches_nothing_fails_the_case_with_the_answer_shown() {
    let dir = scratch("user-pointer");
    let text = "[[case]]\nname = \"absent\"\nrule = \"VAT-ROUNDTRIP\"\n\
                [[case.step]]\noperation = \"create-vat-id\"\n\
                body = { value = \"DE333333333\", country = \"DE\", type = \"eu_vat\" }\n\
                expect.json = { \"/no-such-field\" = 1 }\n\
                [[case]]\nname = \"capture\"\nrule = \"VAT-GET-SAME-ID\"\n\
                [[case.step]]\noperation = \"create-vat-id\"\n\
                body = { value = \"DE444444444\", country = \"DE\", type = \"eu_vat\" }\n\
                [[case.step]]\noperation = \"get-vat-id\"\nids = [\"${step.1.json/vat_id}\"]\n";
    let cases = case_dir(&dir, "cases", text);
    let output = run(
        &dir,
        &["--case-dir", cases.to_str().unwrap(), "--filter", "user."],
    );
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
    let out = stdout(&output);
    assert!(
        out.contains(
            "step 1: the JSON pointer \"/no-such-field\" matches nothing in the answer: {"
        ),
        "{out}"
    );
    assert!(
        out.contains("\"value\":\"DE333333333\""),
        "the answer shown: {out}"
    );
    assert!(
        out.contains(
            "step 2: the JSON pointer \"/vat_id\" matches nothing in the answer of step 1"
        ),
        "{out}"
    );
    assert!(out.contains("2 failed"), "{out}");
}

/// The case of `id` in report.json at `path`.
fn case_of<'a>(report: &'a Value, id: &str) -> &'a Value {
    let cases = report["cases"].as_array().expect("cases");
    cases
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

#[test]
fn a_user_case_a_fault_breaks_fails_under_its_rule_in_every_report_and_the_matrix() {
    let dir = scratch("user-fault");
    let examples = examples();
    let cases = examples.to_str().unwrap();
    let id = "user.regression.get-answers-the-vat-id-asked-for";
    let broken = covenant()
        .args([
            "run",
            "--seed",
            "5",
            "--filter",
            "user.",
            "--fault",
            "vat-get-returns-first",
        ])
        .args(["--case-dir", cases, "--report-dir"])
        .arg(dir.join("broken"))
        .output()
        .expect("covenant runs");
    assert_eq!(broken.status.code(), Some(1), "{}", says(&broken));
    assert!(
        stdout(&broken).contains("VAT-GET-SAME-ID"),
        "{}",
        says(&broken)
    );
    let text = std::fs::read_to_string(dir.join("broken/report.json")).expect("report.json");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    let case = case_of(&report, id);
    assert_eq!(case["suite"], "user");
    assert_eq!(case["verdict"], "fail");
    assert_eq!(case["findings"][0]["rule"], "VAT-GET-SAME-ID", "{case}");
    let junit = std::fs::read_to_string(dir.join("broken/junit.xml")).expect("junit.xml");
    let at = junit
        .find(&format!("<testcase name=\"{id}\" classname=\"user\""))
        .expect("the case in junit.xml");
    let rest = &junit[at..];
    let end = rest
        .find("</testcase>")
        .expect("a failed testcase has a body");
    assert!(rest[..end].contains("VAT-GET-SAME-ID"), "{}", &rest[..end]);

    let clean = run(&dir, &["--case-dir", cases, "--filter", "user."]);
    assert_eq!(clean.status.code(), Some(0), "{}", says(&clean));
    let matrix = covenant()
        .arg("matrix")
        .arg(format!(
            "--name=clean={}",
            dir.join("reports/report.json").display()
        ))
        .arg(format!(
            "--name=broken={}",
            dir.join("broken/report.json").display()
        ))
        .arg("--report-dir")
        .arg(dir.join("matrix"))
        .output()
        .expect("covenant matrix runs");
    assert_eq!(matrix.status.code(), Some(0), "{}", says(&matrix));
    let text = std::fs::read_to_string(dir.join("matrix/matrix.json")).expect("matrix.json");
    let matrix: Value = serde_json::from_str(&text).expect("JSON");
    let row = matrix["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["id"] == "VAT-GET-SAME-ID")
        .expect("a row of the rule");
    assert_ne!(row["results"]["clean"], row["results"]["broken"], "{row}");
    assert!(
        row["results"]["broken"].to_string().contains("fail"),
        "{row}"
    );
}

#[test]
fn every_example_holds_to_the_schema_covenant_schema_case_prints() {
    let output = covenant().args(["schema", "case"]).output().expect("runs");
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let schema: Value = serde_json::from_slice(&output.stdout).expect("a JSON Schema");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    for entry in std::fs::read_dir(examples()).expect("the examples") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("an example");
        let value: toml::Value = toml::from_str(&text).expect("TOML");
        let json = serde_json::to_value(value).expect("as JSON");
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        let bad = serde_json::json!({"case": [{"name": "x", "step": [{"operation": "nope"}]}]});
        assert!(!validator.is_valid(&bad));
    }
}
