//! Hand-written scenarios: the stateful cases of the suite, one file per area (the generated
//! cases live in the `generated` module, above this one).
//!
//! Each case names the rules it covers; a finding's level always comes from the catalogue.
//! Cases only use ids from the profile (or ids they created themselves), so they work against
//! any implementation of the contract, and deletes only ever touch the profile's deletable ids.

mod auth;
mod bodies;
mod comment;
mod deletes;
mod events;
mod invalid;
mod mailbox;
mod receivable;
mod robustness;
mod transactions;
mod vat;
mod velocity;

pub use bodies::Bodies;

use crate::case::{Case, CaseCx};
use crate::target::Response;
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
    cases
}

/// For `should` rules of the kind "refused with a 4xx".
pub(super) fn expect_client_error(cx: &mut CaseCx, response: &Response, rule: &str, what: &str) {
    if response.is_success() {
        cx.finding(rule, format!("{what} was answered {}", response.status));
    }
}

pub(super) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A uuid that names nothing on any target: v4 layout, derived from a label so runs repeat.
pub fn absent_uuid(label: &str) -> String {
    let h = label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let g = h.rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15;
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        (h >> 32) as u32,
        (h >> 16) as u16,
        (h & 0xfff) as u16,
        (g >> 52) as u16 & 0xfff,
        g & 0xffff_ffff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_uuids_are_valid_uuids_and_repeat() {
        let a = absent_uuid("x");
        assert_eq!(a, absent_uuid("x"));
        assert_ne!(a, absent_uuid("y"));
        assert!(uuid::Uuid::parse_str(&a).is_ok(), "{a}");
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
