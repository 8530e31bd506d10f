//! The finance operations area (`/finops/v1/...`): eight operations over the in-memory store.
//!
//! Every handler takes the raw body as bytes and parses it itself, so that no input can reach
//! an axum rejection or a panic: a body that is not JSON is a 4xx like any other bad input.
//! Handlers hold the store's lock only while they read or write it.

use super::fault::Fault;
use super::receivable::{self, parse_uuid, Create};
use super::reply::{self, Problem};
use super::store::{rfc3339, App, Comment, EventCursor, Kind, Receivable, VatId};
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Arc;
use time::OffsetDateTime;
use uuid::Uuid;

type Reply = Result<Response, Response>;

/// Whether an operation takes `x-organization-id`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OrgHeader {
    Required,
    NotUsed,
}

/// Authentication, version and organization headers, in that order. Answers the organization.
fn gate(app: &App, headers: &HeaderMap, org_header: OrgHeader) -> Result<Option<Uuid>, Response> {
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
            let token = value.strip_prefix("Bearer ").unwrap_or("");
            let any = f.has(Fault::FinInvalidTokenAccepted) && !token.is_empty();
            if token != app.ids.finance_token && !any {
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
        Some(v)
            if receivable::parse_date(v).is_none() && !f.has(Fault::VersionMalformedAccepted) =>
        {
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
    let Some(org) = value.to_str().ok().and_then(parse_uuid) else {
        return fail(StatusCode::BAD_REQUEST, "x-organization-id must be a uuid");
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
fn gate_org(app: &App, headers: &HeaderMap) -> Result<Uuid, Response> {
    gate(app, headers, OrgHeader::Required)?.ok_or_else(|| {
        reply::finance_error(
            &app.faults,
            StatusCode::BAD_REQUEST,
            "x-organization-id header is required",
        )
    })
}

/// The body as JSON; anything else is a 422 (or the 500 of its fault).
pub fn parse_body(app: &App, body: &Bytes) -> Result<Value, Response> {
    serde_json::from_slice(body).map_err(|e| {
        if app.faults.has(Fault::ServerErrorOnUnparseableBody) {
            reply::internal_error()
        } else {
            let msg = format!("JSON decode error: {e}");
            reply::validation(&app.faults, &[Problem::whole_body(msg, "json_invalid")])
        }
    })
}

fn path_uuid(app: &App, name: &str, raw: &str) -> Result<Uuid, Response> {
    parse_uuid(raw).ok_or_else(|| {
        reply::validation(
            &app.faults,
            &[Problem::path(name, "Input should be a valid UUID")],
        )
    })
}

fn not_found(app: &App, what: &str) -> Response {
    reply::finance_error(
        &app.faults,
        StatusCode::NOT_FOUND,
        &format!("{what} not found"),
    )
}

fn created(app: &App, body: &Value) -> Response {
    reply::json(StatusCode::CREATED, body).tap_status(app.faults.has(Fault::Create200))
}

trait TapStatus {
    fn tap_status(self, to_ok: bool) -> Response;
}

impl TapStatus for Response {
    /// Turns a 201 into a 200 for the `*-create-200` faults.
    fn tap_status(mut self, to_ok: bool) -> Response {
        if to_ok {
            *self.status_mut() = StatusCode::OK;
        }
        self
    }
}

fn merge(result: Reply) -> Response {
    result.unwrap_or_else(|e| e)
}

// ------------------------------------------------------------------------ receivables

pub async fn create_receivable(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    merge(create_receivable_inner(&app, &headers, &body))
}

fn create_receivable_inner(app: &App, headers: &HeaderMap, body: &Bytes) -> Reply {
    let org = gate_org(app, headers)?;
    let value = parse_body(app, body)?;
    let today = OffsetDateTime::now_utc().date();
    let create = receivable::validate(&app.faults, &value, today).map_err(|problems| {
        if app.faults.has(Fault::Validation400) {
            let msg = problems
                .first()
                .map(|p| p.msg.as_str())
                .unwrap_or("invalid body");
            reply::finance_error(&app.faults, StatusCode::BAD_REQUEST, msg)
        } else {
            reply::validation(&app.faults, &problems)
        }
    })?;
    match create {
        Create::New {
            kind,
            counterpart_id,
            body,
        } => create_new(app, org, kind, counterpart_id, body),
        Create::BasedOn {
            kind,
            based_on,
            tag_ids,
        } => create_based_on(app, org, kind, based_on, tag_ids),
    }
}

fn create_new(
    app: &App,
    org: Uuid,
    kind: Kind,
    counterpart_id: Uuid,
    body: Map<String, Value>,
) -> Reply {
    let mut db = app.db();
    let Some(counterpart) = db
        .counterparts
        .get(&counterpart_id)
        .filter(|c| c.org == org)
    else {
        return Err(not_found(app, "counterpart"));
    };
    let counterpart_name = counterpart.name.clone();
    let id = db.uuid();
    let at = db.now();
    let record = Receivable {
        org,
        kind,
        counterpart_id,
        currency: body
            .get("currency")
            .and_then(Value::as_str)
            .unwrap_or("EUR")
            .to_owned(),
        line_items: body.get("line_items").cloned().unwrap_or_else(|| json!([])),
        tag_ids: uuids(body.get("tag_ids")),
        document_id: String::new(),
    };
    db.record(
        org,
        "receivable",
        &format!("receivable.{}.created", kind.as_str()),
        json!({ "id": id }),
    );
    db.receivables.insert(id, record.clone());
    drop(db);
    let source = Source {
        body: &body,
        based_on: None,
    };
    Ok(created(
        app,
        &render_receivable(app, id, &record, &counterpart_name, at, &source),
    ))
}

fn uuids(value: Option<&Value>) -> Vec<Uuid> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().and_then(parse_uuid))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a based-on creation from `source` to `target` is supported.
fn transition_allowed(app: &App, source: Kind, target: Kind) -> bool {
    let f = &app.faults;
    match (source, target) {
        (Kind::Quote, Kind::Invoice) => !f.has(Fault::QuoteToInvoiceRefused),
        (Kind::Invoice, Kind::CreditNote) => !f.has(Fault::InvoiceToCreditNoteRefused),
        (Kind::Quote, Kind::CreditNote) => f.has(Fault::UnsupportedTransitionAllowed),
        _ => false,
    }
}

fn create_based_on(
    app: &App,
    org: Uuid,
    kind: Option<Kind>,
    based_on: Uuid,
    tag_ids: Vec<Uuid>,
) -> Reply {
    let mut db = app.db();
    let source = match db.receivables.get(&based_on).filter(|r| r.org == org) {
        Some(r) => r.clone(),
        None if app.faults.has(Fault::BasedOnUnknownAccepted) => Receivable {
            org,
            kind: Kind::Quote,
            counterpart_id: app.ids.counterpart,
            currency: "EUR".to_owned(),
            line_items: json!([]),
            tag_ids: Vec::new(),
            document_id: String::new(),
        },
        None => return Err(not_found(app, "based_on document")),
    };
    let target = kind.unwrap_or(match source.kind {
        Kind::Quote => Kind::Invoice,
        _ => Kind::CreditNote,
    });
    if !transition_allowed(app, source.kind, target) {
        let status = if app.faults.has(Fault::StatusOutsideSet) {
            StatusCode::PRECONDITION_FAILED
        } else if app.faults.has(Fault::Transition400) {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::CONFLICT
        };
        let msg = format!(
            "a {} cannot be created from a {}",
            target.as_str(),
            source.kind.as_str()
        );
        return Err(reply::finance_error(&app.faults, status, &msg));
    }
    let counterpart_name = db
        .counterparts
        .get(&source.counterpart_id)
        .map(|c| c.name.clone())
        .unwrap_or_default();
    let id = db.uuid();
    let at = db.now();
    let record = Receivable {
        kind: target,
        tag_ids,
        document_id: String::new(),
        ..source.clone()
    };
    db.record(
        org,
        "receivable",
        &format!("receivable.{}.created", target.as_str()),
        json!({ "id": id, "based_on": based_on }),
    );
    db.receivables.insert(id, record.clone());
    drop(db);
    let body = Map::new();
    let origin = Source {
        body: &body,
        based_on: Some((based_on, source.document_id.as_str())),
    };
    Ok(created(
        app,
        &render_receivable(app, id, &record, &counterpart_name, at, &origin),
    ))
}

/// Where a receivable's echoed fields come from.
struct Source<'a> {
    body: &'a Map<String, Value>,
    based_on: Option<(Uuid, &'a str)>,
}

/// The receivable response: every quote response field the spec lists, in its order, then
/// type, status and tag_ids. Invoices and credit notes (whose shapes are not shown) use the
/// same fields.
fn render_receivable(
    app: &App,
    id: Uuid,
    r: &Receivable,
    counterpart_name: &str,
    at: OffsetDateTime,
    src: &Source,
) -> Value {
    let f = &app.faults;
    let echo = |name: &str| src.body.get(name).cloned().unwrap_or(Value::Null);
    let at = rfc3339(at);
    let currency = if f.has(Fault::CurrencyNotEchoed) {
        r.currency.to_lowercase()
    } else {
        r.currency.clone()
    };
    let (based_on, based_on_document_id) = match src.based_on {
        Some((id, doc)) => (
            json!(id),
            if doc.is_empty() {
                Value::Null
            } else {
                json!(doc)
            },
        ),
        None => (Value::Null, Value::Null),
    };
    let mut out = Map::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    put("id", json!(id));
    put("created_at", json!(at));
    if !f.has(Fault::QuoteResponseMissingField) {
        put("updated_at", json!(at));
    }
    put("attachments", echo("attachments"));
    put("bank_account_id", echo("bank_account_id"));
    put("bank_account_snapshot", Value::Null);
    put("bank_account_type", echo("bank_account_type"));
    put("based_on", based_on);
    put("based_on_document_id", based_on_document_id);
    put("comment", Value::Null);
    put(
        "commercial_condition_description",
        echo("commercial_condition_description"),
    );
    put("counterpart_billing_address", Value::Null);
    put("counterpart_shipping_address", Value::Null);
    put(
        "counterpart_business_type",
        echo("counterpart_business_type"),
    );
    put("counterpart_contact", Value::Null);
    put("counterpart_external_reference", Value::Null);
    put("counterpart_id", json!(r.counterpart_id));
    put("counterpart_name", json!(counterpart_name));
    put("counterpart_tax_id", Value::Null);
    put("counterpart_type", json!("organization"));
    put("counterpart_vat_id", Value::Null);
    put("currency", json!(currency));
    put(
        "deduction_amount",
        if f.has(Fault::DeductionAmountNegative) {
            json!(-1)
        } else {
            Value::Null
        },
    );
    put("deduction_memo", Value::Null);
    put(
        "deductions",
        src.body
            .get("deductions")
            .filter(|v| v.is_array())
            .cloned()
            .unwrap_or_else(|| json!([])),
    );
    put("discount", echo("discount"));
    put("discounted_subtotal", json!(subtotal(&r.line_items)));
    put("document_id", echo("document_id"));
    put("document_rendering", echo("document_rendering"));
    put("due_date", Value::Null);
    put(
        "entity",
        json!({ "type": "organization", "name": "Covenant Reference Ltd" }),
    );
    put(
        "entity_address",
        json!({ "country": "DE", "city": "Berlin", "line1": "Musterstrasse 1", "postal_code": "10115" }),
    );
    put(
        "entity_bank_account",
        if f.has(Fault::EntityBankAccountSet) {
            json!({ "iban": "DE89370400440532013000" })
        } else {
            Value::Null
        },
    );
    put("entity_user_id", json!(app.ids.entity_user));
    put("entity_vat_id", Value::Null);
    put("expiry_date", echo("expiry_date"));
    put("file_language", json!("en"));
    put("file_url", Value::Null);
    put("footer", echo("footer"));
    put("issue_date", Value::Null);
    put("line_items", r.line_items.clone());
    put("memo", echo("memo"));
    put("type", json!(r.kind.as_str()));
    put("status", json!("draft"));
    put("tag_ids", json!(r.tag_ids));
    Value::Object(out)
}

/// Total of quantity times price over the line items, in minor units; 0 where not computable.
fn subtotal(line_items: &Value) -> i64 {
    let items = line_items.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .map(|item| {
            let quantity = item.get("quantity").and_then(Value::as_f64).unwrap_or(0.0);
            let price = item
                .pointer("/product/price/value")
                .and_then(Value::as_f64)
                .unwrap_or(0.0);
            quantity * price
        })
        .sum::<f64>()
        .clamp(0.0, 9.0e15) as i64
}

// ------------------------------------------------------------------------ VAT IDs

/// The VAT ID country codes of the spec, copied exactly.
pub const COUNTRIES: &[&str] = &[
    "AF", "AX", "AL", "DZ", "AS", "AD", "AO", "AI", "AQ", "AG", "AR", "AM", "AW", "AU", "AT", "AZ",
    "BS", "BH", "BD", "BB", "BY", "BE", "BZ", "BJ", "BM", "BT", "BO", "BA", "BW", "BV", "BR", "IO",
    "BN", "BG", "BF", "BI", "KH", "CM", "CA", "IC", "CV", "KY", "CF", "EA", "TD", "CL", "CN", "CX",
    "CC", "CO", "KM", "CG", "CD", "CK", "CR", "CI", "HR", "CU", "CY", "CZ", "DK", "DJ", "DM", "DO",
    "EC", "EG", "SV", "GQ", "ER", "EE", "SZ", "ET", "FK", "FO", "FJ", "FI", "FR", "GF", "PF", "TF",
    "GA", "GM", "GE", "DE", "GH", "GI", "GR", "GL", "GD", "GP", "GU", "GT", "GG", "GN", "GW", "GY",
    "HT", "HM", "VA", "HN", "HK", "HU", "IS", "IN", "ID", "IR", "IQ", "IE", "IM", "IL", "IT", "JM",
    "JP", "JE", "JO", "KZ", "KE", "KI", "KP", "KR", "KW", "KG", "LA", "LV", "LB", "LS", "LR", "LY",
    "LI", "LT", "LU", "MO", "MG", "MW", "MY", "MV", "ML", "MT", "MH", "MQ", "MR", "MU", "YT", "MX",
    "FM", "MD", "MC", "MN", "ME", "MS", "MA", "MZ", "MM", "NA", "NR", "NP", "NL", "AN", "NC", "NZ",
    "NI", "NE", "NG", "NU", "NF", "MP", "MK", "NO", "OM", "PK", "PW", "PS", "PA", "PG", "PY", "PE",
    "PH", "PN", "PL", "PT", "PR", "QA", "RE", "RO", "RU", "RW", "SH", "KN", "LC", "PM", "VC", "WS",
    "SM", "ST", "SA", "SN", "RS", "SC", "SL", "SG", "SK", "SI", "SB", "SO", "ZA", "SS", "GS", "ES",
    "LK", "SD", "SR", "SJ", "SE", "CH", "SY", "TW", "TJ", "TZ", "TH", "TL", "TG", "TK", "TO", "TT",
    "TN", "TR", "TM", "TC", "TV", "UG", "UA", "AE", "GB", "US", "UM", "UY", "UZ", "VU", "VE", "VN",
    "VG", "VI", "WF", "EH", "YE", "ZM", "ZW", "BL", "BQ", "CW", "MF", "SX",
];

/// The VAT ID types of the spec, copied exactly.
pub const VAT_TYPES: &[&str] = &[
    "ae_trn",
    "au_abn",
    "au_arn",
    "bg_uic",
    "br_cnpj",
    "br_cpf",
    "ca_bn",
    "ca_gst_hst",
    "ca_pst_bc",
    "ca_pst_mb",
    "ca_pst_sk",
    "ca_qst",
    "ch_vat",
    "cl_tin",
    "es_cif",
    "eu_oss_vat",
    "eu_vat",
    "gb_vat",
    "ge_vat",
    "hk_br",
    "hu_tin",
    "id_npwp",
    "il_vat",
    "in_gst",
    "is_vat",
    "jp_cn",
    "jp_rn",
    "kr_brn",
    "li_uid",
    "mx_rfc",
    "my_frp",
    "my_itn",
    "my_sst",
    "no_vat",
    "nz_gst",
    "ru_inn",
    "ru_kpp",
    "sa_vat",
    "sg_gst",
    "sg_uen",
    "si_tin",
    "th_vat",
    "tw_vat",
    "ua_vat",
    "us_ein",
    "za_vat",
    "unknown",
];

/// value, country and type of a VAT ID create body (all three required here).
fn validate_vat(app: &App, body: &Value) -> Result<(String, String, String), Vec<Problem>> {
    let f = &app.faults;
    let Some(map) = body.as_object() else {
        return Err(vec![Problem::whole_body(
            "the body must be a JSON object",
            "model_attributes_type",
        )]);
    };
    let mut problems = Vec::new();
    let mut text = |name: &str, ok: &dyn Fn(&str) -> bool, msg: &str| match map.get(name) {
        None => {
            problems.push(Problem::body(name, "Field required", "missing"));
            String::new()
        }
        Some(Value::String(s)) if ok(s) => s.clone(),
        Some(_) => {
            problems.push(Problem::body(name, msg, "value_error"));
            String::new()
        }
    };
    let value = text(
        "value",
        &|s| f.has(Fault::VatValueMaxIgnored) || s.chars().count() <= 32,
        "String should have at most 32 characters",
    );
    let country = text(
        "country",
        &|s| f.has(Fault::VatCountryAny) || COUNTRIES.contains(&s),
        "Input should be one of the listed ISO 3166 alpha-2 codes",
    );
    let kind = text(
        "type",
        &|s| f.has(Fault::VatTypeAny) || VAT_TYPES.contains(&s),
        "Input should be one of the listed VAT ID types",
    );
    if problems.is_empty() {
        Ok((value, country, kind))
    } else {
        Err(problems)
    }
}

fn vat_json(app: &App, v: &VatId) -> Value {
    let counterpart_id = if app.faults.has(Fault::VatCounterpartWrong) {
        v.org
    } else {
        v.counterpart_id
    };
    let mut out = json!({
        "id": v.id,
        "counterpart_id": counterpart_id,
        "value": v.value,
        "country": v.country,
        "type": v.kind,
    });
    if app.faults.has(Fault::VatResponseTypeMissing) {
        out.as_object_mut().map(|m| m.remove("type"));
    }
    out
}

pub async fn create_vat(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(counterpart): Path<String>,
    body: Bytes,
) -> Response {
    merge(create_vat_inner(&app, &headers, &counterpart, &body))
}

fn create_vat_inner(app: &App, headers: &HeaderMap, counterpart: &str, body: &Bytes) -> Reply {
    let org = gate_org(app, headers)?;
    let counterpart_id = path_uuid(app, "counterpart_id", counterpart)?;
    let value = parse_body(app, body)?;
    let (value, country, kind) =
        validate_vat(app, &value).map_err(|p| reply::validation(&app.faults, &p))?;
    let mut db = app.db();
    if db
        .counterparts
        .get(&counterpart_id)
        .is_none_or(|c| c.org != org)
    {
        return Err(not_found(app, "counterpart"));
    }
    let id = db.uuid();
    let stored_kind = if app.faults.has(Fault::VatTypeLost) {
        "unknown".to_owned()
    } else {
        kind
    };
    let vat = VatId {
        id,
        org,
        counterpart_id,
        value,
        country,
        kind: stored_kind,
    };
    db.vat_ids.push(vat.clone());
    db.record(
        org,
        "counterpart_tax_id",
        "counterpart_tax_id.created",
        json!({ "id": id, "counterpart_id": counterpart_id }),
    );
    drop(db);
    Ok(reply::json(StatusCode::CREATED, &vat_json(app, &vat)))
}

pub async fn get_vat(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((counterpart, vat)): Path<(String, String)>,
) -> Response {
    merge(get_vat_inner(&app, &headers, &counterpart, &vat))
}

fn get_vat_inner(app: &App, headers: &HeaderMap, counterpart: &str, vat: &str) -> Reply {
    let org = gate_org(app, headers)?;
    let counterpart_id = path_uuid(app, "counterpart_id", counterpart)?;
    let vat_id = path_uuid(app, "vat_id", vat)?;
    let f = &app.faults;
    let found = {
        let db = app.db();
        let isolated = |v: &&VatId| v.org == org || f.has(Fault::OrgIsolationBroken);
        let under = |v: &&VatId| v.counterpart_id == counterpart_id;
        if f.has(Fault::VatGetReturnsFirst) {
            db.vat_ids.iter().filter(isolated).find(under).cloned()
        } else {
            db.vat_ids
                .iter()
                .filter(isolated)
                .filter(under)
                .find(|v| v.id == vat_id)
                .cloned()
        }
    };
    let Some(vat) = found else {
        if f.has(Fault::VatGetUnknown200) {
            return Ok(reply::json(StatusCode::OK, &json!({})));
        }
        return Err(not_found(app, "VAT ID"));
    };
    if f.has(Fault::NonJsonBody) {
        let text = format!(
            "VatId {{ id: {}, value: {:?}, country: {} }}",
            vat.id, vat.value, vat.country
        );
        return Ok(reply::with_type(
            StatusCode::OK,
            text.into_bytes(),
            "application/json",
        ));
    }
    Ok(reply::json(StatusCode::OK, &vat_json(app, &vat)))
}

// ------------------------------------------------------------------------ comments

fn comment_json(app: &App, id: Uuid, c: &Comment) -> Value {
    let f = &app.faults;
    let created_at = if f.has(Fault::CommentDatesNotDateTime) {
        json!(c.created_at.unix_timestamp())
    } else {
        json!(rfc3339(c.created_at))
    };
    let status = if f.has(Fault::CommentStatusUppercase) {
        c.status.to_uppercase()
    } else {
        c.status.to_owned()
    };
    json!({
        "id": id,
        "created_at": created_at,
        "updated_at": rfc3339(c.updated_at),
        "created_by_entity_user_id": c.created_by,
        "entity_id": c.org,
        "object_id": c.object_id,
        "object_type": "receivable",
        "reply_to_entity_user_id": c.reply_to,
        "status": status,
        "text": c.text,
    })
}

/// The update body: each member optional; text a string, reply_to_entity_user_id a uuid.
fn validate_comment_update(
    app: &App,
    body: &Value,
) -> Result<(Option<String>, Option<Uuid>), Vec<Problem>> {
    let loose = app.faults.has(Fault::CommentTypesUnchecked);
    let Some(map) = body.as_object() else {
        return Err(vec![Problem::whole_body(
            "the body must be a JSON object",
            "model_attributes_type",
        )]);
    };
    let mut problems = Vec::new();
    let text = match map.get("text") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) if loose => Some(other.to_string()),
        Some(_) => {
            problems.push(Problem::body(
                "text",
                "Input should be a valid string",
                "string_type",
            ));
            None
        }
    };
    let reply_to = match map.get("reply_to_entity_user_id") {
        None => None,
        Some(v) => match v.as_str().and_then(parse_uuid) {
            Some(id) => Some(id),
            None if loose => None,
            None => {
                problems.push(Problem::body(
                    "reply_to_entity_user_id",
                    "Input should be a valid UUID",
                    "uuid_parsing",
                ));
                None
            }
        },
    };
    if problems.is_empty() {
        Ok((text, reply_to))
    } else {
        Err(problems)
    }
}

pub async fn update_comment(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(comment): Path<String>,
    body: Bytes,
) -> Response {
    merge(update_comment_inner(&app, &headers, &comment, &body))
}

fn update_comment_inner(app: &App, headers: &HeaderMap, comment: &str, body: &Bytes) -> Reply {
    let org = gate_org(app, headers)?;
    let id = path_uuid(app, "comment_id", comment)?;
    let value = parse_body(app, body)?;
    let (text, reply_to) =
        validate_comment_update(app, &value).map_err(|p| reply::validation(&app.faults, &p))?;
    let mut db = app.db();
    let now = db.now();
    let Some(stored) = db.comments.get_mut(&id).filter(|c| c.org == org) else {
        drop(db);
        if app.faults.has(Fault::CommentUnknown200) {
            let made_up = Comment {
                org,
                created_at: now,
                updated_at: now,
                created_by: app.ids.entity_user,
                object_id: app.ids.quote,
                reply_to: reply_to.unwrap_or(app.ids.entity_user),
                status: "active",
                text: text.unwrap_or_default(),
            };
            return Ok(reply::json(
                StatusCode::OK,
                &comment_json(app, id, &made_up),
            ));
        }
        return Err(not_found(app, "comment"));
    };
    let before = stored.clone();
    if let Some(text) = text {
        stored.text = text;
    }
    if let Some(reply_to) = reply_to {
        stored.reply_to = reply_to;
    }
    stored.updated_at = now;
    let after = stored.clone();
    db.record(org, "comment", "comment.updated", json!({ "id": id }));
    drop(db);
    let shown = if app.faults.has(Fault::CommentUpdateNotApplied) {
        before
    } else {
        after
    };
    Ok(reply::json(StatusCode::OK, &comment_json(app, id, &shown)))
}

// ------------------------------------------------------------------------ mailbox domains

/// Letters, digits, dots and hyphens; every dot-separated segment starts and ends with a
/// letter or digit.
fn domain_ok(app: &App, domain: &str) -> bool {
    let f = &app.faults;
    if f.has(Fault::DomainCharsetUnchecked) {
        return !domain.is_empty();
    }
    let edges_free = f.has(Fault::DomainSegmentEdgesUnchecked);
    !domain.is_empty()
        && domain.split('.').all(|segment| {
            let bytes = segment.as_bytes();
            let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
                return false;
            };
            bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
                && (edges_free || (first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric()))
        })
}

