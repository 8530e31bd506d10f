//! Cases of list bank account transactions alone: the default limit, the previous token, and
//! the profile's empty account.

use super::list::{
    expect_same_items, fetch, fetch_first, first_with_next, follow, query, Fetched, List, Query,
};
use super::{case, ListKind};
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;

pub(super) fn cases() -> Vec<Case> {
    vec![
        case(
            ListKind::Transactions,
            "transactions.default-limit",
            &["BPAG-DEFAULT-LIMIT-25"],
            1,
            case_fn(|cx| Box::pin(default_limit(cx))),
        ),
        case(
            ListKind::Transactions,
            "transactions.prev-token",
            &["BPAG-PREV-ROUNDTRIP"],
            3,
            case_fn(|cx| Box::pin(prev_token(cx))),
        ),
    ]
}

/// Without limit, a page holds at most 25 items.
async fn default_limit(cx: &mut CaseCx) -> Outcome {
    let rule = "BPAG-DEFAULT-LIMIT-25";
    let list = ListKind::Transactions.list(cx);
    let page = fetch_first(cx, &list, &Query::new(), rule).await?;
    if page.items.len() > 25 {
        cx.finding_diff(
            rule,
            format!(
                "the first page without limit holds {} items; the default limit is 25",
                page.items.len()
            ),
            "at most 25 items",
            &format!("{} items", page.items.len()),
        );
    }
    Ok(())
}

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
            super::short_hash(&prev),
            back.items.len(),
            page1.items.len()
        )
    });
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
                super::short_hash(t)
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
                    super::short_hash(&next)
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
