//! The cases both lists share: full read, page sizes, out-of-range limits, token reuse and
//! tampered tokens. Each reports under its list's [`Rules`](super::kind::Rules); the catalogue
//! gives the level.

use super::kind::ListKind;
use super::list::{
    expect_same_items, expect_same_keys, fetch, fetch_first, first_with_next, follow, keys, query,
    Fetched,
};
use super::read::{compare_reads, read, End, ListRead, ReadSpec};
use crate::case::{Abort, CaseCx, Outcome, StoredPage};
use futures_util::future::join_all;
use std::time::Instant;

/// Page sizes compared by `page-sizes`; the first is the baseline (fewest boundaries).
const PAGE_SIZES: [u32; 4] = [100, 25, 7, 1];
/// Items each comparison read covers.
const COMPARE_ITEMS: usize = 300;
/// Items the limit-1 read covers: one request each, so it stays short.
const LIMIT_ONE_ITEMS: usize = 50;
/// About the requests of `page-sizes` on a list of 250 items.
pub(super) const PAGE_SIZES_REQUESTS: usize = 3 + 10 + 36 + LIMIT_ONE_ITEMS;
/// Its longest chain: the reads go side by side, so the limit-1 read.
pub(super) const PAGE_SIZES_CHAIN: usize = LIMIT_ONE_ITEMS;
/// The page size of the token cases: small, so that most lists have a second page.
const SMALL: &str = "10";

/// Follows the whole list: it ends with a null next token, no token and no item comes twice,
/// and the first page has no previous token. For transactions, the profile's empty account
/// (when given) has a first page that is also the last.
pub(super) async fn full_read(cx: &mut CaseCx, kind: ListKind) -> Outcome {
    let (list, rules) = (kind.list(cx), kind.rules());
    let read = read(cx, &list, &ReadSpec::full(kind.full_query()), rules.ends).await?;
    let inconclusive = report_end(cx, &read, rules.ends);
    report_repeats(cx, &read, rules.ends);
    if !read.steps.is_empty() {
        cx.judged(rules.prev_first);
    }
    if let Some(prev) = read.steps.first().and_then(|s| s.prev.as_deref()) {
        cx.finding(
            rules.prev_first,
            format!(
                "the first page has a previous token ({}) where null was expected; {}",
                super::list::short_hash(prev),
                read.counts()
            ),
        );
    }
    if kind == ListKind::Transactions {
        super::transactions::empty_account(cx).await?;
    }
    match inconclusive {
        Some(why) if cx.findings.is_empty() => Err(Abort::Skip(why)),
        _ => Ok(()),
    }
}

/// Records how a read ended when that breaks `rule` (a cycle, a refused token); returns why
/// the read is inconclusive when it hit its page bound.
pub(super) fn report_end(cx: &mut CaseCx, read: &ListRead, rule: &str) -> Option<String> {
    match &read.end {
        End::Last => {
            cx.judged(rule);
            None
        }
        End::ItemCap => None,
        End::PageBound => Some(format!(
            "the list went on past {} pages; the read stopped there ({})",
            read.steps.len(),
            read.counts()
        )),
        End::Cycle { page, earlier } => {
            cx.finding(
                rule,
                format!(
                    "the next token of page {page} was already returned by page {earlier}: \
                     following it would repeat pages {} to {page} forever; {}; pages: {}",
                    earlier + 1,
                    read.counts(),
                    read.trail()
                ),
            );
            None
        }
        End::Refused { page, status, body } => {
            if *status < 500 {
                cx.finding(
                    rule,
                    format!(
                        "page {page}, fetched with the token page {} returned, was refused with \
                         {status}: {body}; {}; pages: {}",
                        page.saturating_sub(1),
                        read.counts(),
                        read.trail()
                    ),
                );
            }
            None
        }
    }
}

