//! The banking error body, which every banking refusal is written in (403 without
//! `errorCode`), and the answers under `/embedded-banking` for no route and for a wrong method.

use crate::reply;
use crate::store::App;
use axum::http::{StatusCode, Uri};
use axum::response::Response;

/// An answer in the banking error body: `status`, its `errorCode` if any, the detail and the
/// request's path.
pub(super) fn error(
    app: &App,
    status: StatusCode,
    code: Option<&str>,
    detail: &str,
    uri: &Uri,
) -> Response {
    reply::banking_error(&app.faults, status, code, detail, uri.path())
}

/// Answers a request for no route under `/embedded-banking`, in the banking error body.
pub fn route_not_found(app: &App, uri: &Uri) -> Response {
    error(
        app,
        StatusCode::NOT_FOUND,
        Some("NOT_FOUND"),
        "no such route",
        uri,
    )
}

/// Answers a known route with a method it does not take.
pub fn method_not_allowed(app: &App, uri: &Uri) -> Response {
    error(
        app,
        StatusCode::METHOD_NOT_ALLOWED,
        Some("METHOD_NOT_ALLOWED"),
        "method not allowed on this route",
        uri,
    )
}
