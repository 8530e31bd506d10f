//! Every hand-written case, in the suite's stable order: one list per area's file.

use super::{
    auth, comment, deletes, echo, events, invalid, mailbox, methods, receivable, robustness,
    spelling, standards, tenant, tenant_banking, transactions, vat, velocity, velocity_ids,
};
use crate::case::Case;

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

#[cfg(test)]
mod tests {
    use super::*;

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
