//! The same answers in every shape a target may give them (issue 39, proof): covenant reads
//! them all as the same answers, and a run against a target answering so fails nothing and
//! warns nothing new.
//!
//! - At the wire (`support/wire.rs`, a bare TCP front): gzip asked or not, chunked bodies,
//!   HTTP/1.0 answers ending with the connection, `Connection: close` on every answer. The
//!   verdict of every case is the one the plain target gets.
//! - In the bodies (`support/standin.rs`): long opaque page tokens (2 KiB of base64, `+`, `/`
//!   and `=` among them), date-times at another offset meaning the same instant (`+02:00`), and
//!   an empty last page reached by a next token, on both lists. Other key orders, other tie
//!   orders between events of equal times (`choices.rs`) and `application/problem+json` error
//!   bodies (`answers.rs`) have their stand-ins beside the others.

use crate::choices::{findings, rules_at, run};
use crate::support::standin::{
    self, runtime, says, scratch, stand_in, Choices, Incoming, StandInAnswer,
};
use crate::support::wire::{in_front, Gzip, WireShape};

use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Each case's verdict.
fn verdicts(report: &Value) -> BTreeMap<String, String> {
    let cases = report["cases"].as_array().into_iter().flatten();
    cases
        .map(|c| {
            let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            (s(&c["id"]), s(&c["verdict"]))
        })
        .collect()
}

/// A run against `profile` fails nothing, exits 0, and warns of nothing `before` did not.
fn clean(name: &str, dir: &Path, profile: &Path, before: &Value) -> Value {
    let (output, report) = run(dir, profile);
    let all = findings(&report);
    let failed = rules_at(&all, "must");
    assert!(failed.is_empty(), "{name}: {all:#?}\n{}", says(&output));
    assert_eq!(output.status.code(), Some(0), "{name}: {}", says(&output));
    let earlier = findings(before);
    let warned = rules_at(&all, "should");
    assert!(
        warned.is_subset(&rules_at(&earlier, "should")),
        "{name}: new warnings {warned:?}"
    );
    report
}

#[test]
fn answers_in_every_wire_shape_are_judged_as_the_plain_answers() {
    let rt = runtime();
    let dir = scratch("wire-plain");
    let (_plain, profile) = standin::reference(&rt, 4, &dir, "plain");
    let (output, before) = run(&dir, &profile);
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let shapes = [
        (
            "gzip-unasked",
            WireShape {
                gzip: Gzip::Always,
                ..WireShape::PLAIN
            },
        ),
        (
            "gzip-when-asked",
            WireShape {
                gzip: Gzip::WhenAsked,
                ..WireShape::PLAIN
            },
        ),
        (
            "chunked",
            WireShape {
                chunked: true,
                ..WireShape::PLAIN
            },
        ),
        (
            "gzip-chunked-close",
            WireShape {
                gzip: Gzip::Always,
                chunked: true,
                close: true,
                ..WireShape::PLAIN
            },
        ),
        (
            "http10",
            WireShape {
                http10: true,
                ..WireShape::PLAIN
            },
        ),
        (
            "close",
            WireShape {
                close: true,
                ..WireShape::PLAIN
            },
        ),
    ];
    for (name, shape) in shapes {
        let dir = scratch(&format!("wire-{name}"));
        let (_behind, behind) = standin::reference(&rt, 4, &dir, "behind");
        let profile = in_front(&rt, &behind, &dir, "front", shape);
        let report = clean(name, &dir, &profile, &before);
        assert_eq!(
            verdicts(&report),
            verdicts(&before),
            "{name}: the same answers, other verdicts"
        );
    }
}

// ------------------------------------------------------------------------ long opaque tokens

/// The length of the stand-in's page tokens.
const LONG: usize = 2048;

/// The token fields of both areas' pages.
const TOKEN_FIELDS: [&str; 4] = [
    "next_pagination_token",
    "prev_pagination_token",
    "nextPaginationToken",
    "prevPaginationToken",
];