fn dns_record(app: &App, record_type: &str, name: &str, value: &str, purpose: &str) -> Value {
    let is_active = if app.faults.has(Fault::DnsIsActiveString) {
        json!("true")
    } else {
        json!(true)
    };
    json!({
        "is_active": is_active,
        "record_type": record_type,
        "valid": "unknown",
        "value": value,
        "name": name,
        "record_purpose": purpose,
    })
}

pub async fn create_mailbox_domain(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    merge(create_mailbox_inner(&app, &headers, &body))
}

fn create_mailbox_inner(app: &App, headers: &HeaderMap, body: &Bytes) -> Reply {
    gate(app, headers, OrgHeader::NotUsed)?;
    let value = parse_body(app, body)?;
    let f = &app.faults;
    let domain = match value.get("domain") {
        None => {
            return Err(reply::validation(
                f,
                &[Problem::body("domain", "Field required", "missing")],
            ))
        }
        Some(Value::String(d)) if domain_ok(app, d) => d.clone(),
        Some(_) => {
            let msg = "domain must hold letters, digits, dots and hyphens, each segment starting and ending with a letter or digit";
            return Err(reply::validation(
                f,
                &[Problem::body("domain", msg, "string_pattern_mismatch")],
            ));
        }
    };
    let (n, id, at) = {
        let mut db = app.db();
        db.mailbox_count += 1;
        (db.mailbox_count, db.uuid(), db.now())
    };
    let id = if f.has(Fault::MailboxIdNotUuid) {
        json!(format!("mbx_{n:04}"))
    } else {
        json!(id)
    };
    let shown = if f.has(Fault::DomainNotEchoed) {
        format!("mail.{domain}")
    } else {
        domain.clone()
    };
    let mut out = json!({
        "id": id,
        "domain": shown,
        "dns_records": {
            "receiving_dns_records": [
                dns_record(app, "MX", &domain, "10 mx.covenant.invalid", "receiving"),
            ],
            "sending_dns_records": [
                dns_record(app, "TXT", &domain, "v=spf1 include:spf.covenant.invalid ~all", "sending"),
                dns_record(app, "CNAME", &format!("dkim._domainkey.{domain}"), "dkim.covenant.invalid", "sending"),
            ],
        },
        "status": "pending",
        "dedicated_ip": "192.0.2.25",
        "last_updated_at": rfc3339(at),
    });
    if f.has(Fault::MailboxDedicatedIpMissing) {
        out.as_object_mut().map(|m| m.remove("dedicated_ip"));
    }
    Ok(reply::json(StatusCode::CREATED, &out))
}

