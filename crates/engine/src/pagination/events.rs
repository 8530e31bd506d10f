//! Cases of list events alone: the order of events, and a token overriding the other query
//! parameters.

use super::cases::{report_end, report_repeats};
use super::kind::{case, ListKind};
use super::list::{expect_same_items, first_with_next, follow, query, List, ListPage, Query};
use super::read::{read, End, ListRead, ReadSpec};
use crate::case::{case_fn, Abort, Case, CaseCx, Outcome};
use std::collections::HashSet;

/// Items an order read covers.
const ORDER_ITEMS: usize = 200;

pub(super) fn cases() -> Vec<Case> {
    vec![
        case(
            ListKind::Events,
            "events.order",
            &[
                "EVT-ORDER-DEFAULT-ASC",
                "EVT-DEFAULT-SORT-CREATED",
                "EVT-ORDER-DESC",
                "EVT-FULL-READ-ENDS",
                "EVT-PAGE-SIZES-AGREE",
            ],
            7,
            case_fn(|cx| Box::pin(order(cx))),
        ),
        case(
            ListKind::Events,
            "events.token-ignores-params",
            &["EVT-TOKEN-IGNORES-PARAMS"],
            6,
            case_fn(|cx| Box::pin(token_ignores_params(cx))),
        ),
    ]
}

/// One read of `events.order`: its query and the rule of its order (which a refusal of its
/// first page also breaks).
struct OrderRead {
    pairs: &'static [(&'static str, &'static str)],
    rule: &'static str,
}

/// The read without sort first: the sorted reads after it must hold every event it saw
/// (events are only added while the run writes). The ascending read goes at 50 a page, so that
/// its order is judged beyond a second page, where only unsorted reads went before.
const ORDER_READS: [OrderRead; 3] = [
    OrderRead {
        pairs: &[("limit", "100")],
        rule: "EVT-DEFAULT-SORT-CREATED",
    },
    OrderRead {
        pairs: &[("sort", "created_at"), ("limit", "50")],
        rule: "EVT-ORDER-DEFAULT-ASC",
    },
    OrderRead {
        pairs: &[("sort", "created_at"), ("order", "desc"), ("limit", "100")],
        rule: "EVT-ORDER-DESC",
    },
];

/// Sorted by created_at without order: ascending (must); with neither sort nor order:
/// ascending by created_at (should, the default key is not stated); order=desc: descending.
/// Every read judges its own order ([`super::read::read`]); this case makes the three reads
/// and compares the events they hold.
async fn order(cx: &mut CaseCx) -> Outcome {
    let list = ListKind::Events.list(cx);
    let rules = ListKind::Events.rules();
    let mut unsorted: Option<ListRead> = None;
    for OrderRead { pairs, rule } in ORDER_READS {
        let q = query(pairs);
        let read = read(cx, &list, &ReadSpec::prefix(q.clone(), ORDER_ITEMS), rule).await?;
        report_end(cx, &read, rule);
        report_repeats(cx, &read, rules.ends);
        match &unsorted {
            Some(base) => report_missing(cx, rules.agree, base, &read, &q),
            None => unsorted = Some(read.clone()),
        }
    }
    Ok(())
}

/// A finding for the events a whole read without sort saw that a whole sorted read after it
/// did not: the sort orders the same events, it does not drop any. Reads cut short by their
/// item cap are not compared.
fn report_missing(cx: &mut CaseCx, rule: &str, base: &ListRead, sorted: &ListRead, q: &Query) {
    if !matches!(base.end, End::Last) || !matches!(sorted.end, End::Last) {
        return;
    }
    cx.judged(rule);
    let seen: HashSet<&str> = sorted.keys.iter().map(String::as_str).collect();
    let missing: Vec<&str> = base
        .keys
        .iter()
        .map(String::as_str)
        .filter(|k| !seen.contains(k))
        .collect();
    let Some(first) = missing.first() else {
        return;
    };
    cx.finding(
        rule,
        format!(
            "a whole read with {} misses {} of the {} events a read without sort gave just \
             before, the first {first}; {}; pages: {}",
            super::list::describe_query(q),
            missing.len(),
            base.keys.len(),
            sorted.counts(),
            sorted.trail()
        ),
    );
}

/// With a token, the other parameters are ignored and taken from the first query: the page
/// of the token alone, with another limit, and with another order, is the same page. Each
/// variant follows a token of its own, so that a target whose tokens work once (a `should`
/// matter, `events.token-reuse`) does not fail this `must` rule.
async fn token_ignores_params(cx: &mut CaseCx) -> Outcome {
    let rule = "EVT-TOKEN-IGNORES-PARAMS";
    let list = ListKind::Events.list(cx);
    let Some(plain) = second_page(cx, &list, &[], "the token alone").await? else {
        return Ok(());
    };
    cx.judged(rule);
    if plain.items.len() > 10 {
        cx.finding(
            rule,
            format!(
                "the token of a limit=10 query, sent alone, gave a page of {} items: the limit \
                 was not taken from the first query",
                plain.items.len()
            ),
        );
    }
    let others: [(&[(&str, &str)], &str); 2] = [
        (&[("limit", "3")], "limit=3"),
        (&[("sort", "created_at"), ("order", "desc")], "order=desc"),
    ];
    for (pairs, label) in others {
        let what = format!("the token with {label}");
        let Some(page) = second_page(cx, &list, pairs, &what).await? else {
            continue;
        };
        expect_same_items(cx, rule, &plain, &page, || {
            format!(
                "the token with {label} gave another page than the token alone ({} against {} \
                 items): {label} was not ignored",
                page.items.len(),
                plain.items.len()
            )
        });
    }
    Ok(())
}

/// The first page of `limit=10&sort=created_at`, then the page of its token sent with `pairs`.
async fn second_page(
    cx: &mut CaseCx,
    list: &List,
    pairs: &[(&str, &str)],
    what: &str,
) -> Result<Option<ListPage>, Abort> {
    let rule = "EVT-TOKEN-IGNORES-PARAMS";
    let first = query(&[("limit", "10"), ("sort", "created_at")]);
    let (_, token) = first_with_next(cx, list, &first, rule).await?;
    follow(cx, list, &query(pairs), &token, rule, what).await
}
