//! How the scenarios read an answer: a value echoed as sent, an id as the same UUID, a refusal
//! a `should` rule asks for, and a value shown in a message.

use crate::case::CaseCx;
use crate::client::Response;
use serde_json::Value;

/// For `should` rules of the kind "refused with a 4xx".
pub(super) fn expect_client_error(cx: &mut CaseCx, response: &Response, rule: &str, what: &str) {
    cx.judged(rule);
    cx.refused_under(rule);
    if response.is_success() {
        cx.finding(rule, format!("{what} was answered {}", response.status));
    }
}

pub(super) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Whether a value answered is the value sent: numbers by value, a number for its numeric
/// string, and ids as UUIDs (see [`same_id`]).
pub(super) fn same_value(sent: &Value, got: &Value) -> bool {
    match (sent, got) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(a), Value::Number(b)) => *a == b.to_string(),
        (Value::String(a), Value::String(b)) => same_id(a, b),
        _ => sent == got,
    }
}

/// Whether two ids name the same UUID: compared as UUIDs, since a target may answer one in
/// upper case (RFC 4122 reads either case as the same id); as text when either is no UUID.
pub(super) fn same_id(a: &str, b: &str) -> bool {
    match (uuid::Uuid::parse_str(a), uuid::Uuid::parse_str(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_same_uuid_in_either_case_and_text_otherwise() {
        let lower = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
        assert!(same_id(lower, &lower.to_uppercase()));
        assert!(!same_id(lower, "3fa85f64-5717-4562-b3fc-2c963f66afa7"));
        assert!(same_id("rcv_1", "rcv_1"));
        assert!(!same_id("rcv_1", "RCV_1"));
    }
}
