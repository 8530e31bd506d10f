//! Targets that keep the contract with other choices where the spec is silent pass clean; the
//! same target breaking one stated rule fails it.
//!
//! The stand-in sits in front of a reference of its own (`support/standin.rs`) and plays an
//! implementation unlike the reference where the spec leaves things open:
//! - ids answered in upper case, and date-times as local times without an offset (ISO 8601);
//! - a comment's text trimmed of leading and trailing whitespace;
//! - a TRANSACTION velocity control answered with usageLimit -1 (unlimited) instead of null;
//! - receivables without line items, and velocity controls of amount 0, refused;
//! - a VAT ID value its counterpart already has refused with 409, and spaces in one with 422;
//! - the empty account's first page with a next token, to a second empty page that ends it;
//! - numeric and boolean strings read as numbers and booleans, and null as absent where the spec
//!   does not say whether null is allowed (a lax binder's reading).
//!
//! Covenant may warn where a choice departs from common practice (trimmed text, local times),
//! but fails nothing, and the variants judged beside a refused smallest body are judged beside
//! another baseline instead of being left inconclusive.

use crate::support::standin;

use serde_json::{json, Value};
use standin::{runtime, says, scratch, stand_in, Choices, Incoming, StandInAnswer};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The next token the stand-in gives the empty account's first page.
const EMPTY_NEXT: &str = "stand-in-empty-next";

pub(crate) fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// `value` with `f` applied to every string under every key (the key given).
pub(crate) fn map_strings(value: &mut Value, key: &str, f: &dyn Fn(&str, &str) -> Option<Value>) {
    match value {
        Value::String(s) => {
            if let Some(new) = f(key, s) {
                *value = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| map_strings(v, key, f)),
        Value::Object(map) => map.iter_mut().for_each(|(k, v)| map_strings(v, k, f)),
        _ => {}
    }
}

pub(crate) fn json_of(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

pub(crate) fn finance_422(field: &str, msg: &str) -> StandInAnswer {
    let body = json!({"detail": [{"loc": ["body", field], "msg": msg, "type": "value_error"}]});
    (422, body.to_string().into_bytes())
}

/// The stand-in's own answers: refusals of what the spec does not say must be accepted, and the
/// empty account's second page.
fn reply(seen: &Incoming, vat_values: &Mutex<HashSet<String>>) -> Option<StandInAnswer> {
    let body = json_of(seen.body).unwrap_or_default();
    let post = seen.method == "POST";
    let receivable = post && seen.path == "/finops/v1/receivables";
    if receivable && body.get("based_on").is_none() && body["line_items"] == json!([]) {
        return Some(finance_422("line_items", "a receivable needs a line item"));
    }
    if post && seen.path.ends_with("/velocity-controls") && body["amountLimit"] == json!(0) {
        let error = json!({"detail": "amountLimit must be positive", "errorCode": "INVALID_AMOUNT",
            "instance": seen.path, "status": 400, "title": "Bad Request", "type": "about:blank"});
        return Some((400, error.to_string().into_bytes()));
    }
    if post && seen.path.ends_with("/vat-ids") {
        let value = body["value"].as_str()?.to_owned();
        if value.contains(' ') {
            return Some(finance_422("value", "a VAT ID has no spaces"));
        }
        let key = format!("{}|{}", seen.path.to_lowercase(), value);
        if vat_values.lock().expect("the set").contains(&key) {
            let error = json!({"error": {"message": "the counterpart already has this VAT ID"}});
            return Some((409, error.to_string().into_bytes()));
        }
    }
    let token = format!("pagination_token={EMPTY_NEXT}");
    if seen.path.ends_with("/transactions") && seen.query.is_some_and(|q| q.contains(&token)) {
        let page = json!({"data": [], "nextPaginationToken": null, "prevPaginationToken": null});
        return Some((200, page.to_string().into_bytes()));
    }
    None
}

/// A lax binder's reading of a request body: numeric strings as numbers, "true", "yes" and "on"
/// (and their opposites) as booleans (Pydantic), a number as a comment's text (Jackson), and
/// null as absent in the bodies the spec describes in prose (optional fields of velocity
/// controls, comment updates and VAT IDs).
pub(crate) fn lax(seen: &Incoming) -> Vec<u8> {
    let Some(mut body) = json_of(seen.body) else {
        return seen.body.to_vec();
    };
    let comment = seen.path.starts_with("/finops/v1/comments/");
    let prose = ["/velocity-controls", "/vat-ids"]
        .iter()
        .any(|end| seen.path.ends_with(end))
        || comment;
    if let (true, Value::Object(members)) = (prose, &mut body) {
        members.retain(|_, value| !value.is_null());
    }
    if let (true, Some(n)) = (comment, body.get("text").filter(|t| t.is_number())) {
        body["text"] = json!(n.to_string());
    }
    map_strings(&mut body, "", &|_, s| match s {
        "true" | "yes" | "on" => Some(json!(true)),
        "false" | "no" | "off" => Some(json!(false)),
        _ => s.parse::<i64>().ok().map(|n| json!(n)),
    });
    body.to_string().into_bytes()
}

/// The reference's answer as the stand-in gives it.
fn answer(
    seen: &Incoming,
    (status, bytes): StandInAnswer,
    vat_values: &Mutex<HashSet<String>>,
) -> StandInAnswer {
    let Some(mut body) = json_of(&bytes) else {
        return (status, bytes);
    };
    let ok = (200..300).contains(&status);
    if ok && seen.method == "POST" && seen.path.ends_with("/vat-ids") {
        if let Some(value) = json_of(seen.body).and_then(|b| b["value"].as_str().map(str::to_owned))
        {
            let key = format!("{}|{}", seen.path.to_lowercase(), value);
            vat_values.lock().expect("the set").insert(key);
        }
    }
    if ok && seen.method == "PATCH" && seen.path.starts_with("/finops/v1/comments/") {
        if let Some(text) = body["text"].as_str() {
            body["text"] = json!(text.trim());
        }
    }
    if ok && seen.path.ends_with("/velocity-controls") && body["velocityWindow"] == "TRANSACTION" {
        body["usageLimit"] = json!(-1);
    }
    let first_page = !seen.query.unwrap_or("").contains("pagination_token");
    if ok && seen.path.ends_with("/transactions") && first_page && body["data"] == json!([]) {
        body["nextPaginationToken"] = json!(EMPTY_NEXT);
    }
    let times = [
        "createdAt",
        "updatedAt",
        "created_at",
        "updated_at",
        "last_updated_at",
    ];
    map_strings(&mut body, "", &|key, s| {
        if is_uuid(s) {
            Some(json!(s.to_uppercase()))
        } else if times.contains(&key) && s.ends_with('Z') {
            Some(json!(s.trim_end_matches('Z')))
        } else {
            None
        }
    });
    (status, body.to_string().into_bytes())
}

/// The choices above, and `breach` (a change of the answer that breaks one stated rule) last.
fn other_choices(breach: fn(&Incoming, StandInAnswer) -> StandInAnswer) -> Choices {
    let vat_values = Arc::new(Mutex::new(HashSet::new()));
    let seen_values = vat_values.clone();
    Choices {
        body: Box::new(lax),
        reply: Box::new(move |seen: &Incoming| reply(seen, &vat_values)),
        answer: Box::new(move |seen: &Incoming, given| {
            breach(seen, answer(seen, given, &seen_values))
        }),
        ..Choices::default()
    }
}

pub(crate) fn run(dir: &Path, profile: &Path) -> (Output, Value) {
    let utf8 = |p: &Path| p.to_str().expect("a UTF-8 path").to_owned();
    let reports = dir.join("reports");
    let output = crate::support::covenant()
        .args(["run", "-q", "--seed", "5", "--cases", "10", "--profile"])
        .arg(utf8(profile))
        .args(["--report-dir", &utf8(&reports)])
        .args(["--state", &utf8(&dir.join("state.json"))])
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .expect("covenant runs");
    let report = std::fs::read_to_string(reports.join("report.json"))
        .map(|text| serde_json::from_str(&text).expect("JSON"))
        .unwrap_or(Value::Null);
    (output, report)
}

/// (case, rule, level, message) of every finding of the report.
pub(crate) fn findings(report: &Value) -> Vec<(String, String, String, String)> {
    let cases = report["cases"].as_array().into_iter().flatten();
    cases
        .flat_map(|case| {
            let findings = case["findings"].as_array().into_iter().flatten();
            findings.map(|f| {
                let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
                (
                    s(&case["id"]),
                    s(&f["rule"]),
                    s(&f["level"]),
                    s(&f["message"]),
                )
            })
        })
        .collect()
}

/// The rules of the findings that fail (level must).
fn must_rules(all: &[(String, String, String, String)]) -> HashSet<&str> {
    all.iter()
        .filter(|f| f.2 == "must")
        .map(|f| f.1.as_str())
        .collect()
}

pub(crate) fn verdict_of<'r>(report: &'r Value, case: &str) -> &'r str {
    let cases = report["cases"].as_array().expect("cases");
    let found = cases.iter().find(|c| c["id"] == case);
    found
        .and_then(|c| c["verdict"].as_str())
        .unwrap_or("(no such case)")
}