/// A 2 KiB base64 text standing for `token`, the same each time.
fn long_token(token: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    token.hash(&mut hasher);
    let mut state = hasher.finish() | 1;
    let mut out: String = (0..LONG - 2)
        .map(|_| {
            // xorshift64
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ALPHABET[(state % 64) as usize] as char
        })
        .collect();
    out.push_str("==");
    out
}

/// The query with each long token the stand-in gave replaced by the token behind it.
fn tokens_behind(seen: &Incoming, issued: &Mutex<HashMap<String, String>>) -> Option<String> {
    let query = seen.query?;
    let issued = issued.lock().expect("the tokens");
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .map(|(name, value)| match issued.get(&value) {
            Some(behind) if name == "pagination_token" => (name, behind.clone()),
            _ => (name, value),
        })
        .collect();
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    out.extend_pairs(pairs);
    Some(out.finish())
}

/// Every page token answered as a long one.
fn long_tokens() -> Choices {
    let issued: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let kept = issued.clone();
    Choices {
        query: Box::new(move |seen: &Incoming| tokens_behind(seen, &kept)),
        answer: Box::new(move |_: &Incoming, (status, bytes): StandInAnswer| {
            let Some(mut body) = serde_json::from_slice::<Value>(&bytes).ok() else {
                return (status, bytes);
            };
            for field in TOKEN_FIELDS {
                if let Some(token) = body.get(field).and_then(Value::as_str) {
                    let long = long_token(token);
                    let mut issued = issued.lock().expect("the tokens");
                    issued.insert(long.clone(), token.to_owned());
                    body[field] = json!(long);
                }
            }
            (status, body.to_string().into_bytes())
        }),
        ..Choices::default()
    }
}

// ---------------------------------------------------------------------- another time offset

/// A date-time at UTC as the same instant at `+02:00`; `None` for any other string.
fn at_plus_two(text: &str) -> Option<String> {
    use time::format_description::well_known::Rfc3339;
    if !text.contains('T') {
        return None;
    }
    let at = time::OffsetDateTime::parse(text, &Rfc3339).ok()?;
    let offset = time::UtcOffset::from_hms(2, 0, 0).expect("an offset");
    at.to_offset(offset).format(&Rfc3339).ok()
}

fn offsets_moved(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Some(moved) = at_plus_two(s) {
                *s = moved;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(offsets_moved),
        Value::Object(map) => map.values_mut().for_each(offsets_moved),
        _ => {}
    }
}

/// Every date-time answered at `+02:00`.
fn other_offset() -> Choices {
    Choices {
        answer: Box::new(
            |_: &Incoming, (status, bytes): StandInAnswer| match serde_json::from_slice::<Value>(
                &bytes,
            ) {
                Ok(mut body) => {
                    offsets_moved(&mut body);
                    (status, body.to_string().into_bytes())
                }
                Err(_) => (status, bytes),
            },
        ),
        ..Choices::default()
    }
}

// ------------------------------------------------------------------- an empty last page

/// What the stand-in's last tokens lead to: the organization (or the banking caller) they were
/// issued to, and the token that read the page before (the empty page's previous token).
type Lasts = Mutex<HashMap<String, (String, Option<String>)>>;

/// Who a request is for: the finance organization header, or the banking authorization.
fn caller(seen: &Incoming) -> String {
    let header = |name: &str| {
        let value = seen.headers.get(name).and_then(|v| v.to_str().ok());
        value.unwrap_or("").to_owned()
    };
    format!(
        "{}|{}",
        header("x-organization-id"),
        header("authorization")
    )
}

fn is_list(seen: &Incoming) -> bool {
    seen.method == "GET"
        && (seen.path == "/finops/v1/events" || seen.path.ends_with("/transactions"))
}

fn fields(seen: &Incoming) -> (&'static str, &'static str) {
    if seen.path.starts_with("/finops/") {
        ("next_pagination_token", "prev_pagination_token")
    } else {
        ("nextPaginationToken", "prevPaginationToken")
    }
}

fn token_of(seen: &Incoming) -> Option<String> {
    let query = seen.query?;
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "pagination_token")
        .map(|(_, value)| value.into_owned())
}