/// One finding for the items a read saw twice.
pub(super) fn report_repeats(cx: &mut CaseCx, read: &ListRead, rule: &str) {
    if read.steps.len() > 1 {
        cx.judged(rule);
    }
    let Some(first) = read.repeats.first() else {
        return;
    };
    cx.finding(
        rule,
        format!(
            "{} items came twice, the first {} on page {} and again on page {}; {}; pages: {}",
            read.repeats.len(),
            first.key,
            first.first_page,
            first.page,
            read.counts(),
            read.trail()
        ),
    );
}

/// Reads the list at limits 100, 25, 7 and 1 (the first items only at 1): no page holds more
/// than its limit, and every read gives the baseline's items in the baseline's order on their
/// common prefix (data may grow at the end while reading; items new to a later read in front
/// of the baseline's first item, as a newest-first list grows, are set aside). The four reads
/// are independent chains of requests and go side by side: against a remote target the case
/// takes the time of the limit-1 read, not of all four.
pub(super) async fn page_sizes(cx: &mut CaseCx, kind: ListKind) -> Outcome {
    let (list, rules) = (kind.list(cx), kind.rules());
    let reads = PAGE_SIZES.map(|limit| {
        let cap = if limit == 1 {
            LIMIT_ONE_ITEMS
        } else {
            COMPARE_ITEMS
        };
        let spec = ReadSpec::prefix(query(&[("limit", &limit.to_string())]), cap);
        let (mut part, list) = (cx.fork(), list.clone());
        async move {
            let read = read(&mut part, &list, &spec, rules.agree).await;
            (part, read)
        }
    });
    let mut baseline: Option<(u32, ListRead)> = None;
    for (limit, (part, read)) in PAGE_SIZES.into_iter().zip(join_all(reads).await) {
        let offset = cx.exchanges.len();
        cx.join(part);
        let read = read?.rebased(offset);
        report_oversize(cx, &read, limit, rules.limit_max);
        if let Some(rule) = rules.full_pages {
            report_short(cx, &read, limit, rule);
        }
        report_end(cx, &read, rules.agree);
        match &baseline {
            None => baseline = Some((limit, read)),
            Some((base_limit, base)) => compare_reads(
                cx,
                rules,
                (&format!("limit={base_limit}"), base),
                (&format!("limit={limit}"), &read),
            ),
        }
    }
    Ok(())
}

/// A finding for the first page of a read that holds more items than `limit`.
fn report_oversize(cx: &mut CaseCx, read: &ListRead, limit: u32, rule: &str) {
    let max = limit.min(100) as usize;
    if !read.steps.is_empty() {
        cx.judged(rule);
    }
    if let Some((i, step)) = read.steps.iter().enumerate().find(|(_, s)| s.items > max) {
        cx.finding_at(
            step.exchange,
            rule,
            format!(
                "page {} of a read at limit={limit} holds {} items; {}; pages: {}",
                i + 1,
                step.items,
                read.counts(),
                read.trail()
            ),
        );
    }
}

/// A finding for the first page of a read that has a next page but holds fewer items than
/// `limit`: only the last or only page may be short.
fn report_short(cx: &mut CaseCx, read: &ListRead, limit: u32, rule: &str) {
    let full = limit.min(100) as usize;
    let short = read
        .steps
        .iter()
        .enumerate()
        .find(|(_, s)| s.next.is_some() && s.items < full);
    if read.steps.iter().any(|s| s.next.is_some()) {
        cx.judged(rule);
    }
    if let Some((i, step)) = short {
        cx.finding_at(
            step.exchange,
            rule,
            format!(
                "page {} of a read at limit={limit} holds {} items and has a next page; {}; pages: {}",
                i + 1,
                step.items,
                read.counts(),
                read.trail()
            ),
        );
    }
}

