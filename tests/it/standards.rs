//! The standards the spec invokes (HTTP, JSON, bearer authentication) against stand-ins: a
//! target that keeps them in spellings of its own passes clean, and one that drops what HTTP
//! requires of an answer fails exactly the rule it breaks.
//!
//! The stand-in of the clean choices challenges a 401 with parameters (`Bearer realm="x",
//! error="invalid_token"`, another scheme first in the banking area), lists several methods in
//! `Allow` in its own case and order, and labels every answer `application/json;charset=utf-8`;
//! it reads header names and media types whatever their case, as the reference behind it does.

use crate::choices::{findings, run, verdict_of};
use crate::support::standin::{runtime, says, scratch, stand_in, Choices, Incoming};
use axum::http::{HeaderMap, HeaderValue};
use serde_json::Value;
use std::process::Output;

/// The rules of this file.
const RULES: [&str; 6] = [
    "HTTP-401-CHALLENGE",
    "HTTP-405-ALLOW",
    "HTTP-HEADER-NAME-CASE",
    "HTTP-MEDIA-TYPE-CASE",
    "JSON-NO-BOM",
    "JSON-NO-NAN",
];

/// A run against a stand-in making `choices`: its output, its report and every finding.
fn run_behind(name: &str, choices: Choices) -> (Output, Value, Vec<ReportedFinding>) {
    let dir = scratch(name);
    let rt = runtime();
    let (_behind, profile) = stand_in(&rt, 4, &dir, "stand-in", choices);
    let (output, report) = run(&dir, &profile);
    let all = findings(&report);
    (output, report, all)
}

/// (case, rule, level, message).
type ReportedFinding = (String, String, String, String);

/// Challenges and `Allow` lists in spellings of the stand-in's own.
fn own_spellings(seen: &Incoming, status: u16, headers: &mut HeaderMap) {
    match status {
        401 => {
            let challenge = match seen.path.starts_with("/embedded-banking") {
                true => r#"Basic realm="bank", bearer realm="bank", error="invalid_token""#,
                false => r#"Bearer realm="x", error="invalid_token""#,
            };
            headers.insert("www-authenticate", HeaderValue::from_static(challenge));
        }
        405 => {
            let theirs = headers
                .get("allow")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_lowercase();
            let allow = format!("OPTIONS, {theirs}");
            let value = HeaderValue::from_str(&allow).expect("a header value");
            headers.insert("allow", value);
        }
        _ => {}
    }
}

#[test]
fn a_target_keeping_the_standards_in_spellings_of_its_own_fails_none_of_their_rules() {
    let choices = Choices {
        answer_headers: Box::new(own_spellings),
        label: Box::new(|_, _| Some("application/json;charset=utf-8")),
        ..Choices::default()
    };
    let (output, report, all) = run_behind("standards-own-spellings", choices);
    let failed: Vec<_> = all.iter().filter(|f| f.2 == "must").collect();
    assert!(failed.is_empty(), "{failed:#?}\n{}", says(&output));
    let ours: Vec<_> = all
        .iter()
        .filter(|f| RULES.contains(&f.1.as_str()))
        .collect();
    assert!(ours.is_empty(), "{ours:#?}");
    for case in [
        "methods.unlisted-finance",
        "methods.unlisted-banking",
        "standards.header-name-case.finance",
        "standards.header-name-case.banking",
        "standards.media-type-case",
    ] {
        assert_eq!(verdict_of(&report, case), "pass", "{case}");
    }
}

/// An answer stripped of what HTTP requires of it: the challenge of a 401, the `Allow` of a 405.
fn stripped(_: &Incoming, status: u16, headers: &mut HeaderMap) {
    headers.remove("www-authenticate");
    if status == 405 {
        headers.remove("allow");
    }
}

#[test]
fn a_target_without_challenges_or_allow_lists_fails_exactly_those_rules() {
    let choices = Choices {
        answer_headers: Box::new(stripped),
        ..Choices::default()
    };
    let (output, report, all) = run_behind("standards-stripped", choices);
    let failed: std::collections::BTreeSet<&str> = all
        .iter()
        .filter(|f| f.2 == "must")
        .map(|f| f.1.as_str())
        .collect();
    let expected = std::collections::BTreeSet::from(["HTTP-401-CHALLENGE", "HTTP-405-ALLOW"]);
    assert_eq!(failed, expected, "{}", says(&output));
    assert_eq!(verdict_of(&report, "methods.unlisted-banking"), "fail");
}
