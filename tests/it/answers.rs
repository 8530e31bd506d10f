//! Every answer is held to every rule that applies to it, whatever case elicited it.
//!
//! Each stand-in here (`support/standin.rs`) breaks one stated rule on answers that only some
//! cases draw (a 403 only a tenancy probe draws, a third page of events, a TRANSACTION control
//! a generated body created), and the run fails exactly that rule (or warns, for a `should`
//! rule). A stand-in that keeps the contract with other choices on those same answers (extra
//! fields in error bodies, `application/problem+json`, other date-time spellings) passes clean.

use crate::choices::{findings, rules_at, run};
use crate::support::standin;

use serde_json::{json, Value};
use standin::{runtime, says, scratch, stand_in, Choices, Incoming, StandInAnswer};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn json_of(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

fn finance(seen: &Incoming) -> bool {
    seen.path.starts_with("/finops/")
}

fn banking(seen: &Incoming) -> bool {
    seen.path.starts_with("/embedded-banking/")
}

/// What a breach does to an answer; true when it changed it.
type Rewrite = Box<dyn Fn(&Incoming, &mut StandInAnswer) -> bool + Send + Sync>;

/// A stand-in rewriting the answers `breach` picks, counting how many it rewrote.
fn breaking(breach: Rewrite, count: Arc<AtomicUsize>) -> Choices {
    Choices {
        answer: Box::new(move |seen: &Incoming, mut given: StandInAnswer| {
            if breach(seen, &mut given) {
                count.fetch_add(1, Ordering::Relaxed);
            }
            given
        }),
        ..Choices::default()
    }
}

/// A stand-in labelling the JSON answers `picked` picks as `label`, counting them.
fn labelling(
    picked: fn(&Incoming, u16) -> bool,
    label: &'static str,
    count: Arc<AtomicUsize>,
) -> Choices {
    Choices {
        label: Box::new(move |seen: &Incoming, status| {
            let chosen = picked(seen, status);
            if chosen {
                count.fetch_add(1, Ordering::Relaxed);
            }
            chosen.then_some(label)
        }),
        ..Choices::default()
    }
}

/// A VAT ID read back (get counterpart VAT ID), which only the read-back cases draw.
fn vat_read_back(seen: &Incoming, status: u16) -> bool {
    seen.method == "GET" && seen.path.contains("/vat-ids/") && status == 200
}

/// A page of events fetched with a token.
fn later_events_page(seen: &Incoming, status: u16) -> bool {
    let token = seen.query.is_some_and(|q| q.contains("pagination_token="));
    seen.path == "/finops/v1/events" && status == 200 && token
}

/// A write on a resource another organization owns (the tenancy probes), or one not found,
/// refused with 403 and a message that is a number.
fn foreign_403_message_number(seen: &Incoming, answer: &mut StandInAnswer) -> bool {
    let path = seen.path;
    let write = match seen.method.as_str() {
        "PATCH" => path.starts_with("/finops/v1/comments/"),
        "POST" => path.ends_with("/vat-ids") || path == "/finops/v1/receivables",
        _ => false,
    };
    if answer.0 != 404 || !write {
        return false;
    }
    *answer = (
        403,
        json!({"error": {"message": 42}}).to_string().into_bytes(),
    );
    true
}

/// Replaces the body of every answer of `status` in an area with `body`.
fn error_body(
    area: fn(&Incoming) -> bool,
    status: u16,
    body: Value,
) -> impl Fn(&Incoming, &mut StandInAnswer) -> bool + Send + Sync {
    move |seen: &Incoming, answer: &mut StandInAnswer| {
        if !area(seen) || answer.0 != status {
            return false;
        }
        answer.1 = body.to_string().into_bytes();
        true
    }
}

/// A banking error body of `status` without the members `left_out`.
fn banking_without(status: u16, left_out: &[&str]) -> Value {
    let mut body = json!({"detail": "refused", "errorCode": "E", "instance": "/x",
        "status": status, "title": "Refused", "type": "about:blank"});
    for key in left_out {
        body.as_object_mut().map(|o| o.remove(*key));
    }
    body
}

/// The page number of each events page, from the tokens the pages before it gave (the first
/// query is page 1), and `f` applied to its items.
fn events_pages(
    f: impl Fn(usize, &mut [Value]) -> bool + Send + Sync,
) -> impl Fn(&Incoming, &mut StandInAnswer) -> bool + Send + Sync {
    let pages: Mutex<HashMap<String, usize>> = Mutex::default();
    move |seen: &Incoming, answer: &mut StandInAnswer| {
        if seen.path != "/finops/v1/events" || answer.0 != 200 {
            return false;
        }
        let token = seen
            .query
            .into_iter()
            .flat_map(|q| q.split('&'))
            .find_map(|pair| {
                pair.strip_prefix("pagination_token=")
                    .map(urlencoding_decode)
            });
        let Some(mut body) = json_of(&answer.1) else {
            return false;
        };
        let mut known = pages.lock().expect("the pages");
        let number = match &token {
            None => 1,
            Some(t) => known.get(t).copied().unwrap_or(0) + 1,
        };
        if let Some(next) = body["next_pagination_token"].as_str() {
            known.entry(next.to_owned()).or_insert(number);
        }
        drop(known);
        let Some(items) = body["data"].as_array_mut() else {
            return false;
        };
        let changed = f(number, items);
        answer.1 = body.to_string().into_bytes();
        changed
    }
}

/// `text` with its `%XX` escapes decoded (the tokens as the reference gave them).
fn urlencoding_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Pages after the second in reverse order.
fn third_page_reversed(number: usize, items: &mut [Value]) -> bool {
    if number < 3 || items.len() < 2 {
        return false;
    }
    items.reverse();
    true
}

/// Events beyond the first page with created_at without an offset.
fn later_pages_without_offset(number: usize, items: &mut [Value]) -> bool {
    if number < 2 {
        return false;
    }
    for item in items.iter_mut() {
        if let Some(at) = item["created_at"].as_str().filter(|at| at.len() >= 19) {
            item["created_at"] = json!(at[..19].to_owned());
        }
    }
    !items.is_empty()
}

/// The velocity controls no hand-written case of their rule created (its bodies are named
/// `covenant ...`).
fn not_hand_written(seen: &Incoming) -> Option<Value> {
    let sent = json_of(seen.body)?;
    let create = seen.method == "POST" && seen.path.ends_with("/velocity-controls");
    let name = sent["name"].as_str().unwrap_or("");
    (create && !name.starts_with("covenant ")).then_some(sent)
}

/// A TRANSACTION control answered with a usage limit.
fn transaction_with_usage(seen: &Incoming, answer: &mut StandInAnswer) -> bool {
    let Some(mut control) = json_of(&answer.1).filter(|_| answer.0 == 201) else {
        return false;
    };
    if not_hand_written(seen).is_none() || control["velocityWindow"] != "TRANSACTION" {
        return false;
    }
    control["usageLimit"] = json!(7);
    answer.1 = control.to_string().into_bytes();
    true
}

/// A card-scoped control answered with an organization too.
fn both_scopes(seen: &Incoming, answer: &mut StandInAnswer) -> bool {
    let Some(mut control) = json_of(&answer.1).filter(|_| answer.0 == 201) else {
        return false;
    };
    if not_hand_written(seen).is_none() || !control["cardId"].is_string() {
        return false;
    }
    control["organizationId"] = json!("3fa85f64-5717-4562-b3fc-2c963f66afa6");
    answer.1 = control.to_string().into_bytes();
    true
}

/// One breach: its name, the stand-in breaking it (given the counter of answers it broke),
/// and the rule the run must fail (or warn, for a `should` rule).
type BreachTest = (String, StandIn, &'static str);

/// A stand-in, given the counter of the answers it breaks.
type StandIn = Box<dyn Fn(Arc<AtomicUsize>) -> Choices>;

fn rewriting(rewrite: impl Fn() -> Rewrite + 'static) -> StandIn {
    Box::new(move |count| breaking(rewrite(), count))
}

/// Banking error bodies, each of a status the default run draws, without a required member.
const BANK_ERRORS: [(u16, &str); 5] = [
    (400, "title"),
    (401, "instance"),
    (403, "detail"),
    (404, "type"),
    (409, "status"),
];

fn breaches() -> Vec<BreachTest> {
    let finance_errors = [
        (404, json!({"error": {"msg": "gone"}}), "ERR-FIN-BODY"),
        (409, json!({"error": "conflict"}), "ERR-FIN-BODY"),
        (400, json!({"message": "bad"}), "ERR-FIN-BODY"),
        (401, json!({"error": {"message": null}}), "ERR-FIN-BODY"),
        (
            422,
            json!({"error": {"message": "bad"}}),
            "ERR-FIN-422-BODY",
        ),
    ];
    let mut all: Vec<BreachTest> = Vec::new();
    for (status, body, rule) in finance_errors {
        let rewrite = rewriting(move || Box::new(error_body(finance, status, body.clone())));
        all.push((format!("fin-{status}"), rewrite, rule));
    }
    for (status, left_out) in BANK_ERRORS {
        let body = banking_without(status, &[left_out]);
        let rewrite = rewriting(move || Box::new(error_body(banking, status, body.clone())));
        all.push((
            format!("bank-{status}-without-{left_out}"),
            rewrite,
            "ERR-BANK-BODY",
        ));
    }
    let label = |picked: fn(&Incoming, u16) -> bool, label: &'static str| {
        Box::new(move |count| labelling(picked, label, count)) as StandIn
    };
    let others: [(&str, StandIn, &str); 7] = [
        (
            "fin-foreign-403-message-number",
            rewriting(|| Box::new(foreign_403_message_number)),
            "ERR-FIN-BODY",
        ),
        (
            "evt-third-page-reversed",
            rewriting(|| Box::new(events_pages(third_page_reversed))),
            "EVT-ORDER-DEFAULT-ASC",
        ),
        (
            "evt-later-pages-without-offset",
            rewriting(|| Box::new(events_pages(later_pages_without_offset))),
            "GEN-DATE-TIME-RFC3339",
        ),
        (
            "vat-read-back-as-text",
            label(vat_read_back, "text/plain"),
            "GEN-JSON-BODY",
        ),
        (
            "evt-later-pages-as-html",
            label(later_events_page, "text/html; charset=utf-8"),
            "GEN-JSON-BODY",
        ),
        (
            "vc-transaction-usage-generated",
            rewriting(|| Box::new(transaction_with_usage)),
            "VC-TRANSACTION-NO-USAGE",
        ),
        (
            "vc-both-scopes-generated",
            rewriting(|| Box::new(both_scopes)),
            "VC-EXACTLY-ONE-SCOPE",
        ),
    ];
    all.extend(
        others
            .into_iter()
            .map(|(name, choices, rule)| (name.to_owned(), choices, rule)),
    );
    all
}

/// Each breach fails exactly its rule (a `must` rule), or warns it and fails nothing (a
/// `should` rule), on answers only some cases draw: a 403 to a tenancy probe, error bodies of
/// every status either area gives, pages after the second, a read-back, controls that
/// generated and acceptance bodies created.
#[test]
fn a_target_breaking_one_rule_on_answers_few_cases_draw_fails_exactly_it() {
    let rt = runtime();
    let catalogue = covenant::catalogue::Catalogue::embedded();
    for (name, choices, rule) in breaches() {
        let dir = scratch(&format!("answers-{name}"));
        let count = Arc::new(AtomicUsize::new(0));
        let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices(count.clone()));
        let (output, report) = run(&dir, &profile);
        assert!(
            count.load(Ordering::Relaxed) > 0,
            "{name}: no answer was broken"
        );
        let all = findings(&report);
        let must = rules_at(&all, "must");
        let level = catalogue.rule(rule).expect("a rule of the catalogue").level;
        if level == covenant::catalogue::Level::Must {
            assert_eq!(must, [rule].into(), "{name}: {all:#?}");
            assert_eq!(output.status.code(), Some(1), "{name}: {}", says(&output));
        } else {
            assert!(must.is_empty(), "{name}: {all:#?}");
            assert!(rules_at(&all, "should").contains(rule), "{name}: {all:#?}");
        }
    }
}

