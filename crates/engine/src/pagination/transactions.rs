//! Cases of list bank account transactions alone: the default limit, the previous token, no
//! global order, and the profile's empty account.

use super::kind::{case, ListKind};
use super::list::{
    expect_same_items, fetch, first_with_next, follow, keys, query, Fetched, List, Query,
};
use super::read::{compare_reads, diff_window, prefix_mismatch, read, ReadSpec};
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;

pub(super) fn cases() -> Vec<Case> {
    vec![
        case(
            ListKind::Transactions,
            "transactions.default-limit",
            &["BPAG-DEFAULT-LIMIT-25", "BPAG-DEFAULT-ORDER"],
            14,
            case_fn(|cx| Box::pin(default_limit(cx))),
        ),
        case(
            ListKind::Transactions,
            "transactions.prev-token",
            &["BPAG-PREV-ROUNDTRIP", "BPAG-PREV-NULL-FIRST"],
            3,
            case_fn(|cx| Box::pin(prev_token(cx))),
        ),
        case(
            ListKind::Transactions,
            "transactions.no-global-order",
            &[NO_ORDER],
            3,
            case_fn(|cx| Box::pin(no_global_order(cx))),
        ),
    ]
}

/// The rule of order and sort parameters the area does not have.
const NO_ORDER: &str = "BPAG-NO-GLOBAL-ORDER";

/// "There are no global sort or order parameters in this area, and an endpoint without sort
/// parameters returns its default order"; list transactions states only limit,
/// pagination_token and filters. So a first page read with `order=desc`, or with `sort`, holds
/// what the same read without it holds, in the same order. Either page may be the shorter (a
/// short page does not mean the end), so their common prefix is compared. A refusal of the
/// parameter passes: the spec does not say unknown query parameters are ignored.
async fn no_global_order(cx: &mut CaseCx) -> Outcome {
    let list = ListKind::Transactions.list(cx);
    let plain = [("limit", "10")];
    // A refused plain read is the target's or the profile's problem, judged elsewhere.
    let Fetched::Page(base) = fetch(cx, &list, &query(&plain)).await? else {
        return Ok(());
    };
    let expected = keys(&base);
    for extra in [("order", "desc"), ("sort", "created_at")] {
        let with = query(&[plain[0], extra]);
        let page = match fetch(cx, &list, &with).await? {
            Fetched::Page(page) => page,
            Fetched::Refused(response) => {
                if response.is_client_error() {
                    cx.judged(NO_ORDER);
                }
                continue;
            }
        };
        cx.judged(NO_ORDER);
        let actual = keys(&page);
        if let Some(at) = prefix_mismatch(&expected, &actual) {
            let (want, got) = diff_window(&expected, &actual, at);
            cx.finding_diff(
                NO_ORDER,
                format!(
                    "a first page read with {}={} holds other items, or the same in another                      order, than the same read without it: item {} differs (the area has no                      global sort or order parameters)",
                    extra.0,
                    extra.1,
                    at + 1
                ),
                &want,
                &got,
            );
        }
    }
    Ok(())
}

/// Without limit, no page holds more than 25 items: the token passes the limit on unchanged,
/// so the default holds on every page of the read, not on the first alone. The read gives the
/// items a read at limit=100 gives, in its order (none skipped where the default applies).
async fn default_limit(cx: &mut CaseCx) -> Outcome {
    let rule = "BPAG-DEFAULT-LIMIT-25";
    let list = ListKind::Transactions.list(cx);
    let spec = ReadSpec::prefix(Query::new(), DEFAULT_READ_ITEMS);
    let unlimited = read(cx, &list, &spec, rule).await?;
    if !unlimited.steps.is_empty() {
        cx.judged(rule);
    }
    if let Some((i, step)) = unlimited
        .steps
        .iter()
        .enumerate()
        .find(|(_, s)| s.items > 25)
    {
        cx.finding_diff_at(
            step.exchange,
            rule,
            format!(
                "page {} of a read without limit holds {} items; the default limit is 25 and a \
                 token keeps it; {}; pages: {}",
                i + 1,
                step.items,
                unlimited.counts(),
                unlimited.trail()
            ),
            "at most 25 items",
            &format!("{} items", step.items),
        );
    }
    let rules = ListKind::Transactions.rules();
    let spec = ReadSpec::prefix(query(&[("limit", "100")]), DEFAULT_READ_ITEMS);
    let base = read(cx, &list, &spec, rules.agree).await?;
    compare_reads(cx, rules, ("limit=100", &base), ("no limit", &unlimited));
    Ok(())
}