// ------------------------------------------------------------------------ deletes

pub async fn delete_tag(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(tag): Path<String>,
) -> Response {
    merge(delete_tag_inner(&app, &headers, &tag))
}

fn delete_tag_inner(app: &App, headers: &HeaderMap, tag: &str) -> Reply {
    let org = gate_org(app, headers)?;
    let id = path_uuid(app, "tag_id", tag)?;
    let f = &app.faults;
    let mut db = app.db();
    let exists = db.tags.get(&id) == Some(&org) && !f.has(Fault::TagDeleteNotFound);
    if !exists {
        drop(db);
        return if f.has(Fault::TagDeleteIdempotent) {
            Ok(reply::no_content())
        } else {
            Err(not_found(app, "tag"))
        };
    }
    db.tags.remove(&id);
    for r in db.receivables.values_mut().filter(|r| r.org == org) {
        r.tag_ids.retain(|t| *t != id);
    }
    db.record(org, "tag", "tag.deleted", json!({ "id": id }));
    Ok(reply::no_content())
}

pub async fn delete_bank_account(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((counterpart, account)): Path<(String, String)>,
) -> Response {
    merge(delete_bank_account_inner(
        &app,
        &headers,
        &counterpart,
        &account,
    ))
}

fn delete_bank_account_inner(
    app: &App,
    headers: &HeaderMap,
    counterpart: &str,
    account: &str,
) -> Reply {
    let org = gate_org(app, headers)?;
    let counterpart_id = path_uuid(app, "counterpart_id", counterpart)?;
    let account_id = path_uuid(app, "bank_account_id", account)?;
    let f = &app.faults;
    let mut db = app.db();
    let removed = !f.has(Fault::BankAccountDeleteNotFound)
        && db
            .counterparts
            .get_mut(&counterpart_id)
            .filter(|c| c.org == org)
            .is_some_and(|c| c.bank_accounts.remove(&account_id));
    if !removed {
        drop(db);
        return if f.has(Fault::BankAccountDeleteIdempotent) {
            Ok(reply::no_content())
        } else {
            Err(not_found(app, "counterpart bank account"))
        };
    }
    db.record(
        org,
        "counterpart_bank_account",
        "counterpart_bank_account.deleted",
        json!({ "id": account_id, "counterpart_id": counterpart_id }),
    );
    Ok(reply::no_content())
}