/// `at` as `+00:00` with a fraction of six digits, where it is a UTC date-time with `Z`.
fn other_spelling(at: &str) -> Option<String> {
    let bytes = at.as_bytes();
    let date_time = at.len() >= 20 && bytes.get(10) == Some(&b'T') && at.ends_with('Z');
    if !date_time || !bytes[..4].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let bare = &at[..at.len() - 1];
    let (whole, fraction) = bare.split_once('.').unwrap_or((bare, ""));
    Some(format!("{whole}.{fraction:0<6}+00:00"))
}

/// Every string of `value` that `f` changes, changed.
fn map_strings(value: &mut Value, f: &dyn Fn(&str) -> Option<String>) {
    match value {
        Value::String(s) => {
            if let Some(new) = f(s) {
                *s = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| map_strings(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| map_strings(v, f)),
        _ => {}
    }
}

/// Keeps the contract with other choices on the same answers: error bodies with fields of
/// their own, banking errors as `application/problem+json`, date-times with `+00:00` and a
/// fraction of six digits.
fn other_choices() -> Choices {
    Choices {
        answer: Box::new(|seen: &Incoming, (status, bytes): StandInAnswer| {
            let Some(mut body) = json_of(&bytes) else {
                return (status, bytes);
            };
            map_strings(&mut body, &other_spelling);
            if status >= 400 {
                if let Some(map) = body.as_object_mut() {
                    map.insert("request_id".into(), json!("req-1"));
                }
                if let Some(error) = body.get_mut("error").and_then(Value::as_object_mut) {
                    error.insert("code".into(), json!("refused"));
                }
                if banking(seen) {
                    body["traceId"] = json!("trace-1");
                }
            }
            (status, body.to_string().into_bytes())
        }),
        label: Box::new(|seen: &Incoming, status| {
            (banking(seen) && status >= 400).then_some("application/problem+json")
        }),
        ..Choices::default()
    }
}

#[test]
fn a_target_with_other_error_bodies_media_types_and_date_time_spellings_fails_nothing() {
    assert_eq!(
        other_spelling("2026-09-24T10:15:30.123Z").as_deref(),
        Some("2026-09-24T10:15:30.123000+00:00")
    );
    assert_eq!(other_spelling("2026-09-24"), None);
    let dir = scratch("answers-other-choices");
    let rt = runtime();
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", other_choices());
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    assert!(all.is_empty(), "{all:#?}\n{}", says(&output));
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
}
