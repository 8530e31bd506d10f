//! The banking velocity controls: scoped to an organization or a card, bodies and scopes
//! checked.

use super::client::{clean, without, Ctx};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn velocity_controls_are_scoped_to_organization_or_card() {
    let (_s, c) = clean().await;
    let body = c.control(json!({ "mcc": "5411", "usageLimit": -1 }));
    let org = c.velocity(body.clone()).await;
    assert_eq!(org.status, 201, "{}", org.text);
    assert_eq!(org.get("id"), &body["id"]);
    assert_eq!(org.get("active"), false);
    assert_eq!(
        org.get("organizationId"),
        c.bank().organization_id.as_deref().unwrap()
    );
    assert!(!org.has("cardId"));
    assert_eq!(org.get("usageLimit"), -1);
    for f in [
        "createdAt",
        "updatedAt",
        "name",
        "currencyCode",
        "velocityWindow",
    ] {
        assert!(org.get(f).is_string(), "{f}");
    }
    let card = c
        .velocity(c.control(json!({ "cardId": c.card(), "active": true })))
        .await;
    assert_eq!(card.status, 201);
    assert_eq!(card.get("cardId"), c.card());
    assert!(!card.has("organizationId"));
    let dup = c.velocity(body).await;
    assert_eq!(dup.status, 409);
    let foreign = c
        .velocity(c.control(json!({ "cardId": c.bank().foreign_card_id.as_deref().unwrap() })))
        .await;
    assert_eq!(foreign.status, 403);
    assert!(
        !foreign.has("errorCode"),
        "403 is the variant without errorCode"
    );
    let token = c.bank_token().await;
    let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
    let with_header = Ctx::send(
        c.banking(Method::POST, path, Some(&token))
            .header(
                "x-partner-organization-id",
                c.bank().organization_id.as_deref().unwrap(),
            )
            .json(&c.control(json!({}))),
    )
    .await;
    assert_eq!(with_header.status, 201);
    for bad in ["", "not-a-uuid"] {
        let r = Ctx::send(
            c.banking(Method::POST, path, Some(&token))
                .header("x-partner-organization-id", bad)
                .json(&c.control(json!({}))),
        )
        .await;
        assert_eq!(r.status, 400, "{bad:?}");
        assert_eq!(r.get("status"), 400);
    }
}

#[tokio::test]
async fn velocity_control_bodies_and_scopes_are_checked() {
    let (_s, c) = clean().await;
    let bad = [
        json!({ "velocityWindow": "HOUR" }),
        json!({ "velocityWindow": "TRANSACTION", "usageLimit": 3 }),
        json!({ "usageLimit": -2 }),
        json!({ "amountLimit": "100" }),
        json!({ "currencyCode": "euro" }),
        json!({ "active": "yes" }),
        json!({ "cardId": "card-1" }),
    ];
    for extra in bad {
        let r = c.velocity(c.control(extra.clone())).await;
        assert_eq!(r.status, 400, "{extra}");
        for f in ["detail", "errorCode", "instance", "title", "type"] {
            assert!(r.get(f).is_string(), "{f}");
        }
        assert_eq!(r.get("status"), 400);
    }
    for missing in [
        "id",
        "amountLimit",
        "currencyCode",
        "name",
        "velocityWindow",
    ] {
        let r = c.velocity(without(c.control(json!({})), missing)).await;
        assert_eq!(r.status, 400, "without {missing}");
    }
    let tx = c
        .velocity(c.control(json!({ "velocityWindow": "TRANSACTION" })))
        .await;
    assert_eq!(tx.status, 201);
    assert!(!tx.has("usageLimit"));
    let scopeless = c.scopeless_token();
    let r = c.velocity_with(c.control(json!({})), &scopeless).await;
    assert_eq!(r.status, 403);
    let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
    let none = Ctx::send(
        c.banking(Method::POST, path, None)
            .json(&c.control(json!({}))),
    )
    .await;
    assert_eq!(none.status, 401);
    assert_eq!(none.get("status"), 401);
}

#[tokio::test]
async fn the_token_acts_for_a_second_organization_without_reaching_the_first_ones_account_or_card()
{
    let (_s, c) = clean().await;
    let token = c.bank_token().await;
    let other = c.bank().other_organization_id.clone().unwrap();
    let header = c.bank().org_header.clone().unwrap();
    let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
    let create = |extra| {
        let rb = c.banking(Method::POST, path, Some(&token));
        Ctx::send(rb.header(&header, &other).json(&c.control(extra)))
    };
    let own = create(json!({})).await;
    assert_eq!(own.status, 201, "{}", own.text);
    assert_eq!(own.get("organizationId"), other.as_str());
    let card = create(json!({ "cardId": c.card() })).await;
    assert_eq!(card.status, 403, "{}", card.text);
    let account = c.bank().bank_account_id.clone().unwrap();
    let listed = c.tx_raw(&account, "", Some(&token), Some(&other)).await;
    assert_eq!(listed.status, 404, "{}", listed.text);
    let stranger = uuid::Uuid::new_v4().to_string();
    let refused = c.tx_raw(&account, "", Some(&token), Some(&stranger)).await;
    assert_eq!(refused.status, 403, "any other organization is refused");
}
