//! Hand-written scenarios: the stateful cases of the suite, one file per area (the cases drawn
//! from the schemas live in `schema_cases`).
//!
//! Each case names the rules it covers; a finding's level always comes from the catalogue.
//! Cases only use ids from the profile (or ids they created themselves), so they work against
//! any implementation of the contract, and deletes only ever touch the profile's deletable ids.

mod auth;
mod comment;
mod deletes;
mod echo;
mod events;
mod invalid;
mod mailbox;
mod methods;
mod receivable;
mod robustness;
mod spelling;
mod standards;
mod tenant;
mod tenant_banking;
mod transactions;
mod vat;
mod velocity;
mod velocity_ids;

pub use crate::case::Bodies;

pub use crate::case::absent_uuid;
use crate::case::{Case, CaseCx};
use crate::client::Response;
use serde_json::Value;

/// Every hand-written case, in a stable order.
pub fn all() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(auth::cases());
    cases.extend(receivable::cases());
    cases.extend(vat::cases());
    cases.extend(comment::cases());
    cases.extend(mailbox::cases());
    cases.extend(deletes::cases());
    cases.extend(events::cases());
    cases.extend(transactions::cases());
    cases.extend(robustness::cases());
    cases.extend(events::path_cases());
    cases.extend(velocity::cases());
    cases.extend(invalid::cases());
    cases.extend(tenant::cases());
    cases.extend(tenant_banking::cases());
    cases.extend(methods::cases());
    cases.extend(echo::cases());
    cases.extend(velocity_ids::cases());
    cases.extend(spelling::cases());
    cases.extend(standards::cases());
    cases
}

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

    #[test]
    fn case_ids_are_unique() {
        let cases = all();
        let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(before, ids.len());
    }

    #[test]
    fn every_rule_a_case_names_is_in_the_catalogue() {
        let catalogue = crate::catalogue::Catalogue::embedded();
        for case in all() {
            for rule in &case.rules {
                assert!(
                    catalogue.rule(rule).is_some(),
                    "{} names unknown rule {rule}",
                    case.id
                );
            }
        }
    }
}