fn as_given(_: &Incoming, answer: StandInAnswer) -> StandInAnswer {
    answer
}

#[test]
fn a_target_with_other_choices_where_the_spec_is_silent_fails_nothing() {
    let dir = scratch("choices-silent");
    let rt = runtime();
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", other_choices(as_given));
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    let failed: Vec<_> = all.iter().filter(|f| f.2 == "must").collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", says(&output));
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    // The choices were made, and covenant said so where they depart from common practice.
    let warned: HashSet<&str> = all.iter().map(|f| f.1.as_str()).collect();
    for rule in ["CMT-TEXT-VERBATIM", "GEN-DATE-TIME-RFC3339"] {
        assert!(warned.contains(rule), "{rule} not warned: {warned:?}");
    }
    // The smallest receivable and velocity bodies were refused; the variants were judged beside
    // another baseline (not left inconclusive), and the VAT ID variants, each with a value of
    // its own, all accepted.
    for case in [
        "accept.create-receivable",
        "accept.create-velocity-control",
        "accept.create-vat-id",
    ] {
        let verdict = verdict_of(&report, case);
        assert!(["pass", "warn"].contains(&verdict), "{case}: {verdict}");
        let listed = evidence(&report, case, "GEN-ENUM-ACCEPTED");
        assert!(listed > 0, "{case}: no listed value was judged");
    }
    assert_eq!(report["counts"]["inconclusive"], 0, "{}", says(&output));
    assert_eq!(verdict_of(&report, "transactions.full-read"), "pass");
}

/// How many responses of `case` were judged against `rule`.
fn evidence(report: &Value, case: &str, rule: &str) -> u64 {
    let cases = report["cases"].as_array().expect("cases");
    let case = cases.iter().find(|c| c["id"] == case).expect("the case");
    let rules = case["evidence"].as_array().into_iter().flatten();
    let found = rules.into_iter().find(|e| e["rule"] == rule);
    found.and_then(|e| e["responses"].as_u64()).unwrap_or(0)
}

// ------------------------------------------------------------ writes read back, unlisted methods
// (issue 29, classes 3 and 4): a target answering in its own key order passes clean; one
// breaking one rule of these classes fails exactly that rule.

/// `value` written with the members of every object in reverse order (serde_json's own maps
/// keep theirs sorted, so the text is built here).
fn reversed_keys(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), reversed_keys(v)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(reversed_keys).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// Every JSON answer with its members in reverse order.
fn own_key_order(_: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    match json_of(&bytes) {
        Some(body) => (status, reversed_keys(&body).into_bytes()),
        None => (status, bytes),
    }
}

/// The rules of the report's findings at `level`.
pub(crate) fn rules_at<'r>(
    all: &'r [(String, String, String, String)],
    level: &str,
) -> HashSet<&'r str> {
    all.iter()
        .filter(|f| f.2 == level)
        .map(|f| f.1.as_str())
        .collect()
}

