//! Answers to bad requests: unparseable bodies are a 4xx, never a 5xx; unknown routes a 404 and
//! wrong methods a 405, each with a JSON body.

use super::client::{clean, Ctx};
use reqwest::Method;

#[tokio::test]
async fn unparseable_bodies_get_a_4xx_never_a_5xx() {
    let (_s, c) = clean().await;
    let fin = [
        "/finops/v1/receivables".to_owned(),
        format!("/finops/v1/counterparts/{}/vat-ids", c.counterpart()),
        "/finops/v1/mailbox-domains".to_owned(),
    ];
    for path in fin {
        for body in ["{not json", "", "\u{0}"] {
            let r = Ctx::send(
                c.finance(Method::POST, &path)
                    .header("content-type", "text/plain")
                    .body(body),
            )
            .await;
            assert!(
                (400..500).contains(&r.status),
                "{path} {body:?} -> {}",
                r.status
            );
        }
    }
    let comment = format!("/finops/v1/comments/{}", c.comment_id());
    assert_eq!(
        Ctx::send(c.finance(Method::PATCH, &comment).body("["))
            .await
            .status,
        422
    );
    let token = c.bank_token().await;
    let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
    let r = Ctx::send(c.banking(Method::POST, path, Some(&token)).body("{")).await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn unknown_routes_are_404_and_wrong_methods_405_with_json_bodies() {
    let (_s, c) = clean().await;
    let r = Ctx::send(c.finance(Method::GET, "/finops/v1/nothing")).await;
    assert_eq!(r.status, 404);
    assert!(r.json.is_some());
    let r = Ctx::send(c.finance(Method::GET, "/finops/v1/receivables")).await;
    assert_eq!(r.status, 405);
    assert!(r.body()["error"]["message"].is_string());
    let r = Ctx::send(c.banking(
        Method::GET,
        "/embedded-banking/v1/authorization-controls/velocity-controls",
        None,
    ))
    .await;
    assert_eq!(r.status, 405);
    assert_eq!(r.get("status"), 405);
    assert_eq!(
        Ctx::send(c.finance(Method::GET, "/finops/events"))
            .await
            .status,
        404
    );
}
