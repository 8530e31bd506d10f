//! The two lists the pagination cases read, and the rules each reports under: a case of
//! either list is built here, read-only and `still`.

use super::list::{query, List, Query};
use crate::case::{Case, CaseCx};
use crate::schema::OperationId;
use std::sync::OnceLock;

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
    pub(super) fn token_reuse_case(self) -> String {
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

    pub(super) fn operation(self) -> OperationId {
        match self {
            ListKind::Events => OperationId::ListEvents,
            ListKind::Transactions => OperationId::ListTransactions,
        }
    }
}

/// A pagination case: read-only, and `still` so that no writing case changes the data under it.
pub(super) fn case(
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
