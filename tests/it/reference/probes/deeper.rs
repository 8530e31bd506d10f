//! The probes of the faults the explorer meets along a longer path (issue 52): each walks the
//! path that reaches its fault, and sees the deviation only where the fault states it (what
//! the path passed on the way is as the clean server gives it).

use super::super::client::{Ctx, List};

/// Pages 1 to 3 of transactions forward, back to page 2 by page 3's previous token, and on by
/// that page's next token: it gives page 4, not page 3 again.
pub async fn prev_page_next_skips(c: &Ctx) -> bool {
    let list = List::Transactions;
    let first = c.page(list, "limit=10").await;
    let second = c.follow(list, &first.token(list.next())).await;
    let third = c.follow(list, &second.token(list.next())).await;
    let mut forward = first.ids();
    forward.extend(second.ids());
    forward.extend(third.ids());
    let forward_kept = forward == c.page(list, "limit=30").await.ids();
    let back = c.follow(list, &third.token(list.prev())).await;
    let again = c.follow(list, &back.token(list.next())).await;
    forward_kept && back.ids() == second.ids() && again.ids() != third.ids()
}

/// A full read at limit 100 misses one item per full page: the first page holds 99, and its
/// next token leads to the 101st item all the same.
pub async fn limit_100_drops_last(c: &Ctx) -> bool {
    let list = List::Transactions;
    let whole = c.full_read(list, 50).await.unwrap_or_default();
    let first = c.page(list, "limit=100").await;
    let second = c.follow(list, &first.token(list.next())).await;
    let hundreds = c.full_read(list, 100).await.unwrap_or_default();
    first.ids()[..] == whole[..99.min(whole.len())]
        && second.ids().first() == whole.get(100)
        && hundreds.len() < whole.len()
}
