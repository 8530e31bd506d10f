//! Classes of valid values a faulty server reads wrongly: a stated default given explicitly, an
//! optional field given, a blank or right-to-left string, an empty object, a zero quantity,
//! and known properties spelt in another case. The clean reference accepts every class the
//! stated type admits (GEN-VALUE-CLASSES) and refuses every other spelling of a property
//! (RCV-UNKNOWN-PROPS); each fault here is one `if`.

use super::fields::{Field, Ty, BASED_ON_FIELDS, INVOICE_ONLY, QUOTE_ONLY, SHARED};
use crate::fault::{Fault, FaultSet};
use crate::reply::FieldError;
use serde_json::{Map, Value};

/// The refusal of a valid value under the fault of its class; `None` on the clean server.
pub(super) fn refused(faults: &FaultSet, f: &Field, value: &Value) -> Option<FieldError> {
    let refuse = |msg: &str, kind| Some(FieldError::body(f.name, msg, kind));
    if f.name == "footer" && faults.has(Fault::FooterRefused) {
        return refuse("Extra inputs are not permitted", "extra_forbidden");
    }
    let empty_list = value.as_array().is_some_and(Vec::is_empty);
    if f.name == "tag_ids" && empty_list && faults.has(Fault::TagIdsEmptyRefused) {
        return refuse("List should have at least 1 item", "too_short");
    }
    let empty_object = value.as_object().is_some_and(Map::is_empty);
    let metadata = f.name == "partner_metadata";
    if metadata && empty_object && faults.has(Fault::PartnerMetadataEmptyRefused) {
        return refuse("Dictionary should have at least 1 item", "too_short");
    }
    let text = value.as_str().filter(|_| matches!(f.ty, Ty::Str { .. }));
    let blank = text.is_some_and(|s| !s.is_empty() && s.trim().is_empty());
    if blank && faults.has(Fault::WhitespaceRefused) {
        return refuse("String should not be blank", "string_blank");
    }
    let rtl = |c: char| ('\u{0590}'..='\u{06FF}').contains(&c);
    if text.is_some_and(|s| s.chars().any(rtl)) && faults.has(Fault::RightToLeftRefused) {
        return refuse(
            "String should hold Latin letters only",
            "string_pattern_mismatch",
        );
    }
    let items = value.as_array().filter(|_| matches!(f.ty, Ty::LineItems));
    let zero = |item: &Value| item.get("quantity").and_then(Value::as_f64) == Some(0.0);
    if items.is_some_and(|i| i.iter().any(zero)) && faults.has(Fault::QuantityZeroRefused) {
        return refuse(
            "line item: quantity should be greater than 0",
            "greater_than",
        );
    }
    None
}

/// Under its fault, each property spelt in camelCase, PascalCase or kebab-case of a known
/// property (tradeName, TradeName, trade-name) read as that property, as a binder with
/// case-insensitive aliases does.
pub(super) fn read_aliases(faults: &FaultSet, map: &mut Map<String, Value>) {
    let known = |name: &str| {
        let mut fields = SHARED.iter().chain(QUOTE_ONLY).chain(INVOICE_ONLY);
        name == "type" || BASED_ON_FIELDS.contains(&name) || fields.any(|f| f.name == name)
    };
    let aliases: Vec<(String, String)> = map
        .keys()
        .map(|key| (key.clone(), snake_case(key)))
        .filter(|(key, snake)| key != snake && known(snake) && !map.contains_key(snake))
        .collect();
    if aliases.is_empty() || !faults.has(Fault::CaseAliasesAccepted) {
        return;
    }
    for (alias, name) in aliases {
        if let Some(value) = map.remove(&alias) {
            map.insert(name, value);
        }
    }
}

/// `tradeName`, `TradeName` and `trade-name` as `trade_name`.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        match c {
            '-' => out.push('_'),
            c if c.is_ascii_uppercase() => {
                if i > 0 {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            }
            c => out.push(c),
        }
    }
    out
}
