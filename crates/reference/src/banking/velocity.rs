//! Create velocity control: the scope check, the body's validation, the card and duplicate
//! checks, and the control rendered back, with the faults that bend each of them.

use super::{error, gate, Caller};
use crate::fault::Fault;
use crate::receivable::{as_integer, parse_uuid, wrapped};
use crate::reply::{self, Reply};
use crate::store::{rfc3339, App, WRITE_SCOPE};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::{json, Map, Value};

/// Bytes of a body above which the large-body fault refuses it (the spec states no limit).
const LARGE: usize = 512 * 1024;
use std::sync::Arc;
use uuid::Uuid;

const WINDOWS: &[&str] = &["DAY", "LIFETIME", "MONTH", "TRANSACTION", "WEEK"];

/// A valid create velocity control body.
struct ControlBody {
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

fn validate_control(app: &App, body: &Value) -> Result<ControlBody, String> {
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
        Some(Value::String(s)) if f.has(Fault::VelocityAmountString) => s.parse().unwrap_or(0),
        // Under its fault, a string of digits read as the number it spells, as a lax binder does.
        Some(Value::String(s))
            if !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit())
                && f.has(Fault::VelocityLaxNumericStrings) =>
        {
            s.parse().map_err(|_| "amountLimit must be an integer")?
        }
        Some(v) => match (as_integer(f, v), wrapped(v)) {
            (Some(n), _) => n,
            // Under its fault, a value past a signed 64-bit word kept modulo 2^64.
            (None, Some(n)) if f.has(Fault::VelocityAmountWraps) => n,
            _ => return Err("amountLimit must be an integer from -2^63 to 2^63 - 1".into()),
        },
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
        Some(Value::Bool(false)) if f.has(Fault::VelocityActiveFalseRefused) => {
            return Err("active must be true when given".into())
        }
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
    Ok(ControlBody {
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
    let n = as_integer(f, value).ok_or("usageLimit must be an integer")?;
    if n < -1 && !f.has(Fault::UsageLimitBelowMinusOneAccepted) {
        return Err("usageLimit must be -1 (unlimited) or more".into());
    }
    if n == -1 && f.has(Fault::VelocityUnlimitedRejected) {
        return Err("usageLimit must be 0 or more".into());
    }
    if window == "TRANSACTION" && n == -1 && f.has(Fault::VelocityTransactionUnlimitedAccepted) {
        return Ok(None);
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
    // Under its fault, the id is checked, then recorded after a pause: two creates with one id
    // at the same moment both pass the check.
    if app.faults.has(Fault::VelocityDuplicateRace) {
        let checked = create_control_inner(&app, &headers, &uri, &body, Commit::CheckOnly);
        if checked.is_err() {
            return checked.unwrap_or_else(|e| e);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        return create_control_inner(&app, &headers, &uri, &body, Commit::Unchecked)
            .unwrap_or_else(|e| e);
    }
    create_control_inner(&app, &headers, &uri, &body, Commit::Checked).unwrap_or_else(|e| e)
}

/// How the id of a new control is checked and recorded: at once, as the contract needs, or in
/// two steps under [`Fault::VelocityDuplicateRace`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Commit {
    Checked,
    CheckOnly,
    Unchecked,
}

fn create_control_inner(
    app: &App,
    headers: &HeaderMap,
    uri: &Uri,
    body: &Bytes,
    commit: Commit,
) -> Reply {
    let f = &app.faults;
    let caller = gate(app, headers, uri)?;
    let unchecked = f.has(Fault::ScopeNotRequired)
        || (!caller.header_sent && f.has(Fault::ScopeCheckedUnderHeaderOnly));
    if !caller.scoped && !unchecked {
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
    if body.len() > LARGE && f.has(Fault::LargeBodyBareRefusal) {
        let bare = json!({ "message": "payload too large" });
        return Err(reply::json(StatusCode::PAYLOAD_TOO_LARGE, &bare));
    }
    let value = parse_body(app, body, uri)?;
    let created = create_parsed(app, &caller, &value, uri, commit);
    // Under its fault, a body refused once it parsed still takes its id.
    let id = value.get("id").and_then(Value::as_str);
    if let (Err(refusal), Some(id)) = (&created, id) {
        if refusal.status().is_client_error() && f.has(Fault::VelocityRefusedTakesId) {
            app.db().velocity_ids.insert((caller.org, id.to_owned()));
        }
    }
    created
}

/// Create velocity control once its body parsed: its validation, the card and duplicate
/// checks, and the control recorded and rendered back.
fn create_parsed(app: &App, caller: &Caller, value: &Value, uri: &Uri, commit: Commit) -> Reply {
    let f = &app.faults;
    let mut control = validate_control(app, value).map_err(|detail| {
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
            // Under its fault, a card of another organization is taken, and the control scoped
            // to the organization acted for instead of the card.
            Some(owner)
                if *owner != caller.owner(app) && f.has(Fault::VelocityForeignCardToOrg) =>
            {
                control.card_id = None;
            }
            Some(owner)
                if *owner != caller.owner(app) && !f.has(Fault::VelocityForeignCardAccepted) =>
            {
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
    // Under its fault, ids are unique per scope: a card's controls apart from the organization's.
    let id = match control.card_id {
        Some(card) if f.has(Fault::VelocityIdUniquePerScope) => format!("{card}/{}", control.id),
        _ => control.id.clone(),
    };
    let key = (caller.org, id);
    let mut duplicate = commit != Commit::Unchecked && db.velocity_ids.contains(&key);
    // Under its fault, an id another organization's control holds is taken for a duplicate.
    let elsewhere = || {
        db.velocity_ids
            .iter()
            .any(|(o, i)| *o != key.0 && *i == key.1)
    };
    if commit != Commit::Unchecked && !duplicate && elsewhere() {
        duplicate = f.has(Fault::VelocityIdAcrossOrganizations);
    }
    // Under its fault, only the organization's last three creates are looked at.
    if duplicate && f.has(Fault::VelocityDuplicateAfterCreates) {
        let recent = db
            .velocity_order
            .iter()
            .rev()
            .filter(|(org, _)| *org == key.0);
        duplicate = recent.take(3).any(|taken| *taken == key);
    }
    if duplicate && !f.has(Fault::VelocityDuplicateAccepted) {
        let status = if f.has(Fault::VelocityDuplicate400) {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::CONFLICT
        };
        let detail = format!("a velocity control with id {:?} already exists", control.id);
        return Err(error(app, status, Some("DUPLICATE_ID"), &detail, uri));
    }
    if commit == Commit::CheckOnly {
        return Ok(reply::json(StatusCode::CREATED, &Value::Null));
    }
    db.velocity_order.push(key.clone());
    db.velocity_ids.insert(key);
    let at = rfc3339(db.now());
    let generated = db.uuid();
    drop(db);
    let out = render_control(app, caller, &control, &at, generated);
    let status = if f.has(Fault::VelocityCreate200) {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok(reply::json(status, &out))
}

fn render_control(app: &App, caller: &Caller, c: &ControlBody, at: &str, generated: Uuid) -> Value {
    let f = &app.faults;
    let mut out = Map::new();
    let id = if f.has(Fault::VelocityIdGenerated) {
        json!(generated)
    } else if f.has(Fault::VelocityIdLowercased) {
        json!(c.id.to_lowercase())
    } else {
        json!(c.id)
    };
    let amount = if f.has(Fault::VelocityAmountMajorUnits) {
        c.amount_limit / 100
    } else {
        c.amount_limit
    };
    // Under its fault, a local time: the offset (`Z`) cut off the RFC 3339 timestamp.
    let at = match f.has(Fault::VelocityTimesWithoutOffset) {
        true => at.trim_end_matches('Z'),
        false => at,
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
    // Under its fault, the token's own organization, whatever the header named.
    let org = match f.has(Fault::VelocityOrgFromToken) {
        true => app.ids.bank_org,
        false => caller.org,
    };
    if (card.is_none() && !org_hidden) || (card.is_some() && f.has(Fault::VelocityBothScopes)) {
        out.insert("organizationId".into(), json!(org));
    }
    let mcc = c.mcc.as_ref().filter(|_| !f.has(Fault::VelocityMccDropped));
    for (name, value) in [("mcc", mcc), ("mccGroup", c.mcc_group.as_ref())] {
        if let Some(v) = value {
            out.insert(name.into(), v.clone());
        }
    }
    if c.usage_limit == Some(-1) && f.has(Fault::UsageUnlimitedReadNull) {
        out.insert("usageLimit".into(), Value::Null);
    } else if let Some(n) = c.usage_limit {
        out.insert("usageLimit".into(), json!(n));
    } else if c.window == "TRANSACTION"
        && card.is_some()
        && f.has(Fault::VelocityTransactionCardUsage)
    {
        out.insert("usageLimit".into(), json!(0));
    }
    Value::Object(out)
}
