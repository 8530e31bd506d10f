//! Answers whose bytes are broken or too many: a reset mid-body, a body shorter than its
//! Content-Length, one past `--max-body`, an endless one, bodies that are not what they say.
//! Each is an error or a finding of its case alone.

use super::server::HostileReply;
use super::target::{assert_error, fault_run, VAT};
use std::time::Duration;

#[test]
fn a_reset_mid_body_is_an_error_of_that_case_only() {
    let run = fault_run("reset", |_, _| HostileReply::ResetMidBody, &[]);
    assert_error(&run, VAT, "broke off");
}

#[test]
fn a_body_shorter_than_its_content_length_is_an_error() {
    let lie = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{\"a\":1}";
    let run = fault_run(
        "short-body",
        move |_, _| HostileReply::Raw(lie.to_vec()),
        &[],
    );
    assert_error(&run, VAT, "broke off");
}

#[test]
fn an_oversized_body_is_an_error_at_max_body() {
    let big = HostileReply::typed(404, "application/json", &vec![b' '; 5000]);
    let run = fault_run(
        "oversized",
        move |_, _| big.clone(),
        &["--max-body", "1000"],
    );
    assert_error(&run, VAT, "exceeds 1000 bytes (--max-body)");
}

#[test]
fn an_endless_body_is_cut_at_max_body() {
    let run = fault_run(
        "endless",
        |_, _| HostileReply::Endless,
        &["--max-body", "300000"],
    );
    assert_error(&run, VAT, "exceeds 300000 bytes");
    assert!(
        run.elapsed < Duration::from_secs(10),
        "took {:?}",
        run.elapsed
    );
}

#[test]
fn malformed_bodies_are_findings_of_the_generic_rules() {
    let cases: [(&str, HostileReply, &str, &str); 5] = [
        (
            "not-json",
            HostileReply::typed(404, "text/html", b"<html>oops</html>"),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "truncated-json",
            HostileReply::typed(404, "application/json", br#"{"error":{"mess"#),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "invalid-utf8",
            HostileReply::typed(
                404,
                "application/json",
                b"{\"error\":{\"message\":\"\xff\xfe\xc3\"}}",
            ),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "json-labelled-text",
            HostileReply::typed(404, "text/plain", br#"{"error":{"message":"no"}}"#),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "json-like-content-type",
            HostileReply::typed(404, "text/json", br#"{"error":{"message":"no"}}"#),
            "GEN-JSON-CONTENT-TYPE",
            "warn",
        ),
    ];
    for (name, reply, rule, verdict) in cases {
        let run = fault_run(name, move |_, _| reply.clone(), &[]);
        assert!(
            run.rules(VAT).iter().any(|r| r == rule),
            "{name}: {}",
            run.says(VAT)
        );
        assert_eq!(run.verdict(VAT), verdict, "{name}: {}", run.says(VAT));
    }
}
