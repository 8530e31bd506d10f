//! `schemas/run-report.json` is a valid 2020-12 schema, and the JSON report validates against it.

use super::sample;
use serde_json::Value;
use std::path::Path;

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/run-report.json");
    serde_json::from_str(&sample::read(&path)).expect("the schema is JSON")
}

/// What `schemas/run-report.json` finds wrong in `instance`, each error with its place.
pub(crate) fn errors(instance: &Value) -> Vec<String> {
    let schema = schema();
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn run_report_schema_is_valid_2020_12() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    jsonschema::meta::validate(&schema).expect("the schema obeys the 2020-12 meta-schema");
}

#[test]
fn written_json_report_validates_against_its_schema() {
    let dir = sample::scratch_dir("schema");
    covenant::report::write_all(&sample::run(), &dir, &[]).unwrap();
    let report: Value = serde_json::from_str(&sample::read(&dir.join("report.json"))).unwrap();
    assert_eq!(errors(&report), Vec::<String>::new());
}

#[test]
fn a_report_of_a_rate_limited_run_validates_and_its_pace_is_held_to_its_fields() {
    let mut run = sample::run();
    run.meta.pace = Some(covenant::verdict::Pace {
        answers_429: 12,
        answers_503: 1,
        pauses: 3,
        paused_ms: 3000.0,
        rate: 93.5,
        unanswered: vec![covenant::verdict::Unanswered {
            endpoint: "GET /finops/v1/tags/{tag_id}".into(),
            refusals: 7,
            requests: 2,
            seconds: 3.1,
        }],
    });
    let mut report = serde_json::to_value(&run).unwrap();
    assert_eq!(errors(&report), Vec::<String>::new());
    report["meta"]["pace"]["rate"] = 0.into();
    report["meta"]["pace"]["retries"] = 1.into();
    let errors = errors(&report);
    assert!(
        errors.iter().any(|e| e.contains("/meta/pace/rate")),
        "{errors:?}"
    );
    assert!(errors.iter().any(|e| e.contains("retries")), "{errors:?}");
}

#[test]
fn schema_refuses_an_unknown_verdict_and_a_failure_without_a_must_finding() {
    let mut report = serde_json::to_value(sample::run()).unwrap();
    report["cases"][0]["verdict"] = "maybe".into();
    report["cases"][1]["findings"][0]["level"] = "should".into();
    let errors = errors(&report);
    assert!(
        errors.iter().any(|e| e.contains("/cases/0/verdict")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("/cases/1/findings")),
        "{errors:?}"
    );
}

#[test]
fn a_real_run_of_the_embedded_reference_writes_a_report_the_schema_holds_whole() {
    let dir = sample::scratch_dir("schema-real-run");
    let output = crate::support::covenant()
        .args([
            "run",
            "--seed",
            "4",
            "--filter",
            "vat",
            "--explore",
            "0",
            "--report-dir",
        ])
        .arg(&dir)
        .output()
        .expect("covenant runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        crate::support::says(&output)
    );
    let report: Value = serde_json::from_str(&sample::read(&dir.join("report.json"))).unwrap();
    for key in ["constraints", "judged_against"] {
        assert!(report["meta"].get(key).is_some(), "a run writes meta.{key}");
    }
    assert_eq!(errors(&report), Vec::<String>::new());
}