/// The page size a page was read at: the query's `limit`, or, for a page read by token, the
/// one the token's first query asked (the spec takes it from there).
fn page_size(seen: &Incoming, limits: &Mutex<HashMap<String, usize>>) -> Option<usize> {
    match token_of(seen) {
        Some(token) => limits.lock().expect("the limits").get(&token).copied(),
        None => {
            let query = seen.query.unwrap_or("");
            let limit = url::form_urlencoded::parse(query.as_bytes())
                .find(|(name, _)| name == "limit")
                .and_then(|(_, value)| value.parse().ok());
            let default = (!seen.path.starts_with("/finops/")).then_some(25);
            limit.or(default)
        }
    }
}

/// Every list's last page answered with a next token, which leads to an empty page that ends
/// the list (only under the caller it was issued to; any other token goes behind, refused).
/// Events, whose pages the spec lets hold fewer items only on the last page, do so only after
/// a full page (the length of the list a multiple of the page size, as a server that cannot
/// tell answers); the banking lists, whose pages may be short, after any.
fn empty_last_page() -> Choices {
    let lasts: Arc<Lasts> = Arc::default();
    let (given, asked) = (lasts.clone(), lasts);
    let limits: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    Choices {
        reply: Box::new(move |seen: &Incoming| {
            let token = token_of(seen).filter(|_| is_list(seen))?;
            let (owner, before) = asked.lock().expect("the tokens").get(&token)?.clone();
            if owner != caller(seen) {
                return None;
            }
            let (next, prev) = fields(seen);
            let page = json!({"data": [], next: null, prev: before});
            Some((200, page.to_string().into_bytes()))
        }),
        answer: Box::new(move |seen: &Incoming, (status, bytes): StandInAnswer| {
            let page = serde_json::from_slice::<Value>(&bytes).ok();
            let Some(mut page) = page.filter(|_| status == 200 && is_list(seen)) else {
                return (status, bytes);
            };
            let (next, _) = fields(seen);
            let held = page["data"].as_array().map_or(0, Vec::len);
            let size = page_size(seen, &limits);
            if let (Some(token), Some(size)) = (page[next].as_str(), size) {
                limits
                    .lock()
                    .expect("the limits")
                    .insert(token.to_owned(), size);
            }
            let events = seen.path.starts_with("/finops/");
            let full = held > 0 && (!events || size == Some(held));
            if full && page[next].is_null() {
                let who = caller(seen);
                let read = format!("{who}|{}|{}", seen.path, seen.query.unwrap_or(""));
                let token = format!("stand-in-last-{:016x}", stable_hash(&read));
                let before = token_of(seen);
                given
                    .lock()
                    .expect("the tokens")
                    .insert(token.clone(), (who, before));
                page[next] = json!(token);
            }
            (status, page.to_string().into_bytes())
        }),
        ..Choices::default()
    }
}

fn stable_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// A stand-in's name and its choices.
type Named = (&'static str, fn() -> Choices);

#[test]
fn long_tokens_other_offsets_and_an_empty_last_page_fail_nothing_and_warn_nothing_new() {
    assert_eq!(long_token("abc").len(), LONG);
    assert_eq!(long_token("abc"), long_token("abc"));
    assert_eq!(
        at_plus_two("2026-09-24T23:15:30.123Z").as_deref(),
        Some("2026-09-25T01:15:30.123+02:00")
    );
    assert_eq!(at_plus_two("2026-09-24"), None);
    let rt = runtime();
    let dir = scratch("wire-bodies-plain");
    let (_plain, profile) = stand_in(&rt, 4, &dir, "plain", Choices::default());
    let (output, before) = run(&dir, &profile);
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let stand_ins: [Named; 3] = [
        ("long-tokens", long_tokens),
        ("other-offset", other_offset),
        ("empty-last-page", empty_last_page),
    ];
    for (name, choices) in stand_ins {
        let dir = scratch(&format!("wire-{name}"));
        let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices());
        let report = clean(name, &dir, &profile, &before);
        let judged: HashSet<&str> = ["events.page-sizes", "transactions.full-read"].into();
        for case in judged {
            assert_eq!(verdicts(&report)[case], "pass", "{name}: {case}");
        }
    }
}
