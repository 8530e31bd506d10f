//! A parameter's schema compiled as the generator compiles a body's, and its breachable sites:
//! what both the inventory (its constraints) and the invalid parameter values draw from.

use super::invalid::{sites, Site};
use super::tree::{self, JsonType, SchemaNode, ShapeKind};
use super::{ConstraintKind, GenOptions};
use serde_json::Value;
use std::collections::BTreeMap;

/// The compiled tree of a parameter's schema, if the generator can read it.
pub(crate) fn compile(schema: &Value) -> Option<SchemaNode> {
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

/// The sites of a parameter's compiled schema: a string parameter has no type to break (every
/// text is a string).
pub(crate) fn param_sites(shape: &SchemaNode) -> Vec<Site> {
    let text = types_of(shape).contains(&JsonType::String);
    let mut all = sites(shape);
    all.retain(|site| !(text && site.kind == ConstraintKind::WrongType));
    all
}

/// The JSON types a parameter's text is read as, in order.
pub(crate) fn types_of(shape: &SchemaNode) -> Vec<JsonType> {
    let admitted = shape.admitted();
    if !admitted.is_empty() {
        return admitted;
    }
    match &shape.kind {
        ShapeKind::Enum(values) if values.iter().all(Value::is_i64) => vec![JsonType::Integer],
        _ => vec![JsonType::String],
    }
}
