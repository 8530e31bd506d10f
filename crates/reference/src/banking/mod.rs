//! The embedded banking area (`/embedded-banking/v1/...`) and the reference's own OAuth 2.0
//! client-credentials token endpoint (the spec does not show how tokens are obtained).
//!
//! Errors use the banking problem body; 403 is the variant without `errorCode`. Like the
//! finance handlers, these parse bodies and queries themselves and never panic on input.
//! This module holds what the banking handlers share: the gate (bearer token, then the
//! organization header) and the caller it answers, the banking error body, and the answers
//! for no route and for a wrong method.

mod oauth;
mod transactions;
mod velocity;

pub use oauth::token;
pub use transactions::list_transactions;
pub use velocity::create_velocity_control;

use super::auth::bearer_token;
use super::fault::Fault;
use super::receivable::parse_uuid;
use super::reply;
use super::store::App;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::Response;
use uuid::Uuid;

/// The organization header's name (the spec does not give one).
pub const ORG_HEADER: &str = "x-partner-organization-id";

/// Who is calling, for whom.
struct Caller {
    org: Uuid,
    scoped: bool,
    header_sent: bool,
}

impl Caller {
    /// The organization whose accounts and cards the caller may use: the one it acts for
    /// (under [`Fault::BankTenantIgnored`], the token's own, whatever the header names).
    fn owner(&self, app: &App) -> Uuid {
        if app.faults.has(Fault::BankTenantIgnored) {
            app.ids.bank_org
        } else {
            self.org
        }
    }
}

fn error(app: &App, status: StatusCode, code: Option<&str>, detail: &str, uri: &Uri) -> Response {
    reply::banking_error(&app.faults, status, code, detail, uri.path())
}

/// The bearer token, then the organization header: the token acts for its own organization, or
/// for the second one the header names (a platform's token); any other is refused with 403.
fn gate(app: &App, headers: &HeaderMap, uri: &Uri) -> Result<Caller, Response> {
    let f = &app.faults;
    let auth = headers
        .get("authorization")
        .map(|v| v.to_str().unwrap_or(""));
    let scoped = match auth {
        None if f.has(Fault::BankMissingTokenAccepted) => true,
        _ => {
            let bare = |v: &str| !v.contains(' ') && f.has(Fault::BankBareTokenAccepted);
            let token = auth
                .map(|v| if bare(v) { v } else { bearer_token(v) })
                .unwrap_or("");
            let found = {
                let db = app.db();
                match db.tokens.get(token) {
                    Some(scoped) => Some(*scoped),
                    // Compared over the shorter length: either is a prefix of the other.
                    None if f.has(Fault::BankTokenComparedByPrefix) && !token.is_empty() => db
                        .tokens
                        .iter()
                        .find(|(t, _)| t.starts_with(token) || token.starts_with(t.as_str()))
                        .map(|(_, scoped)| *scoped),
                    None if token == app.ids.finance_token
                        && (f.has(Fault::BankFinanceTokenAccepted)
                            || (f.has(Fault::BankFinanceTokenAcceptedUnderHeader)
                                && headers.contains_key(ORG_HEADER))) =>
                    {
                        Some(true)
                    }
                    None => None,
                }
            };
            match found {
                Some(scoped) => scoped,
                None => {
                    let status = if f.has(Fault::BankInvalidToken403) {
                        StatusCode::FORBIDDEN
                    } else {
                        StatusCode::UNAUTHORIZED
                    };
                    let detail = if auth.is_none() {
                        "an access token is required"
                    } else {
                        "the access token is invalid or expired"
                    };
                    return Err(error(app, status, Some("UNAUTHORIZED"), detail, uri));
                }
            }
        }
    };
    let own = app.ids.bank_org;
    let caller = |org, header_sent| Caller {
        org,
        scoped,
        header_sent,
    };
    let empty_as_absent = |v: &&HeaderValue| f.has(Fault::OrgHeaderEmptyAsAbsent) && v.is_empty();
    let Some(value) = headers.get(ORG_HEADER).filter(|v| !empty_as_absent(v)) else {
        if f.has(Fault::OrgHeaderRequired) {
            let detail = format!("{ORG_HEADER} header is required");
            return Err(error(
                app,
                StatusCode::BAD_REQUEST,
                Some("ORGANIZATION_HEADER_REQUIRED"),
                &detail,
                uri,
            ));
        }
        return Ok(caller(own, false));
    };
    // Under its fault, a UUID in upper case is taken for a malformed one.
    let upper =
        |v: &&str| f.has(Fault::OrgHeaderUpperCaseRejected) && v.contains(char::is_uppercase);
    let read = |v: &str| {
        if f.has(Fault::OrgHeaderUuidNotationsAccepted) {
            return Uuid::parse_str(v).ok();
        }
        // Under its fault, the UUID the value starts with.
        match v.get(..36) {
            Some(start) if f.has(Fault::OrgHeaderUuidPrefixAccepted) => parse_uuid(start),
            _ => parse_uuid(v),
        }
    };
    match value.to_str().ok().filter(|v| !upper(v)).and_then(read) {
        Some(org) if org == own || org == app.ids.foreign_bank_org => Ok(caller(org, true)),
        Some(_) => Err(error(
            app,
            StatusCode::FORBIDDEN,
            None,
            "the token may not act for this organization",
            uri,
        )),
        None if f.has(Fault::OrgHeaderMalformedAccepted) => Ok(caller(own, false)),
        None => {
            let detail = format!("{ORG_HEADER} must be a non-empty valid uuid");
            Err(error(
                app,
                StatusCode::BAD_REQUEST,
                Some("INVALID_ORGANIZATION_HEADER"),
                &detail,
                uri,
            ))
        }
    }
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
