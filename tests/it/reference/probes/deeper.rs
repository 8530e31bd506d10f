//! The probes of the faults the explorer meets along a longer path (issue 52): each walks the
//! path that reaches its fault, and sees the deviation only where the fault states it (what
//! the path passed on the way is as the clean server gives it).

use super::super::client::{Ctx, PagedList, Resp};
use reqwest::Method;
use serde_json::{json, Value};

const VELOCITY: &str = "/embedded-banking/v1/authorization-controls/velocity-controls";

fn vat(n: usize) -> Value {
    json!({ "value": format!("DE{n:09}"), "country": "DE", "type": "eu_vat" })
}

fn id_of(r: &Resp) -> String {
    r.get("id").as_str().unwrap_or_default().to_owned()
}

/// Pages 1 to 3 of transactions forward, back to page 2 by page 3's previous token, and on by
/// that page's next token: it gives page 4, not page 3 again.
pub async fn prev_page_next_skips(c: &Ctx) -> bool {
    let list = PagedList::Transactions;
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
    let list = PagedList::Transactions;
    let whole = c.full_read(list, 50).await.unwrap_or_default();
    let first = c.page(list, "limit=100").await;
    let second = c.follow(list, &first.token(list.next())).await;
    let hundreds = c.full_read(list, 100).await.unwrap_or_default();
    first.ids()[..] == whole[..99.min(whole.len())]
        && second.ids().first() == whole.get(100)
        && hundreds.len() < whole.len()
}

/// The first page at limit 1 claims to be the last; at limit 2 it does not.
pub async fn limit_one_first_page_ends(c: &Ctx) -> bool {
    let one = c.events("limit=1").await;
    let two = c.events("limit=2").await;
    let next = "next_pagination_token";
    one.status == 200
        && one.ids().len() == 1
        && one.get(next).is_null()
        && two.get(next).is_string()
}

/// The other organization's events, newest first, as ids.
async fn other_events(c: &Ctx) -> Vec<String> {
    let path = "/finops/v1/events?limit=100&order=desc";
    let rb = c.finance_as(Method::GET, path, c.other_org(), c.p.finops_version());
    Ctx::send(rb).await.ids()
}

/// After seven writes the organization's newest event is not in the other's list; after the
/// eighth it is.
pub async fn leak_after_eight_writes(c: &Ctx) -> bool {
    for n in 0..7 {
        c.create_vat(vat(n)).await;
    }
    let newest = c.events("limit=1&order=desc").await.ids();
    let kept = !newest.is_empty() && !other_events(c).await.contains(&newest[0]);
    c.create_vat(vat(7)).await;
    let newest = c.events("limit=1&order=desc").await.ids();
    kept && !newest.is_empty() && other_events(c).await.contains(&newest[0])
}

/// A create refused for its body (usageLimit with the TRANSACTION window), then a valid one
/// with its id: answered 409 as a duplicate, while a fresh id is created.
pub async fn refused_create_takes_id(c: &Ctx) -> bool {
    let token = c.bank_token().await;
    let id = c.unique("refused");
    let refused = json!({ "id": id, "velocityWindow": "TRANSACTION", "usageLimit": 3 });
    let refused = c.velocity_with(c.control(refused), &token).await;
    let fresh = c.velocity_with(c.control(json!({})), &token).await;
    let again = c
        .velocity_with(c.control(json!({ "id": id })), &token)
        .await;
    refused.status == 400
        && fresh.status == 201
        && again.status == 409
        && again.get("errorCode") == "DUPLICATE_ID"
}

/// A control of the other banking organization, then one of the caller's own with its id:
/// answered 409, as a second one of the own organization is.
pub async fn id_across_organizations(c: &Ctx) -> bool {
    let token = c.bank_token().await;
    let other = c.bank().other_organization_id.clone().unwrap_or_default();
    let header = c.bank().org_header.clone().unwrap_or_default();
    let body = c.control(json!({}));
    let rb = c.banking(Method::POST, VELOCITY, Some(&token));
    let foreign = Ctx::send(rb.header(header.as_str(), other.as_str()).json(&body)).await;
    let own = c.velocity_with(body.clone(), &token).await;
    let fresh = c.control(json!({}));
    let first = c.velocity_with(fresh.clone(), &token).await;
    let twice = c.velocity_with(fresh, &token).await;
    foreign.status == 201 && own.status == 409 && first.status == 201 && twice.status == 409
}

/// A quote and an invoice naming a VAT ID created through the API are answered 404 in the
/// finance error body; one naming any other uuid is created.
pub async fn created_vat_id_refused(c: &Ctx) -> bool {
    let id = id_of(&c.create_vat(vat(1)).await);
    let named = json!({ "counterpart_vat_id_id": id });
    let quote = c.receivable(c.quote(named.clone())).await;
    let invoice = c.receivable(c.invoice(named)).await;
    let other = json!({ "counterpart_vat_id_id": uuid::Uuid::new_v4().to_string() });
    quote.status == 404
        && invoice.status == 404
        && quote.body()["error"]["message"].is_string()
        && c.quote_created(other).await
}

/// A quote with a tag, an invoice based on it, the tag deleted: a credit note based on the
/// invoice finds no source (404), while the quote is still there.
pub async fn deletes_derived_invoices(c: &Ctx) -> bool {
    // Tag 6 is one no seeded receivable carries.
    let tag = c.fin().deletable_tag_ids[6].clone();
    let quote = id_of(&c.receivable(c.quote(json!({ "tag_ids": [tag] }))).await);
    let invoice = id_of(&c.based_on("invoice", &quote).await);
    let deleted = c.delete_tag(6).await.status == 204;
    let credit_note = c.based_on("credit_note", &invoice).await;
    let quote_kept = c.based_on("invoice", &quote).await.status == 201;
    deleted && quote_kept && credit_note.status == 404
}

/// A read with order=desc on every page: its first page is the default order's, its second
/// is not (the order honoured beside the token).
pub async fn order_beside_token(c: &Ctx) -> bool {
    let list = PagedList::Transactions;
    let plain = c.page(list, "limit=10").await;
    let first = c.page(list, "limit=10&order=desc").await;
    let token = first.token(list.next());
    let second = c
        .page(
            list,
            &format!("limit=10&order=desc&pagination_token={token}"),
        )
        .await;
    let after = c.follow(list, &plain.token(list.next())).await;
    first.ids() == plain.ids() && second.status == 200 && second.ids() != after.ids()
}
