//! The gate every finance handler passes first: authentication, the version header and the
//! organization header, in that order, each refused in the finance error body; and whether the
//! organization the gate answers may act on a resource.

use crate::auth::bearer_token;
use crate::fault::Fault;
use crate::receivable::{parse_date, parse_uuid};
use crate::reply;
use crate::store::App;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
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