/// Each out-of-range limit is refused with a 4xx (should); one that is answered never brings
/// more than 100 items (must).
pub(super) async fn limit_out_of_range(cx: &mut CaseCx, kind: ListKind) -> Outcome {
    let (list, rules) = (kind.list(cx), kind.rules());
    for limit in kind.bad_limits() {
        let fetched = fetch(cx, &list, &query(&[("limit", limit)])).await?;
        cx.judged(rules.limit_reject);
        let Fetched::Page(page) = fetched else {
            continue;
        };
        cx.judged(rules.limit_max);
        cx.finding(
            rules.limit_reject,
            format!(
                "limit={limit} was accepted with {} items rather than refused with a 4xx",
                page.items.len()
            ),
        );
        if page.items.len() > 100 {
            cx.finding(
                rules.limit_max,
                format!(
                    "limit={limit} was answered with {} items; no page may hold more than 100",
                    page.items.len()
                ),
            );
        }
    }
    Ok(())
}

/// Page 2 is fetched with the first page's token, the read moves on, and the same token used
/// again gives the same page. The token and page 2 are stored for `stored_tokens`, which uses
/// the token once more as one of the last requests of the run.
pub(super) async fn token_reuse(cx: &mut CaseCx, kind: ListKind) -> Outcome {
    let (list, rules) = (kind.list(cx), kind.rules());
    let first = query(&[("limit", SMALL)]);
    let (_, token) = first_with_next(cx, &list, &first, rules.reuse).await?;
    let received = Instant::now();
    let what = "page 2, fetched with the first page's token";
    let Some(second) = follow(cx, &list, &first, &token, rules.reuse, what).await? else {
        return Ok(());
    };
    cx.run.stash.store(
        kind.name(),
        StoredPage {
            by: kind.token_reuse_case(),
            token: token.clone(),
            query: first.clone(),
            keys: keys(&second),
            had_next: second.next.is_some(),
            at: received,
        },
    );
    if let Some(next) = &second.next {
        follow(cx, &list, &first, next, rules.reuse, "page 3").await?;
    }
    let again = "the first page's token, used again after the read moved on,";
    let Some(later) = follow(cx, &list, &first, &token, rules.reuse, again).await? else {
        return Ok(());
    };
    expect_same_items(cx, rules.reuse, &second, &later, || {
        format!(
            "the token {} gave other items when used again ({} then {} items)",
            super::list::short_hash(&token),
            second.items.len(),
            later.items.len()
        )
    });
    Ok(())
}

/// The token `token_reuse` stored, used again as one of the last requests of the run (after
/// every other case, and after `--token-age` when given): it still gives the page it gave
/// then. A page that had a next page is the same page; a page that was the last may have
/// grown at its end (cases that write add events), so its earlier items need only come first.
pub(super) async fn stored_tokens(cx: &mut CaseCx, kind: ListKind) -> Outcome {
    let (list, rules) = (kind.list(cx), kind.rules());
    let Some(stored) = cx.run.stash.get(kind.name()) else {
        return Err(Abort::Skip(format!(
            "no token was stored: {} stored none (it was skipped, was refused a page, or the \
             list fits in one page)",
            kind.token_reuse_case()
        )));
    };
    let age = stored.at.elapsed().as_secs_f64();
    let hash = super::list::short_hash(&stored.token);
    let what = format!(
        "page 2, fetched again at the end of the run with the first page's token, {age:.1} s \
         after it was issued"
    );
    let Some(later) = follow(cx, &list, &stored.query, &stored.token, rules.reuse, &what).await?
    else {
        return Ok(());
    };
    let now = keys(&later);
    let Some(shown) = changed(&stored.keys, stored.had_next, &now) else {
        return Ok(());
    };
    let message = if stored.had_next {
        format!(
            "the token {hash}, used again {age:.1} s after it was issued, gave other items than \
             when {} used it ({} then {} items)",
            stored.by,
            stored.keys.len(),
            now.len()
        )
    } else {
        format!(
            "the token {hash} of the last page, used again {age:.1} s after it was issued, no \
             longer gives that page's items first ({} then {} items; only items added after \
             them are allowed)",
            stored.keys.len(),
            now.len()
        )
    };
    expect_same_keys(cx, rules.reuse, &stored.keys, shown, || message);
    Ok(())
}

