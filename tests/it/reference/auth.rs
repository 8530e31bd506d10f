//! Authentication and the header gate: finance bearer tokens and headers, and the banking
//! OAuth token endpoint that issues scoped tokens.

use super::client::{clean, Ctx};
use reqwest::Method;

#[tokio::test]
async fn finance_auth_is_required_and_checked() {
    let (_s, c) = clean().await;
    let missing = Ctx::send(
        c.finance_bare(Method::GET, "/finops/v1/events")
            .header("x-organization-id", c.org()),
    )
    .await;
    assert_eq!(missing.status, 401);
    assert!(missing.body()["error"]["message"].is_string());
    let wrong = Ctx::send(
        c.finance_bare(Method::GET, "/finops/v1/events")
            .bearer_auth("nope")
            .header("x-organization-id", c.org()),
    )
    .await;
    assert_eq!(wrong.status, 401);
}

#[tokio::test]
async fn bearer_scheme_is_case_insensitive() {
    let (_s, c) = clean().await;
    let token = c.fin().token.as_ref().unwrap().expose().to_owned();
    let rb = c
        .finance_bare(Method::GET, "/finops/v1/events")
        .header("authorization", format!("bearer {token}"))
        .header("x-organization-id", c.org());
    assert_eq!(Ctx::send(rb).await.status, 200);
}

#[tokio::test]
async fn finance_headers_are_validated() {
    let (_s, c) = clean().await;
    let version = c.p.finops_version();
    let events = "/finops/v1/events";
    let bad_version = Ctx::send(c.finance_as(Method::GET, events, c.org(), "latest")).await;
    assert_eq!(bad_version.status, 400);
    let rb = c
        .http
        .get(format!("{}/finops/v1/events", c.base))
        .bearer_auth(c.fin().token.as_ref().unwrap().expose())
        .header("x-organization-id", c.org());
    assert_eq!(Ctx::send(rb).await.status, 400, "version missing");
    let bad_org = Ctx::send(c.finance_as(Method::GET, events, "acme", version)).await;
    assert_eq!(bad_org.status, 400);
    let stranger = uuid::Uuid::new_v4().to_string();
    let unknown_org = Ctx::send(c.finance_as(Method::GET, events, &stranger, version)).await;
    assert_eq!(unknown_org.status, 403);
    assert!(unknown_org.body()["error"]["message"].is_string());
}
#[tokio::test]
async fn oauth_token_endpoint_issues_scoped_tokens() {
    let (_s, c) = clean().await;
    let oauth = c.bank().oauth.clone().unwrap();
    let secret = oauth.client_secret.as_ref().unwrap().expose().to_owned();
    let post =
        |form: Vec<(&'static str, String)>| Ctx::send(c.http.post(&oauth.token_url).form(&form));
    let ok = post(vec![
        ("grant_type", "client_credentials".into()),
        ("client_id", oauth.client_id.clone()),
        ("client_secret", secret.clone()),
        ("scope", "authorization_control:write:org".into()),
    ])
    .await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.get("token_type"), "Bearer");
    assert_eq!(ok.get("scope"), "authorization_control:write:org");
    assert!(ok.get("expires_in").is_u64() && ok.get("access_token").is_string());
    let wrong = post(vec![
        ("grant_type", "client_credentials".into()),
        ("client_id", oauth.client_id.clone()),
        ("client_secret", "wrong".into()),
    ])
    .await;
    assert_eq!(wrong.status, 401);
    let grant = post(vec![("grant_type", "password".into())]).await;
    assert_eq!(grant.status, 400);
    let scope = post(vec![
        ("grant_type", "client_credentials".into()),
        ("client_id", oauth.client_id.clone()),
        ("client_secret", secret),
        ("scope", "admin".into()),
    ])
    .await;
    assert_eq!(scope.status, 400);
}
