//! Create receivable: quote and invoice bodies, and based-on creation with its transitions.

use super::{gate_org, merge, not_found, owns, parse_body};
use crate::fault::{Fault, FaultSet};
use crate::receivable::{self, parse_uuid, Create};
use crate::reply::{self, Reply};
use crate::store::{rfc3339, App, Receivable, ReceivableKind, VatId};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use time::OffsetDateTime;
use uuid::Uuid;

pub async fn create_receivable(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    merge(create_receivable_inner(&app, &headers, &body))
}

fn create_receivable_inner(app: &App, headers: &HeaderMap, body: &Bytes) -> Reply {
    let today = OffsetDateTime::now_utc().date();
    if app.faults.has(Fault::NoTokenBodyFirst) && !headers.contains_key(AUTHORIZATION) {
        let value = serde_json::from_slice(body).unwrap_or(Value::Null);
        if let Err(problems) = receivable::validate(&app.faults, &value, today) {
            return Err(reply::validation(&app.faults, &problems));
        }
    }
    let org = gate_org(app, headers)?;
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    // Under its fault, the media type is compared as text, its case included.
    let unlike = content_type.is_some_and(|v| !v.starts_with("application/json"));
    if unlike && app.faults.has(Fault::ContentTypeCaseSensitive) {
        let message = "Content-Type must be application/json";
        return Err(reply::finance_error(
            &app.faults,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            message,
        ));
    }
    let charset = content_type.is_some_and(|v| v.contains("charset"));
    if charset && app.faults.has(Fault::CharsetBodyAnsweredText) {
        let text = b"unsupported media type".to_vec();
        return Err(reply::with_type(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            text,
            "text/plain",
        ));
    }
    let value = parse_body(app, body)?;
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
    kind: ReceivableKind,
    counterpart_id: Uuid,
    body: Map<String, Value>,
) -> Reply {
    // Under its fault, the id is looked up as the text given: an upper-case one finds nothing.
    let as_text = body.get("counterpart_id").and_then(Value::as_str);
    let upper = as_text.is_some_and(|id| id.bytes().any(|b| b.is_ascii_uppercase()));
    if upper && app.faults.has(Fault::UuidUpperCaseRefused) {
        return Err(not_found(app, "counterpart"));
    }
    let mut db = app.db();
    let Some(counterpart) = db
        .counterparts
        .get(&counterpart_id)
        .filter(|c| owns(app, c.org, org))
    else {
        return Err(not_found(app, "counterpart"));
    };
    let counterpart_name = counterpart.name.clone();
    // Under its fault, a VAT ID created through the API is not found (the seeded ones are).
    let vat_id = body.get("counterpart_vat_id_id").and_then(Value::as_str);
    let created_vat = vat_id
        .and_then(parse_uuid)
        .is_some_and(|v| created_vat_id(app, &db.vat_ids, v));
    if created_vat && app.faults.has(Fault::CreatedVatIdRefused) {
        return Err(not_found(app, "counterpart VAT ID"));
    }
    // Under its fault, the store fails on U+0000, as a text column of PostgreSQL does.
    if body.values().any(holds_nul) && app.faults.has(Fault::NulServerError) {
        return Err(reply::internal_error());
    }
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
        based_on: None,
    };
    db.record(
        org,
        "receivable",
        &format!("receivable.{}.created", kind.as_str()),
        json!({ "id": id }),
    );
    db.receivables.insert(id, record.clone());
    drop(db);
    let source = EchoedFrom {
        body: &body,
        based_on: None,
    };
    let answer = render_receivable(app, id, &record, &counterpart_name, at, &source);
    if subtotal(&record.line_items) == 0 && app.faults.has(Fault::NanInAnswer) {
        return Ok(nan_subtotal(app, &answer));
    }
    if priced_zero(&record.line_items) && app.faults.has(Fault::PriceZeroNan) {
        return Ok(nan_prices(app, answer));
    }
    Ok(created(app, &answer))
}

/// Whether `id` names a VAT ID created through create counterpart VAT ID (not a seeded one).
fn created_vat_id(app: &App, vat_ids: &[VatId], id: Uuid) -> bool {
    let seeded = app.ids.vat_ids.contains(&id) || app.ids.other_vat_id == id;
    !seeded && vat_ids.iter().any(|v| v.id == id)
}

/// Whether a string anywhere in the value holds U+0000.
fn holds_nul(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().any(holds_nul),
        Value::Object(map) => map.iter().any(|(k, v)| k.contains('\0') || holds_nul(v)),
        _ => false,
    }
}

/// The created receivable with its zero subtotal written as NaN, as a serialiser that divides
/// by a zero total and writes floats as JavaScript does would (serde_json writes none).
fn nan_subtotal(app: &App, answer: &Value) -> Response {
    let text = serde_json::to_string(answer).expect("a serde_json::Value always serialises");
    let text = text.replacen(
        "\"discounted_subtotal\":0",
        "\"discounted_subtotal\":NaN",
        1,
    );
    created_as_text(app, text)
}

const PRICE: &str = "/product/price/value";

/// Whether a line item has product.price.value 0.
fn priced_zero(line_items: &Value) -> bool {
    let items = line_items.as_array().map(Vec::as_slice).unwrap_or_default();
    let zero = |item: &Value| item.pointer(PRICE).and_then(Value::as_f64) == Some(0.0);
    items.iter().any(zero)
}

