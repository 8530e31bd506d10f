//! The finance answers the handlers share beyond their own: not found (of a resource, or of a
//! route), and a handler's reply made one response, whichever side it ended on.

use crate::reply::{self, Reply};
use crate::store::App;
use axum::http::StatusCode;
use axum::response::Response;

pub(super) fn not_found(app: &App, what: &str) -> Response {
    reply::finance_error(
        &app.faults,
        StatusCode::NOT_FOUND,
        &format!("{what} not found"),
    )
}

pub(super) fn merge(result: Reply) -> Response {
    result.unwrap_or_else(|e| e)
}

/// Answers a request for no route, in the finance error body.
pub fn route_not_found(app: &App) -> Response {
    not_found(app, "route")
}
