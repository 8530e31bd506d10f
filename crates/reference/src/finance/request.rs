//! The parts of a request a finance handler reads itself (the body, a path id, the query),
//! parsed so that no input reaches an axum rejection or a panic: what does not parse is a 422
//! in the finance validation body.

use crate::fault::Fault;
use crate::receivable::parse_uuid;
use crate::reply::{self, FieldError};
use crate::store::App;
use axum::body::Bytes;
use axum::response::Response;
use serde_json::Value;
use std::collections::HashMap;
use uuid::Uuid;

/// The body as JSON; anything else is a 422 (or the 500 of its fault).
pub fn parse_body(app: &App, body: &Bytes) -> Result<Value, Response> {
    if app.faults.has(Fault::UnparseableBodyAsEmpty)
        && serde_json::from_slice::<Value>(body).is_err()
    {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_slice(body).map_err(|e| {
        if app.faults.has(Fault::ServerErrorOnUnparseableBody) {
            reply::internal_error()
        } else {
            let msg = format!("JSON decode error: {e}");
            reply::validation(&app.faults, &[FieldError::whole_body(msg, "json_invalid")])
        }
    })
}

pub(super) fn path_uuid(app: &App, name: &str, raw: &str) -> Result<Uuid, Response> {
    parse_uuid(raw).ok_or_else(|| {
        reply::validation(
            &app.faults,
            &[FieldError::path(name, "Input should be a valid UUID")],
        )
    })
}

/// Query parameters, the last of each name winning.
pub fn query_map(query: Option<&str>) -> HashMap<String, String> {
    url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}
