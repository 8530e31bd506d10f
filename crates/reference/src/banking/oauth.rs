//! The reference's own OAuth 2.0 token endpoint: the client-credentials grant that issues the
//! banking access tokens. The spec does not show how tokens are obtained, so that covenant
//! has one way to get them, scoped or not, from the profile alone.

use crate::reply;
use crate::store::{App, READ_SCOPE, WRITE_SCOPE};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use rand::Rng;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;

fn oauth_error(status: StatusCode, code: &str, description: &str) -> Response {
    reply::json(
        status,
        &json!({ "error": code, "error_description": description }),
    )
}

/// `POST /oauth/token`: the client-credentials grant (RFC 6749 section 4.4), form-encoded.
pub async fn token(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "grant_type must be client_credentials",
        );
    }
    let ids = &app.ids;
    let id = form.get("client_id").map(String::as_str).unwrap_or("");
    let secret = form.get("client_secret").map(String::as_str).unwrap_or("");
    let granted: &[&str] = if id == ids.client_id && secret == ids.client_secret {
        &[WRITE_SCOPE, READ_SCOPE]
    } else if id == ids.scopeless_client_id && secret == ids.scopeless_client_secret {
        &[]
    } else {
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "unknown client or wrong secret",
        );
    };
    let scope: Vec<&str> = match form.get("scope") {
        Some(asked) => asked.split_whitespace().collect(),
        None => granted.to_vec(),
    };
    if scope.iter().any(|s| !granted.contains(s)) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            "a requested scope is not granted to this client",
        );
    }
    let access_token = {
        let mut db = app.db();
        db.token_count += 1;
        let (a, b) = (db.rng.random::<u64>(), db.rng.random::<u64>());
        let t = format!("at_{:04}_{a:016x}{b:016x}", db.token_count);
        db.tokens.insert(t.clone(), scope.contains(&WRITE_SCOPE));
        t
    };
    reply::json(
        StatusCode::OK,
        &json!({ "access_token": access_token, "token_type": "Bearer", "expires_in": 3600, "scope": scope.join(" ") }),
    )
}
