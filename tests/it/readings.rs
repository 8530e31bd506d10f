//! A target that reads the spec the other way where the spec only illustrates a shape or says a
//! thing in a phrase with two readings keeps the contract: covenant warns at most, and shows the
//! choice under its gap.
//!
//! The stand-in plays an implementation written blind from the spec that
//! - accepts inline payment terms whose `term_final` is null, or whose `end_date` is null (the
//!   spec gives `term_final.end_date` only as a sample shape, line 69);
//! - lets a token that may act for both organizations create a control on the first
//!   organization's card while acting for the other (the card is one "which the caller can
//!   access", line 235: the caller read as the token, not the organization acted for).

use crate::choices::{findings, run};
use crate::support::standin::{runtime, says, scratch, stand_in, Choices, Incoming};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

/// The banking organization header's name, the other organization and the first one's card.
type Banking = (String, String, String);

/// The payment terms the reference refuses and the other reading accepts, left out before the
/// body goes behind (so the reference accepts the rest).
fn lenient_terms(seen: &Incoming) -> Vec<u8> {
    let Ok(mut body) = serde_json::from_slice::<Value>(seen.body) else {
        return seen.body.to_vec();
    };
    let invoice = body["type"] == "invoice";
    let other_reading = invoice
        && match body["payment_terms"].get("term_final") {
            Some(Value::Null) => true,
            Some(term) => term.get("end_date").is_some_and(Value::is_null),
            None => false,
        };
    if other_reading {
        if let Some(members) = body.as_object_mut() {
            members.remove("payment_terms");
        }
    }
    serde_json::to_vec(&body).expect("JSON")
}

/// The organization header left out of a control on the first organization's card sent acting
/// for the other: the reference behind then acts for the token's own organization, which can
/// access the card.
fn token_reading(seen: &Incoming, banking: &OnceLock<Banking>) -> axum::http::HeaderMap {
    let mut headers = seen.headers.clone();
    let Some((name, other, card)) = banking.get() else {
        return headers;
    };
    let control = seen.method == "POST" && seen.path.ends_with("/velocity-controls");
    let acting_for_other = headers
        .get(name.as_str())
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case(other));
    let on_card = serde_json::from_slice::<Value>(seen.body)
        .ok()
        .and_then(|b| b["cardId"].as_str().map(|c| c.eq_ignore_ascii_case(card)))
        .unwrap_or(false);
    if control && acting_for_other && on_card {
        headers.remove(name.as_str());
    }
    headers
}

/// The statuses `report.json` shows under GAP-CARD-ACCESS.
fn card_access(report: &Value) -> Vec<&str> {
    let access = &report["silent"]["GAP-CARD-ACCESS"]["observations"];
    let observations = access.as_array().into_iter().flatten();
    observations.filter_map(|o| o["value"].as_str()).collect()
}

#[test]
fn the_other_reading_of_an_illustrated_shape_or_an_ambiguous_phrase_fails_nothing() {
    let dir = scratch("readings");
    let rt = runtime();
    let banking: Arc<OnceLock<Banking>> = Arc::new(OnceLock::new());
    let seen_banking = banking.clone();
    let choices = Choices {
        body: Box::new(lenient_terms),
        headers: Box::new(move |seen| token_reading(seen, &seen_banking)),
        ..Choices::default()
    };
    let (behind, profile) = stand_in(&rt, 6, &dir, "readings", choices);
    let b = behind.profile().banking.clone().expect("a banking profile");
    let name = b.org_header.expect("an org header");
    let other = b.other_organization_id.expect("another organization");
    let card = b.card_id.expect("a card");
    banking.set((name, other, card)).expect("set once");

    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    let failed: Vec<_> = all.iter().filter(|f| f.2 == "must").collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", says(&output));
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    // The illustrated shape read otherwise is warned of, under the sample's own rules.
    let warned: BTreeSet<&str> = all.iter().map(|f| f.1.as_str()).collect();
    assert!(
        warned.contains("RCV-SAMPLE-SHAPES") || warned.contains("RCV-PAYMENT-TERMS-END-DATE"),
        "the other reading of the payment terms' sample shape is not warned of: {warned:?}"
    );
    // The card read as the token's is shown as a choice, never judged.
    let statuses = card_access(&report);
    assert!(
        statuses.iter().any(|s| s.starts_with('2')),
        "GAP-CARD-ACCESS shows no acceptance: {statuses:?}"
    );
}

#[test]
fn a_run_against_the_reference_shows_its_card_access_choice_as_a_refusal() {
    let dir = scratch("readings-reference");
    let rt = runtime();
    let (_server, profile) = crate::support::standin::reference(&rt, 6, &dir, "reference");
    let (output, report) = run(&dir, &profile);
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let statuses = card_access(&report);
    assert!(
        !statuses.is_empty() && statuses.iter().all(|s| s.starts_with('4')),
        "{statuses:?}"
    );
}
