//! The three create-receivable bodies, validated by hand rule by rule.
//!
//! The schemas module holds the contract as JSON Schema; the reference deliberately does not
//! use it, so that every rule is one line here and one fault can switch exactly that line off.
//! Where the spec is silent (nested shapes, currency values, line item fields beyond the
//! sample, tax_mode values) the reference accepts anything of the stated JSON type.

mod classes;
mod samples;

use super::fault::{Fault, FaultSet};
use super::reply::FieldError;
use super::store::ReceivableKind;
use samples::{check_line_item, check_payment_terms};
use serde_json::{json, Map, Value};
use time::Date;
use uuid::Uuid;

/// What a field must hold.
#[derive(Debug, Clone, Copy)]
enum Ty {
    Str {
        min: usize,
        max: usize,
    },
    Uuid,
    Date,
    Uri {
        max: usize,
    },
    Bool,
    Int {
        min: i64,
        max: i64,
    },
    Array {
        min: usize,
        max: usize,
    },
    UuidArray,
    Object,
    Enum(&'static [&'static str]),
    PaymentTerms,
    /// Three capital letters, the ISO 4217 shape.
    Currency,
    /// Line items: objects whose sample fields have their sample types (fields beyond the
    /// sample are not shown, so they pass).
    LineItems,
}

/// A body field: its type, whether null is allowed, and the fault that switches its check off.
struct Field {
    name: &'static str,
    ty: Ty,
    nullable: bool,
    relax: Option<Fault>,
}

const fn field(name: &'static str, ty: Ty, nullable: bool, relax: Option<Fault>) -> Field {
    Field {
        name,
        ty,
        nullable,
        relax,
    }
}

const ANY_STR: Ty = Ty::Str {
    min: 0,
    max: usize::MAX,
};

const REQUIRED: &[&str] = &["type", "currency", "line_items", "counterpart_id"];

/// Fields of both the quote and the invoice body (type handled apart).
const SHARED: &[Field] = &[
    field(
        "currency",
        Ty::Currency,
        false,
        Some(Fault::CurrencyAnyString),
    ),
    field("line_items", Ty::LineItems, false, None),
    field("counterpart_id", Ty::Uuid, false, None),
    field(
        "attachments",
        Ty::Array {
            min: 1,
            max: usize::MAX,
        },
        true,
        Some(Fault::AttachmentsEmptyAccepted),
    ),
    field(
        "bank_account_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "bank_account_type",
        Ty::Enum(&["INTERNAL", "EXTERNAL", "BANK_DETAILS"]),
        true,
        Some(Fault::BankAccountTypeAny),
    ),
    field("commercial_condition_description", ANY_STR, true, None),
    field(
        "counterpart_billing_address_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "counterpart_shipping_address_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "counterpart_business_type",
        Ty::Str { min: 0, max: 50 },
        true,
        Some(Fault::BusinessTypeMaxIgnored),
    ),
    field(
        "counterpart_vat_id_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "entity_vat_id_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "deductions",
        Ty::Array { min: 0, max: 10 },
        true,
        Some(Fault::DeductionsMaxIgnored),
    ),
    field("discount", Ty::Object, true, None),
    field(
        "document_id",
        Ty::Str { min: 1, max: 100 },
        true,
        Some(Fault::DocumentIdLenIgnored),
    ),
    field("document_rendering", Ty::Object, true, None),
    field("entity", Ty::Object, true, None),
    field("footer", ANY_STR, true, None),
    field("memo", ANY_STR, true, None),
    field("partner_metadata", Ty::Object, false, None),
    field(
        "project_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field("tag_ids", Ty::UuidArray, false, None),
    field("tax_exempt", Ty::Bool, true, Some(Fault::FieldTypesLoose)),
    field("tax_exemption_rationale", ANY_STR, true, None),
    field("tax_mode", ANY_STR, true, None),
    field(
        "trade_name",
        Ty::Str { min: 0, max: 255 },
        true,
        Some(Fault::TradeNameMaxIgnored),
    ),
    field(
        "withholding_tax_rate",
        Ty::Int { min: 0, max: 10000 },
        true,
        Some(Fault::WithholdingRangeIgnored),
    ),
];

const QUOTE_ONLY: &[Field] = &[
    field(
        "expiry_date",
        Ty::Date,
        true,
        Some(Fault::ExpiryDateUnchecked),
    ),
    field(
        "quote_accept_page_url",
        Ty::Uri { max: usize::MAX },
        true,
        Some(Fault::QuoteAcceptUrlUnchecked),
    ),
    field("signature_required", Ty::Bool, true, None),
];

const INVOICE_ONLY: &[Field] = &[
    field(
        "fulfillment_date",
        Ty::Date,
        true,
        Some(Fault::FulfillmentDateUnchecked),
    ),
    field(
        "overdue_reminder_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "payment_reminder_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "payment_page_url",
        Ty::Uri { max: 2083 },
        true,
        Some(Fault::PaymentUrlLenIgnored),
    ),
    field(
        "payment_terms",
        Ty::PaymentTerms,
        true,
        Some(Fault::PaymentTermsUnchecked),
    ),
    field(
        "payment_terms_id",
        Ty::Uuid,
        true,
        Some(Fault::OptionalIdsUnchecked),
    ),
    field(
        "purchase_order",
        Ty::Str { min: 0, max: 100 },
        true,
        Some(Fault::PurchaseOrderMaxIgnored),
    ),
];

const BASED_ON_FIELDS: &[&str] = &["type", "based_on", "tag_ids"];

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

fn check_type(ty: Ty, value: &Value) -> Option<(String, &'static str)> {
    let fail = |msg: &str, kind| Some((msg.to_owned(), kind));
    match ty {
        Ty::Str { min, max } => match value.as_str() {
            None => fail("Input should be a valid string", "string_type"),
            Some(s) => check_len(s, min, max),
        },
        Ty::Uuid => match value.as_str().and_then(parse_uuid) {
            Some(_) => None,
            _ => fail("Input should be a valid UUID", "uuid_parsing"),
        },
        Ty::Date => match value.as_str().and_then(parse_date) {
            Some(_) => None,
            None => fail("Input should be a valid date (YYYY-MM-DD)", "date_parsing"),
        },
        Ty::Uri { max } => match value.as_str() {
            None => fail("Input should be a valid string", "string_type"),
            // A URL parser trims surrounding spaces (WHATWG); RFC 3986 admits none.
            Some(s) => check_len(s, 1, max).or_else(|| {
                (url::Url::parse(s).is_err() || s.trim() != s)
                    .then(|| ("Input should be a valid URL".to_owned(), "url_parsing"))
            }),
        },
        Ty::Bool => match value.is_boolean() {
            true => None,
            false => fail("Input should be a valid boolean", "bool_type"),
        },
        // Read by `check_field` first: an integer written 1.0, -0 or 1e2 is an i64 here.
        Ty::Int { min, max } => match value.as_i64() {
            None => fail("Input should be a valid integer", "int_type"),
            Some(n) if n < min || n > max => Some((
                format!("Input should be between {min} and {max}"),
                "range_error",
            )),
            Some(_) => None,
        },
        Ty::Array { min, max } => match value.as_array() {
            None => fail("Input should be a valid list", "list_type"),
            Some(a) if a.len() < min => Some((
                format!("List should have at least {min} item(s)"),
                "too_short",
            )),
            Some(a) if a.len() > max => {
                Some((format!("List should have at most {max} items"), "too_long"))
            }
            // Attachments and deductions are lists of nested objects whose shapes are not shown.
            Some(a) if a.iter().any(|item| !item.is_object()) => {
                fail("Input should be a list of objects", "dict_type")
            }
            Some(_) => None,
        },
        Ty::UuidArray => match uuid_array(value) {
            Some(_) => None,
            None => fail("Input should be a list of UUIDs", "list_type"),
        },
        Ty::Object => match value.is_object() {
            true => None,
            false => fail("Input should be a valid object", "dict_type"),
        },
        Ty::Enum(allowed) => match value.as_str() {
            Some(s) if allowed.contains(&s) => None,
            _ => Some((
                format!("Input should be one of {}", allowed.join(", ")),
                "enum",
            )),
        },
        Ty::PaymentTerms => check_payment_terms(value),
        Ty::LineItems => match value.as_array() {
            Some(items) => items.iter().find_map(check_line_item),
            None => fail("Input should be a valid list", "list_type"),
        },
        Ty::Currency => match value.as_str() {
            None => fail("Input should be a valid string", "string_type"),
            Some(s) if s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase()) => None,
            Some(_) => fail(
                "Input should be a three-letter currency code",
                "string_pattern_mismatch",
            ),
        },
    }
}