/// The created receivable with each zero price of its line items written as NaN, as a server
/// that works a unit price out as 0 / 0 and writes floats as JavaScript does would.
fn nan_prices(app: &App, mut answer: Value) -> Response {
    const MARK: &str = "covenant:nan-price";
    let items = answer.get_mut("line_items").and_then(Value::as_array_mut);
    for item in items.into_iter().flatten() {
        if let Some(price) = item.pointer_mut(PRICE).filter(|p| p.as_f64() == Some(0.0)) {
            *price = json!(MARK);
        }
    }
    let text = serde_json::to_string(&answer).expect("a serde_json::Value always serialises");
    created_as_text(app, text.replace(&format!("\"{MARK}\""), "NaN"))
}

/// [`created`] with a body already written (one serde_json would not write).
fn created_as_text(app: &App, text: String) -> Response {
    let mut response = created(app, &Value::Null);
    *response.body_mut() = axum::body::Body::from(text);
    response
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
fn transition_allowed(app: &App, source: ReceivableKind, target: ReceivableKind) -> bool {
    let f = &app.faults;
    match (source, target) {
        (ReceivableKind::Quote, ReceivableKind::Invoice) => !f.has(Fault::QuoteToInvoiceRefused),
        (ReceivableKind::Invoice, ReceivableKind::CreditNote) => {
            !f.has(Fault::InvoiceToCreditNoteRefused)
        }
        (ReceivableKind::Quote, ReceivableKind::CreditNote) => {
            f.has(Fault::UnsupportedTransitionAllowed)
        }
        (ReceivableKind::Invoice, ReceivableKind::Invoice) => {
            f.has(Fault::InvoiceFromInvoiceAllowed)
        }
        _ => false,
    }
}

fn create_based_on(
    app: &App,
    org: Uuid,
    kind: Option<ReceivableKind>,
    based_on: Uuid,
    tag_ids: Vec<Uuid>,
) -> Reply {
    let mut db = app.db();
    let anywhere = app.faults.has(Fault::BasedOnForeignAccepted);
    let source = match db
        .receivables
        .get(&based_on)
        .filter(|r| r.org == org || anywhere)
    {
        Some(r) => r.clone(),
        None if app.faults.has(Fault::BasedOnUnknownAccepted) => Receivable {
            org,
            kind: ReceivableKind::Quote,
            counterpart_id: app.ids.counterpart,
            currency: "EUR".to_owned(),
            line_items: json!([]),
            tag_ids: Vec::new(),
            document_id: String::new(),
            based_on: None,
        },
        None => return Err(not_found(app, "based_on document")),
    };
    let target = kind.unwrap_or(match source.kind {
        ReceivableKind::Quote => ReceivableKind::Invoice,
        _ => ReceivableKind::CreditNote,
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
        based_on: Some(based_on),
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
    let origin = EchoedFrom {
        body: &body,
        based_on: Some((based_on, source.document_id.as_str())),
    };
    Ok(created(
        app,
        &render_receivable(app, id, &record, &counterpart_name, at, &origin),
    ))
}

/// Where a receivable's echoed fields come from.
struct EchoedFrom<'a> {
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
    src: &EchoedFrom,
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
    let attachments = match echo("attachments") {
        Value::Null if f.has(Fault::OmittedAttachmentsDefaulted) => {
            json!([{ "file_id": app.ids.entity_user, "include_in_email": false }])
        }
        given => given,
    };
    put("attachments", attachments);
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
    let subtotal = subtotal(&r.line_items);
    if f.has(Fault::SubtotalTaxAdded) {
        put("discounted_subtotal", json!(subtotal * 119 / 100));
    } else {
        put("discounted_subtotal", json!(subtotal));
    }
    match echo("document_id") {
        Value::Null if f.has(Fault::DocumentIdBeforeIssue) => put(
            "document_id",
            json!(format!("Q-{:06}", id.as_u128() % 1_000_000)),
        ),
        given => put("document_id", given),
    }
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
    put("expiry_date", expiry_date(f, echo("expiry_date")));
    let language = if f.has(Fault::FileLanguageName) {
        "English"
    } else {
        "en"
    };
    put("file_language", json!(language));
    put("file_url", Value::Null);
    if f.has(Fault::QuoteFooterDropped) {
        put("footer", Value::Null);
    } else {
        put("footer", echo("footer"));
    }
    put("issue_date", Value::Null);
    put("line_items", r.line_items.clone());
    put("memo", echo("memo"));
    put("type", json!(r.kind.as_str()));
    put("status", json!("draft"));
    put("tag_ids", json!(r.tag_ids));
    Value::Object(out)
}

/// The quote's expiry_date as it was given, or as DD/MM/YYYY under its fault.
fn expiry_date(f: &FaultSet, given: Value) -> Value {
    match given.as_str().map(|d| d.split('-').collect::<Vec<_>>()) {
        Some(parts) if f.has(Fault::QuoteExpiryDateNotIso) && parts.len() == 3 => {
            json!(format!("{}/{}/{}", parts[2], parts[1], parts[0]))
        }
        _ => given,
    }
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

/// 201 with the receivable (200 under `rcv-create-200`).
fn created(app: &App, body: &Value) -> Response {
    let status = if app.faults.has(Fault::Create200) {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    reply::json(status, body)
}
