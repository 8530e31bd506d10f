//! Invalid path, query and header values, from a parameter's schema, each labelled with the
//! inventoried constraint it breaks.
//!
//! Parameters travel as text, so a value is invalid only if its text, read as the parameter's
//! type, breaks the schema: `"1"` is no wrong type for an integer parameter and is never
//! offered as one.

use super::constraint;
use super::invalid::Site;
use super::parameter::{compile, param_sites, types_of};
use super::path::Edit;
use super::tree::{JsonType, SchemaNode};
use super::{ConstraintKind, Label, DEFAULT_RULE};
use covenant_contract::schema::{OperationId, Param, ParamLocation};
use serde_json::Value;

/// Raw strings to send that break a parameter schema (`{"type": "integer", "minimum": 1,
/// "maximum": 100}` gives `"0"`, `"101"`, `"abc"`, ...), each labelled. A schema the generator
/// cannot read gives no values.
pub fn invalid_param_values(schema: &Value) -> Vec<(String, Label)> {
    breaches(schema, "parameter")
}

/// [`invalid_param_values`] of a parameter of `operation`, each labelled with the inventoried
/// constraint it breaks (see [`super::Inventory`]).
///
/// A header's value is what stands between its surrounding whitespace (RFC 9110 §5.5), so a
/// value that differs from a valid one only there breaks nothing in a header, and is left out.
pub fn param_breaches(operation: OperationId, param: &Param) -> Vec<(String, Label)> {
    let mut out = breaches(&param.schema, &constraint::param_stem(operation, param));
    if param.location == ParamLocation::Header {
        out.retain(|(value, _)| value.trim_matches([' ', '\t']) == value.as_str());
    }
    out
}

fn breaches(schema: &Value, stem: &str) -> Vec<(String, Label)> {
    let Some(shape) = compile(schema) else {
        return Vec::new();
    };
    let Ok(validator) = covenant_contract::schema::compile(schema, None, None) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Label)> = Vec::new();
    let mut offer = |raw: String, label: Label| {
        let breaks = !covenant_contract::schema::holds(&validator, &read_as(&shape, &raw));
        if breaks && !out.iter().any(|(seen, _)| *seen == raw) {
            out.push((raw, label));
        }
    };
    let sites = param_sites(&shape);
    let id_of = |site: &Site| constraint::describe_param(&shape, stem, site).map(|c| c.id);
    for site in &sites {
        for mutation in &site.boundary {
            if let Edit::Set(value) = &mutation.edit {
                let label = Label {
                    kind: site.kind,
                    pointer: String::new(),
                    rule: site.rule.clone(),
                    detail: mutation.detail.replacen("body", "value", 1),
                    constraint: id_of(site),
                };
                offer(raw(value), label);
            }
        }
    }
    let rule = shape
        .rule
        .clone()
        .unwrap_or_else(|| DEFAULT_RULE.to_string());
    for text in ["abc", "1.5", ""] {
        // Text a server reads as the parameter's type breaks its form (a format, a listed
        // value), not its type.
        let of_type =
            !read_as(&shape, text).is_string() || types_of(&shape).contains(&JsonType::String);
        let form = sites.iter().find(|s| FORMS.contains(&s.kind));
        let (kind, constraint) = match (of_type, form) {
            (true, Some(site)) => (site.kind, id_of(site)),
            _ => {
                let typed = sites.iter().find(|s| s.kind == ConstraintKind::WrongType);
                (ConstraintKind::WrongType, typed.and_then(id_of))
            }
        };
        let label = Label {
            kind,
            pointer: String::new(),
            rule: rule.clone(),
            detail: match kind {
                ConstraintKind::WrongType => {
                    format!("value = {text:?} (not of the parameter's type)")
                }
                _ => format!("value = {text:?} (not a value the parameter admits)"),
            },
            constraint,
        };
        offer(text.to_string(), label);
    }
    out
}

/// The kinds of constraint a text of the right type breaks.
const FORMS: [ConstraintKind; 4] = [
    ConstraintKind::BadFormat,
    ConstraintKind::BadPattern,
    ConstraintKind::NotInEnum,
    ConstraintKind::TooShort,
];

/// The text to send for a JSON value.
fn raw(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        // An integer too large for 64 bits, in its digits (2^64 as `18446744073709551616`,
        // not `1.8446744073709552e19`): the text a client sends for it.
        Value::Number(n)
            if n.as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() >= 1e19) =>
        {
            format!("{:.0}", n.as_f64().unwrap_or_default())
        }
        other => other.to_string(),
    }
}

/// How a server reads a raw value as the parameter's type (text it cannot read stays text).
fn read_as(shape: &SchemaNode, raw: &str) -> Value {
    let types = types_of(shape);
    for ty in types {
        let read = match ty {
            JsonType::Integer => raw.parse::<i64>().ok().map(Value::from),
            JsonType::Number => raw
                .parse::<f64>()
                .ok()
                .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number)),
            JsonType::Boolean => raw.parse::<bool>().ok().map(Value::Bool),
            JsonType::String => Some(Value::String(raw.to_string())),
            JsonType::Array | JsonType::Object => None,
        };
        if let Some(read) = read {
            return read;
        }
    }
    Value::String(raw.to_string())
}
