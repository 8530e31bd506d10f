//! Reading a list by following its next tokens, and the pure parts of judging a read: token
//! cycles, repeated items, comparisons on a common prefix, and how a read is shown in a message.
//!
//! A reader never stops at a short page: only a null next token ends a list (a page shorter
//! than `limit` with a next token is followed and is never a finding). It stops early only at a
//! token seen before (a cycle), at a bound on pages or items, or at a refusal.

use super::list::short_hash;
use super::list::{fetch, item_key, refused_first, Fetched, List, Query};
use super::order;
use crate::case::{Abort, CaseCx};
use serde_json::Value;
use std::collections::HashMap;

/// Pages a full read follows before it gives up as inconclusive.
pub const MAX_PAGES: usize = 1000;

/// What to read: the query of the first page and the bounds.
#[derive(Debug, Clone)]
pub struct ReadSpec {
    pub query: Query,
    pub max_pages: usize,
    /// Stop once this many items are seen (a prefix read, for comparisons).
    pub max_items: usize,
}

impl ReadSpec {
    /// A read of the whole list.
    pub fn full(query: Query) -> ReadSpec {
        ReadSpec {
            query,
            max_pages: MAX_PAGES,
            max_items: usize::MAX,
        }
    }

    /// A read of at most the first `max_items` items.
    pub fn prefix(query: Query, max_items: usize) -> ReadSpec {
        ReadSpec {
            query,
            max_pages: MAX_PAGES,
            max_items,
        }
    }
}

/// One page of a read, as shown in messages.
#[derive(Debug, Clone, PartialEq)]
pub struct PageStep {
    /// The token the page was fetched with (none for the first page).
    pub token: Option<String>,
    pub items: usize,
    pub next: Option<String>,
    pub prev: Option<String>,
    /// The case's record of the exchange that fetched the page (none when it was not kept), so
    /// that a finding about this page shows this page's request and answer.
    pub exchange: Option<usize>,
}

/// Why a read stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// A null next token: the list ended.
    Last,
    /// A next token already followed: `page` (1-based) returned the token first returned by
    /// `earlier`.
    Cycle { page: usize, earlier: usize },
    /// `max_pages` pages were read and the list went on.
    PageBound,
    /// `max_items` items were seen.
    ItemCap,
    /// The page fetched with a token the target itself returned was refused.
    Refused {
        page: usize,
        status: u16,
        body: String,
    },
}

/// An item seen a second time.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeat {
    pub key: String,
    pub first_page: usize,
    pub page: usize,
}

/// A read of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRead {
    pub steps: Vec<PageStep>,
    pub items: Vec<Value>,
    pub keys: Vec<String>,
    pub repeats: Vec<Repeat>,
    pub end: End,
}

impl ListRead {
    /// The read as the case it was made in records it after being joined to another at
    /// `offset` (a read made in a forked part, [`CaseCx::join`]ed).
    pub fn rebased(mut self, offset: usize) -> ListRead {
        for step in &mut self.steps {
            step.exchange = step.exchange.map(|i| i + offset);
        }
        self
    }

    /// `3 pages read, 250 items seen`.
    pub fn counts(&self) -> String {
        format!(
            "{} pages read, {} items seen",
            self.steps.len(),
            self.items.len()
        )
    }

    /// The page sequence, tokens as short hashes.
    pub fn trail(&self) -> String {
        trail(&self.steps)
    }
}

/// Reads a list from its first page. A refused first page stops the case (see
/// [`refused_first`]); `rule` names what a refusal of the valid first query breaks. Every read
/// judges the order of its items where the first query states one ([`judge_order`]),
/// whatever case made it.
pub async fn read(
    cx: &mut CaseCx,
    list: &List,
    spec: &ReadSpec,
    rule: &str,
) -> Result<ListRead, Abort> {
    let mut read = ListRead {
        steps: Vec::new(),
        items: Vec::new(),
        keys: Vec::new(),
        repeats: Vec::new(),
        end: End::Last,
    };
    let mut tokens = TokenTrail::default();
    let mut ledger = ItemLedger::default();
    let mut token: Option<String> = None;
    loop {
        if read.steps.len() >= spec.max_pages {
            read.end = End::PageBound;
            break;
        }
        let query = list.with_token(&spec.query, token.as_deref());
        let kept = cx.exchanges.len();
        let page = match fetch(cx, list, &query).await? {
            Fetched::Page(page) => page,
            Fetched::Refused(response) if token.is_none() => {
                return Err(refused_first(cx, &response, rule, &spec.query))
            }
            Fetched::Refused(response) => {
                read.end = End::Refused {
                    page: read.steps.len() + 1,
                    status: response.status,
                    body: crate::client::snippet(&response),
                };
                break;
            }
        };
        let number = read.steps.len() + 1;
        for item in &page.items {
            let key = item_key(item);
            if let Some(first_page) = ledger.add(&key, number) {
                read.repeats.push(Repeat {
                    key: key.clone(),
                    first_page,
                    page: number,
                });
            }
            read.keys.push(key);
        }
        read.items.extend(page.items.iter().cloned());
        read.steps.push(PageStep {
            token: token.take(),
            items: page.items.len(),
            next: page.next.clone(),
            prev: page.prev.clone(),
            exchange: (cx.exchanges.len() > kept).then(|| cx.exchanges.len() - 1),
        });
        let Some(next) = page.next else {
            read.end = End::Last;
            break;
        };
        if let Err(earlier) = tokens.follow(&next, number) {
            read.end = End::Cycle {
                page: number,
                earlier,
            };
            break;
        }
        if read.items.len() >= spec.max_items {
            read.end = End::ItemCap;
            break;
        }
        token = Some(next);
    }
    judge_order(cx, list.operation, &spec.query, &read);
    Ok(read)
}

