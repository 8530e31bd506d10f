//! A value checked against the JSON type, length or form its field states, and the shapes the
//! spec shows only as samples (a line item, inline payment terms), which those checks reach
//! into and which reach back for theirs. Sample fields are checked for their sample types;
//! fields beyond the sample are not shown, so they pass.

use super::fields::Ty;
use super::values::{parse_date, parse_uuid, uuid_array};
use serde_json::Value;

/// A line item against the spec's sample shape: product {name, price {value, currency},
/// measure_unit {name}}, quantity, vat_rate_id.
pub(super) fn check_line_item(item: &Value) -> Option<(String, &'static str)> {
    let wrong = |what: &str, kind| Some((format!("line item: {what}"), kind));
    let Some(item) = item.as_object() else {
        return wrong("should be a valid object", "dict_type");
    };
    let at = |v: &Value, path: &str| v.pointer(path).cloned();
    let item = Value::Object(item.clone());
    for (path, ok, what) in [
        (
            "/product",
            Value::is_object as fn(&Value) -> bool,
            "product should be an object",
        ),
        (
            "/product/name",
            Value::is_string,
            "product.name should be a string",
        ),
        (
            "/product/price",
            Value::is_object,
            "product.price should be an object",
        ),
        (
            "/product/price/value",
            Value::is_number,
            "product.price.value should be a number",
        ),
        (
            "/product/measure_unit",
            Value::is_object,
            "product.measure_unit should be an object",
        ),
        (
            "/product/measure_unit/name",
            Value::is_string,
            "product.measure_unit.name should be a string",
        ),
        ("/quantity", Value::is_number, "quantity should be a number"),
    ] {
        if at(&item, path).is_some_and(|v| !ok(&v)) {
            return wrong(what, "type_error");
        }
    }
    if let Some(currency) = at(&item, "/product/price/currency") {
        if let Some(problem) = check_type(Ty::Currency, &currency) {
            return Some(problem);
        }
    }
    match at(&item, "/vat_rate_id") {
        Some(v) if v.as_str().and_then(parse_uuid).is_none() => {
            wrong("vat_rate_id should be a UUID", "uuid_parsing")
        }
        _ => None,
    }
}

/// Inline payment terms: an object; where `term_final.end_date` is given, it is a date.
pub(super) fn check_payment_terms(value: &Value) -> Option<(String, &'static str)> {
    let Some(terms) = value.as_object() else {
        return Some(("Input should be a valid object".to_owned(), "dict_type"));
    };
    let term_final = terms.get("term_final")?;
    let Some(term_final) = term_final.as_object() else {
        return Some((
            "term_final should be a valid object".to_owned(),
            "dict_type",
        ));
    };
    match term_final.get("end_date") {
        None => None,
        Some(d) if d.as_str().and_then(parse_date).is_some() => None,
        Some(_) => Some((
            "term_final.end_date should be a valid date (YYYY-MM-DD)".to_owned(),
            "date_parsing",
        )),
    }
}

pub(super) fn check_type(ty: Ty, value: &Value) -> Option<(String, &'static str)> {
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
