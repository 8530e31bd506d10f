//! What the spec states of response fields and of later reads, judged on targets that keep it
//! with other readings: a quote's discounted_subtotal read with prices in major units (the sum
//! times 100) or as tax-inclusive (below the sum), file_language as a BCP 47 tag with a region
//! (`pt-BR`), an IPv6 dedicated_ip, and `order` or `sort` on list transactions refused with 400.
//! Such a target passes clean; one adding tax to discounted_subtotal fails that rule alone.
//!
//! Each is a whole run against a stand-in (about a second).

use crate::choices::{banking_error, clean_beside_the_plain_stand_in, fails_exactly, json_of};
use crate::support::standin::{runtime, Choices, Incoming, StandInAnswer};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn created_quote(seen: &Incoming, status: u16) -> bool {
    let body = json_of(seen.body).unwrap_or_default();
    seen.path == "/finops/v1/receivables"
        && status == 201
        && body["type"] == "quote"
        && body.get("based_on").is_none()
}

/// `answer` with `f` applied to its JSON body.
fn changed(answer: StandInAnswer, f: impl FnOnce(&mut Value)) -> StandInAnswer {
    let (status, bytes) = answer;
    match json_of(&bytes) {
        Some(mut body) => {
            f(&mut body);
            (status, body.to_string().into_bytes())
        }
        None => (status, bytes),
    }
}

/// The other readings: each created quote's discounted_subtotal in turn times 100 (prices read
/// in major units) and cut by a tax of 19% (prices read as tax-inclusive), file_language
/// `pt-BR`, dedicated_ip an IPv6 address; a first page of transactions asked with order or sort
/// refused with 400.
fn other_readings() -> Choices {
    let quotes = Arc::new(AtomicUsize::new(0));
    Choices {
        reply: Box::new(|seen: &Incoming| {
            let query = seen.query.unwrap_or_default();
            let ordered = query
                .split('&')
                .any(|pair| pair.starts_with("order=") || pair.starts_with("sort="));
            (seen.path.ends_with("/transactions") && ordered)
                .then(|| banking_error(seen, 400, "INVALID_QUERY", "unknown query parameter"))
        }),
        answer: Box::new(move |seen: &Incoming, answer: StandInAnswer| {
            let status = answer.0;
            if created_quote(seen, status) {
                let n = quotes.fetch_add(1, Ordering::Relaxed);
                return changed(answer, |body| {
                    let subtotal = body["discounted_subtotal"].as_i64().unwrap_or(0);
                    body["discounted_subtotal"] = match n % 2 {
                        0 => json!(subtotal * 100),
                        _ => json!(subtotal * 100 / 119),
                    };
                    body["file_language"] = json!("pt-BR");
                });
            }
            if seen.path == "/finops/v1/mailbox-domains" && status == 201 {
                return changed(answer, |body| body["dedicated_ip"] = json!("2001:db8::25"));
            }
            answer
        }),
        ..Choices::default()
    }
}

#[test]
fn a_target_reading_prices_and_codes_otherwise_and_refusing_an_order_passes_clean() {
    clean_beside_the_plain_stand_in(
        "response-fields-other-readings",
        other_readings(),
        |_| {},
        &[
            ("receivable.create-quote", "RCV-DISCOUNTED-SUBTOTAL"),
            ("receivable.create-quote", "RCV-DOCUMENT-ID-ON-ISSUE"),
            ("receivable.create-quote", "RCV-FILE-LANGUAGE-CODE"),
            ("mailbox.create", "MBX-DEDICATED-IP"),
            ("transactions.no-global-order", "BPAG-NO-GLOBAL-ORDER"),
            ("tag.delete-twice", "TAG-DETACH"),
            ("velocity.unlimited-usage", "VC-USAGE-UNLIMITED"),
        ],
    );
}

#[test]
fn a_target_adding_tax_to_the_discounted_subtotal_fails_that_rule_alone() {
    let choices = Choices {
        answer: Box::new(|seen: &Incoming, answer: StandInAnswer| {
            if !created_quote(seen, answer.0) {
                return answer;
            }
            changed(answer, |body| {
                let subtotal = body["discounted_subtotal"].as_i64().unwrap_or(0);
                body["discounted_subtotal"] = json!(subtotal + subtotal / 5);
            })
        }),
        ..Choices::default()
    };
    let name = "response-fields-tax-added";
    fails_exactly(&runtime(), name, choices, "RCV-DISCOUNTED-SUBTOTAL");
}
