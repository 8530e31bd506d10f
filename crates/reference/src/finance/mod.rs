//! The finance operations area (`/finops/v1/...`): eight operations over the in-memory store.
//!
//! Every handler takes the raw body as bytes and parses it itself, so that no input can reach
//! an axum rejection or a panic: a body that is not JSON is a 4xx like any other bad input.
//! Handlers hold the store's lock only while they read or write it. This module holds what
//! they share: the header gate, body and path parsing, and the finance error answers.

mod comments;
mod deletes;
mod events;
mod mailbox;
mod receivables;
mod vat;

pub use comments::update_comment;
pub use deletes::{delete_bank_account, delete_tag};
pub use events::{list_events_bare, list_events_v1};
pub use mailbox::create_mailbox_domain;
pub use receivables::create_receivable;
pub use vat::{create_vat, get_vat};

use super::auth::bearer_token;
use super::fault::Fault;
use super::receivable::{parse_date, parse_uuid};
use super::reply::{self, FieldError, Reply};
use super::store::App;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;
use std::collections::HashMap;
use uuid::Uuid;

/// Whether an operation takes `x-organization-id`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum OrgHeader {
    Required,
    NotUsed,
}

/// Authentication, version and organization headers, in that order. Answers the organization.
pub(super) fn gate(
    app: &App,
    headers: &HeaderMap,
    org_header: OrgHeader,
) -> Result<Option<Uuid>, Response> {
    let f = &app.faults;
    let fail = |status, msg: &str| Err(reply::finance_error(f, status, msg));
    match headers
        .get("authorization")
        .map(|v| v.to_str().unwrap_or(""))
    {
        None if f.has(Fault::FinMissingTokenAccepted) => {}
        None if f.has(Fault::FinMissingToken403) => {
            return fail(StatusCode::FORBIDDEN, "access denied")
        }
        None => return fail(StatusCode::UNAUTHORIZED, "missing bearer token"),
        Some(value) => {
            let token = match value.split_once(' ') {
                Some((scheme, token))
                    if scheme.eq_ignore_ascii_case("basic")
                        && f.has(Fault::FinBasicSchemeAccepted) =>
                {
                    token.trim()
                }
                Some((scheme, _)) if scheme != "Bearer" && f.has(Fault::FinSchemeCaseSensitive) => {
                    ""
                }
                _ => bearer_token(value),
            };
            let real = app.ids.finance_token.as_str();
            let ends = |t: &str| {
                let n = t.len();
                n == real.len()
                    && n > 16
                    && t.get(..8) == real.get(..8)
                    && t.get(n - 8..) == real.get(n - 8..)
            };
            let ends = f.has(Fault::FinTokenEndsCompared) && ends(token);
            let any = f.has(Fault::FinInvalidTokenAccepted) && !token.is_empty();
            let prefix =
                f.has(Fault::FinTokenPrefixAccepted) && token.starts_with(&app.ids.finance_token);
            let banking =
                f.has(Fault::FinBankingTokenAccepted) && app.db().tokens.contains_key(token);
            if token != app.ids.finance_token && !any && !prefix && !banking && !ends {
                return fail(StatusCode::UNAUTHORIZED, "invalid bearer token");
            }
        }
    }
    match headers
        .get("x-finops-version")
        .map(|v| v.to_str().unwrap_or(""))
    {
        None => {
            return fail(
                StatusCode::BAD_REQUEST,
                "x-finops-version header is required",
            )
        }
        // Under its fault, a word naming the newest version is read as one.
        Some("latest") if f.has(Fault::VersionWordAccepted) => {}
        Some(v) if parse_date(v).is_none() && !f.has(Fault::VersionMalformedAccepted) => {
            return fail(
                StatusCode::BAD_REQUEST,
                "x-finops-version must be a date (YYYY-MM-DD)",
            )
        }
        Some(_) => {}
    }
    let required = org_header == OrgHeader::Required || f.has(Fault::MailboxRequiresOrgHeader);
    if !required {
        return Ok(None);
    }
    let Some(value) = headers.get("x-organization-id") else {
        return fail(
            StatusCode::BAD_REQUEST,
            "x-organization-id header is required",
        );
    };
    let org = match value.to_str().ok().and_then(parse_uuid) {
        Some(org) => org,
        None if f.has(Fault::FinOrgHeaderMalformedOwn) => app.ids.org,
        None => return fail(StatusCode::BAD_REQUEST, "x-organization-id must be a uuid"),
    };
    if org != app.ids.org && org != app.ids.other_org {
        return fail(
            StatusCode::FORBIDDEN,
            "the token may not act for this organization",
        );
    }
    Ok(Some(org))
}

/// The organization of an operation that requires the header.
pub(super) fn gate_org(app: &App, headers: &HeaderMap) -> Result<Uuid, Response> {
    gate(app, headers, OrgHeader::Required)?.ok_or_else(|| {
        reply::finance_error(
            &app.faults,
            StatusCode::BAD_REQUEST,
            "x-organization-id header is required",
        )
    })
}

/// Whether a resource of `owner` may be acted on under `org`: only by its own organization, or
/// by any under the fault that ignores the organization of writes.
pub(super) fn owns(app: &App, owner: Uuid, org: Uuid) -> bool {
    owner == org || app.faults.has(Fault::ForeignWritesAccepted)
}

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

/// Query parameters, the last of each name winning.
pub fn query_map(query: Option<&str>) -> HashMap<String, String> {
    url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

/// Answers a request for no route, in the finance error body.
pub fn route_not_found(app: &App) -> Response {
    not_found(app, "route")
}
