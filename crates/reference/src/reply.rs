//! Responses of the reference: the spec's three error bodies and JSON success bodies.
//!
//! Every answer of the server is built here so that the error-body faults (`ERR-*`) and the
//! generic body faults happen in one place. Nothing here reads state.

use super::fault::{Fault, FaultSet};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// What a handler answers: the response, or the error response that ended it early (`?` returns
/// it). Either way the client gets a response.
pub type Reply = Result<Response, Response>;

/// A JSON body with `application/json`.
pub fn json(status: StatusCode, body: &Value) -> Response {
    let bytes = serde_json::to_vec(body).expect("a serde_json::Value always serialises");
    with_type(status, bytes, "application/json")
}

/// A body with the given content type.
pub fn with_type(status: StatusCode, body: Vec<u8>, content_type: &'static str) -> Response {
    let mut response = (status, body).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// 204 without a body.
pub fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// The finance error body `{ error: { message } }`.
pub fn finance_error(faults: &FaultSet, status: StatusCode, message: &str) -> Response {
    let body = if faults.has(Fault::FinErrorBodyFlat) {
        json!({ "message": message })
    } else {
        json!({ "error": { "message": message } })
    };
    json(status, &body)
}

/// One entry of a finance 422 body.
#[derive(Debug, Clone)]
pub struct FieldError {
    pub loc: Vec<String>,
    pub msg: String,
    pub kind: &'static str,
}

impl FieldError {
    /// A problem with a body member.
    pub fn body(field: &str, msg: impl Into<String>, kind: &'static str) -> FieldError {
        FieldError {
            loc: vec!["body".to_owned(), field.to_owned()],
            msg: msg.into(),
            kind,
        }
    }

    /// A problem with the body as a whole.
    pub fn whole_body(msg: impl Into<String>, kind: &'static str) -> FieldError {
        FieldError {
            loc: vec!["body".to_owned()],
            msg: msg.into(),
            kind,
        }
    }

    /// A problem with a query parameter.
    pub fn query(name: &str, msg: impl Into<String>, kind: &'static str) -> FieldError {
        FieldError {
            loc: vec!["query".to_owned(), name.to_owned()],
            msg: msg.into(),
            kind,
        }
    }

    /// A problem with a path parameter.
    pub fn path(name: &str, msg: impl Into<String>) -> FieldError {
        FieldError {
            loc: vec!["path".to_owned(), name.to_owned()],
            msg: msg.into(),
            kind: "uuid_parsing",
        }
    }
}

/// The finance validation body `{ detail: [ { loc, msg, type } ] }` with 422.
pub fn validation(faults: &FaultSet, problems: &[FieldError]) -> Response {
    let detail: Vec<Value> = problems
        .iter()
        .map(|p| {
            let loc = if faults.has(Fault::Fin422LocString) {
                Value::String(p.loc.join("."))
            } else {
                json!(p.loc)
            };
            json!({ "loc": loc, "msg": p.msg, "type": p.kind })
        })
        .collect();
    json(
        StatusCode::UNPROCESSABLE_ENTITY,
        &json!({ "detail": detail }),
    )
}

/// The embedded banking error body `{ detail, errorCode, instance, status, title, type }`.
/// `code` is `None` for the variant that omits `errorCode`.
pub fn banking_error(
    faults: &FaultSet,
    status: StatusCode,
    code: Option<&str>,
    detail: &str,
    instance: &str,
) -> Response {
    let title = status.canonical_reason().unwrap_or("Error");
    let said_status = if faults.has(Fault::BankErrorStatus400) {
        400
    } else {
        status.as_u16()
    };
    let mut body = serde_json::Map::new();
    body.insert("detail".into(), json!(detail));
    if let Some(code) = code {
        body.insert("errorCode".into(), json!(code));
    }
    body.insert("instance".into(), json!(instance));
    body.insert("status".into(), json!(said_status));
    if !faults.has(Fault::BankErrorTitleMissing) {
        body.insert("title".into(), json!(title));
    }
    body.insert(
        "type".into(),
        json!(format!(
            "https://covenant.invalid/problems/{}",
            status.as_u16()
        )),
    );
    json(status, &Value::Object(body))
}

/// The 500 of the `gen-500-on-unparseable-body` fault.
pub fn internal_error() -> Response {
    with_type(
        StatusCode::INTERNAL_SERVER_ERROR,
        b"Internal Server Error".to_vec(),
        "text/plain",
    )
}
