//! The shapes the spec shows only as samples: a line item and inline payment terms. Their
//! sample fields are checked for their sample types; fields beyond the sample are not shown,
//! so they pass.

use super::{check_type, parse_date, parse_uuid, Ty};
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
