//! A create-receivable body validated rule by rule: its shape (quote, invoice or based-on), each
//! field of [`super::fields`] in turn, and the samples' nested objects; every check one line a
//! fault can switch off.

use super::classes;
use super::fields::{Field, Ty, BASED_ON_FIELDS, INVOICE_ONLY, QUOTE_ONLY, REQUIRED, SHARED};
use super::types::check_type;
use super::values::{as_integer, parse_date, parse_uuid, uuid_array, wrapped};
use crate::fault::{Fault, FaultSet};
use crate::reply::FieldError;
use crate::store::ReceivableKind;
use serde_json::{json, Map, Value};
use time::Date;
use uuid::Uuid;

/// A valid create-receivable body.
#[derive(Debug, Clone)]
pub enum Create {
    /// A quote or invoice body.
    New {
        kind: ReceivableKind,
        counterpart_id: Uuid,
        body: Map<String, Value>,
    },
    /// A based-on body; `kind` is `None` only under the `rcv-based-on-type-optional` fault.
    BasedOn {
        kind: Option<ReceivableKind>,
        based_on: Uuid,
        tag_ids: Vec<Uuid>,
    },
}

/// Checks a parsed body against the rules of its shape. `today` is for the past-date fault.
pub fn validate(faults: &FaultSet, body: &Value, today: Date) -> Result<Create, Vec<FieldError>> {
    let Some(map) = body.as_object() else {
        return Err(vec![FieldError::whole_body(
            "the body must be a JSON object",
            "model_attributes_type",
        )]);
    };
    let mut map = map.clone();
    classes::read_aliases(faults, &mut map);
    if map.contains_key("based_on") {
        let mixed = map.keys().any(|k| !BASED_ON_FIELDS.contains(&k.as_str()));
        if mixed && faults.has(Fault::MixedShapeAccepted) {
            map.remove("based_on");
        } else {
            return validate_based_on(faults, &map);
        }
    }
    let kind = match map.get("type").map(Value::as_str) {
        None => return Err(vec![FieldError::body("type", "Field required", "missing")]),
        Some(Some("quote")) => ReceivableKind::Quote,
        Some(Some("invoice")) => ReceivableKind::Invoice,
        Some(_) if faults.has(Fault::TypeUnchecked) => ReceivableKind::Quote,
        Some(Some("credit_note")) => {
            return Err(vec![FieldError::body(
                "based_on",
                "a credit note is created from an invoice: based_on is required",
                "missing",
            )])
        }
        Some(_) => {
            return Err(vec![FieldError::body(
                "type",
                "Input should be 'quote' or 'invoice'",
                "literal_error",
            )])
        }
    };
    validate_new(faults, kind, &map, today)
}