// ------------------------------------------------------------------------ events

/// The default page size of list events (the spec states none).
pub const EVENTS_DEFAULT_LIMIT: usize = 100;

pub async fn list_events_v1(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if app.faults.has(Fault::EventsPathWithoutV1) {
        return not_found(&app, "route");
    }
    merge(list_events(&app, &headers, query.as_deref()))
}

/// `/finops/events`: exists only under the `ver-events-path-without-v1` fault.
pub async fn list_events_bare(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if !app.faults.has(Fault::EventsPathWithoutV1) {
        return not_found(&app, "route");
    }
    merge(list_events(&app, &headers, query.as_deref()))
}

/// Query parameters, the last of each name winning.
pub fn query_map(query: Option<&str>) -> HashMap<String, String> {
    url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

/// The cursor of a first query (no token).
fn first_cursor(
    app: &App,
    org: Uuid,
    q: &HashMap<String, String>,
) -> Result<EventCursor, Vec<Problem>> {
    let f = &app.faults;
    let lenient = f.has(Fault::EventsLimitClamped);
    let mut problems = Vec::new();
    let limit = match q.get("limit").map(|s| s.parse::<i64>()) {
        None => EVENTS_DEFAULT_LIMIT,
        Some(Ok(n)) if (1..=100).contains(&n) => n as usize,
        Some(Ok(n)) if lenient => n.clamp(1, 100) as usize,
        Some(Err(_)) if lenient => EVENTS_DEFAULT_LIMIT,
        Some(_) => {
            problems.push(Problem::query(
                "limit",
                "Input should be an integer from 1 to 100",
                "int_parsing",
            ));
            EVENTS_DEFAULT_LIMIT
        }
    };
    let unknown_ok = f.has(Fault::EventsOrderUnknownIgnored);
    let desc = match q.get("order").map(String::as_str) {
        None => f.has(Fault::EventsDefaultDesc),
        Some("asc") => false,
        Some("desc") => !f.has(Fault::EventsDescIgnored),
        Some(_) if unknown_ok => false,
        Some(_) => {
            problems.push(Problem::query(
                "order",
                "Input should be 'asc' or 'desc'",
                "enum",
            ));
            false
        }
    };
    let by_updated = match q.get("sort").map(String::as_str) {
        None => f.has(Fault::EventsDefaultSortUpdated),
        Some("created_at") => false,
        Some("updated_at") => true,
        Some(_) if unknown_ok => false,
        Some(_) => {
            problems.push(Problem::query(
                "sort",
                "Input should be 'created_at' or 'updated_at'",
                "enum",
            ));
            false
        }
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(EventCursor {
        org,
        limit,
        desc,
        by_updated,
        offset: 0,
    })
}

/// Under `evt-token-honours-params`, the query's own limit and order override the token's.
fn override_from_query(mut cursor: EventCursor, q: &HashMap<String, String>) -> EventCursor {
    if let Some(limit) = q
        .get("limit")
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|n| (1..=100).contains(n))
    {
        cursor.limit = limit;
    }
    match q.get("order").map(String::as_str) {
        Some("asc") => cursor.desc = false,
        Some("desc") => cursor.desc = true,
        _ => {}
    }
    cursor
}

fn list_events(app: &App, headers: &HeaderMap, query: Option<&str>) -> Reply {
    let org = gate_org(app, headers)?;
    let f = &app.faults;
    let q = query_map(query);
    if f.has(Fault::ServerErrorOnValidRequest) && q.get("order").is_some_and(|o| o == "desc") {
        return Err(reply::internal_error());
    }
    let cursor = match q.get("pagination_token") {
        None => first_cursor(app, org, &q).map_err(|p| reply::validation(f, &p))?,
        Some(token) => {
            let mut db = app.db();
            let found = if f.has(Fault::EventsTokenSingleUse) {
                db.event_cursors.remove(token)
            } else {
                db.event_cursors.get(token).copied()
            };
            match found.filter(|c| c.org == org) {
                Some(c) if f.has(Fault::EventsTokenHonoursParams) => override_from_query(c, &q),
                Some(c) => c,
                None if f.has(Fault::EventsTamperedRestarts) => {
                    drop(db);
                    first_cursor(app, org, &HashMap::new()).map_err(|p| reply::validation(f, &p))?
                }
                None => {
                    return Err(reply::finance_error(
                        f,
                        StatusCode::BAD_REQUEST,
                        "pagination_token is unknown or expired",
                    ))
                }
            }
        }
    };
    let page = events_page(app, cursor);
    if f.has(Fault::JsonAsTextPlain) {
        let bytes = serde_json::to_vec(&page).expect("a serde_json::Value always serialises");
        return Ok(reply::with_type(
            StatusCode::OK,
            bytes,
            "text/plain; charset=utf-8",
        ));
    }
    Ok(reply::json(StatusCode::OK, &page))
}

/// One page of events and its tokens (registered so that they can be used again).
fn events_page(app: &App, cursor: EventCursor) -> Value {
    let f = &app.faults;
    let mut db = app.db();
    let mut events: Vec<_> = db
        .events
        .iter()
        .filter(|e| e.org == cursor.org)
        .cloned()
        .collect();
    events.sort_by(|a, b| {
        let key = |e: &super::store::Event| {
            (
                if cursor.by_updated {
                    e.updated_at
                } else {
                    e.created_at
                },
                e.id,
            )
        };
        key(a).cmp(&key(b))
    });
    if cursor.desc {
        events.reverse();
    }
    let plan = PagePlan::new(
        cursor.offset,
        cursor.limit,
        events.len(),
        PageFaults {
            plus_one: f.has(Fault::EventsLimitPlusOne),
            repeat: f.has(Fault::EventsItemRepeated),
            skip: f.has(Fault::EventsItemSkipped),
            cycle: f.has(Fault::EventsNextCycles),
            prev_on_first: f.has(Fault::EventsPrevOnFirst),
            prev_off_by_one: false,
        },
    );
    let seed = app.ids.seed;
    let mut token = |offset: Option<usize>| {
        offset.map(|offset| {
            let c = EventCursor { offset, ..cursor };
            let t = super::store::cursor_token(seed, "events", &c);
            db.event_cursors.insert(t.clone(), c);
            t
        })
    };
    let next = token(plan.next);
    let prev = token(plan.prev);
    drop(db);
    let data: Vec<Value> = events[plan.start..plan.end]
        .iter()
        .map(|e| {
            let object_type = if f.has(Fault::EventObjectTypeOutsideEnum) && e.object_type == "counterpart_tax_id" {
                "vat_id"
            } else {
                e.object_type
            };
            let mut item = json!({
                "id": e.id,
                "action": e.action,
                "api_version": crate::profile::DEFAULT_FINOPS_VERSION,
                "description": format!("{} {}", object_type, e.action.rsplit('.').next().unwrap_or("changed")),
                "entity_id": e.org,
                "object_type": object_type,
                "created_at": rfc3339(e.created_at),
                "object": e.object,
            });
            if f.has(Fault::EventDescriptionMissing) {
                item.as_object_mut().map(|m| m.remove("description"));
            }
            item
        })
        .collect();
    let mut page =
        json!({ "data": data, "next_pagination_token": next, "prev_pagination_token": prev });
    if f.has(Fault::EventsPrevKeyMissing) {
        page.as_object_mut()
            .map(|m| m.remove("prev_pagination_token"));
    }
    page
}

/// The pagination faults that bend a page plan.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageFaults {
    pub plus_one: bool,
    pub repeat: bool,
    pub skip: bool,
    pub cycle: bool,
    pub prev_on_first: bool,
    pub prev_off_by_one: bool,
}