/// Judges the order of a whole read of `operation` made with first query `query`: a finding
/// on the page where the first item out of order is, under the rule that states the order.
fn judge_order(
    cx: &mut CaseCx,
    operation: crate::schema::OperationId,
    query: &Query,
    read: &ListRead,
) {
    let Some((direction, rule)) = order::stated(operation, query) else {
        return;
    };
    if read.items.len() > 1 {
        cx.judged(rule);
    }
    let Some((at, before)) = order::first_out_of_order(&read.items, direction) else {
        return;
    };
    let (expected, actual) = order::order_diff(&read.items, direction, at);
    let page = page_of(read, at);
    cx.finding_diff_at(
        read.steps.get(page).and_then(|s| s.exchange),
        rule,
        format!(
            "with {} events are not {} by created_at: item {} ({}, {}) on page {} comes after \
             item {} ({}); {}; pages: {}",
            super::list::describe_query(query),
            direction.word(),
            at + 1,
            item_key(&read.items[at]),
            order::created_at_text(&read.items[at]),
            page + 1,
            before + 1,
            order::created_at_text(&read.items[before]),
            read.counts(),
            read.trail()
        ),
        &expected,
        &actual,
    );
}

/// The index of the page of a read that holds its item `at`.
fn page_of(read: &ListRead, at: usize) -> usize {
    let mut seen = 0;
    for (i, step) in read.steps.iter().enumerate() {
        seen += step.items;
        if at < seen {
            return i;
        }
    }
    read.steps.len().saturating_sub(1)
}

/// The next tokens of a read and the page that returned each.
#[derive(Debug, Default)]
pub struct TokenTrail {
    seen: HashMap<String, usize>,
}

impl TokenTrail {
    /// Notes that `page` returned `token`; `Err(earlier)` when `earlier` returned it already.
    pub fn follow(&mut self, token: &str, page: usize) -> Result<(), usize> {
        match self.seen.get(token) {
            Some(&earlier) => Err(earlier),
            None => {
                self.seen.insert(token.to_owned(), page);
                Ok(())
            }
        }
    }
}

/// The items of a read and the page each was first seen on.
#[derive(Debug, Default)]
pub struct ItemLedger {
    seen: HashMap<String, usize>,
}

impl ItemLedger {
    /// Notes `key` on `page`; the page it was first seen on when it was seen before.
    pub fn add(&mut self, key: &str, page: usize) -> Option<usize> {
        match self.seen.get(key) {
            Some(&first) => Some(first),
            None => {
                self.seen.insert(key.to_owned(), page);
                None
            }
        }
    }
}

fn hash_or_null(token: Option<&str>) -> String {
    token.map_or_else(|| "null".to_owned(), short_hash)
}

/// `page 1 (first): 7 items, next 1a2b3c4d; page 2 (1a2b3c4d): ...`, the middle elided past
/// twelve pages.
pub fn trail(steps: &[PageStep]) -> String {
    let show = |(i, s): (usize, &PageStep)| {
        format!(
            "page {} ({}): {} items, next {}",
            i + 1,
            s.token
                .as_deref()
                .map_or_else(|| "first".to_owned(), short_hash),
            s.items,
            hash_or_null(s.next.as_deref())
        )
    };
    let all: Vec<String> = steps.iter().enumerate().map(show).collect();
    if all.len() <= 12 {
        return all.join("; ");
    }
    format!(
        "{}; … {} pages …; {}",
        all[..3].join("; "),
        all.len() - 9,
        all[all.len() - 6..].join("; ")
    )
}

/// Where two reads first disagree on their common prefix, if they do.
pub fn prefix_mismatch(expected: &[String], actual: &[String]) -> Option<usize> {
    expected.iter().zip(actual).position(|(e, a)| e != a)
}

/// `actual` without the items a later read found in front of the baseline's first item that
/// the baseline never held: items added at the front of a newest-first list while reading.
/// Anything else (a missing first item, a known item out of place) is left for the
/// comparison to show.
pub fn skip_new_front<'a>(expected: &[String], actual: &'a [String]) -> &'a [String] {
    let Some(first) = expected.first() else {
        return actual;
    };
    let Some(k) = actual.iter().position(|a| a == first) else {
        return actual;
    };
    let known: std::collections::HashSet<&String> = expected.iter().collect();
    if actual[..k].iter().any(|a| known.contains(a)) {
        return actual;
    }
    &actual[k..]
}

