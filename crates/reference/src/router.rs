//! The routes of the ten operations and the token endpoint, and the answers for a path no
//! route takes and for a method a route does not: in the banking error body under
//! `/embedded-banking`, in the finance one elsewhere (an HTML page or a bare body under their
//! faults).

use crate::fault::Fault;
use crate::store::App;
use crate::{banking, finance, reply};
use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use axum::routing::{delete, get, patch, post};
use axum::Router;
use std::sync::Arc;

pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/finops/v1/receivables", post(finance::create_receivable))
        .route(
            "/finops/v1/counterparts/{counterpart_id}/vat-ids",
            post(finance::create_vat),
        )
        .route(
            "/finops/v1/counterparts/{counterpart_id}/vat-ids/{vat_id}",
            get(finance::get_vat),
        )
        .route(
            "/finops/v1/comments/{comment_id}",
            patch(finance::update_comment),
        )
        .route(
            "/finops/v1/mailbox-domains",
            post(finance::create_mailbox_domain),
        )
        .route("/finops/v1/tags/{tag_id}", delete(finance::delete_tag))
        .route(
            "/finops/v1/counterparts/{counterpart_id}/bank-accounts/{bank_account_id}",
            delete(finance::delete_bank_account),
        )
        .route("/finops/v1/events", get(finance::list_events_v1))
        .route("/finops/events", get(finance::list_events_bare))
        .route(
            "/embedded-banking/v1/authorization-controls/velocity-controls",
            post(banking::create_velocity_control),
        )
        .route(
            "/embedded-banking/v1/bank-accounts/{id}/transactions",
            get(banking::list_transactions),
        )
        .route("/oauth/token", post(banking::token))
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .with_state(app)
}

async fn no_route(State(app): State<Arc<App>>, uri: Uri) -> Response {
    if uri.path().starts_with("/embedded-banking") {
        banking::route_not_found(&app, &uri)
    } else {
        finance::route_not_found(&app)
    }
}

async fn wrong_method(State(app): State<Arc<App>>, uri: Uri) -> Response {
    let status = axum::http::StatusCode::METHOD_NOT_ALLOWED;
    if app.faults.has(Fault::UnlistedMethodHtml) {
        let page = b"<html><body><h1>405 Method Not Allowed</h1></body></html>".to_vec();
        return reply::with_type(status, page, "text/html; charset=utf-8");
    }
    if app.faults.has(Fault::UnlistedMethodBareBody) {
        return reply::json(
            status,
            &serde_json::json!({ "message": "Method Not Allowed" }),
        );
    }
    if uri.path().starts_with("/embedded-banking") {
        banking::method_not_allowed(&app, &uri)
    } else {
        reply::finance_error(
            &app.faults,
            axum::http::StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed on this route",
        )
    }
}
