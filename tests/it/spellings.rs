//! The Authorization and organization headers in every spelling a client could send (issue 38,
//! class 4), against stand-ins: a target that takes the scheme in any case, a token in any case
//! and an organization UUID in upper case keeps the contract and fails nothing; one that takes
//! `Basic <token>`, or an organization header that merely starts with a UUID, fails exactly
//! that rule, and the curl of its failing request replays the spelling it sent.

use crate::choices::{clean_beside_the_plain_stand_in, fails_exactly, verdict_of};
use crate::support::standin::{runtime, Choices, Incoming};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use covenant::reference::ORG_HEADER;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

/// `headers` with the value of `name` rewritten by `f`, where it gives one.
fn rewrite(headers: &mut HeaderMap, name: &str, f: impl FnOnce(&str) -> Option<String>) {
    let value = headers.get(name).and_then(|v| v.to_str().ok()).and_then(f);
    if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
        headers.insert(
            HeaderName::from_bytes(name.as_bytes()).expect("a name"),
            value,
        );
    }
}

/// A stand-in that sends behind each request on the paths under `under` with the value of
/// header `name` rewritten by `f`.
fn rewriting(under: &'static str, name: &'static str, f: fn(&str) -> Option<String>) -> Choices {
    Choices {
        headers: Box::new(move |seen: &Incoming| {
            let mut headers = seen.headers.clone();
            if seen.path.starts_with(under) {
                rewrite(&mut headers, name, f);
            }
            headers
        }),
        ..Choices::default()
    }
}

/// An Authorization value with its scheme spelled `Bearer` where it is bearer in any case, and
/// the finance token in any case read as `token` (a token format that ignores case).
fn any_case(value: &str, token: &str) -> Option<String> {
    let (scheme, credentials) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let credentials = match credentials.eq_ignore_ascii_case(token) {
        true => token,
        false => credentials,
    };
    Some(format!("Bearer {credentials}"))
}

fn is_uuid(s: &str) -> bool {
    uuid::Uuid::try_parse(s).is_ok_and(|_| s.len() == 36)
}

#[test]
fn a_target_taking_the_scheme_and_the_token_in_any_case_and_upper_case_uuids_fails_nothing() {
    // The token the stand-in reads in any case is the finance token of the reference behind it,
    // known once that runs.
    let token = Arc::new(OnceLock::<String>::new());
    let known = token.clone();
    let choices = Choices {
        headers: Box::new(move |seen: &Incoming| {
            let mut headers = seen.headers.clone();
            let token = known.get().map_or("", String::as_str);
            rewrite(&mut headers, "authorization", |v| any_case(v, token));
            rewrite(&mut headers, ORG_HEADER, |v| {
                Some(v.to_lowercase()).filter(|v| is_uuid(v))
            });
            headers
        }),
        ..Choices::default()
    };
    clean_beside_the_plain_stand_in(
        "spellings-any-case",
        choices,
        |behind| {
            let fin = behind
                .profile()
                .finops
                .as_ref()
                .and_then(|f| f.token.as_ref());
            let _ = token.set(fin.expect("a finance token").expose().to_owned());
        },
        &[
            ("auth.finance-spellings.list-events", "AUTH-SCHEME-CASE"),
            (
                "auth.finance-spellings.update-comment",
                "AUTH-FIN-SCHEME-401",
            ),
            (
                "auth.banking-spellings.list-transactions",
                "AUTH-SCHEME-CASE",
            ),
            (
                "auth.banking-spellings.create-velocity-control",
                "AUTH-BANK-REQUIRED",
            ),
            (
                "transactions.org-header-upper-case",
                "BANK-ORG-HEADER-UUID-CASE",
            ),
            (
                "transactions.malformed-org-header",
                "BANK-ORG-HEADER-MALFORMED-400",
            ),
        ],
    );
}

/// The exchange of a `rule` finding of the report with the case it belongs to.
fn failing_exchange<'r>(report: &'r Value, rule: &str) -> (&'r str, &'r Value) {
    let cases = report["cases"].as_array().into_iter().flatten();
    for case in cases {
        let findings = case["findings"].as_array().into_iter().flatten();
        for finding in findings.filter(|f| f["rule"] == rule) {
            if let Some(i) = finding["exchange"].as_u64() {
                let exchange = &case["exchanges"][i as usize];
                return (case["id"].as_str().unwrap_or_default(), exchange);
            }
        }
    }
    panic!("no {rule} finding with an exchange")
}

/// Runs `curl` (a command a report printed) in a POSIX shell with `var` set to `value`: the
/// status line of the answer.
fn replay(curl: &str, var: &str, value: &str) -> String {
    let output = std::process::Command::new("sh")
        .args(["-c", curl])
        .env(var, value)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .expect("sh runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.lines().next().unwrap_or_default().trim().to_owned()
}

#[test]
fn a_target_taking_the_basic_scheme_fails_exactly_that_rule_and_its_curl_replays_it() {
    let choices = rewriting("/finops", "authorization", |value| {
        let token = value.strip_prefix("Basic ")?;
        Some(format!("Bearer {token}"))
    });
    let rt = runtime();
    let (behind, report) = fails_exactly(&rt, "spellings-basic", choices, "AUTH-FIN-SCHEME-401");
    let case = "auth.finance-spellings.list-events";
    assert_eq!(verdict_of(&report, case), "fail");
    // The record shows the spelling sent, never the token; the curl names the token's variable
    // after the scheme, and sends the same request again.
    let (case, exchange) = failing_exchange(&report, "AUTH-FIN-SCHEME-401");
    let headers = exchange["request"]["headers"].as_array().expect("headers");
    let sent = headers.iter().find(|h| h[0] == "authorization");
    let basic = Value::from("Basic ***");
    assert_eq!(sent.map(|h| &h[1]), Some(&basic), "{case}");
    let curl = exchange["request"]["curl"].as_str().expect("a curl");
    let token = behind
        .profile()
        .finops
        .as_ref()
        .and_then(|f| f.token.clone());
    let token = token.expect("a finance token").expose().to_owned();
    assert!(!curl.contains(&token), "{curl}");
    let var = "COVENANT_FINOPS_TOKEN";
    let spelled = format!("authorization: Basic ${var}");
    assert!(curl.contains(&spelled), "{curl}");
    let status = exchange["response"]["status"].as_u64().expect("a status");
    let replayed = replay(curl, var, &token);
    let answered = format!(" {status}");
    assert!(replayed.contains(&answered), "{replayed}: {curl}");
}

#[test]
fn a_target_reading_the_uuid_an_organization_header_starts_with_fails_exactly_that_rule() {
    let choices = rewriting("/embedded-banking", ORG_HEADER, |value| {
        let start = value.get(..36).filter(|s| value.len() > 36 && is_uuid(s))?;
        Some(start.to_owned())
    });
    let rule = "BANK-ORG-HEADER-MALFORMED-400";
    let rt = runtime();
    let (_behind, report) = fails_exactly(&rt, "spellings-org-prefix", choices, rule);
    for case in [
        "transactions.malformed-org-header",
        "velocity.malformed-org-header",
    ] {
        assert_eq!(verdict_of(&report, case), "fail", "{case}");
    }
    let (_, exchange) = failing_exchange(&report, rule);
    let curl = exchange["request"]["curl"].as_str().expect("a curl");
    assert!(curl.contains(&format!("{ORG_HEADER}: ")), "{curl}");
}
