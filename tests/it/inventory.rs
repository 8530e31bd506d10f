//! The inventory of constraints against stand-ins: a target with a payload limit the spec does
//! not show (it refuses the body with every stated maximum at once, with its error body) keeps
//! the contract and at most warns; the constraint coverage says which constraints it refused to
//! hold and why.

use crate::choices::{findings, rules_at, run};
use crate::support::standin::{runtime, says, scratch, stand_in, Choices, Incoming, StandInAnswer};
use serde_json::Value;

/// Bytes of a create-receivable body above which the stand-in refuses it: above any body with
/// one stated limit at its maximum (the longest, a payment page URL of 2083 characters, in the
/// smallest invoice), below the invoice with every maximum at once.
const PAYLOAD_LIMIT: usize = 2500;

fn payload_limit(seen: &Incoming) -> Option<StandInAnswer> {
    let create = *seen.method == axum::http::Method::POST && seen.path == "/finops/v1/receivables";
    (create && seen.body.len() > PAYLOAD_LIMIT).then(|| {
        let body = br#"{"error":{"message":"request payload too large"}}"#;
        (400, body.to_vec())
    })
}

#[test]
fn a_payload_limit_refusing_every_maximum_at_once_only_warns() {
    let rt = runtime();
    let dir = scratch("inventory-payload-limit");
    let choices = Choices {
        reply: Box::new(payload_limit),
        ..Choices::default()
    };
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    assert!(
        rules_at(&all, "must").is_empty(),
        "{all:#?}\n{}",
        says(&output)
    );
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    assert!(
        rules_at(&all, "should").contains("GEN-LIMITS-TOGETHER"),
        "the refused maxima warn: {all:#?}"
    );
    // Every constraint is still broken and held: the limits were held one at a time.
    let constraints = report["meta"]["constraints"].as_array().expect("inventory");
    let lacking: Vec<&Value> = constraints
        .iter()
        .filter(|c| c["held"] == 0 || (c["broken"] == 0 && c.get("unbreakable").is_none()))
        .collect();
    assert!(lacking.is_empty(), "{lacking:#?}");
}
