//! Targets that refuse tampered tokens their own way (banking with 403, each echoing the token it
//! was sent): the must rules still pass, and no echoed token reaches a record unredacted.

use super::harness::{Covenant, BANKING_TOKEN, FINOPS_TOKEN};
use super::server::{Hostile, HostileReply, Received};
use super::target::{normal, BOUND};
use crate::support::runtime;

/// A stand-in that checks tokens exactly and says which token it refused: finance answers 401
/// and banking 403 (the spec gives banking no status), each echoing the token it was sent.
fn echoing_refusal(seen: &Received) -> HostileReply {
    let Some(sent) = seen.header("authorization") else {
        return normal(seen);
    };
    let token = sent.strip_prefix("Bearer ").unwrap_or(sent);
    if seen.path.starts_with("/embedded-banking/") && token != BANKING_TOKEN {
        HostileReply::json(
            403,
            &format!(
                r#"{{"detail":"token {token} is not valid","errorCode":"FORBIDDEN","instance":"/","status":403,"title":"Forbidden","type":"about:blank"}}"#
            ),
        )
    } else if seen.path.starts_with("/finops/") && token != FINOPS_TOKEN {
        HostileReply::json(
            401,
            &format!(r#"{{"error":{{"message":"token {token} is not valid"}}}}"#),
        )
    } else {
        normal(seen)
    }
}

#[test]
fn a_target_refusing_tampered_tokens_with_403_on_banking_passes_the_must_rules() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| echoing_refusal(seen)));
    let run = Covenant::new("tampered-403", &server.url())
        .args(["--filter", "auth.finance-tampered-token"])
        .args(["--filter", "auth.banking-tampered-token"])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 0, "warnings only; stdout:\n{}", run.stdout);
    let report = run.report();
    let cases = report["cases"].as_array().expect("cases");
    assert_eq!(
        cases.len(),
        10,
        "eight finance operations and two banking ones"
    );
    for case in cases {
        let id = case["id"].as_str().unwrap_or("");
        assert_eq!(case["requests"], 3, "{id}: one request per tampered form");
        if id.starts_with("auth.banking-") {
            assert_eq!(case["verdict"], "warn", "{id}: {}", run.says(id));
            assert_eq!(run.rules(id), ["AUTH-BANK-401"; 3], "{id}");
        } else {
            assert_eq!(case["verdict"], "pass", "{id}: {}", run.says(id));
        }
    }
}

#[test]
fn tampered_tokens_a_target_echoes_are_redacted_in_every_record() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| echoing_refusal(seen)));
    let run = Covenant::new("tampered-echo", &server.url())
        .args(["--filter", "auth.finance-tampered-token.list-events"])
        .args(["--filter", "auth.banking-tampered-token.list-transactions"])
        .args(["--keep-exchanges"])
        .run(BOUND);
    // No token, nor all of one but its last character, in any output or report.
    run.assert_sound();
    for (token, area) in [
        (FINOPS_TOKEN, "finops"),
        (BANKING_TOKEN, "embedded-banking"),
    ] {
        let forms = server
            .seen_by_cases()
            .iter()
            .filter(|s| s.path.starts_with(&format!("/{area}/")))
            .filter_map(|s| s.header("authorization").map(str::to_owned))
            .collect::<Vec<_>>();
        assert_eq!(forms.len(), 3, "{area}: {forms:?}");
        assert!(
            forms.iter().all(|f| f != &format!("Bearer {token}")),
            "{forms:?}"
        );
        assert!(
            forms.iter().any(|f| f.ends_with("covenant")),
            "{area}: one with characters appended: {forms:?}"
        );
    }
    for id in [
        "auth.finance-tampered-token.list-events",
        "auth.banking-tampered-token.list-transactions",
    ] {
        let case = run.case(id);
        let exchanges = case["exchanges"].as_array().expect("every exchange kept");
        assert_eq!(exchanges.len(), 3, "{id}");
        for exchange in exchanges {
            let body = exchange["response"]["body"].as_str().unwrap_or("");
            assert!(body.contains("token *** is not valid"), "{id}: {body}");
            // The curl builds the tampered token from its variable: what was sent, no secret.
            let curl = exchange["request"]["curl"].as_str().unwrap_or("");
            assert!(curl.contains("authorization: Bearer "), "{id}: {curl}");
            assert!(curl.contains("COVENANT_"), "{id}: {curl}");
            assert!(
                !curl.contains(FINOPS_TOKEN) && !curl.contains(BANKING_TOKEN),
                "{id}: {curl}"
            );
        }
    }
}
