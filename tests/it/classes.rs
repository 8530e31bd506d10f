//! Value classes judged against stand-ins: implementations that made other choices where the
//! spec leaves a class open pass clean, and ones that break one stated rule through a class fail
//! that rule, once.
//!
//! Each stand-in is the reference behind a proxy that changes one thing:
//! - `strict` refuses what the spec neither admits nor forbids: an integer past 2^53 where no
//!   maximum is stated, a body naming a property twice. It keeps the contract.
//! - `aliases` reads `tradeName`, `TradeName` and `trade-name` as `trade_name`: an unknown
//!   property taken for a known one (RCV-UNKNOWN-PROPS).
//! - `no-footer` refuses `footer`, a stated optional field, as unknown: one failure of
//!   GEN-OPTIONAL-ACCEPTED, and the values tried in the field inconclusive, not failed.
//! - `binder` refuses integers written `1.0`, `1e2` or `-0`, as Go's and serde's binders do: a
//!   warning of GEN-INTEGER-FORMS, never a failure.

use crate::choices::{findings, run};
use crate::support::standin::{runtime, says, scratch, stand_in, Choices, Incoming, StandInAnswer};
use serde_json::{json, Value};

fn is_create(seen: &Incoming, suffix: &str) -> bool {
    seen.method == "POST" && seen.path.ends_with(suffix)
}

fn finance_422(message: &str) -> StandInAnswer {
    let body = json!({ "detail": [{ "loc": ["body"], "msg": message, "type": "value_error" }] });
    (422, body.to_string().into_bytes())
}

fn banking_400(message: &str) -> StandInAnswer {
    let body = json!({
        "type": "https://example.test/problems/validation",
        "title": "Bad Request",
        "status": 400,
        "detail": message,
        "errorCode": "VALIDATION_ERROR",
        "instance": "/embedded-banking/v1/authorization-controls/velocity-controls",
    });
    (400, body.to_string().into_bytes())
}

/// Whether the body's text names a property of its top-level object twice.
fn names_a_property_twice(body: &[u8]) -> bool {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut seen = std::collections::BTreeSet::new();
            let mut twice = false;
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                twice |= !seen.insert(key);
            }
            Ok(twice)
        }
    }
    let mut reader = serde_json::Deserializer::from_slice(body);
    serde::Deserializer::deserialize_map(&mut reader, Keys).unwrap_or(false)
}

/// An integer written with a fraction part or an exponent in the body's text, at a field the
/// spec types integer.
fn integer_spelled_otherwise(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(body);
    ["withholding_tax_rate", "amountLimit", "usageLimit"]
        .iter()
        .any(|field| {
            let Some(at) = text.find(&format!("\"{field}\":")) else {
                return false;
            };
            let value = text[at + field.len() + 3..]
                .split([',', '}'])
                .next()
                .unwrap_or_default();
            value.contains(['.', 'e', 'E']) || value == "-0"
        })
}

fn must_findings(report: &Value) -> Vec<(String, String, String, String)> {
    findings(report)
        .into_iter()
        .filter(|f| f.2 == "must")
        .collect()
}

#[test]
fn a_target_refusing_what_the_spec_leaves_open_passes_clean() {
    let dir = scratch("classes-strict");
    let rt = runtime();
    let choices = Choices {
        reply: Box::new(|seen: &Incoming| {
            if names_a_property_twice(seen.body) {
                let why = "a property named twice";
                return Some(match seen.path.contains("/embedded-banking/") {
                    true => banking_400(why),
                    false => finance_422(why),
                });
            }
            let body: Value = serde_json::from_slice(seen.body).ok()?;
            let large = |v: &Value| {
                v.as_f64()
                    .is_some_and(|n| n.abs() > 9_007_199_254_740_991.0)
            };
            let control = is_create(seen, "/velocity-controls");
            if control && (large(&body["amountLimit"]) || large(&body["usageLimit"])) {
                return Some(banking_400("amountLimit must be at most 2^53 - 1"));
            }
            None
        }),
        ..Choices::default()
    };
    let (_behind, profile) = stand_in(&rt, 7, &dir, "strict", choices);
    let (output, report) = run(&dir, &profile);
    let failed = must_findings(&report);
    assert!(failed.is_empty(), "{failed:#?}\n{}", says(&output));
    let classes: Vec<_> = findings(&report)
        .into_iter()
        .filter(|f| f.1.starts_with("GEN-INTEGER") || f.1 == "GEN-VALUE-CLASSES")
        .collect();
    assert!(
        classes.is_empty(),
        "refusals the spec allows warned of: {classes:#?}"
    );
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
}