/// Which items a page holds and where its next and previous pages start.
#[derive(Debug, Clone, Copy)]
pub struct PagePlan {
    pub start: usize,
    pub end: usize,
    pub next: Option<usize>,
    pub prev: Option<usize>,
}

impl PagePlan {
    /// The page at `offset` of `limit` items out of `total`, bent by `faults`.
    pub fn new(offset: usize, limit: usize, total: usize, faults: PageFaults) -> PagePlan {
        let start = offset.min(total);
        let size = if faults.plus_one { limit + 1 } else { limit };
        let end = (start + size).min(total);
        let mut next_offset = start + limit;
        if faults.skip {
            next_offset += 1;
        }
        if faults.repeat && limit > 1 {
            next_offset -= 1;
        }
        let next = if start + limit < total {
            Some(next_offset)
        } else if faults.cycle {
            Some(0)
        } else {
            None
        };
        let prev = if start > 0 {
            let back = if faults.prev_off_by_one {
                limit - 1
            } else {
                limit
            };
            Some(start.saturating_sub(back))
        } else if faults.prev_on_first {
            Some(0)
        } else {
            None
        };
        PagePlan {
            start,
            end,
            next,
            prev,
        }
    }
}

/// Answers a request for no route, in the finance error body.
pub fn route_not_found(app: &App) -> Response {
    not_found(app, "route")
}