/// What a stored token gives now, when it is not what it gave then: all of it when that page
/// had a next page (it must be the same page); its first items when that page was the last
/// (items may have been added after them since).
fn changed<'a>(then: &[String], had_next: bool, now: &'a [String]) -> Option<&'a [String]> {
    if had_next {
        (then != now).then_some(now)
    } else {
        (!now.starts_with(then)).then(|| &now[..now.len().min(then.len())])
    }
}

/// A token with one character changed, and a string the target never issued, are refused with
/// a 4xx.
pub(super) async fn tampered_token(cx: &mut CaseCx, kind: ListKind) -> Outcome {
    let (list, rules) = (kind.list(cx), kind.rules());
    let first = query(&[("limit", SMALL)]);
    let page = fetch_first(cx, &list, &first, rules.tampered).await?;
    let mut forged = Vec::new();
    if let Some(token) = &page.next {
        forged.push(("a token with one character changed", tamper(token)));
    }
    forged.push(("a token never issued", never_issued(cx.run.generation.seed)));
    for (what, token) in forged {
        let q = list.with_token(&first, Some(&token));
        let fetched = fetch(cx, &list, &q).await?;
        cx.judged(rules.tampered);
        if let Fetched::Page(p) = fetched {
            cx.finding(
                rules.tampered,
                format!(
                    "{what} was accepted with {} items rather than refused with a 4xx",
                    p.items.len()
                ),
            );
        }
    }
    Ok(())
}

/// The token with its middle character changed to another of the same class (digit, lower or
/// upper case letter), so that it still looks well formed.
pub fn tamper(token: &str) -> String {
    let mut chars: Vec<char> = token.chars().collect();
    if chars.is_empty() {
        return "A".to_owned();
    }
    let i = chars.len() / 2;
    let rotate =
        |c: char, first: char, n: u8| char::from(first as u8 + ((c as u8 - first as u8 + 1) % n));
    chars[i] = match chars[i] {
        c @ '0'..='9' => rotate(c, '0', 10),
        c @ 'a'..='z' => rotate(c, 'a', 26),
        c @ 'A'..='Z' => rotate(c, 'A', 26),
        _ => 'A',
    };
    chars.into_iter().collect()
}

/// A token-looking string no target issued, derived from the seed so runs repeat.
fn never_issued(seed: u64) -> String {
    format!(
        "Y292ZW5hbnQ{:016x}",
        seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn a_stored_middle_page_must_be_the_same_and_a_stored_last_page_may_only_grow_at_its_end() {
        let then = keys("a b c");
        assert_eq!(changed(&then, true, &keys("a b c")), None);
        assert_eq!(
            changed(&then, true, &keys("a b c d")),
            Some(&keys("a b c d")[..])
        );
        assert_eq!(changed(&then, true, &keys("a c")), Some(&keys("a c")[..]));
        assert_eq!(changed(&then, false, &keys("a b c")), None);
        assert_eq!(changed(&then, false, &keys("a b c d e")), None);
        assert_eq!(
            changed(&then, false, &keys("a c d e")),
            Some(&keys("a c d")[..])
        );
        assert_eq!(changed(&then, false, &keys("a b")), Some(&keys("a b")[..]));
        assert_eq!(changed(&then, false, &[]), Some(&[][..]));
    }

    #[test]
    fn a_tampered_token_differs_in_one_character_of_the_same_class() {
        for token in ["abc", "Zz9", "eyJvZmZzZXQiOjEwfQ==", "a-b", "x"] {
            let t = tamper(token);
            assert_eq!(t.chars().count(), token.chars().count(), "{token}");
            let diffs: Vec<(char, char)> = token
                .chars()
                .zip(t.chars())
                .filter(|(a, b)| a != b)
                .collect();
            assert_eq!(diffs.len(), 1, "{token} -> {t}");
            let (a, b) = diffs[0];
            if a.is_ascii_alphanumeric() {
                assert_eq!(a.is_ascii_digit(), b.is_ascii_digit(), "{token} -> {t}");
                assert_eq!(
                    a.is_ascii_lowercase(),
                    b.is_ascii_lowercase(),
                    "{token} -> {t}"
                );
            }
        }
        assert_eq!(tamper("z9Z"), "z0Z");
    }
}