fn validate_new(
    faults: &FaultSet,
    kind: ReceivableKind,
    map: &Map<String, Value>,
    today: Date,
) -> Result<Create, Vec<FieldError>> {
    let (own, foreign, foreign_fault) = match kind {
        ReceivableKind::Invoice => (INVOICE_ONLY, QUOTE_ONLY, Fault::QuoteFieldInInvoiceAccepted),
        _ => (QUOTE_ONLY, INVOICE_ONLY, Fault::InvoiceFieldInQuoteAccepted),
    };
    let mut problems = Vec::new();
    for name in REQUIRED {
        let optional = *name == "currency" && faults.has(Fault::CurrencyOptional);
        if !map.contains_key(*name) && !optional {
            problems.push(FieldError::body(name, "Field required", "missing"));
        }
    }
    for (name, value) in map {
        if name == "type" {
            continue;
        }
        if let Some(f) = SHARED.iter().chain(own).find(|f| f.name == name) {
            problems.extend(check_field(faults, f, value, today));
        } else if foreign.iter().any(|f| f.name == name) {
            if !faults.has(foreign_fault) {
                let msg = format!("{name} is not allowed in a {} body", kind.as_str());
                problems.push(FieldError::body(name, msg, "extra_forbidden"));
            }
        } else if !(faults.has(Fault::UnknownPropsAccepted) || null_ignored(faults, value)) {
            problems.push(FieldError::body(
                name,
                "Extra inputs are not permitted",
                "extra_forbidden",
            ));
        }
    }
    let chars = |name: &str| {
        map.get(name)
            .and_then(Value::as_str)
            .map(|s| s.chars().count())
    };
    let together =
        chars("trade_name") == Some(255) && chars("counterpart_business_type") == Some(50);
    if together && faults.has(Fault::LimitsTogetherRefused) {
        let msg = "trade_name and counterpart_business_type hold at most 300 characters together";
        problems.push(FieldError::body("trade_name", msg, "value_error"));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let counterpart_id = map
        .get("counterpart_id")
        .and_then(Value::as_str)
        .and_then(parse_uuid)
        .expect("counterpart_id was checked to be a uuid");
    Ok(Create::New {
        kind,
        counterpart_id,
        body: map.clone(),
    })
}

/// Whether an unknown property of this value is ignored: a null, under its fault.
fn null_ignored(faults: &FaultSet, value: &Value) -> bool {
    value.is_null() && faults.has(Fault::UnknownNullAccepted)
}

fn validate_based_on(
    faults: &FaultSet,
    map: &Map<String, Value>,
) -> Result<Create, Vec<FieldError>> {
    let mut problems = Vec::new();
    for (name, value) in map {
        let ignored = faults.has(Fault::UnknownPropsAcceptedBasedOn) || null_ignored(faults, value);
        if !BASED_ON_FIELDS.contains(&name.as_str()) && !ignored {
            problems.push(FieldError::body(
                name,
                "Extra inputs are not permitted",
                "extra_forbidden",
            ));
        }
    }
    let kind = match map.get("type") {
        None if faults.has(Fault::BasedOnTypeOptional) => None,
        None => {
            problems.push(FieldError::body("type", "Field required", "missing"));
            None
        }
        Some(v) => match v.as_str() {
            Some("quote") => Some(ReceivableKind::Quote),
            Some("invoice") => Some(ReceivableKind::Invoice),
            Some("credit_note") => Some(ReceivableKind::CreditNote),
            _ => {
                problems.push(FieldError::body(
                    "type",
                    "Input should be 'quote', 'invoice' or 'credit_note'",
                    "enum",
                ));
                None
            }
        },
    };
    let based_on = match map
        .get("based_on")
        .and_then(Value::as_str)
        .and_then(parse_uuid)
    {
        Some(id) => Some(id),
        _ => {
            problems.push(FieldError::body(
                "based_on",
                "Input should be a valid UUID",
                "uuid_parsing",
            ));
            None
        }
    };
    let tag_ids = match map.get("tag_ids") {
        None => Vec::new(),
        Some(v) if v.is_array() && faults.has(Fault::BasedOnTagIdsUnchecked) => {
            uuid_array(v).unwrap_or_default()
        }
        Some(v) => match uuid_array(v) {
            Some(ids) => ids,
            None => {
                problems.push(FieldError::body(
                    "tag_ids",
                    "Input should be a list of UUIDs",
                    "list_type",
                ));
                Vec::new()
            }
        },
    };
    match based_on {
        Some(based_on) if problems.is_empty() => Ok(Create::BasedOn {
            kind,
            based_on,
            tag_ids,
        }),
        _ => Err(problems),
    }
}

/// The problems of one field's value (none when it is valid or its check is faulted off).
fn check_field(faults: &FaultSet, f: &Field, value: &Value, today: Date) -> Option<FieldError> {
    if f.relax.is_some_and(|fault| faults.has(fault)) {
        return None;
    }
    if let Some(problem) = classes::refused(faults, f, value) {
        return Some(problem);
    }
    if value.is_null() {
        if f.name == "tag_ids" && faults.has(Fault::TagIdsNullAccepted) {
            return None;
        }
        let refused = !f.nullable || (f.name == "footer" && faults.has(Fault::NullFooterRejected));
        return refused
            .then(|| FieldError::body(f.name, "Input should not be null", "null_not_allowed"));
    }
    if f.name == "memo"
        && faults.has(Fault::MemoRejected)
        && value.as_str().is_some_and(|s| !s.is_empty())
    {
        return Some(FieldError::body(
            f.name,
            "memo is not supported for this entity",
            "value_error",
        ));
    }
    let at_limit = value.as_array().is_some_and(|a| a.len() == 10);
    if f.name == "deductions" && at_limit && faults.has(Fault::DeductionsTenRefused) {
        return Some(FieldError::body(
            f.name,
            "List should have at most 9 items",
            "too_long",
        ));
    }
    let leap_day = value.as_str().is_some_and(|s| s.ends_with("-02-29"));
    if matches!(f.ty, Ty::Date) && leap_day && faults.has(Fault::DateLeapDayRefused) {
        return Some(FieldError::body(
            f.name,
            "Input should be a valid date (day out of range for month)",
            "date_parsing",
        ));
    }
    if f.name == "fulfillment_date" && faults.has(Fault::FulfillmentDatePastRejected) {
        if let Some(date) = value.as_str().and_then(parse_date) {
            if date < today {
                return Some(FieldError::body(
                    f.name,
                    "fulfillment_date must not be in the past",
                    "value_error",
                ));
            }
        }
    }
    let measured = match (f.name, value.as_str()) {
        ("trade_name", Some(s)) => miscounted_trade_name(faults, s),
        ("document_id", Some(s)) if faults.has(Fault::DocumentIdMaxIgnored) && !s.is_empty() => {
            return None;
        }
        _ => None,
    };
    // Under its fault, a fraction read as the integer below it, as a lax binder does.
    let truncated = match (f.ty, value.as_f64()) {
        (Ty::Int { .. }, Some(n)) if faults.has(Fault::IntegerFractionTruncated) => {
            json!(n.trunc() as i64)
        }
        _ => value.clone(),
    };
    // Under its fault, withholding_tax_rate past a signed 64-bit word read modulo 2^64.
    let wrapped = match (f.name, wrapped(&truncated)) {
        ("withholding_tax_rate", Some(n)) if faults.has(Fault::WithholdingWraps) => json!(n),
        _ => truncated,
    };
    // An integer in any of its JSON forms (1.0, -0, 1e2) read as the integer it is.
    let integral = match (f.ty, as_integer(faults, &wrapped)) {
        (Ty::Int { .. }, Some(n)) => json!(n),
        _ => wrapped,
    };
    let loosened = loosened(faults, f.ty, integral);
    measured
        .or_else(|| check_type(f.ty, &loosened))
        .map(|(msg, kind)| FieldError::body(f.name, msg, kind))
}

/// A list as the faults that skip its items read it: line items with any vat_rate_id taken as a
/// UUID or any quantity as 1, nested items of any kind taken as objects.
fn loosened(faults: &FaultSet, ty: Ty, value: Value) -> Value {
    let Value::Array(items) = value else {
        return value;
    };
    let read = |mut item: Value| match ty {
        Ty::LineItems if faults.has(Fault::LineItemVatRateUnchecked) => {
            if let Some(vat_rate) = item.get_mut("vat_rate_id") {
                *vat_rate = json!(Uuid::nil().to_string());
            }
            item
        }
        Ty::LineItems if faults.has(Fault::LineItemQuantityUnchecked) => {
            if let Some(quantity) = item.get_mut("quantity").filter(|q| !q.is_number()) {
                *quantity = json!(1);
            }
            item
        }
        Ty::Array { .. } if faults.has(Fault::NestedItemsUnchecked) && !item.is_object() => {
            json!({})
        }
        _ => item,
    };
    Value::Array(items.into_iter().map(read).collect())
}

/// The faults that measure trade_name wrongly: its limit of 255 applied as 229, or its length
/// counted in UTF-16 units.
fn miscounted_trade_name(faults: &FaultSet, s: &str) -> Option<(String, &'static str)> {
    let too_long = || {
        Some((
            "String should have at most 255 characters".to_owned(),
            "string_too_long",
        ))
    };
    if faults.has(Fault::LimitTenPercentTight) && s.chars().count() > 255 * 9 / 10 {
        return too_long();
    }
    if faults.has(Fault::LengthInUtf16Units) && s.encode_utf16().count() > 255 {
        return too_long();
    }
    None
}
