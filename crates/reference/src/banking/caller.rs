//! Who is calling, for whom: the gate every banking handler passes first (the bearer token,
//! then the organization header) and the [`Caller`] it answers, which the handlers ask whose
//! accounts and cards may be used. Refusals are written in the banking error body.

use super::problem::error;
use crate::auth::bearer_token;
use crate::fault::Fault;
use crate::receivable::parse_uuid;
use crate::store::App;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::Response;
use uuid::Uuid;

/// The organization header's name (the spec does not give one).
pub const ORG_HEADER: &str = "x-partner-organization-id";

/// Who is calling, for whom.
pub(super) struct Caller {
    pub(super) org: Uuid,
    pub(super) scoped: bool,
    pub(super) header_sent: bool,
}

impl Caller {
    /// The organization whose accounts and cards the caller may use: the one it acts for
    /// (under [`Fault::BankTenantIgnored`], the token's own, whatever the header names).
    pub(super) fn owner(&self, app: &App) -> Uuid {
        if app.faults.has(Fault::BankTenantIgnored) {
            app.ids.bank_org
        } else {
            self.org
        }
    }
}

/// The bearer token, then the organization header: the token acts for its own organization, or
/// for the second one the header names (a platform's token); any other is refused with 403.
pub(super) fn gate(app: &App, headers: &HeaderMap, uri: &Uri) -> Result<Caller, Response> {
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
