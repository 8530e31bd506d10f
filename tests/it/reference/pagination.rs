//! The two paginated lists, list events and list transactions: full reads, stable reusable
//! tokens, prev leading back, and the events that writes append.

use super::client::{clean, is_uuid, Ctx, PagedList, Resp};
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn events_page_forward_and_back_in_both_orders() {
    let (_s, c) = clean().await;
    let all = c
        .full_read(PagedList::Events, 100)
        .await
        .expect("the read ends");
    assert!(all.len() >= 150, "{}", all.len());
    assert_eq!(c.full_read(PagedList::Events, 7).await.unwrap(), all);
    let first = c.events("limit=10").await;
    assert_eq!(first.get("prev_pagination_token"), &Value::Null);
    let item = &first.get("data")[0];
    for f in ["id", "entity_id"] {
        assert!(is_uuid(&item[f]));
    }
    for f in [
        "action",
        "api_version",
        "description",
        "object_type",
        "created_at",
    ] {
        assert!(item[f].is_string(), "{f}");
    }
    let times = |r: &Resp| -> Vec<String> {
        r.get("data")
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["created_at"].as_str().unwrap().to_owned())
            .collect()
    };
    let asc = times(&c.events("limit=100").await);
    assert!(asc.windows(2).all(|w| w[0] < w[1]));
    let desc = times(&c.events("limit=100&order=desc&sort=created_at").await);
    assert!(desc.windows(2).all(|w| w[0] > w[1]));
    let next = first.token(PagedList::Events.next());
    let second = c
        .events(&format!("pagination_token={next}&limit=3&order=desc"))
        .await;
    assert_eq!(second.ids().len(), 10, "the token's own limit holds");
    c.assert_token_reusable_and_prev_leads_back(PagedList::Events, &first, &second)
        .await;
    for bad in [
        "limit=0",
        "limit=101",
        "limit=ten",
        "order=up",
        "sort=id",
        "pagination_token=zzz",
    ] {
        let s = c.events(bad).await.status;
        assert!((400..500).contains(&s), "{bad} -> {s}");
    }
    let other = Ctx::send(c.finance_as(
        Method::GET,
        "/finops/v1/events",
        c.other_org(),
        c.p.finops_version(),
    ))
    .await;
    assert!(
        other.ids().iter().all(|id| !all.contains(id)),
        "events are per organization"
    );
}

#[tokio::test]
async fn writes_append_events() {
    let (_s, c) = clean().await;
    let before = c.full_read(PagedList::Events, 100).await.unwrap().len();
    c.vat().await;
    c.delete_tag(3).await;
    let after = c.events("limit=2&order=desc&sort=created_at").await;
    assert_eq!(
        c.full_read(PagedList::Events, 100).await.unwrap().len(),
        before + 2
    );
    let types: Vec<&str> = after
        .get("data")
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["object_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["tag", "counterpart_tax_id"]);
}
#[tokio::test]
async fn transactions_page_with_stable_reusable_tokens() {
    let (_s, c) = clean().await;
    let all = c
        .full_read(PagedList::Transactions, 100)
        .await
        .expect("the read ends");
    assert_eq!(all.len(), covenant::reference::TRANSACTION_COUNT);
    assert_eq!(c.full_read(PagedList::Transactions, 25).await.unwrap(), all);
    assert_eq!(c.full_read(PagedList::Transactions, 1).await.unwrap(), all);
    let first = c.tx("").await;
    assert_eq!(first.ids().len(), 25);
    assert_eq!(first.get("prevPaginationToken"), &Value::Null);
    let second = c
        .follow(
            PagedList::Transactions,
            &first.token(PagedList::Transactions.next()),
        )
        .await;
    c.assert_token_reusable_and_prev_leads_back(PagedList::Transactions, &first, &second)
        .await;
    assert_eq!(c.tx("limit=100").await.ids().len(), 100);
    for bad in ["limit=0", "limit=101", "limit=x", "pagination_token=forged"] {
        assert_eq!(c.tx(bad).await.status, 400, "{bad}");
    }
    let token = c.bank_token().await;
    let empty = c
        .tx_raw(
            c.bank().empty_bank_account_id.as_deref().unwrap(),
            "",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(empty.status, 200);
    assert_eq!(
        empty.body(),
        &json!({ "data": [], "nextPaginationToken": null, "prevPaginationToken": null })
    );
    let unknown = c
        .tx_raw(&uuid::Uuid::new_v4().to_string(), "", Some(&token), None)
        .await;
    assert_eq!(unknown.status, 404);
    let account = c.bank().bank_account_id.as_deref().unwrap();
    assert_eq!(c.tx_raw(account, "", None, None).await.status, 401);
    assert_eq!(
        c.tx_raw(account, "", Some("forged"), None).await.status,
        401
    );
    assert_eq!(
        c.tx_raw(account, "", Some(&token), Some("12")).await.status,
        400
    );
    let scopeless = c.scopeless_token();
    assert_eq!(
        c.tx_raw(account, "", Some(&scopeless), None).await.status,
        200
    );
}
