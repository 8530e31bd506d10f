//! `covenant trace` through the binary: the whole trace as text and JSON, a rule traced to the
//! statements it rests on, and a typo answered with the ids it may have meant.

use serde_json::Value;

fn trace(args: &[&str]) -> std::process::Output {
    crate::support::covenant()
        .arg("trace")
        .args(args)
        .output()
        .expect("covenant runs")
}

#[test]
fn the_json_trace_tiles_its_entries_with_their_judges() {
    let out = trace(&["--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["spec"]["version"], "2026-09-24");
    let entries = doc["entries"].as_array().expect("entries");
    assert!(entries.len() > 200, "{} entries", entries.len());
    for entry in entries {
        let [first, last] = [&entry["lines"][0], &entry["lines"][1]].map(|v| v.as_u64());
        assert!(first.is_some() && first <= last, "{entry}");
        let strength = entry["strength"].as_str().expect("a strength");
        assert!(
            ["stated", "illustrated", "not shown", "narrative"].contains(&strength),
            "{entry}"
        );
        let judged = entry["judged_by"].as_array().is_some_and(|j| !j.is_empty());
        if strength == "stated" {
            assert!(judged || entry["not_judged"].is_string(), "{entry}");
        }
    }
    // Constraint globs are expanded to the constraints they name.
    let names = |id: &str| {
        entries.iter().any(|e| {
            e["judged_by"]
                .as_array()
                .is_some_and(|j| j.iter().any(|v| v == id))
        })
    };
    assert!(names("invoice-create /trade_name maxLength 255"));
    assert!(names("RCV-SAMPLE-SHAPES"));
}

#[test]
fn a_rule_is_traced_to_the_statements_it_rests_on() {
    let out = trace(&["VC-USAGE-UNLIMITED"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("VC-USAGE-UNLIMITED (must)"), "{text}");
    assert!(text.contains("line 157 (stated)"), "{text}");
    // A sample shape's rule rests on an illustrated statement, and is a should.
    let out = trace(&["RCV-PAYMENT-TERMS-END-DATE"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("RCV-PAYMENT-TERMS-END-DATE (should)"),
        "{text}"
    );
    assert!(text.contains("line 69 (illustrated)"), "{text}");
}

#[test]
fn a_misspelt_id_is_a_usage_error_with_the_ids_it_may_mean() {
    let out = trace(&["VC-USAGE-UNLIMITD"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean VC-USAGE-UNLIMITED"), "{err}");
}
