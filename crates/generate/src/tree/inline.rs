//! `$ref` inlining, the first pass of compiling a schema (see the [parent module](super)).
//!
//! Every `$ref` is replaced by the schema it names, found through the [`SchemaSource`], so that
//! [`compile`](super::compile()) walks one self-contained tree and never has to know about
//! references. The root of every document met is marked ([`STEM_MARK`]) so that options given by
//! stem still apply where that document is inlined, and the documents themselves are kept
//! ([`Documents`]), because the validator that confirms every payload needs them all. A chain
//! of `$ref`s deeper than [`MAX_DEPTH`] is taken as recursion and refused.

use super::{is_annotation, STEM_MARK};
use crate::{GenerateError, SchemaSource};
use serde_json::{Map, Value};

/// `$ref` chains deeper than this are taken as recursion and refused.
const MAX_DEPTH: usize = 32;

/// Documents met while inlining, by stem (the validator of a stem needs them all).
pub(crate) type Documents = std::collections::BTreeMap<String, Value>;

/// Replaces every `$ref` in `schema` (a part of document `doc`) by its target.
pub(crate) fn inline(
    source: &dyn SchemaSource,
    schema: &Value,
    doc: &str,
    depth: usize,
    docs: &mut Documents,
) -> Result<Value, GenerateError> {
    if depth > MAX_DEPTH {
        return Err(GenerateError::Recursive {
            stem: doc.to_string(),
        });
    }
    match schema {
        Value::Object(map) => inline_object(source, map, doc, depth, docs),
        Value::Array(items) => items
            .iter()
            .map(|item| inline(source, item, doc, depth, docs))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

fn inline_object(
    source: &dyn SchemaSource,
    map: &Map<String, Value>,
    doc: &str,
    depth: usize,
    docs: &mut Documents,
) -> Result<Value, GenerateError> {
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "$ref" => {}
            "const" | "enum" | "examples" | "default" | "$defs" | "definitions" => {
                out.insert(key.clone(), value.clone());
            }
            _ if key.starts_with("x-") => {
                out.insert(key.clone(), value.clone());
            }
            _ => {
                out.insert(key.clone(), inline(source, value, doc, depth, docs)?);
            }
        }
    }
    let Some(reference) = map.get("$ref") else {
        return Ok(Value::Object(out));
    };
    let reference = reference.as_str().ok_or_else(|| GenerateError::BadRef {
        stem: doc.to_string(),
        reference: reference.to_string(),
    })?;
    let (target_doc, target) = resolve(source, doc, reference, docs)?;
    let mut target = inline(source, &target, &target_doc, depth + 1, docs)?;
    let constraining: Vec<&String> = out
        .keys()
        .filter(|key| !is_annotation(key) && key.as_str() != "x-rule")
        .collect();
    if constraining.is_empty() {
        // What the referring place says of the value is kept on it: its rule, and whether null
        // is known to break it.
        if let Value::Object(target) = &mut target {
            for key in ["x-rule", "x-null"] {
                if let Some(value) = out.get(key) {
                    target.insert(key.into(), value.clone());
                }
            }
        }
        return Ok(target);
    }
    let mut wrapper = Map::new();
    if let Some(rule) = out.remove("x-rule") {
        wrapper.insert("x-rule".into(), rule);
    }
    wrapper.insert(
        "allOf".into(),
        Value::Array(vec![target, Value::Object(out)]),
    );
    Ok(Value::Object(wrapper))
}

/// Finds the document and subschema a `$ref` names: `x.json`, `x.json#/ptr`, `#/ptr`, or an
/// absolute URI whose last segment is `x.json`.
fn resolve(
    source: &dyn SchemaSource,
    doc: &str,
    reference: &str,
    docs: &mut Documents,
) -> Result<(String, Value), GenerateError> {
    let bad = || GenerateError::BadRef {
        stem: doc.to_string(),
        reference: reference.to_string(),
    };
    let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let target_doc = if file.is_empty() {
        doc.to_string()
    } else {
        let last = file.rsplit('/').next().unwrap_or(file);
        last.strip_suffix(".json").unwrap_or(last).to_string()
    };
    let root = source.resolve(&target_doc).ok_or_else(bad)?;
    docs.entry(target_doc.clone())
        .or_insert_with(|| root.clone());
    if !fragment.is_empty() && !fragment.starts_with('/') {
        return Err(bad());
    }
    let mut target = root.pointer(fragment).cloned().ok_or_else(bad)?;
    if fragment.is_empty() {
        if let Value::Object(map) = &mut target {
            map.insert(STEM_MARK.into(), Value::String(target_doc.clone()));
        }
    }
    Ok((target_doc, target))
}