/// Runs the plain stand-in, then the one making `choices` (`started` is given the reference
/// behind it before the run): the second fails nothing, gives no warning the plain one did not,
/// and passes each case of `judged` with evidence for its rule.
pub(crate) fn clean_beside_the_plain_stand_in(
    name: &str,
    choices: Choices,
    started: impl FnOnce(&covenant::reference::RunningReference),
    judged: &[(&str, &str)],
) {
    let rt = runtime();
    let dir = scratch(&format!("choices-{name}-as-given"));
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", Choices::default());
    let (_, report) = run(&dir, &profile);
    let before = findings(&report);
    let dir = scratch(&format!("choices-{name}"));
    let (behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
    started(&behind);
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    assert!(
        rules_at(&all, "must").is_empty(),
        "{name}: {all:#?}\n{}",
        says(&output)
    );
    assert_eq!(output.status.code(), Some(0), "{name}: {}", says(&output));
    let warned = rules_at(&all, "should");
    assert!(
        warned.is_subset(&rules_at(&before, "should")),
        "{name}: new warnings {warned:?}"
    );
    for (case, rule) in judged {
        assert_eq!(verdict_of(&report, case), "pass", "{name}: {case}");
        assert!(
            evidence(&report, case, rule) > 0,
            "{name}: {case}: {rule} not judged"
        );
    }
}

#[test]
fn a_target_answering_in_its_own_key_order_fails_nothing_and_warns_nothing_new() {
    clean_beside_the_plain_stand_in(
        "echo-own-order",
        answering(own_key_order),
        |_| {},
        &[
            ("echo.quote-fields", "RCV-FIELDS-ECHO"),
            ("echo.quote-fields", "RCV-ATTACHMENTS-OMITTED"),
            ("echo.quote-fields", "EVT-ITEM"),
            ("echo.comment-keeps", "CMT-UPDATE-KEEPS"),
            ("vat.create-then-get", "VAT-ROUNDTRIP"),
            ("methods.unlisted-finance", "GEN-UNLISTED-METHOD-BODY"),
            ("methods.unlisted-banking", "GEN-UNLISTED-METHOD-BODY"),
        ],
    );
}

/// Runs covenant against a stand-in making `choices` (served by `rt`, its scratch directory
/// `name`), which must fail exactly `rule`: the reference behind it and the report.
pub(crate) fn fails_exactly(
    rt: &tokio::runtime::Runtime,
    name: &str,
    choices: Choices,
    rule: &str,
) -> (covenant::reference::RunningReference, Value) {
    let dir = scratch(name);
    let (behind, profile) = stand_in(rt, 4, &dir, "stand-in", choices);
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    assert_eq!(
        rules_at(&all, "must"),
        HashSet::from([rule]),
        "{name}: {all:#?}"
    );
    assert_eq!(output.status.code(), Some(1), "{name}: {}", says(&output));
    (behind, report)
}

/// A method the spec does not list answered with a JSON body that is not the area's.
fn unlisted_bare(_: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    match status {
        405 => (405, br#"{"message":"Method Not Allowed"}"#.to_vec()),
        _ => (status, bytes),
    }
}

/// A method the spec does not list answered with an HTML page.
fn unlisted_html(_: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    match status {
        405 => (
            405,
            b"<html><body>405 Method Not Allowed</body></html>".to_vec(),
        ),
        _ => (status, bytes),
    }
}

fn created_receivable(seen: &Incoming, status: u16) -> bool {
    seen.method == "POST" && seen.path == "/finops/v1/receivables" && status == 201
}

/// A quote's footer answered cut to its first ten characters.
fn footer_cut(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let Some(mut body) = json_of(&bytes).filter(|_| created_receivable(seen, status)) else {
        return (status, bytes);
    };
    if let Some(footer) = body["footer"].as_str() {
        body["footer"] = json!(footer.chars().take(10).collect::<String>());
    }
    (status, body.to_string().into_bytes())
}

/// A receivable created without attachments answered with one.
fn attachments_added(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let sent = json_of(seen.body).unwrap_or_default();
    let Some(mut body) = json_of(&bytes).filter(|_| created_receivable(seen, status)) else {
        return (status, bytes);
    };
    if sent.get("attachments").is_none() {
        body["attachments"] = json!([{ "file_id": "3fa85f64-5717-4562-b3fc-2c963f66afa6" }]);
    }
    (status, body.to_string().into_bytes())
}

/// A created VAT ID answered with the value it was given cut by its last character.
fn vat_value_cut(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let create = seen.method == "POST" && seen.path.ends_with("/vat-ids") && status == 201;
    let Some(mut body) = json_of(&bytes).filter(|_| create) else {
        return (status, bytes);
    };
    if let Some(value) = body["value"].as_str() {
        body["value"] = json!(value[..value.len().saturating_sub(1)]);
    }
    (status, body.to_string().into_bytes())
}

/// A created mailbox domain answered as a subdomain of the one requested.
fn domain_prefixed(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let create = seen.method == "POST" && seen.path == "/finops/v1/mailbox-domains";
    let Some(mut body) = json_of(&bytes).filter(|_| create && status < 300) else {
        return (status, bytes);
    };
    if let Some(domain) = body["domain"].as_str() {
        body["domain"] = json!(format!("mail.{domain}"));
    }
    (status, body.to_string().into_bytes())
}

/// A stand-in changing the reference's answers with `f` alone.
fn answering(f: fn(&Incoming, StandInAnswer) -> StandInAnswer) -> Choices {
    Choices {
        answer: Box::new(f),
        ..Choices::default()
    }
}

/// A comment updated without reply_to_entity_user_id answered with another user there.
fn comment_reset(seen: &Incoming, answer: StandInAnswer) -> StandInAnswer {
    comment_untouched(
        seen,
        answer,
        Some(json!("00000000-0000-0000-0000-000000000000")),
    )
}

/// An update replacing the comment (as a PUT would): what it does not carry is gone.
fn comment_replaced(seen: &Incoming, answer: StandInAnswer) -> StandInAnswer {
    comment_untouched(seen, answer, None)
}

/// An update's answer with `reply_to_entity_user_id` set to `to` (removed for `None`) when the
/// update did not carry it.
fn comment_untouched(
    seen: &Incoming,
    (status, bytes): StandInAnswer,
    to: Option<Value>,
) -> StandInAnswer {
    let update = seen.method == "PATCH" && seen.path.starts_with("/finops/v1/comments/");
    let sent = json_of(seen.body).unwrap_or_default();
    let Some(mut body) = json_of(&bytes).filter(|_| update && status == 200) else {
        return (status, bytes);
    };
    if sent.get("reply_to_entity_user_id").is_none() {
        match (&to, body.as_object_mut()) {
            (Some(to), _) => body["reply_to_entity_user_id"] = to.clone(),
            (None, Some(members)) => {
                members.remove("reply_to_entity_user_id");
            }
            (None, None) => {}
        }
    }
    (status, body.to_string().into_bytes())
}

/// The events of the resources the run created answered with a created_at that is no
/// date-time (the seeded history as it is).
fn written_events_untimed() -> Choices {
    let created = Arc::new(Mutex::new(HashSet::new()));
    Choices {
        answer: Box::new(move |seen, (status, bytes)| {
            let Some(mut body) = json_of(&bytes) else {
                return (status, bytes);
            };
            let mut ids = created.lock().expect("the set");
            if seen.method == "POST" && (200..300).contains(&status) {
                if let Some(id) = body["id"].as_str() {
                    ids.insert(id.to_lowercase());
                }
                return (status, bytes);
            }
            if seen.path != "/finops/v1/events" {
                return (status, bytes);
            }
            let events = body["data"].as_array_mut().into_iter().flatten();
            for event in events {
                let id = event["object"]["id"].as_str().unwrap_or("").to_lowercase();
                if ids.contains(&id) {
                    event["created_at"] = json!("yesterday");
                }
            }
            (status, body.to_string().into_bytes())
        }),
        ..Choices::default()
    }
}

#[test]
fn a_target_breaking_one_rule_of_writes_read_back_or_unlisted_methods_fails_exactly_it() {
    let breaches: Vec<(&str, Choices, &str)> = vec![
        (
            "unlisted-bare",
            answering(unlisted_bare),
            "GEN-UNLISTED-METHOD-BODY",
        ),
        ("unlisted-html", answering(unlisted_html), "GEN-JSON-BODY"),
        ("footer-cut", answering(footer_cut), "RCV-FIELDS-ECHO"),
        (
            "attachments-added",
            answering(attachments_added),
            "RCV-ATTACHMENTS-OMITTED",
        ),
        ("vat-value-cut", answering(vat_value_cut), "VAT-ROUNDTRIP"),
        (
            "domain-prefixed",
            answering(domain_prefixed),
            "MBX-DOMAIN-ECHO",
        ),
        (
            "written-events-untimed",
            written_events_untimed(),
            "EVT-ITEM",
        ),
    ];
    let rt = runtime();
    for (name, choices, rule) in breaches {
        fails_exactly(&rt, &format!("choices-echo-{name}"), choices, rule);
    }
    // The should rule: a warning, and the only new one, whether the untouched field comes back
    // changed or not at all.
    for (name, choices) in [
        ("comment-reset", answering(comment_reset)),
        ("comment-replaced", answering(comment_replaced)),
    ] {
        let dir = scratch(&format!("choices-echo-{name}"));
        let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
        let (output, report) = run(&dir, &profile);
        let all = findings(&report);
        assert!(rules_at(&all, "must").is_empty(), "{name}: {all:#?}");
        assert_eq!(
            rules_at(&all, "should"),
            HashSet::from(["CMT-UPDATE-KEEPS"]),
            "{name}: {all:#?}"
        );
        assert_eq!(output.status.code(), Some(0), "{name}: {}", says(&output));
    }
}

/// Answers a TRANSACTION velocity control with the usage limit it was given (the spec: "must
/// be omitted when the window is TRANSACTION"), once the request carries -1.
fn transaction_usage_kept(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let sent = json_of(seen.body).unwrap_or_default();
    let breach = seen.path.ends_with("/velocity-controls")
        && sent["velocityWindow"] == "TRANSACTION"
        && sent["usageLimit"] == json!(-1);
    if !breach {
        return (status, bytes);
    }
    let mut control = sent.clone();
    control["active"] = json!(false);
    control["organizationId"] = json!("3fa85f64-5717-4562-b3fc-2c963f66afa6");
    control["createdAt"] = json!("2026-09-24T10:15:30Z");
    control["updatedAt"] = json!("2026-09-24T10:15:30Z");
    (201, control.to_string().into_bytes())
}

#[test]
fn the_same_target_accepting_a_usage_limit_with_the_transaction_window_fails_that_rule() {
    let dir = scratch("choices-breach");
    let rt = runtime();
    let choices = other_choices(transaction_usage_kept);
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
    let (output, report) = run(&dir, &profile);
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
    let all = findings(&report);
    let failed = must_rules(&all);
    assert_eq!(
        failed,
        HashSet::from(["VC-TRANSACTION-NO-USAGE"]),
        "{all:#?}"
    );
    assert_eq!(verdict_of(&report, "velocity.transaction-window"), "fail");
}

/// Refuses every mailbox domain the reference would create, as a target would one it does not
/// own (after authentication: a request without a token still gets its 401).
fn no_domain_is_owned(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let create = seen.method == "POST" && seen.path == "/finops/v1/mailbox-domains";
    if !create || !(200..300).contains(&status) {
        return (status, bytes);
    }
    let error = json!({"error": {"message": "the domain is not verified for this partner"}});
    (403, error.to_string().into_bytes())
}

#[test]
fn a_target_refusing_every_mailbox_domain_is_not_failed_for_the_organization_header() {
    let dir = scratch("choices-no-domain");
    let rt = runtime();
    let choices = Choices {
        answer: Box::new(no_domain_is_owned),
        ..Choices::default()
    };
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    let failed: Vec<_> = all.iter().filter(|f| f.2 == "must").collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", says(&output));
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    // Both domains, with the header and without, were refused: nothing is said of the header.
    let case = "mailbox.create-without-org-header";
    assert_eq!(verdict_of(&report, case), "inconclusive", "{all:#?}");
    assert_eq!(verdict_of(&report, "mailbox.invalid-domains"), "pass");
}

/// Whether a request writes on a resource a path or body names (the tenant-isolation writes).
fn names_a_resource(seen: &Incoming) -> bool {
    let path = seen.path;
    match seen.method.as_str() {
        "PATCH" => path.starts_with("/finops/v1/comments/"),
        "POST" => path.ends_with("/vat-ids") || path == "/finops/v1/receivables",
        "DELETE" => path.starts_with("/finops/v1/tags/") || path.contains("/bank-accounts/"),
        _ => false,
    }
}

/// Refuses what the reference does not find (another organization's resource among them) with
/// 403 instead of 404.
fn foreign_403(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    if status != 404 || !names_a_resource(seen) {
        return (status, bytes);
    }
    let error = json!({"error": {"message": "this resource belongs to another organization"}});
    (403, error.to_string().into_bytes())
}

/// Refuses what the reference does not find with a 422 validation error instead of 404.
fn foreign_422(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    if status != 404 || !names_a_resource(seen) {
        return (status, bytes);
    }
    finance_422("id", "no such resource in this organization")
}

#[test]
fn a_target_refusing_foreign_resources_with_403_or_422_fails_nothing_and_warns_nothing_new() {
    // The warnings of the same stand-in answering 404: refusing with 403 or 422 adds none.
    let dir = scratch("choices-foreign-404");
    let rt = runtime();
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", other_choices(as_given));
    let (_, report) = run(&dir, &profile);
    let before = findings(&report);
    let expected: HashSet<&str> = before.iter().map(|f| f.1.as_str()).collect();
    for (name, breach) in [
        (
            "choices-foreign-403",
            foreign_403 as fn(&Incoming, StandInAnswer) -> StandInAnswer,
        ),
        ("choices-foreign-422", foreign_422),
    ] {
        let dir = scratch(name);
        let rt = runtime();
        let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", other_choices(breach));
        let (output, report) = run(&dir, &profile);
        let all = findings(&report);
        let failed: Vec<_> = all.iter().filter(|f| f.2 == "must").collect();
        assert!(failed.is_empty(), "{name}: {failed:#?}\n{}", says(&output));
        let warned: HashSet<&str> = all.iter().map(|f| f.1.as_str()).collect();
        assert!(
            warned.is_subset(&expected),
            "{name}: new warnings {warned:?}"
        );
        for case in [
            "tenant.foreign-write.update-comment",
            "tenant.foreign-write.create-vat-id",
            "tenant.foreign-write.create-receivable",
            "tag.delete-twice",
            "tenant.events-of-one-organization",
        ] {
            let verdict = verdict_of(&report, case);
            assert!(
                ["pass", "warn"].contains(&verdict),
                "{name} {case}: {verdict}"
            );
            assert!(
                evidence(&report, case, "FIN-TENANT-WRITE")
                    + evidence(&report, case, "FIN-TENANT-EVENTS")
                    > 0,
                "{name} {case}: not judged"
            );
        }
    }
}

// ------------------------------------------------------------ issue 29, classes 5 to 8

/// A banking problem body with `status`.
pub(crate) fn banking_error(
    seen: &Incoming,
    status: u16,
    code: &str,
    detail: &str,
) -> StandInAnswer {
    let error = json!({"detail": detail, "errorCode": code, "instance": seen.path,
        "status": status, "title": "Refused", "type": "about:blank"});
    (status, error.to_string().into_bytes())
}

fn creates_velocity_control(seen: &Incoming) -> bool {
    seen.method == "POST" && seen.path.ends_with("/velocity-controls")
}

/// `choices` with creates of velocity controls serialised per id: while one create of an id is
/// in flight, another with the same id is refused with 409 by the stand-in itself (the loser of
/// the race), without reaching the reference. A create is held a moment before it is sent
/// behind, as a slow store would: two creates sent at once then meet in flight even on a loaded
/// machine, where the first might otherwise be answered before the second arrives.
fn serialising(choices: Choices, losers: Arc<AtomicUsize>) -> Choices {
    let flight = Arc::new(Mutex::new(HashSet::<String>::new()));
    let released = flight.clone();
    // Per token too: a target authenticates before it looks at the id.
    let id_of = |seen: &Incoming| {
        let token = seen.headers.get("authorization")?.to_str().ok()?.to_owned();
        let id = json_of(seen.body)?["id"].as_str()?.to_owned();
        Some(format!("{token} {id}"))
    };
    let Choices {
        query,
        body,
        reply,
        answer,
        hold,
        headers,
        label,
        answer_headers,
    } = choices;
    Choices {
        query,
        body,
        headers,
        label,
        answer_headers,
        hold: Box::new(move |seen: &Incoming| {
            if creates_velocity_control(seen) {
                Some(std::time::Duration::from_millis(300))
            } else {
                hold(seen)
            }
        }),
        reply: Box::new(move |seen: &Incoming| {
            if let Some(id) = id_of(seen).filter(|_| creates_velocity_control(seen)) {
                if !flight.lock().expect("the set").insert(id) {
                    losers.fetch_add(1, Ordering::Relaxed);
                    return Some(banking_error(
                        seen,
                        409,
                        "CONFLICT",
                        "a create of this id is in flight",
                    ));
                }
            }
            reply(seen)
        }),
        answer: Box::new(move |seen: &Incoming, given| {
            if let Some(id) = id_of(seen).filter(|_| creates_velocity_control(seen)) {
                released.lock().expect("the set").remove(&id);
            }
            answer(seen, given)
        }),
    }
}

#[test]
fn a_target_serialising_concurrent_creates_with_409_for_the_loser_fails_nothing_and_warns_nothing_new(
) {
    let dir = scratch("choices-serialising-before");
    let rt = runtime();
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", other_choices(as_given));
    let (first, report) = run(&dir, &profile);
    let before = findings(&report);
    let expected: HashSet<&str> = before.iter().map(|f| f.1.as_str()).collect();
    assert!(!expected.is_empty(), "{}", says(&first));
    let dir = scratch("choices-serialising");
    let losers = Arc::new(AtomicUsize::new(0));
    let (_behind, profile) = stand_in(
        &rt,
        4,
        &dir,
        "stand-in",
        serialising(other_choices(as_given), losers.clone()),
    );
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    let failed: Vec<_> = all.iter().filter(|f| f.2 == "must").collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", says(&output));
    assert!(losers.load(Ordering::Relaxed) > 0, "no create lost a race");
    let new: Vec<_> = all
        .iter()
        .filter(|f| !expected.contains(f.1.as_str()))
        .collect();
    assert!(new.is_empty(), "new warnings {new:#?}");
    for (case, rule) in [
        ("velocity.duplicate-id-concurrent", "VC-ID-UNIQUE"),
        ("velocity.id-unique-across-scopes", "VC-ID-UNIQUE"),
        ("velocity.id-echo-exact", "VC-ID-ECHO"),
        (
            "transactions.org-header-upper-case",
            "BANK-ORG-HEADER-UUID-CASE",
        ),
        ("mailbox.valid-domains", "MBX-DOMAIN-ACCEPTED"),
        ("receivable.deductions-at-limit", "GEN-LIMIT-INCLUSIVE"),
        ("receivable.based-on-foreign", "RCV-BASED-ON-UNKNOWN"),
    ] {
        let verdict = verdict_of(&report, case);
        assert!(["pass", "warn"].contains(&verdict), "{case}: {verdict}");
        assert!(
            evidence(&report, case, rule) > 0,
            "{case}: {rule} not judged"
        );
    }
}

/// An invoice of the stand-in's own for a based-on creation whose source the reference did not
/// find (none, or another organization's).
fn source_unchecked(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let sent = json_of(seen.body).unwrap_or_default();
    if status != 404 || seen.path != "/finops/v1/receivables" || sent.get("based_on").is_none() {
        return (status, bytes);
    }
    let invoice = json!({"id": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "type": sent["type"],
        "based_on": sent["based_on"]});
    (201, invoice.to_string().into_bytes())
}

/// A create's body and the answer it had.
type BodyAndAnswer = (Value, Vec<u8>);

/// A target with two choices the spec leaves open: a credit note only on an issued invoice (an
/// invoice created through it is a draft, refused as a source with 409; the profile's is
/// issued), and a velocity control create sent again with the same id and the same body
/// answered 200 with the control it created (idempotent), while another body under that id is
/// refused with 409 as the reference refuses it.
fn drafts_and_replays() -> Choices {
    let drafts = Arc::new(Mutex::new(HashSet::new()));
    // Each created control's id, with the body that created it and the answer.
    let controls: Arc<Mutex<HashMap<String, BodyAndAnswer>>> = Arc::default();
    Choices {
        answer: Box::new(move |seen: &Incoming, (status, bytes): StandInAnswer| {
            let sent = json_of(seen.body).unwrap_or_default();
            let ok = (200..300).contains(&status);
            if seen.method == "POST" && seen.path == "/finops/v1/receivables" {
                let mut drafts = drafts.lock().expect("the drafts");
                let source = sent["based_on"].as_str().map(str::to_lowercase);
                if sent["type"] == "credit_note" && source.is_some_and(|s| drafts.contains(&s)) {
                    let error =
                        json!({"error": {"message": "a credit note needs an issued invoice"}});
                    return (409, error.to_string().into_bytes());
                }
                let created = json_of(&bytes).and_then(|b| b["id"].as_str().map(str::to_lowercase));
                if let (true, true, Some(id)) = (ok, sent["type"] == "invoice", created) {
                    drafts.insert(id);
                }
            } else if creates_velocity_control(seen) {
                let mut controls = controls.lock().expect("the controls");
                let id = sent["id"].as_str().unwrap_or_default().to_owned();
                match controls.get(&id) {
                    Some((first, created)) if status == 409 && *first == sent => {
                        return (200, created.clone());
                    }
                    None if ok => {
                        controls.insert(id, (sent, bytes.clone()));
                    }
                    _ => {}
                }
            }
            (status, bytes)
        }),
        ..Choices::default()
    }
}

#[test]
fn a_target_refusing_draft_sources_and_replaying_identical_creates_fails_nothing_new() {
    clean_beside_the_plain_stand_in(
        "drafts-and-replays",
        drafts_and_replays(),
        |_| {},
        &[
            (
                "receivable.quote-to-invoice-to-credit-note",
                "RCV-INVOICE-TO-CREDIT-NOTE",
            ),
            (
                "receivable.forbidden-transitions",
                "RCV-TRANSITION-UNSUPPORTED",
            ),
            ("velocity.duplicate-id", "VC-ID-UNIQUE"),
            ("velocity.duplicate-id-concurrent", "VC-ID-UNIQUE"),
        ],
    );
}

/// Every duplicate velocity control id the reference refuses, created all the same.
fn duplicates_created(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    if status != 409 || !creates_velocity_control(seen) {
        return (status, bytes);
    }
    let mut control = json_of(seen.body).unwrap_or_default();
    control["active"] = json!(false);
    if control.get("cardId").is_none() {
        control["organizationId"] = json!("3fa85f64-5717-4562-b3fc-2c963f66afa6");
    }
    control["createdAt"] = json!("2026-09-24T10:15:30Z");
    control["updatedAt"] = json!("2026-09-24T10:15:30Z");
    (201, control.to_string().into_bytes())
}

/// Every created velocity control answered with its id in lower case.
fn id_lowercased(seen: &Incoming, (status, bytes): StandInAnswer) -> StandInAnswer {
    let created = creates_velocity_control(seen) && (200..300).contains(&status);
    let Some(mut control) = json_of(&bytes).filter(|_| created) else {
        return (status, bytes);
    };
    if let Some(id) = control["id"].as_str() {
        control["id"] = json!(id.to_lowercase());
    }
    (status, control.to_string().into_bytes())
}

/// Refuses what a stand-in breaking one rule of classes 6 to 8 refuses on its own.
fn refuses(seen: &Incoming, what: &str) -> Option<StandInAnswer> {
    let body = json_of(seen.body).unwrap_or_default();
    match what {
        "upper-case-header" => {
            let upper = seen.headers.iter().any(|(name, value)| {
                name.as_str().contains("organization")
                    && value
                        .to_str()
                        .is_ok_and(|v| is_uuid(v) && v.contains(char::is_uppercase))
            });
            (upper && seen.path.ends_with("/transactions"))
                .then(|| banking_error(seen, 400, "INVALID_ORGANIZATION_HEADER", "not a UUID"))
        }
        "short-segments" => {
            let domain = body["domain"].as_str().unwrap_or("");
            let short = seen.path == "/finops/v1/mailbox-domains"
                && domain.split('.').any(|s| s.len() == 1);
            short.then(|| finance_422("domain", "segments of one character are not allowed"))
        }
        "ten-deductions" => {
            let ten = body["deductions"].as_array().is_some_and(|d| d.len() == 10);
            ten.then(|| finance_422("deductions", "at most 9 deductions"))
        }
        // A delete of a tag id that is no UUID, answered as a delete of nothing.
        "malformed-tag-deleted" => (seen.method == "DELETE"
            && seen.path.starts_with("/finops/v1/tags/")
            && malformed_path_id(seen))
        .then(|| (204, Vec::new())),
        _ => None,
    }
}

/// Whether a path names an id that is no UUID where the spec states one.
fn malformed_path_id(seen: &Incoming) -> bool {
    let ids_follow = [
        "counterparts",
        "vat-ids",
        "comments",
        "tags",
        "bank-accounts",
    ];
    let segments: Vec<&str> = seen.path.split('/').collect();
    segments
        .windows(2)
        .any(|w| ids_follow.contains(&w[0]) && !is_uuid(w[1]))
}

/// Refuses a path id that is no UUID with 404, and a finance organization header that is no UUID
/// with 403, where the reference answers 422 and 400: any refusal keeps the contract.
fn malformed_refused_otherwise(seen: &Incoming) -> Option<StandInAnswer> {
    let finance = |status: u16, message: &str| {
        let body = json!({"error": {"message": message}});
        (status, body.to_string().into_bytes())
    };
    let org = seen.headers.get("x-organization-id");
    if org
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| !is_uuid(v))
    {
        return Some(finance(403, "no such organization"));
    }
    if !malformed_path_id(seen) {
        return None;
    }
    Some(match seen.path.starts_with("/embedded-banking/") {
        true => banking_error(seen, 404, "NOT_FOUND", "no such account"),
        false => finance(404, "not found"),
    })
}

#[test]
fn a_target_refusing_malformed_path_ids_and_headers_its_own_way_fails_nothing() {
    let dir = scratch("choices-malformed-own-way");
    let rt = runtime();
    let choices = Choices {
        reply: Box::new(malformed_refused_otherwise),
        ..Choices::default()
    };
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    assert!(all.is_empty(), "{all:#?}\n{}", says(&output));
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    assert_eq!(verdict_of(&report, "generated.params.delete-tag"), "pass");
    assert_eq!(verdict_of(&report, "generated.params.list-events"), "pass");
}

/// A banking area that checks the owner of an account or a card against the token's own
/// organization, not the one the header names: the header (a valid UUID) is dropped from a list
/// of transactions and a card-scoped create before they reach the reference, which then acts for
/// the token's organization. Malformed headers still reach it, and organization-scoped creates
/// keep theirs.
fn owner_unchecked(seen: &Incoming) -> axum::http::HeaderMap {
    let card_scoped = creates_velocity_control(seen)
        && json_of(seen.body).is_some_and(|b| b["cardId"].is_string());
    let mut headers = seen.headers.clone();
    if seen.path.ends_with("/transactions") || card_scoped {
        let named: Vec<_> = headers
            .iter()
            .filter(|(name, value)| {
                name.as_str().contains("organization") && value.to_str().is_ok_and(is_uuid)
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in named {
            headers.remove(name);
        }
    }
    headers
}

/// A lax binder's reading of receivable bodies: null in tag_ids as absent, and a fraction in
/// withholding_tax_rate as the integer below it.
fn lax_receivables(seen: &Incoming, what: &str) -> Vec<u8> {
    let Some(mut body) = json_of(seen.body).filter(|_| seen.path == "/finops/v1/receivables")
    else {
        return seen.body.to_vec();
    };
    match what {
        "tag-ids-null" if body["tag_ids"].is_null() => {
            body.as_object_mut().map(|b| b.remove("tag_ids"));
        }
        "fraction" => {
            if let Some(rate) = body["withholding_tax_rate"].as_f64() {
                body["withholding_tax_rate"] = json!(rate.trunc() as i64);
            }
        }
        _ => {}
    }
    body.to_string().into_bytes()
}

/// A stand-in breaking `what`, one rule of classes 1 (the banking area) and 5 to 8 of issue 29.
fn breaking(what: &'static str) -> Choices {
    match what {
        "source" => Choices {
            answer: Box::new(source_unchecked),
            ..Choices::default()
        },
        "duplicates" => Choices {
            answer: Box::new(duplicates_created),
            ..Choices::default()
        },
        "id-lowercased" => Choices {
            answer: Box::new(id_lowercased),
            ..Choices::default()
        },
        "owner-unchecked" => Choices {
            headers: Box::new(owner_unchecked),
            ..Choices::default()
        },
        "tag-ids-null" | "fraction" => Choices {
            body: Box::new(move |seen: &Incoming| lax_receivables(seen, what)),
            ..Choices::default()
        },
        _ => Choices {
            reply: Box::new(move |seen: &Incoming| refuses(seen, what)),
            ..Choices::default()
        },
    }
}

#[test]
fn a_target_breaking_one_rule_of_preconditions_ids_spellings_or_leftovers_fails_exactly_it() {
    let rt = runtime();
    // A domain's one-character segments are also a class of its pattern the acceptance case
    // tries (GEN-FORMAT-CLASSES): one breach, the spec's domain rule and the class it falls in.
    for (what, rules) in [
        ("source", &["RCV-BASED-ON-UNKNOWN"][..]),
        // The explorer takes the id again after other creates: the same breach, under its rule.
        (
            "duplicates",
            &["VC-ID-UNIQUE", "EXP-ID-UNIQUE-AFTER-WRITES"],
        ),
        ("id-lowercased", &["VC-ID-ECHO"]),
        ("owner-unchecked", &["BANK-TENANT"]),
        ("upper-case-header", &["BANK-ORG-HEADER-UUID-CASE"]),
        (
            "short-segments",
            &["MBX-DOMAIN-ACCEPTED", "GEN-FORMAT-CLASSES"],
        ),
        ("tag-ids-null", &["RCV-FIELD-TYPES"]),
        ("ten-deductions", &["GEN-LIMIT-INCLUSIVE"]),
        ("malformed-tag-deleted", &["GEN-REJECT-NOT-2XX"]),
    ] {
        let dir = scratch(&format!("choices-breaking-{what}"));
        let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", breaking(what));
        let (output, report) = run(&dir, &profile);
        assert_eq!(output.status.code(), Some(1), "{what}: {}", says(&output));
        let all = findings(&report);
        let failed = must_rules(&all);
        let expected: HashSet<&str> = rules.iter().copied().collect();
        assert_eq!(failed, expected, "{what}: {all:#?}");
    }
}

#[test]
fn a_target_truncating_a_fraction_in_an_integer_field_is_warned_never_failed() {
    let dir = scratch("choices-fraction");
    let rt = runtime();
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", breaking("fraction"));
    let (output, report) = run(&dir, &profile);
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let all = findings(&report);
    let warned: Vec<_> = all
        .iter()
        .filter(|f| f.1 == "GEN-INTEGER-FRACTION")
        .collect();
    assert!(!warned.is_empty(), "{all:#?}");
    assert!(warned.iter().all(|f| f.2 == "should"), "{warned:#?}");
    assert!(all.iter().all(|f| f.2 != "must"), "{all:#?}");
}

// ------------------------------------------------------------ events in an order of its own
// (issue 29, class 1): a target listing each organization's events in an order of its own where
// the spec leaves it open passes clean, and its events are still judged per organization.

/// The list events path the stand-in answers itself.
const EVENTS: &str = "/finops/v1/events";
/// Pages of the reference read at once to take a list's snapshot.
const SNAPSHOT_LIMIT: usize = 100;

/// A stand-in's own events list: each first page is answered from a snapshot of the whole list
/// (read from the reference behind with the request's own parameters and credentials), ordered
/// the stand-in's way, and paged with tokens of its own. The order keeps what the spec states:
/// by created_at, ascending unless order=desc (and ascending without sort too, the common
/// default); created_at is given to the whole second, as a store keeping seconds would, and
/// events of one second come in an order of the stand-in's own, per organization (a hash of the
/// organization and the event's id). With sort=updated_at (a time events do not carry) the
/// reference's order is kept. Whatever the reference refuses is answered as it answered it.
struct OwnEventOrder {
    /// The reference behind, known once the stand-in runs.
    behind: std::sync::OnceLock<String>,
    http: reqwest::Client,
    /// Snapshots by number: the items in the stand-in's order, the page size asked, and the
    /// organization they were read under (a token works only under it).
    snapshots: Mutex<Vec<Snapshot>>,
    /// First pages whose order differs from the reference's.
    reordered: AtomicUsize,
    /// Pages the stand-in answered itself.
    served: AtomicUsize,
}

/// A snapshot of a list: its items, the page size asked, the organization it was read under.
type Snapshot = (Arc<Vec<Value>>, usize, String);

/// A stable hash of the parts, as hex.
fn stable_hash(parts: &[&str]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut hasher);
    hasher.finish()
}

/// The value of `name` in a query string, as sent.
fn query_value<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

impl OwnEventOrder {
    fn new() -> Arc<OwnEventOrder> {
        Arc::new(OwnEventOrder {
            behind: std::sync::OnceLock::new(),
            http: crate::support::http().no_proxy().build().expect("a client"),
            snapshots: Mutex::new(Vec::new()),
            reordered: AtomicUsize::new(0),
            served: AtomicUsize::new(0),
        })
    }

    fn token(snapshot: usize, offset: usize) -> String {
        let check = stable_hash(&["own-order", &snapshot.to_string(), &offset.to_string()]);
        format!("own{snapshot}x{offset}x{check:016x}")
    }

    /// The snapshot, page size and offset a token of the stand-in's names; `None` for any
    /// other string, and for a token sent under another organization than its snapshot's.
    fn redeem(&self, token: &str, org: &str) -> Option<(usize, Arc<Vec<Value>>, usize, usize)> {
        let mut parts = token.strip_prefix("own")?.split('x');
        let snapshot: usize = parts.next()?.parse().ok()?;
        let offset: usize = parts.next()?.parse().ok()?;
        if Self::token(snapshot, offset) != token {
            return None;
        }
        let snapshots = self.snapshots.lock().expect("the snapshots");
        let (items, limit, owner) = snapshots.get(snapshot)?;
        if owner != org {
            return None;
        }
        Some((snapshot, items.clone(), *limit, offset))
    }

    fn page(&self, snapshot: usize, items: &[Value], limit: usize, offset: usize) -> StandInAnswer {
        self.served.fetch_add(1, Ordering::Relaxed);
        let end = (offset + limit).min(items.len());
        let next = (end < items.len()).then(|| Self::token(snapshot, end));
        let prev = (offset > 0).then(|| Self::token(snapshot, offset.saturating_sub(limit)));
        let page = json!({"data": items[offset.min(end)..end], "next_pagination_token": next,
            "prev_pagination_token": prev});
        (200, page.to_string().into_bytes())
    }

    /// GET `url` behind with the request's headers: the status and the JSON body.
    async fn get(&self, seen: &Incoming<'_>, url: String) -> (u16, Vec<u8>) {
        let mut sent = self.http.get(url);
        for (name, value) in seen.headers {
            if name != "host" && name != "content-length" {
                sent = sent.header(name, value);
            }
        }
        let answer = sent.send().await.expect("the reference behind answers");
        let status = answer.status().as_u16();
        (status, answer.bytes().await.unwrap_or_default().to_vec())
    }

    async fn answer(&self, seen: &Incoming<'_>) -> Option<StandInAnswer> {
        let query = seen.query.unwrap_or("");
        let org = seen
            .headers
            .get("x-organization-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if let Some(token) = query_value(query, "pagination_token") {
            // Another token (a tampered one, one never issued, one of another organization)
            // goes behind, which refuses it.
            let (snapshot, items, limit, offset) = self.redeem(token, org)?;
            return Some(self.page(snapshot, &items, limit, offset));
        }
        let behind = self.behind.get().expect("the stand-in runs").clone();
        // The request as sent, first: what the reference refuses is answered as it answered.
        let (status, bytes) = self.get(seen, format!("{behind}{EVENTS}?{query}")).await;
        if !(200..300).contains(&status) {
            return Some((status, bytes));
        }
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| !pair.starts_with("limit=") && !pair.is_empty())
            .collect();
        let mut url = format!("{behind}{EVENTS}?{}", kept.join("&"));
        url.push_str(&format!("&limit={SNAPSHOT_LIMIT}"));
        let mut items = Vec::new();
        for _ in 0..50 {
            let (status, bytes) = self.get(seen, url.clone()).await;
            let page = json_of(&bytes).filter(|_| status == 200)?;
            items.extend(page["data"].as_array().cloned().unwrap_or_default());
            let Some(next) = page["next_pagination_token"].as_str() else {
                break;
            };
            let next = url::form_urlencoded::byte_serialize(next.as_bytes()).collect::<String>();
            url = format!("{behind}{EVENTS}?pagination_token={next}");
        }
        let as_read: Vec<String> = items.iter().map(|e| e["id"].to_string()).collect();
        if query_value(query, "sort") != Some("updated_at") {
            for event in &mut items {
                if let Some(at) = event["created_at"].as_str().filter(|at| at.len() > 19) {
                    event["created_at"] = json!(format!("{}Z", &at[..19]));
                }
            }
            let key = |e: &Value| {
                let at = e["created_at"].as_str().unwrap_or("").to_owned();
                (at, stable_hash(&[org, e["id"].as_str().unwrap_or("")]))
            };
            items.sort_by_key(key);
            if query_value(query, "order") == Some("desc") {
                items.reverse();
            }
        }
        let as_served: Vec<String> = items.iter().map(|e| e["id"].to_string()).collect();
        if as_read != as_served {
            self.reordered.fetch_add(1, Ordering::Relaxed);
        }
        let limit = query_value(query, "limit")
            .and_then(|l| l.parse::<usize>().ok())
            .filter(|l| (1..=100).contains(l))
            .unwrap_or(SNAPSHOT_LIMIT);
        let items = Arc::new(items);
        let snapshot = {
            let mut snapshots = self.snapshots.lock().expect("the snapshots");
            snapshots.push((items.clone(), limit, org.to_owned()));
            snapshots.len() - 1
        };
        Some(self.page(snapshot, &items, limit, 0))
    }

    /// The stand-in's choices: list events answered here, everything else passed through.
    fn choices(self: &Arc<Self>) -> Choices {
        let order = self.clone();
        Choices {
            reply: Box::new(move |seen: &Incoming| {
                if seen.method != "GET" || seen.path != EVENTS {
                    return None;
                }
                let handle = tokio::runtime::Handle::current();
                tokio::task::block_in_place(|| handle.block_on(order.answer(seen)))
            }),
            // Its own answers keep HTTP: a 401 it passes on challenges (RFC 9110 §15.5.2).
            answer_headers: Box::new(|_, status, headers| {
                if status == 401 && !headers.contains_key("www-authenticate") {
                    let challenge = axum::http::HeaderValue::from_static("Bearer");
                    headers.insert("www-authenticate", challenge);
                }
            }),
            ..Choices::default()
        }
    }
}

#[test]
fn a_target_listing_events_per_organization_in_its_own_order_fails_nothing_and_warns_nothing_new() {
    let order = OwnEventOrder::new();
    let behind = |reference: &covenant::reference::RunningReference| {
        order.behind.set(reference.base_url()).expect("set once");
    };
    clean_beside_the_plain_stand_in(
        "events-own-order",
        order.choices(),
        behind,
        &[
            ("tenant.events-of-one-organization", "FIN-TENANT-EVENTS"),
            ("events.order", "EVT-ORDER-DEFAULT-ASC"),
            ("events.order", "EVT-ORDER-DESC"),
            ("events.page-sizes", "EVT-PAGES-FULL"),
            ("echo.quote-fields", "EVT-ITEM"),
        ],
    );
    assert!(order.served.load(Ordering::Relaxed) > 0, "no page served");
    let reordered = order.reordered.load(Ordering::Relaxed);
    assert!(reordered > 0, "no list reordered");
}
