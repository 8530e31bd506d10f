//! Property tests for panics: nothing from outside (a profile's text, a response's status,
//! headers and bytes) may ever reach a panic. Seeds are fixed so that runs repeat.

use covenant::catalogue::Catalogue;
use covenant::client::{Request, Response};
use covenant::profile::Profile;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::path::Path;

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0xC0FE_0A17),
        failure_persistence: None,
        ..Config::default()
    }
}

/// A TOML-ish line: section headers, known and unknown keys, values of every TOML type, and
/// noise.
fn toml_line() -> impl Strategy<Value = String> {
    let sections = prop::sample::select(vec![
        "[finops]",
        "[banking]",
        "[banking.oauth]",
        "[[finops.deletable_bank_accounts]]",
        "[[finops]]",
        "[finops.token]",
        "[]",
        "[",
    ]);
    let keys = prop::sample::select(vec![
        "base_url",
        "currency",
        "token",
        "token_env",
        "version",
        "organization_id",
        "comment_ids",
        "deletable_tag_ids",
        "counterpart_id",
        "bank_account_id",
        "org_header",
        "token_url",
        "client_id",
        "client_secret",
        "client_secret_env",
        "scope",
        "finops",
        "banking",
        "\"quoted key\"",
        "a.b.c",
    ]);
    let values = prop_oneof![
        "\"[^\"\\\\\n]{0,30}\"".prop_map(String::from),
        "'[^'\n]{0,30}'".prop_map(String::from),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| format!("{f:?}")),
        prop::bool::ANY.prop_map(|b| b.to_string()),
        Just("[\"a\", 1, [true]]".to_owned()),
        Just("{ counterpart_id = \"x\", bank_account_id = \"y\" }".to_owned()),
        Just("1979-05-27T07:32:00Z".to_owned()),
        Just("\"http://127.0.0.1:1/\"".to_owned()),
        Just("\"2026-02-30\"".to_owned()),
        Just("\"\\uD800\"".to_owned()),
        ".{0,12}".prop_map(String::from),
    ];
    prop_oneof![
        sections.prop_map(str::to_owned),
        (keys, values).prop_map(|(k, v)| format!("{k} = {v}")),
        ".{0,40}".prop_map(String::from),
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn any_profile_text_parses_or_errs_without_panicking(lines in prop::collection::vec(toml_line(), 0..12)) {
        let text = lines.join("\n");
        if let Err(e) = Profile::parse(&text, Path::new("fuzz.toml")) {
            prop_assert!(e.to_string().contains("fuzz.toml"), "{e}");
        }
    }

    #[test]
    fn arbitrary_text_is_never_a_panic_in_the_profile_parser(text in any::<String>()) {
        let _ = Profile::parse(&text, Path::new("fuzz.toml"));
    }
}

/// A response body: arbitrary bytes, or JSON of arbitrary shape (to reach the schema checks).
fn body() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        ".{0,20}".prop_map(serde_json::Value::from),
    ];
    let json = leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "error",
                    "message",
                    "detail",
                    "status",
                    "data",
                    "id",
                    "loc",
                    "msg",
                    "type",
                    "next_pagination_token",
                    "nextPaginationToken",
                    "errorCode",
                    "title",
                ])
                .prop_map(str::to_owned),
                inner,
                0..6
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    });
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..300),
        json.prop_map(|v| v.to_string().into_bytes()),
    ]
}

fn headers() -> impl Strategy<Value = Vec<(String, String)>> {
    let name = prop_oneof![
        Just("content-type".to_owned()),
        Just("Content-Type".to_owned()),
        Just("retry-after".to_owned()),
        "[a-z-]{1,12}".prop_map(String::from),
    ];
    let value = prop_oneof![
        Just("application/json".to_owned()),
        Just("application/problem+json; charset=utf-8".to_owned()),
        Just(";;;".to_owned()),
        ".{0,30}".prop_map(String::from),
    ];
    prop::collection::vec((name, value), 0..5)
}

/// Any of the ten operations (an unknown one cannot reach the checks: operations are a type).
fn operation() -> impl Strategy<Value = covenant::schema::OperationId> {
    prop::sample::select(covenant::schema::OperationId::ALL.to_vec())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn generic_checks_never_panic_on_any_response(
        operation in operation(),
        status in prop_oneof![any::<u16>(), 100u16..600],
        headers in headers(),
        body in body(),
    ) {
        let json = serde_json::from_slice(&body).ok();
        let response = Response { status, headers, body, json };
        let request = Request::new(reqwest::Method::POST, "/");
        let checked = covenant::check::generic(Catalogue::embedded(), operation, &request, &response);
        let findings = checked.findings;
        for f in &findings {
            prop_assert!(Catalogue::embedded().rule(&f.rule).is_some(), "unknown rule {}", f.rule);
            prop_assert!(checked.judged.contains(&f.rule.as_str()), "{} found but not judged", f.rule);
        }
        for rule in &checked.judged {
            prop_assert!(Catalogue::embedded().rule(rule).is_some(), "judged unknown rule {rule}");
        }
        if status >= 500 {
            prop_assert!(findings.iter().any(|f| f.rule == "GEN-NO-5XX"));
        }
        let _ = covenant::client::snippet(&response);
        let _ = response.text();
    }
}