#[test]
fn other_spellings_of_known_properties_read_as_aliases_fail_the_unknown_property_rule() {
    let dir = scratch("classes-aliases");
    let rt = runtime();
    let choices = Choices {
        body: Box::new(|seen: &Incoming| {
            let Ok(mut body) = serde_json::from_slice::<Value>(seen.body) else {
                return seen.body.to_vec();
            };
            if let Some(o) = body
                .as_object_mut()
                .filter(|_| is_create(seen, "/receivables"))
            {
                for alias in ["tradeName", "TradeName", "trade-name"] {
                    if let Some(v) = o.remove(alias) {
                        o.insert("trade_name".to_owned(), v);
                    }
                }
            }
            serde_json::to_vec(&body).expect("JSON")
        }),
        ..Choices::default()
    };
    let (_behind, profile) = stand_in(&rt, 7, &dir, "aliases", choices);
    let (output, report) = run(&dir, &profile);
    let failed = must_findings(&report);
    let rules: Vec<&str> = failed.iter().map(|f| f.1.as_str()).collect();
    assert!(rules.contains(&"RCV-UNKNOWN-PROPS"), "{failed:#?}");
    assert!(
        failed.iter().all(|f| f.1 == "RCV-UNKNOWN-PROPS"),
        "only the broken rule fails: {failed:#?}"
    );
    let alias = failed.iter().any(|f| f.3.contains("tradeName"));
    assert!(alias, "the finding names the spelling: {failed:#?}");
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
}

#[test]
fn a_stated_optional_field_refused_fails_once_and_leaves_its_classes_inconclusive() {
    let dir = scratch("classes-no-footer");
    let rt = runtime();
    let choices = Choices {
        reply: Box::new(|seen: &Incoming| {
            let body: Value = serde_json::from_slice(seen.body).ok()?;
            let footer = body.get("footer").is_some_and(|f| !f.is_null());
            (is_create(seen, "/receivables") && footer)
                .then(|| finance_422("extra fields not permitted: footer"))
        }),
        ..Choices::default()
    };
    let (_behind, profile) = stand_in(&rt, 7, &dir, "no-footer", choices);
    let (output, report) = run(&dir, &profile);
    let failed = must_findings(&report);
    let optional: Vec<_> = failed
        .iter()
        .filter(|f| f.1 == "GEN-OPTIONAL-ACCEPTED")
        .collect();
    assert!(
        !optional.is_empty() && optional.iter().all(|f| f.3.contains("footer")),
        "{failed:#?}\n{}",
        says(&output)
    );
    // Every value tried in the field stands beside the field present: none fails on its own.
    let others: Vec<_> = failed
        .iter()
        .filter(|f| f.3.contains("footer") && f.1 != "GEN-OPTIONAL-ACCEPTED")
        .collect();
    assert!(others.is_empty(), "one cause, one failure: {others:#?}");
    let accept = report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["id"] == "accept.create-receivable")
        .expect("the acceptance case ran");
    let text = accept.to_string();
    assert!(
        text.contains("inconclusive"),
        "the classes of footer are inconclusive"
    );
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
}

#[test]
fn integers_written_another_way_refused_only_warn() {
    let dir = scratch("classes-binder");
    let rt = runtime();
    let choices = Choices {
        reply: Box::new(|seen: &Incoming| {
            if !integer_spelled_otherwise(seen.body) {
                return None;
            }
            Some(match seen.path.contains("/embedded-banking/") {
                true => banking_400("amountLimit must be an integer"),
                false => finance_422("Input should be a valid integer"),
            })
        }),
        ..Choices::default()
    };
    let (_behind, profile) = stand_in(&rt, 7, &dir, "binder", choices);
    let (output, report) = run(&dir, &profile);
    let failed = must_findings(&report);
    assert!(failed.is_empty(), "{failed:#?}\n{}", says(&output));
    let warned = findings(&report)
        .into_iter()
        .any(|f| f.1 == "GEN-INTEGER-FORMS");
    assert!(warned, "{}", says(&output));
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
}

#[test]
fn a_spelled_integer_is_found_in_the_text_not_in_its_value() {
    assert!(integer_spelled_otherwise(
        br#"{"amountLimit":1e2,"name":"x"}"#
    ));
    assert!(integer_spelled_otherwise(br#"{"withholding_tax_rate":-0}"#));
    assert!(!integer_spelled_otherwise(
        br#"{"amountLimit":100,"name":"1.5"}"#
    ));
    assert!(names_a_property_twice(
        br#"{"type":"quote","type":"quote","x":1}"#
    ));
    assert!(!names_a_property_twice(br#"{"type":"quote","x":1}"#));
}
