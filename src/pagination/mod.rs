//! Cursor pagination invariants of the two list operations (list events, list bank account
//! transactions): full reads end, page sizes agree, limits hold, tokens are stable, opaque and
//! checked.
//!
//! One checker serves any cursor-paginated list: a [`List`] names the path, the credentials and
//! the token fields; [`read`] follows next tokens with cycle and repeat detection. The cases
//! here only read, and every comparison across reads runs `still` (while no writing case runs).
//! This module must never parse, build or modify a token (the tamper case alone changes one, on
//! purpose), and never fail a target on a short page that carries a next token.

mod cases;
mod events;
mod list;
mod order;
mod read;
mod transactions;

pub use list::{fetch, item_key, query, Fetched, List, ListPage, Query};
pub use read::{
    diff_window, prefix_mismatch, read, skip_new_front, trail, End, ItemLedger, ListRead, PageStep,
    ReadSpec, TokenTrail,
};

use crate::case::{case_fn, Case, CaseCx};
use crate::schema::OperationId;
use std::sync::OnceLock;

/// The first 8 hex digits of the FNV-1a hash of a token: enough to tell tokens apart in a
/// message without printing them.
pub fn short_hash(token: &str) -> String {
    format!(
        "{:08x}",
        (crate::digest::fnv1a(token.as_bytes()) >> 32) as u32
    )
}

/// The two lists, and what each breaks under which rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Events,
    Transactions,
}

/// The rule ids one list's checks report under.
pub(crate) struct Rules {
    /// A full read ends with a null next token, repeating no item and no token.
    pub ends: &'static str,
    pub prev_first: &'static str,
    pub limit_max: &'static str,
    pub limit_reject: &'static str,
    /// Reads at different page sizes give the same items in the same order.
    pub agree: &'static str,
    pub reuse: &'static str,
    pub tampered: &'static str,
    /// Every page but the last holds exactly `limit` items (finance only: a banking page
    /// shorter than `limit` does not mean the end, and may come anywhere).
    pub full_pages: Option<&'static str>,
}

impl Rules {
    /// The rules of `op`'s pages, as the operations table gives them (`x-page`).
    fn of(op: OperationId) -> Rules {
        let page = op.operation().page.as_ref();
        let rules = &page.expect("a paginated list has its x-page").rules;
        Rules {
            ends: &rules.ends,
            prev_first: &rules.prev_first,
            limit_max: &rules.limit_max,
            limit_reject: &rules.limit_reject,
            agree: &rules.agree,
            reuse: &rules.reuse,
            tampered: &rules.tampered,
            full_pages: rules.full_pages.as_deref(),
        }
    }
}

impl ListKind {
    /// The list at the path the profile's fixtures fill.
    pub(crate) fn list(self, cx: &CaseCx) -> List {
        let op = self.operation();
        List::of(op, cx.run.path_values(op, &[]))
    }

    /// The list's name: the area of its case ids, and its key in the token stash.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ListKind::Events => "events",
            ListKind::Transactions => "transactions",
        }
    }

    /// The case that stores the list's token for the late case.
    fn token_reuse_case(self) -> String {
        format!("{}.token-reuse", self.name())
    }

    pub(crate) fn rules(self) -> &'static Rules {
        static RULES: OnceLock<[Rules; 2]> = OnceLock::new();
        let kinds = [ListKind::Events, ListKind::Transactions];
        let rules = RULES.get_or_init(|| kinds.map(|kind| Rules::of(kind.operation())));
        &rules[self as usize]
    }

    /// The query of a full read: events at the largest page (the default is not stated, and a
    /// target may hold three months of events); transactions at their stated default of 25.
    pub(crate) fn full_query(self) -> Query {
        match self {
            ListKind::Events => query(&[("limit", "100")]),
            ListKind::Transactions => Query::new(),
        }
    }

    /// Limits outside the range, each refused with a 4xx (should) and never answered with more
    /// than 100 items (must).
    pub(crate) fn bad_limits(self) -> &'static [&'static str] {
        match self {
            ListKind::Events => &["101", "0", "-1", "1.5", "ten"],
            ListKind::Transactions => &["101", "0", "-1"],
        }
    }

    fn operation(self) -> OperationId {
        match self {
            ListKind::Events => OperationId::ListEvents,
            ListKind::Transactions => OperationId::ListTransactions,
        }
    }
}

/// A pagination case: read-only, and `still` so that no writing case changes the data under it.
fn case(
    kind: ListKind,
    name: &str,
    rules: &[&'static str],
    requests: usize,
    run: crate::case::CaseFn,
) -> Case {
    Case::new(name, kind.operation(), rules, run)
        .requests(requests)
        .still()
}

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
            case_fn(move |cx| Box::pin(cases::full_read(cx, kind))),
        ),
        case(
            kind,
            &format!("{area}.page-sizes"),
            &[[r.limit_max, r.agree].as_slice(), r.full_pages.as_slice()].concat(),
            cases::PAGE_SIZES_REQUESTS,
            case_fn(move |cx| Box::pin(cases::page_sizes(cx, kind))),
        )
        .chain(cases::PAGE_SIZES_CHAIN),
        case(
            kind,
            &format!("{area}.limit-out-of-range"),
            &[r.limit_max, r.limit_reject],
            kind.bad_limits().len(),
            case_fn(move |cx| Box::pin(cases::limit_out_of_range(cx, kind))),
        ),
        case(
            kind,
            &format!("{area}.token-reuse"),
            &[r.reuse],
            4,
            case_fn(move |cx| Box::pin(cases::token_reuse(cx, kind))),
        ),
        case(
            kind,
            &format!("{area}.tampered-token"),
            &[r.tampered],
            3,
            case_fn(move |cx| Box::pin(cases::tampered_token(cx, kind))),
        ),
        // Last of the run: the token token-reuse stored, used again.
        case(
            kind,
            &format!("{area}.stored-tokens"),
            &[r.reuse],
            1,
            case_fn(move |cx| Box::pin(cases::stored_tokens(cx, kind))),
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
