//! Invalid query and header values, from a parameter's schema.
//!
//! Parameters travel as text, so a value is invalid only if its text, read as the parameter's
//! type, breaks the schema: `"1"` is no wrong type for an integer parameter and is never
//! offered as one.

use super::invalid::sites;
use super::path::Edit;
use super::tree::{self, JsonType, Shape, ShapeKind};
use super::{ConstraintKind, GenOptions, Label, DEFAULT_RULE};
use serde_json::Value;
use std::collections::BTreeMap;

/// Raw strings to send that break a parameter schema (`{"type": "integer", "minimum": 1,
/// "maximum": 100}` gives `"0"`, `"101"`, `"abc"`, ...), each labelled. A schema the generator
/// cannot read gives no values.
pub fn invalid_param_values(schema: &Value) -> Vec<(String, Label)> {
    let Some(shape) = compile(schema) else {
        return Vec::new();
    };
    let Ok(validator) = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
    else {
        return Vec::new();
    };
    let mut out: Vec<(String, Label)> = Vec::new();
    let mut offer = |raw: String, label: Label| {
        let breaks = !validator.is_valid(&read_as(&shape, &raw));
        if breaks && !out.iter().any(|(seen, _)| *seen == raw) {
            out.push((raw, label));
        }
    };
    for site in sites(&shape) {
        for mutation in &site.boundary {
            if let Edit::Set(value) = &mutation.edit {
                let label = Label {
                    kind: site.kind,
                    pointer: String::new(),
                    rule: site.rule.clone(),
                    detail: mutation.detail.replacen("body", "value", 1),
                    constraint: None,
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
        let label = Label {
            kind: ConstraintKind::WrongType,
            pointer: String::new(),
            rule: rule.clone(),
            detail: format!("value {text:?} (not of the parameter's type)"),
            constraint: None,
        };
        offer(text.to_string(), label);
    }
    out
}

fn compile(schema: &Value) -> Option<Shape> {
    let options = GenOptions::default();
    let mut source: BTreeMap<String, Value> = BTreeMap::new();
    source.insert("parameter".into(), schema.clone());
    let inlined = tree::inline(&source, schema, "parameter", 0, &mut BTreeMap::new()).ok()?;
    let context = tree::Context {
        options: &options,
        stem: "parameter",
    };
    tree::compile(&context, &inlined).ok()
}

/// The text to send for a JSON value.
fn raw(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// How a server reads a raw value as the parameter's type (text it cannot read stays text).
fn read_as(shape: &Shape, raw: &str) -> Value {
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

fn types_of(shape: &Shape) -> Vec<JsonType> {
    let admitted = shape.admitted();
    if !admitted.is_empty() {
        return admitted;
    }
    match &shape.kind {
        ShapeKind::Enum(values) if values.iter().all(Value::is_i64) => vec![JsonType::Integer],
        _ => vec![JsonType::String],
    }
}
