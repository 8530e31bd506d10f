//! Cases of list events alone: the order of events, and a token overriding the other query
//! parameters.

use super::cases::{report_end, report_repeats};
use super::list::{expect_same_items, first_with_next, follow, item_key, query, List, Page, Query};
use super::read::{read, End, Read, ReadSpec};
use super::{case, ListKind};
use crate::case::{case_fn, Abort, Case, CaseCx, Outcome};
use serde_json::Value;
use std::collections::HashSet;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

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
            6,
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

/// Which way created_at must go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Ascending,
    Descending,
}

/// One read of `events.order`: its query, the direction it must show, and the rule.
struct OrderRead {
    pairs: &'static [(&'static str, &'static str)],
    direction: Direction,
    rule: &'static str,
}

/// The read without sort first: the sorted reads after it must hold every event it saw
/// (events are only added while the run writes).
const ORDER_READS: [OrderRead; 3] = [
    OrderRead {
        pairs: &[("limit", "100")],
        direction: Direction::Ascending,
        rule: "EVT-DEFAULT-SORT-CREATED",
    },
    OrderRead {
        pairs: &[("sort", "created_at"), ("limit", "100")],
        direction: Direction::Ascending,
        rule: "EVT-ORDER-DEFAULT-ASC",
    },
    OrderRead {
        pairs: &[("sort", "created_at"), ("order", "desc"), ("limit", "100")],
        direction: Direction::Descending,
        rule: "EVT-ORDER-DESC",
    },
];

/// Sorted by created_at without order: ascending (must); with neither sort nor order:
/// ascending by created_at (should, the default key is not stated); order=desc: descending.
async fn order(cx: &mut CaseCx) -> Outcome {
    let list = ListKind::Events.list(cx);
    let rules = ListKind::Events.rules();
    let mut unsorted: Option<Read> = None;
    for OrderRead {
        pairs,
        direction,
        rule,
    } in ORDER_READS
    {
        let q = query(pairs);
        let read = read(cx, &list, &ReadSpec::prefix(q.clone(), ORDER_ITEMS), rule).await?;
        report_end(cx, &read, rule);
        report_repeats(cx, &read, rules.ends);
        match &unsorted {
            Some(base) => report_missing(cx, rules.agree, base, &read, &q),
            None => unsorted = Some(read.clone()),
        }
        if read.items.len() > 1 {
            cx.judged(rule);
        }
        let Some((at, before)) = first_out_of_order(&read.items, direction) else {
            continue;
        };
        let (expected, actual) = order_diff(&read.items, direction, at);
        cx.finding_diff(
            rule,
            format!(
                "with {} events are not {} by created_at: item {} ({}, {}) comes after \
                 item {} ({}); {}; pages: {}",
                super::list::describe_query(&q),
                direction.word(),
                at + 1,
                item_key(&read.items[at]),
                created_at_text(&read.items[at]),
                before + 1,
                created_at_text(&read.items[before]),
                read.counts(),
                read.trail()
            ),
            &expected,
            &actual,
        );
    }
    Ok(())
}

/// A finding for the events a whole read without sort saw that a whole sorted read after it
/// did not: the sort orders the same events, it does not drop any. Reads cut short by their
/// item cap are not compared.
fn report_missing(cx: &mut CaseCx, rule: &str, base: &Read, sorted: &Read, q: &Query) {
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

impl Direction {
    fn word(self) -> &'static str {
        match self {
            Direction::Ascending => "ascending",
            Direction::Descending => "descending",
        }
    }
}

fn created_at_text(item: &Value) -> &str {
    item.get("created_at")
        .and_then(Value::as_str)
        .unwrap_or("?")
}

fn created_at(item: &Value) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(item.get("created_at")?.as_str()?, &Rfc3339).ok()
}

/// The index of the first item whose created_at goes the wrong way from the readable one
/// before it, and that one's index; items without a readable created_at are left out (the
/// schema check reports them).
pub fn first_out_of_order(items: &[Value], direction: Direction) -> Option<(usize, usize)> {
    let mut last: Option<(usize, OffsetDateTime)> = None;
    for (i, item) in items.iter().enumerate() {
        let Some(t) = created_at(item) else { continue };
        if let Some((j, prev)) = last {
            let wrong = match direction {
                Direction::Ascending => t < prev,
                Direction::Descending => t > prev,
            };
            if wrong {
                return Some((i, j));
            }
        }
        last = Some((i, t));
    }
    None
}

/// `id created_at` lines around `at`, as sorted (expected) and as read (actual).
fn order_diff(items: &[Value], direction: Direction, at: usize) -> (String, String) {
    let line = |v: &Value| format!("{} {}", item_key(v), created_at_text(v));
    let mut sorted: Vec<&Value> = items.iter().collect();
    sorted.sort_by_key(|v| created_at(v));
    if direction == Direction::Descending {
        sorted.reverse();
    }
    let (from, to) = (at.saturating_sub(5), items.len().min(at + 10));
    let expected: Vec<String> = sorted[from..to].iter().map(|v| line(v)).collect();
    let actual: Vec<String> = items[from..to].iter().map(line).collect();
    (expected.join("\n"), actual.join("\n"))
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
) -> Result<Option<Page>, Abort> {
    let rule = "EVT-TOKEN-IGNORES-PARAMS";
    let first = query(&[("limit", "10"), ("sort", "created_at")]);
    let (_, token) = first_with_next(cx, list, &first, rule).await?;
    follow(cx, list, &query(pairs), &token, rule, what).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(times: &[&str]) -> Vec<Value> {
        times
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"id": i.to_string(), "created_at": t}))
            .collect()
    }

    #[test]
    fn ascending_allows_ties_and_finds_the_first_step_back() {
        let items = at(&[
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
            "2026-01-01T01:00:00+02:00",
            "2026-01-01T00:30:00Z",
        ]);
        // 01:00+02:00 is 23:00Z the day before: it steps back.
        assert_eq!(
            first_out_of_order(&items, Direction::Ascending),
            Some((2, 1))
        );
        assert_eq!(first_out_of_order(&items[..2], Direction::Ascending), None);
    }

    #[test]
    fn descending_is_checked_the_other_way_and_unreadable_times_are_left_out() {
        let items = at(&["2026-01-03T00:00:00Z", "soon", "2026-01-02T00:00:00Z"]);
        assert_eq!(first_out_of_order(&items, Direction::Descending), None);
        assert_eq!(
            first_out_of_order(&items, Direction::Ascending),
            Some((2, 0))
        );
    }
}
