//! Every pagination case: the cases both lists have, each under its list's rules, then each
//! list's own.

use super::kind::{case, ListKind};
use super::{events, transactions};
use crate::case::{case_fn, Case};

/// The pagination cases.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    for kind in [ListKind::Events, ListKind::Transactions] {
        all.extend(shared_cases(kind));
    }
    all.extend(events::cases());
    all.extend(transactions::cases());
    all
}

/// The cases both lists have, under each list's rules.
fn shared_cases(kind: ListKind) -> Vec<Case> {
    let (r, area) = (kind.rules(), kind.name());
    let shape = match kind {
        ListKind::Events => vec!["EVT-PAGE-SHAPE", "EVT-ITEM", "EVT-OBJECT-TYPE-ENUM"],
        ListKind::Transactions => vec!["BPAG-PAGE-SHAPE"],
    };
    let mut full_rules = shape;
    full_rules.extend([r.ends, r.prev_first]);
    vec![
        case(
            kind,
            &format!("{area}.full-read"),
            &full_rules,
            12,
            case_fn(move |cx| Box::pin(super::cases::full_read(cx, kind))),
        ),
        case(
            kind,
            &format!("{area}.page-sizes"),
            &[[r.limit_max, r.agree].as_slice(), r.full_pages.as_slice()].concat(),
            super::cases::PAGE_SIZES_REQUESTS,
            case_fn(move |cx| Box::pin(super::cases::page_sizes(cx, kind))),
        )
        .chain(super::cases::PAGE_SIZES_CHAIN),
        case(
            kind,
            &format!("{area}.limit-out-of-range"),
            &[r.limit_max, r.limit_reject],
            kind.bad_limits().len(),
            case_fn(move |cx| Box::pin(super::cases::limit_out_of_range(cx, kind))),
        ),
        case(
            kind,
            &format!("{area}.token-reuse"),
            &[r.reuse],
            4,
            case_fn(move |cx| Box::pin(super::cases::token_reuse(cx, kind))),
        ),
        case(
            kind,
            &format!("{area}.tampered-token"),
            &[r.tampered],
            3,
            case_fn(move |cx| Box::pin(super::cases::tampered_token(cx, kind))),
        ),
        // Last of the run: the token token-reuse stored, used again.
        case(
            kind,
            &format!("{area}.stored-tokens"),
            &[r.reuse],
            1,
            case_fn(move |cx| Box::pin(super::cases::stored_tokens(cx, kind))),
        )
        .late(&[&kind.token_reuse_case()]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pagination_check_of_the_catalogue_has_its_case_and_rules() {
        let catalogue = crate::catalogue::Catalogue::embedded();
        let cases = cases();
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        for rule in &catalogue.rules {
            for check in &rule.checks {
                let Some(id) = check.strip_prefix("pagination:") else {
                    continue;
                };
                let case = cases.iter().find(|c| c.id == id);
                let case = case.unwrap_or_else(|| panic!("no case {id} (named by {})", rule.id));
                assert!(
                    case.rules.contains(&rule.id.as_str()),
                    "{id} does not list {}",
                    rule.id
                );
            }
        }
        assert_eq!(ids.len(), 17, "{ids:?}");
        for case in &cases {
            assert!(case.still && !case.writes, "{}", case.id);
            assert_eq!(
                case.late,
                case.id.ends_with(".stored-tokens"),
                "{}",
                case.id
            );
            for earlier in &case.after {
                assert!(
                    ids.contains(&earlier.as_str()),
                    "{} after {earlier}",
                    case.id
                );
            }
            for rule in &case.rules {
                assert!(catalogue.rule(rule).is_some(), "{} names {rule}", case.id);
            }
        }
    }
}
