//! The embedded banking area (`/embedded-banking/v1/...`) and the reference's own OAuth 2.0
//! client-credentials token endpoint (the spec does not show how tokens are obtained).
//!
//! Errors use the banking problem body; 403 is the variant without `errorCode`. Like the
//! finance handlers, these parse bodies and queries themselves and never panic on input.

use super::bearer_token;
use super::fault::Fault;
use super::finance::query_map;
use super::page::{PageFaults, PagePlan};
use super::receivable::{as_integer, parse_uuid};
use super::reply;
use super::store::{cursor_token, rfc3339, App, Transaction, TxCursor, READ_SCOPE, WRITE_SCOPE};
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use rand::Rng;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// The organization header's name (the spec does not give one).
pub const ORG_HEADER: &str = "x-partner-organization-id";

type Reply = Result<Response, Response>;

/// Who is calling, for whom.
struct Caller {
    org: Uuid,
    scoped: bool,
    header_sent: bool,
}

fn error(app: &App, status: StatusCode, code: Option<&str>, detail: &str, uri: &Uri) -> Response {
    reply::banking_error(&app.faults, status, code, detail, uri.path())
}

/// The bearer token, then the organization header.
fn gate(app: &App, headers: &HeaderMap, uri: &Uri) -> Result<Caller, Response> {
    let f = &app.faults;
    let auth = headers
        .get("authorization")
        .map(|v| v.to_str().unwrap_or(""));
    let scoped = match auth {
        None if f.has(Fault::BankMissingTokenAccepted) => true,
        _ => {
            let token = auth.map(bearer_token).unwrap_or("");
            let found = app.db().tokens.get(token).copied();
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
    let Some(value) = headers.get(ORG_HEADER) else {
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
    match value.to_str().ok().and_then(parse_uuid) {
        Some(org) if org == own => Ok(caller(own, true)),
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

// ------------------------------------------------------------------------ OAuth token

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

// ------------------------------------------------------------------------ velocity controls

const WINDOWS: &[&str] = &["DAY", "LIFETIME", "MONTH", "TRANSACTION", "WEEK"];

/// A valid create velocity control body.
struct Control {
    id: String,
    amount_limit: i64,
    currency_code: String,
    name: String,
    active: bool,
    card_id: Option<Uuid>,
    mcc: Option<Value>,
    mcc_group: Option<Value>,
    usage_limit: Option<i64>,
    window: String,
}

fn validate_control(app: &App, body: &Value) -> Result<Control, String> {
    let f = &app.faults;
    let map = body.as_object().ok_or("the body must be a JSON object")?;
    let text = |name: &str| -> Result<String, String> {
        match map.get(name) {
            None => Err(format!("{name} is required")),
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            Some(_) => Err(format!("{name} must be a non-empty string")),
        }
    };
    let id = text("id")?;
    // The spec states no minimum length for a name.
    let name = match map.get("name") {
        None => return Err("name is required".into()),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err("name must be a string".into()),
    };
    let amount_limit = match map.get("amountLimit") {
        None => return Err("amountLimit is required".into()),
        Some(Value::String(s)) if f.has(Fault::VelocityAmountString) => s
            .parse::<i64>()
            .map_err(|_| "amountLimit must be an integer")?,
        Some(v) => as_integer(v).ok_or("amountLimit must be an integer")?,
    };
    let currency_code = text("currencyCode")?;
    let iso = currency_code.len() == 3 && currency_code.bytes().all(|b| b.is_ascii_uppercase());
    if !iso && !f.has(Fault::VelocityCurrencyUnchecked) {
        return Err("currencyCode must be an ISO 4217 code of three upper-case letters".into());
    }
    let window = text("velocityWindow")?;
    if !WINDOWS.contains(&window.as_str()) && !f.has(Fault::VelocityWindowAny) {
        return Err(format!(
            "velocityWindow must be one of {}",
            WINDOWS.join(", ")
        ));
    }
    let active = match map.get("active") {
        None => f.has(Fault::VelocityActiveDefaultTrue),
        Some(v) => v.as_bool().ok_or("active must be a boolean")?,
    };
    let card_id = match map.get("cardId") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .and_then(parse_uuid)
                .ok_or("cardId must be a uuid")?,
        ),
    };
    let code = |name: &str| -> Result<Option<Value>, String> {
        match map.get(name) {
            None => Ok(None),
            Some(v @ (Value::String(_) | Value::Number(_))) => Ok(Some(v.clone())),
            Some(_) => Err(format!("{name} must be a string or a number")),
        }
    };
    let usage_limit = usage_limit(app, map.get("usageLimit"), &window)?;
    Ok(Control {
        id,
        amount_limit,
        currency_code,
        name,
        active,
        card_id,
        mcc: code("mcc")?,
        mcc_group: code("mccGroup")?,
        usage_limit,
        window,
    })
}

/// usageLimit: an integer >= -1 (-1 unlimited), omitted with the TRANSACTION window.
fn usage_limit(app: &App, value: Option<&Value>, window: &str) -> Result<Option<i64>, String> {
    let f = &app.faults;
    // usageLimit is an integer when present: the spec does not make it nullable.
    let Some(value) = value else {
        return Ok(None);
    };
    let n = as_integer(value).ok_or("usageLimit must be an integer")?;
    if n < -1 && !f.has(Fault::UsageLimitBelowMinusOneAccepted) {
        return Err("usageLimit must be -1 (unlimited) or more".into());
    }
    if n == -1 && f.has(Fault::VelocityUnlimitedRejected) {
        return Err("usageLimit must be 0 or more".into());
    }
    if window == "TRANSACTION" && !f.has(Fault::VelocityTransactionUsageAccepted) {
        return Err("usageLimit must be omitted with the TRANSACTION window".into());
    }
    Ok(Some(n))
}

/// The body as JSON; anything else is a 400 (or the 500 of its fault).
fn parse_body(app: &App, body: &Bytes, uri: &Uri) -> Result<Value, Response> {
    serde_json::from_slice(body).map_err(|e| {
        if app.faults.has(Fault::ServerErrorOnUnparseableBody) {
            reply::internal_error()
        } else {
            let detail = format!("the body is not valid JSON: {e}");
            error(
                app,
                StatusCode::BAD_REQUEST,
                Some("INVALID_JSON"),
                &detail,
                uri,
            )
        }
    })
}

pub async fn create_velocity_control(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Response {
    create_control_inner(&app, &headers, &uri, &body).unwrap_or_else(|e| e)
}

fn create_control_inner(app: &App, headers: &HeaderMap, uri: &Uri, body: &Bytes) -> Reply {
    let f = &app.faults;
    let caller = gate(app, headers, uri)?;
    if !caller.scoped && !f.has(Fault::ScopeNotRequired) {
        let detail = format!("the token lacks the scope {WRITE_SCOPE}");
        let err = if f.has(Fault::Scope401) {
            error(
                app,
                StatusCode::UNAUTHORIZED,
                Some("INSUFFICIENT_SCOPE"),
                &detail,
                uri,
            )
        } else {
            error(app, StatusCode::FORBIDDEN, None, &detail, uri)
        };
        return Err(err);
    }
    let value = parse_body(app, body, uri)?;
    let control = validate_control(app, &value).map_err(|detail| {
        error(
            app,
            StatusCode::BAD_REQUEST,
            Some("VALIDATION_ERROR"),
            &detail,
            uri,
        )
    })?;
    let mut db = app.db();
    if let Some(card) = control.card_id {
        match db.cards.get(&card) {
            None => {
                return Err(error(
                    app,
                    StatusCode::NOT_FOUND,
                    Some("CARD_NOT_FOUND"),
                    "no such card",
                    uri,
                ))
            }
            Some(owner) if *owner != caller.org && !f.has(Fault::VelocityForeignCardAccepted) => {
                return Err(error(
                    app,
                    StatusCode::FORBIDDEN,
                    None,
                    "the caller cannot access this card",
                    uri,
                ))
            }
            Some(_) => {}
        }
    }
    let key = (caller.org, control.id.clone());
    if db.velocity_ids.contains(&key) && !f.has(Fault::VelocityDuplicateAccepted) {
        let status = if f.has(Fault::VelocityDuplicate400) {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::CONFLICT
        };
        let detail = format!("a velocity control with id {:?} already exists", control.id);
        return Err(error(app, status, Some("DUPLICATE_ID"), &detail, uri));
    }
    db.velocity_ids.insert(key);
    let at = rfc3339(db.now());
    let generated = db.uuid();
    drop(db);
    let out = render_control(app, &caller, &control, &at, generated);
    let status = if f.has(Fault::VelocityCreate200) {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok(reply::json(status, &out))
}

fn render_control(app: &App, caller: &Caller, c: &Control, at: &str, generated: Uuid) -> Value {
    let f = &app.faults;
    let mut out = Map::new();
    let id = if f.has(Fault::VelocityIdGenerated) {
        json!(generated)
    } else {
        json!(c.id)
    };
    let amount = if f.has(Fault::VelocityAmountMajorUnits) {
        c.amount_limit / 100
    } else {
        c.amount_limit
    };
    out.insert("id".into(), id);
    out.insert("active".into(), json!(c.active));
    out.insert("amountLimit".into(), json!(amount));
    if !f.has(Fault::VelocityCreatedAtMissing) {
        out.insert("createdAt".into(), json!(at));
    }
    out.insert("currencyCode".into(), json!(c.currency_code));
    out.insert("name".into(), json!(c.name));
    out.insert("updatedAt".into(), json!(at));
    out.insert("velocityWindow".into(), json!(c.window));
    let card = c.card_id.filter(|_| !f.has(Fault::VelocityCardDropped));
    if let Some(card) = card {
        out.insert("cardId".into(), json!(card));
    }
    let org_hidden = !caller.header_sent && f.has(Fault::VelocityOrgMissingWithoutHeader);
    if (card.is_none() && !org_hidden) || (card.is_some() && f.has(Fault::VelocityBothScopes)) {
        out.insert("organizationId".into(), json!(caller.org));
    }
    for (name, value) in [("mcc", &c.mcc), ("mccGroup", &c.mcc_group)] {
        if let Some(v) = value {
            out.insert(name.into(), v.clone());
        }
    }
    if let Some(n) = c.usage_limit {
        out.insert("usageLimit".into(), json!(n));
    }
    Value::Object(out)
}

// ------------------------------------------------------------------------ transactions

/// The default page size of the banking lists (pagination rule 1).
pub const DEFAULT_LIMIT: usize = 25;

pub async fn list_transactions(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    uri: Uri,
    Path(account): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    list_transactions_inner(&app, &headers, &uri, &account, query.as_deref()).unwrap_or_else(|e| e)
}

fn first_tx_cursor(
    app: &App,
    account: Uuid,
    q: &HashMap<String, String>,
    uri: &Uri,
) -> Result<TxCursor, Response> {
    let f = &app.faults;
    let default = if f.has(Fault::BankingDefaultLimit30) {
        30
    } else {
        DEFAULT_LIMIT
    };
    let limit = match q.get("limit").map(|s| s.parse::<i64>()) {
        None => default,
        Some(Ok(n)) if (1..=100).contains(&n) => n as usize,
        Some(Ok(101)) if f.has(Fault::BankingLimit101Served) => 101,
        Some(Ok(n)) if f.has(Fault::BankingLimitClamped) => n.clamp(1, 100) as usize,
        Some(_) => {
            let detail = "limit must be an integer from 1 to 100";
            return Err(error(
                app,
                StatusCode::BAD_REQUEST,
                Some("INVALID_LIMIT"),
                detail,
                uri,
            ));
        }
    };
    Ok(TxCursor {
        account,
        limit,
        offset: 0,
    })
}

fn list_transactions_inner(
    app: &App,
    headers: &HeaderMap,
    uri: &Uri,
    account: &str,
    query: Option<&str>,
) -> Reply {
    let f = &app.faults;
    let caller = gate(app, headers, uri)?;
    let not_found = || {
        error(
            app,
            StatusCode::NOT_FOUND,
            Some("BANK_ACCOUNT_NOT_FOUND"),
            "no such bank account",
            uri,
        )
    };
    let account = parse_uuid(account).ok_or_else(not_found)?;
    let owned = app
        .db()
        .bank_accounts
        .get(&account)
        .is_some_and(|a| a.org == caller.org);
    if !owned {
        if f.has(Fault::UnknownAccountEmpty) {
            return Ok(page_json(app, &[], None, None));
        }
        return Err(not_found());
    }
    let q = query_map(query);
    let cursor = match q.get("pagination_token") {
        None => first_tx_cursor(app, account, &q, uri)?,
        Some(token) => {
            let found = {
                let mut db = app.db();
                if f.has(Fault::BankingTokenSingleUse) {
                    db.tx_cursors.remove(token)
                } else {
                    db.tx_cursors.get(token).copied()
                }
            };
            match found.filter(|c| c.account == account) {
                Some(c) => c,
                None if f.has(Fault::BankingTamperedRestarts) => {
                    first_tx_cursor(app, account, &HashMap::new(), uri)?
                }
                None => {
                    let detail = "pagination_token is unknown, expired or for another list";
                    return Err(error(
                        app,
                        StatusCode::BAD_REQUEST,
                        Some("INVALID_PAGINATION_TOKEN"),
                        detail,
                        uri,
                    ));
                }
            }
        }
    };
    Ok(transactions_page(app, cursor))
}

fn transactions_page(app: &App, cursor: TxCursor) -> Response {
    let f = &app.faults;
    let mut db = app.db();
    let total = db
        .bank_accounts
        .get(&cursor.account)
        .map_or(0, |a| a.transactions.len());
    let plan = PagePlan::new(
        cursor.offset,
        cursor.limit,
        total,
        PageFaults {
            plus_one: false,
            repeat: f.has(Fault::BankingItemRepeated),
            skip: f.has(Fault::BankingItemSkipped),
            cycle: f.has(Fault::BankingNextCycles),
            prev_on_first: f.has(Fault::BankingPrevOnFirst),
            prev_off_by_one: f.has(Fault::BankingPrevWrongPage),
        },
    );
    let seed = app.ids.seed;
    let single_use = f.has(Fault::BankingTokenSingleUse);
    let mut token = |offset: Option<usize>| {
        offset.map(|offset| {
            let c = TxCursor { offset, ..cursor };
            // Single-use tokens are fresh at every issuance, so that a used one stays used.
            let nonce = if single_use {
                db.tokens_issued += 1;
                db.tokens_issued
            } else {
                0
            };
            let t = cursor_token(seed, "transactions", &(&c, nonce));
            db.tx_cursors.insert(t.clone(), c);
            t
        })
    };
    let next = token(plan.next);
    let prev = token(plan.prev);
    let data = db
        .bank_accounts
        .get(&cursor.account)
        .map(|a| a.transactions[plan.start..plan.end].to_vec())
        .unwrap_or_default();
    drop(db);
    page_json(app, &data, next, prev)
}

/// A page of transactions, serialised straight from the stored items.
#[derive(serde::Serialize)]
struct Page<'a> {
    data: &'a [Transaction],
    #[serde(rename = "nextPaginationToken")]
    next: Option<String>,
    #[serde(rename = "prevPaginationToken")]
    prev: Option<String>,
}

/// The page as the `bpag-page-snake-case-tokens` fault names its members.
#[derive(serde::Serialize)]
struct SnakePage<'a> {
    data: &'a [Transaction],
    next_pagination_token: Option<String>,
    prev_pagination_token: Option<String>,
}

fn page_json(
    app: &App,
    data: &[Transaction],
    next: Option<String>,
    prev: Option<String>,
) -> Response {
    let bytes = if app.faults.has(Fault::BankingSnakeCaseTokens) {
        serde_json::to_vec(&SnakePage {
            data,
            next_pagination_token: next,
            prev_pagination_token: prev,
        })
    } else {
        serde_json::to_vec(&Page { data, next, prev })
    };
    let bytes = bytes.expect("a page of plain data always serialises");
    reply::with_type(StatusCode::OK, bytes, "application/json")
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