fn check_len(s: &str, min: usize, max: usize) -> Option<(String, &'static str)> {
    let len = s.chars().count();
    if len < min {
        Some((
            format!("String should have at least {min} character(s)"),
            "string_too_short",
        ))
    } else if len > max {
        Some((
            format!("String should have at most {max} characters"),
            "string_too_long",
        ))
    } else {
        None
    }
}

/// An integer, including a float with no fraction (JSON Schema's notion of integer: 1.0, -0,
/// 1e2), held exactly as an i64; a float past 2^53 is refused, as it may not be the integer
/// sent. Under its fault, only what serde_json holds as an integer.
pub fn as_integer(faults: &FaultSet, value: &Value) -> Option<i64> {
    if let Some(n) = value.as_i64() {
        return Some(n);
    }
    if value.is_f64() && faults.has(Fault::IntegerFormsRefused) {
        return None;
    }
    value
        .as_f64()
        .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
        .map(|f| f as i64)
}

/// A non-negative integer past i64 as a binder into a signed 64-bit word reads it: modulo 2^64,
/// then as two's complement (2^63 is -2^63, 2^64 is 0); `None` for any other value.
pub fn wrapped(value: &Value) -> Option<i64> {
    const WORD: f64 = 18_446_744_073_709_551_616.0;
    match value.as_u64() {
        Some(n) => (n > i64::MAX as u64).then_some(n as i64),
        None => value
            .as_f64()
            .filter(|x| x.fract() == 0.0 && *x >= WORD / 2.0)
            .map(|x| (x % WORD) as u64 as i64),
    }
}

fn uuid_array(value: &Value) -> Option<Vec<Uuid>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().and_then(parse_uuid))
        .collect()
}

/// A `YYYY-MM-DD` calendar date.
pub fn parse_date(s: &str) -> Option<Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    if s.len() != 10 {
        return None;
    }
    Date::parse(s, &format).ok()
}

/// A uuid in its hyphenated 36-character form (the JSON Schema `uuid` format); the braced,
/// urn and simple forms `Uuid::parse_str` also takes are refused.
pub fn parse_uuid(s: &str) -> Option<Uuid> {
    if s.len() != 36 {
        return None;
    }
    Uuid::try_parse(s).ok()
}