/// Items the default-limit case reads, without limit and at limit=100.
const DEFAULT_READ_ITEMS: usize = 300;
/// The rule of a first page's previous token.
const PREV_FIRST: &str = "BPAG-PREV-NULL-FIRST";

/// The previous token of page 2 leads back to page 1's items.
async fn prev_token(cx: &mut CaseCx) -> Outcome {
    let rule = "BPAG-PREV-ROUNDTRIP";
    let list = ListKind::Transactions.list(cx);
    let first = query(&[("limit", "10")]);
    let (page1, token) = first_with_next(cx, &list, &first, rule).await?;
    let Some(page2) = follow(cx, &list, &first, &token, rule, "page 2").await? else {
        return Ok(());
    };
    let Some(prev) = page2.prev.clone() else {
        cx.finding(
            rule,
            "page 2 has no previous token (prevPaginationToken is null)",
        );
        return Ok(());
    };
    let what = "the previous token of page 2";
    let Some(back) = follow(cx, &list, &first, &prev, rule, what).await? else {
        return Ok(());
    };
    expect_same_items(cx, rule, &page1, &back, || {
        format!(
            "the previous token of page 2 ({}) gave other items than page 1 ({} against {} items)",
            super::list::short_hash(&prev),
            back.items.len(),
            page1.items.len()
        )
    });
    // The page it leads back to is the first page, however it was reached.
    if keys(&back) == keys(&page1) {
        cx.judged(PREV_FIRST);
        if let Some(t) = &back.prev {
            cx.finding(
                PREV_FIRST,
                format!(
                    "page 1, reached through the previous token of page 2, has a previous token                      ({}) where null was expected",
                    super::list::short_hash(t)
                ),
            );
        }
    }
    Ok(())
}

/// The profile's empty account, when it names one: its first page has no previous token, and
/// a full read of it ends. A next token on an empty page is allowed (a page shorter than the
/// limit does not mean the end), so it is followed, up to [`EMPTY_READ_PAGES`] pages. A
/// refused first page leaves this part out.
pub(super) async fn empty_account(cx: &mut CaseCx) -> Outcome {
    let Some(account) = cx
        .run
        .banking()
        .and_then(|b| b.empty_bank_account_id.clone())
    else {
        return Ok(());
    };
    let list = List::of(OperationId::ListTransactions, vec![account]);
    let first = Query::new();
    // A refusal here is a fixture problem (or a 5xx, already a finding), not a token breach.
    let Fetched::Page(mut page) = fetch(cx, &list, &first).await? else {
        return Ok(());
    };
    cx.judged("BPAG-PREV-NULL-FIRST");
    if let Some(t) = &page.prev {
        cx.finding(
            "BPAG-PREV-NULL-FIRST",
            format!(
                "the first page of the empty account ({} items) has a previous token ({}) where \
                 null was expected",
                page.items.len(),
                super::list::short_hash(t)
            ),
        );
    }
    let rule = "BPAG-NEXT-NULL-LAST";
    for read in 1.. {
        let Some(next) = page.next.clone() else {
            cx.judged(rule);
            return Ok(());
        };
        if read == EMPTY_READ_PAGES {
            cx.finding(
                rule,
                format!(
                    "a full read of the empty account did not end: page {read} still has a next \
                     token ({})",
                    super::list::short_hash(&next)
                ),
            );
            return Ok(());
        }
        let what = format!("page {} of the empty account", read + 1);
        match follow(cx, &list, &first, &next, rule, &what).await? {
            Some(following) => page = following,
            None => return Ok(()),
        }
    }
    Ok(())
}

/// Pages a full read of the empty account may take before it counts as not ending.
const EMPTY_READ_PAGES: usize = 5;
