//! Valid values across each format's classes (issue 38, item 2): a target that keeps the contract
//! with other choices (ids answered in upper case, a lax binder reading `"3"` and `"true"`) fails
//! nothing; a target refusing one class of a format, or accepting a country code in lower case,
//! fails exactly that rule.

use crate::choices::{
    clean_beside_the_plain_stand_in, finance_422, findings, is_uuid, json_of, lax, map_strings,
    rules_at, run,
};
use crate::support::standin::{runtime, says, scratch, stand_in, Choices, Incoming, StandInAnswer};
use serde_json::{json, Value};
use std::collections::HashSet;

/// Every uuid of every JSON answer in upper case.
fn upper_case_ids(_: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let Some(mut body) = json_of(&bytes) else {
        return (status, bytes);
    };
    map_strings(&mut body, "", &|_, s| {
        is_uuid(s).then(|| json!(s.to_uppercase()))
    });
    (status, body.to_string().into_bytes())
}

#[test]
fn a_target_answering_ids_in_upper_case_fails_nothing_and_warns_nothing_new() {
    clean_beside_the_plain_stand_in(
        "ids-upper-case",
        Choices {
            answer: Box::new(upper_case_ids),
            ..Choices::default()
        },
        |_| {},
        &[
            ("accept.create-receivable", "GEN-UUID-CASE"),
            ("accept.create-receivable", "GEN-FORMAT-CLASSES"),
            ("accept.create-mailbox-domain", "GEN-FORMAT-CLASSES"),
        ],
    );
}

/// The rules a stand-in making `choices` fails, and its run's output for messages.
fn failed_by(name: &str, choices: Choices) -> (HashSet<String>, String) {
    let rt = runtime();
    let dir = scratch(&format!("format-classes-{name}"));
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    let failed = rules_at(&all, "must")
        .into_iter()
        .map(str::to_owned)
        .collect();
    (failed, format!("{all:#?}\n{}", says(&output)))
}

#[test]
fn a_lax_binder_reading_numeric_and_boolean_strings_fails_nothing() {
    let (failed, said) = failed_by(
        "lax-binder",
        Choices {
            body: Box::new(lax),
            ..Choices::default()
        },
    );
    assert!(failed.is_empty(), "{said}");
}

/// A 422 for a request whose JSON body `refused` picks.
fn refusing(refused: fn(&Incoming, &Value) -> bool) -> Choices {
    Choices {
        reply: Box::new(move |seen: &Incoming| {
            let body = json_of(seen.body)?;
            refused(seen, &body).then(|| finance_422("body", "refused by the stand-in"))
        }),
        ..Choices::default()
    }
}

fn leap_day(seen: &Incoming, body: &Value) -> bool {
    seen.path == "/finops/v1/receivables" && body.to_string().contains("-02-29\"")
}

fn all_digit_segment(seen: &Incoming, body: &Value) -> bool {
    let domain = body["domain"].as_str().unwrap_or_default();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    seen.path == "/finops/v1/mailbox-domains" && domain.split('.').any(digits)
}

/// A counterpart named in upper case is not found, as a store keyed by the id's text answers.
fn counterpart_as_text(seen: &Incoming) -> Option<StandInAnswer> {
    let body = json_of(seen.body)?;
    let id = body["counterpart_id"].as_str()?;
    let upper = id.bytes().any(|b| b.is_ascii_uppercase());
    let error = json!({"error": {"message": "counterpart not found"}});
    (seen.path == "/finops/v1/receivables" && upper).then(|| (404, error.to_string().into_bytes()))
}

/// A country code read regardless of case: sent on upper-cased.
fn country_any_case(seen: &Incoming) -> Vec<u8> {
    let Some(mut body) = json_of(seen.body) else {
        return seen.body.to_vec();
    };
    if let Some(country) = body["country"].as_str().map(str::to_uppercase) {
        if seen.path.ends_with("/vat-ids") {
            body["country"] = json!(country);
        }
    }
    body.to_string().into_bytes()
}

#[test]
fn a_target_breaking_one_class_of_a_format_fails_exactly_its_rule() {
    // A domain with an all-digit segment is also a domain of the stated form that
    // mailbox.valid-domains may draw (MBX-DOMAIN-ACCEPTED): refusing it breaks that rule too.
    let domains = ["GEN-FORMAT-CLASSES", "MBX-DOMAIN-ACCEPTED"];
    let stand_ins: Vec<(&str, Choices, &[&str])> = vec![
        (
            "leap-day-refused",
            refusing(leap_day),
            &["GEN-FORMAT-CLASSES"],
        ),
        (
            "all-digit-segment-refused",
            refusing(all_digit_segment),
            &domains,
        ),
        (
            "upper-case-counterpart-refused",
            Choices {
                reply: Box::new(counterpart_as_text),
                ..Choices::default()
            },
            &["GEN-UUID-CASE"],
        ),
        (
            "country-lower-case-accepted",
            Choices {
                body: Box::new(country_any_case),
                ..Choices::default()
            },
            &["VAT-COUNTRY-ENUM"],
        ),
    ];
    for (name, choices, rules) in stand_ins {
        let (failed, said) = failed_by(name, choices);
        assert!(failed.contains(rules[0]), "{name}: {said}");
        let allowed: HashSet<String> = rules.iter().map(|r| (*r).to_owned()).collect();
        assert!(failed.is_subset(&allowed), "{name}: {failed:?}: {said}");
    }
}