/// The lines around `at` of the common prefix of two key lists, for a diff: from five before
/// the mismatch to thirty after.
pub fn diff_window(expected: &[String], actual: &[String], at: usize) -> (String, String) {
    let common = expected.len().min(actual.len());
    let (from, to) = (at.saturating_sub(5), common.min(at + 30));
    let lines = |keys: &[String]| {
        keys[from..to]
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{:>4} {k}", from + i + 1))
            .collect::<Vec<_>>()
            .join("\n")
    };
    (lines(expected), lines(actual))
}

/// A finding where `other` gives other items than `base`, or in another order, on their
/// common prefix; each read is named by its query (`limit=100`, `no limit`).
pub(super) fn compare_reads(
    cx: &mut CaseCx,
    rules: &super::kind::Rules,
    base: (&str, &ListRead),
    other: (&str, &ListRead),
) {
    let ((bl, b), (ol, o)) = (base, other);
    let later = skip_new_front(&b.keys, &o.keys);
    cx.judged(rules.agree);
    let Some(at) = prefix_mismatch(&b.keys, later) else {
        return;
    };
    let (expected, actual) = diff_window(&b.keys, later, at);
    cx.finding_diff(
        rules.agree,
        format!(
            "reads at {bl} and {ol} disagree at item {} ({} against {}); \
             {bl}: {}; {ol}: {}; pages at {ol}: {}",
            at + 1,
            b.keys[at],
            later[at],
            b.counts(),
            o.counts(),
            o.trail()
        ),
        &expected,
        &actual,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn a_token_returned_twice_is_a_cycle_back_to_the_page_that_first_returned_it() {
        let mut trail = TokenTrail::default();
        assert_eq!(trail.follow("a", 1), Ok(()));
        assert_eq!(trail.follow("b", 2), Ok(()));
        assert_eq!(trail.follow("c", 3), Ok(()));
        assert_eq!(trail.follow("b", 4), Err(2));
    }

    #[test]
    fn an_item_seen_again_names_the_page_it_was_first_seen_on() {
        let mut ledger = ItemLedger::default();
        assert_eq!(ledger.add("x", 1), None);
        assert_eq!(ledger.add("y", 2), None);
        assert_eq!(ledger.add("x", 3), Some(1));
    }

    #[test]
    fn items_are_keyed_by_id_else_by_their_whole_json() {
        assert_eq!(item_key(&json!({"id": "a", "n": 1})), "a");
        assert_eq!(item_key(&json!({"id": 7})), "7");
        assert_eq!(item_key(&json!({"n": 1})), r#"{"n":1}"#);
    }

    #[test]
    fn reads_that_grow_at_the_end_agree_on_their_common_prefix() {
        assert_eq!(prefix_mismatch(&keys("a b c"), &keys("a b c d e")), None);
        assert_eq!(prefix_mismatch(&keys("a b c d"), &keys("a b")), None);
    }

    #[test]
    fn items_added_at_the_front_of_a_newest_first_list_are_set_aside() {
        let base = keys("c b a");
        assert_eq!(
            skip_new_front(&base, &keys("e d c b a")),
            &keys("c b a")[..]
        );
        // a known item out of place stays, for the comparison to show
        assert_eq!(skip_new_front(&base, &keys("b c a")), &keys("b c a")[..]);
        // a missing first item stays too
        assert_eq!(skip_new_front(&base, &keys("b a")), &keys("b a")[..]);
    }

    #[test]
    fn a_skipped_item_is_a_mismatch_at_its_position() {
        assert_eq!(prefix_mismatch(&keys("a b c d"), &keys("a b d e")), Some(2));
        assert_eq!(prefix_mismatch(&keys("a b c"), &keys("a b b c")), Some(2));
    }

    #[test]
    fn the_diff_window_surrounds_the_mismatch_with_positions() {
        let e: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let mut a = e.clone();
        a.remove(50);
        let (we, wa) = diff_window(&e, &a, 50);
        assert!(we.starts_with("  46 45"), "{we}");
        assert_eq!(we.lines().count(), 35);
        assert!(we.contains("  51 50") && !wa.contains(" 50\n"), "{wa}");
    }

    #[test]
    fn short_hashes_are_eight_hex_digits_stable_and_distinct() {
        let h = short_hash("token-1");
        assert_eq!(h.len(), 8);
        assert!(h.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(h, short_hash("token-1"));
        assert_ne!(h, short_hash("token-2"));
        assert!(!h.contains("token"));
    }

    #[test]
    fn a_long_trail_keeps_its_ends_and_never_shows_a_token() {
        let steps: Vec<PageStep> = (0..20)
            .map(|i| PageStep {
                token: (i > 0).then(|| format!("secret-token-{i}")),
                items: 7,
                next: (i < 19).then(|| format!("secret-token-{}", i + 1)),
                prev: None,
                exchange: None,
            })
            .collect();
        let t = trail(&steps);
        assert!(t.starts_with("page 1 (first): 7 items"), "{t}");
        assert!(
            t.contains("… 11 pages …") && t.ends_with("next null"),
            "{t}"
        );
        assert!(!t.contains("secret"), "{t}");
    }
}
