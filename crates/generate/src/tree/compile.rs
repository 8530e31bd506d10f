//! Compiling an inlined schema into a [`SchemaNode`], the second pass (see the
//! [parent module](super)).
//!
//! Each node's `allOf` members are folded first ([`flatten_all_of`]); then type arrays, nullable
//! branches, `const`, `enum`, `oneOf`/`anyOf` and the `if`/`then` conditionals it supports
//! become one [`SchemaNode`] node. Options keyed by stem (`always_include`, `omit`) apply at the roots
//! of the documents the schema was inlined from ([`Place`]), and fixtures by property name. A
//! keyword the generator does not understand is an error rather than a silent gap, because a
//! payload generated past it could be wrongly labelled valid: [`KNOWN`] lists what it
//! understands, annotations aside, and forms of a known keyword it cannot honour are refused too.

use super::merge::flatten_all_of;
use super::place::{unsupported, Context, Place};
use super::{
    is_annotation, ArraySpec, Bounds, Conditional, Format, JsonType, ObjectSpec, Prop, SchemaNode,
    ShapeKind, StringSpec, CONDITIONALS, STEM_MARK,
};
use crate::GenerateError;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Compiles an inlined schema (see [`inline`](super::inline())) of stem `ctx.stem`.
pub(crate) fn compile(ctx: &Context<'_>, schema: &Value) -> Result<SchemaNode, GenerateError> {
    let place = Place {
        roots: vec![ctx.stem.to_string()],
        pointer: String::new(),
    };
    compile_at(ctx, schema, &place)
}

fn compile_at(
    ctx: &Context<'_>,
    schema: &Value,
    place: &Place,
) -> Result<SchemaNode, GenerateError> {
    let map = match schema {
        Value::Bool(true) => return Ok(any_shape()),
        Value::Object(map) => map,
        _ => {
            return Err(unsupported(
                ctx,
                place,
                "a schema that is not an object or true",
            ))
        }
    };
    let mut place = place.clone();
    if let Some(stem) = map.get(STEM_MARK).and_then(Value::as_str) {
        place.roots.push(stem.to_string());
    }
    let map = flatten_all_of(ctx, map, &place)?;
    check_keywords(ctx, &map, &place)?;
    let rule = map
        .get("x-rule")
        .and_then(Value::as_str)
        .map(str::to_string);
    let (declared, type_nullable) = declared_types(ctx, &map, &place)?;
    let mut shape = if let Some(value) = map.get("const") {
        plain(declared.clone(), ShapeKind::Const(value.clone()))
    } else if let Some(values) = map.get("enum") {
        enum_shape(ctx, values, &place, &declared)?
    } else if let Some(branches) = map.get("oneOf") {
        union_shape(ctx, branches, &place, "oneOf", ShapeKind::OneOf)?
    } else if let Some(branches) = map.get("anyOf") {
        union_shape(ctx, branches, &place, "anyOf", ShapeKind::AnyOf)?
    } else {
        typed_shape(ctx, &map, &place, &declared)?
    };
    shape.nullable |= type_nullable && !matches!(shape.kind, ShapeKind::Const(_));
    shape.null_unstated = map.get("x-null").and_then(Value::as_str) == Some("not shown");
    shape.case_exact = map.get("x-case").and_then(Value::as_str) == Some("exact");
    shape.default = map.get("default").cloned();
    shape.rule = rule.or(shape.rule);
    if let Some(Value::Object(rules)) = map.get("x-keyword-rules") {
        for (keyword, rule) in rules {
            if let Some(rule) = rule.as_str() {
                shape
                    .keyword_rules
                    .insert(keyword.clone(), rule.to_string());
            }
        }
    }
    if shape.declared.is_empty() {
        shape.declared = declared;
    }
    Ok(shape)
}

/// A shape of `kind` with no rule, no null and nothing else said of it.
fn plain(declared: Vec<JsonType>, kind: ShapeKind) -> SchemaNode {
    SchemaNode {
        rule: None,
        keyword_rules: Default::default(),
        nullable: false,
        null_unstated: false,
        case_exact: false,
        default: None,
        declared,
        kind,
    }
}

fn any_shape() -> SchemaNode {
    SchemaNode {
        rule: None,
        keyword_rules: Default::default(),
        nullable: true,
        null_unstated: false,
        case_exact: false,
        default: None,
        declared: Vec::new(),
        kind: ShapeKind::Any,
    }
}

const KNOWN: &[&str] = &[
    "type",
    "const",
    "enum",
    "oneOf",
    "anyOf",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "x-rule",
    "not",
    CONDITIONALS,
];

fn check_keywords(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<(), GenerateError> {
    for key in map.keys() {
        if !KNOWN.contains(&key.as_str()) && !is_annotation(key) {
            return Err(unsupported(ctx, place, &format!("keyword `{key}`")));
        }
    }
    if map
        .get("not")
        .is_some_and(|not| forbidden_names(not).is_none())
    {
        return Err(unsupported(
            ctx,
            place,
            "a `not` other than {anyOf: [{required: [...]}]}",
        ));
    }
    if let Some(extra) = map.get("additionalProperties") {
        if !matches!(extra, Value::Bool(_)) && extra != &Value::Object(Map::new()) {
            return Err(unsupported(
                ctx,
                place,
                "additionalProperties that is a schema",
            ));
        }
    }
    Ok(())
}

/// The declared types without `null`, and whether `null` was among them.
fn declared_types(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<(Vec<JsonType>, bool), GenerateError> {
    let names: Vec<&str> = match map.get("type") {
        None => return Ok((Vec::new(), false)),
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        Some(_) => {
            return Err(unsupported(
                ctx,
                place,
                "a `type` that is not a string or array",
            ))
        }
    };
    let mut types = Vec::new();
    let mut nullable = false;
    for name in names {
        if name == "null" {
            nullable = true;
        } else {
            types.push(
                JsonType::parse(name)
                    .ok_or_else(|| unsupported(ctx, place, &format!("type `{name}`")))?,
            );
        }
    }
    Ok((types, nullable))
}

fn enum_shape(
    ctx: &Context<'_>,
    values: &Value,
    place: &Place,
    declared: &[JsonType],
) -> Result<SchemaNode, GenerateError> {
    let values = values
        .as_array()
        .ok_or_else(|| unsupported(ctx, place, "an `enum` that is not an array"))?;
    let nullable = values.iter().any(Value::is_null);
    let rest: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
    if rest.is_empty() {
        return Err(unsupported(
            ctx,
            place,
            "an `enum` without a non-null value",
        ));
    }
    Ok(SchemaNode {
        rule: None,
        keyword_rules: Default::default(),
        nullable,
        null_unstated: false,
        case_exact: false,
        default: None,
        declared: declared.to_vec(),
        kind: ShapeKind::Enum(rest),
    })
}

/// `oneOf`/`anyOf`: a `{"type": "null"}` branch becomes `nullable`; one branch left collapses.
fn union_shape(
    ctx: &Context<'_>,
    branches: &Value,
    place: &Place,
    keyword: &str,
    make: fn(Vec<SchemaNode>) -> ShapeKind,
) -> Result<SchemaNode, GenerateError> {
    let branches = branches
        .as_array()
        .ok_or_else(|| unsupported(ctx, place, &format!("a `{keyword}` that is not an array")))?;
    let mut nullable = false;
    let mut shapes = Vec::new();
    for (index, branch) in branches.iter().enumerate() {
        if is_null_schema(branch) {
            nullable = true;
            continue;
        }
        let here = place.branch(&format!("{keyword}/{index}"));
        shapes.push(compile_at(ctx, branch, &here)?);
    }
    let mut shape = match shapes.len() {
        0 => {
            return Err(unsupported(
                ctx,
                place,
                &format!("a `{keyword}` of only null"),
            ))
        }
        1 => shapes.remove(0),
        _ => plain(Vec::new(), make(shapes)),
    };
    shape.nullable |= nullable;
    Ok(shape)
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema.get("const") == Some(&Value::Null)
}

fn typed_shape(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
    declared: &[JsonType],
) -> Result<SchemaNode, GenerateError> {
    let types: Vec<JsonType> = if declared.is_empty() {
        infer_type(map).into_iter().collect()
    } else {
        declared.to_vec()
    };
    let mut shapes = Vec::new();
    for ty in &types {
        shapes.push(plain(declared.to_vec(), kind_of(ctx, *ty, map, place)?));
    }
    Ok(match shapes.len() {
        0 => any_shape(),
        1 => shapes.remove(0),
        _ => plain(declared.to_vec(), ShapeKind::AnyOf(shapes)),
    })
}

/// An untyped schema with type-specific keywords is taken as that type.
fn infer_type(map: &Map<String, Value>) -> Option<JsonType> {
    let has = |keys: &[&str]| keys.iter().any(|key| map.contains_key(*key));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        CONDITIONALS,
    ]) {
        Some(JsonType::Object)
    } else if has(&["items", "minItems", "maxItems"]) {
        Some(JsonType::Array)
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some(JsonType::String)
    } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
        Some(JsonType::Number)
    } else {
        None
    }
}

fn kind_of(
    ctx: &Context<'_>,
    ty: JsonType,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<ShapeKind, GenerateError> {
    Ok(match ty {
        JsonType::Boolean => ShapeKind::Boolean,
        JsonType::Integer => ShapeKind::Integer(integer_bounds(map)),
        JsonType::Number => ShapeKind::Number(number_bounds(map)),
        JsonType::String => ShapeKind::String(string_spec(ctx, map, place)?),
        JsonType::Array => ShapeKind::Array(array_spec(ctx, map, place)?),
        JsonType::Object => ShapeKind::Object(object_spec(ctx, map, place)?),
    })
}

fn integer_bounds(map: &Map<String, Value>) -> Bounds<i64> {
    let get = |key: &str| map.get(key).and_then(Value::as_f64);
    let min = [
        get("minimum").map(f64::ceil),
        get("exclusiveMinimum").map(|v| v.floor() + 1.0),
    ];
    let max = [
        get("maximum").map(f64::floor),
        get("exclusiveMaximum").map(|v| v.ceil() - 1.0),
    ];
    Bounds {
        min: min.into_iter().flatten().reduce(f64::max).map(|v| v as i64),
        max: max.into_iter().flatten().reduce(f64::min).map(|v| v as i64),
    }
}

fn number_bounds(map: &Map<String, Value>) -> Bounds<f64> {
    let get = |key: &str| map.get(key).and_then(Value::as_f64);
    let nudge = |v: f64| v.abs().max(1.0) * 1e-9;
    let min = [
        get("minimum"),
        get("exclusiveMinimum").map(|v| v + nudge(v)),
    ];
    let max = [
        get("maximum"),
        get("exclusiveMaximum").map(|v| v - nudge(v)),
    ];
    Bounds {
        min: min.into_iter().flatten().reduce(f64::max),
        max: max.into_iter().flatten().reduce(f64::min),
    }
}

fn usize_of(map: &Map<String, Value>, key: &str) -> Option<usize> {
    map.get(key).and_then(Value::as_u64).map(|v| v as usize)
}

fn string_spec(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<StringSpec, GenerateError> {
    let format = match map.get("format").and_then(Value::as_str) {
        None => None,
        Some("uuid") => Some(Format::Uuid),
        Some("date") => Some(Format::Date),
        Some("date-time") => Some(Format::DateTime),
        Some("uri") => Some(Format::Uri),
        Some(other) => return Err(unsupported(ctx, place, &format!("format `{other}`"))),
    };
    let pattern = map
        .get("pattern")
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(pattern) = &pattern {
        if format.is_some() {
            return Err(unsupported(ctx, place, "a pattern together with a format"));
        }
        regex::Regex::new(pattern).map_err(|_| unsupported(ctx, place, "this pattern"))?;
    }
    Ok(StringSpec {
        min_len: usize_of(map, "minLength").unwrap_or(0),
        max_len: usize_of(map, "maxLength"),
        pattern,
        format,
        any_date: map.get("x-dates").and_then(Value::as_str) == Some("past, present or future"),
    })
}

fn array_spec(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<ArraySpec, GenerateError> {
    let items = match map.get("items") {
        Some(items) => compile_at(ctx, items, &place.child("items"))?,
        None => any_shape(),
    };
    Ok(ArraySpec {
        min_items: usize_of(map, "minItems").unwrap_or(0),
        max_items: usize_of(map, "maxItems"),
        unique: map.get("uniqueItems") == Some(&Value::Bool(true)),
        items: Box::new(items),
    })
}

fn object_spec(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<ObjectSpec, GenerateError> {
    let required: BTreeSet<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let conditionals = conditionals(ctx, map, place)?;
    let then_required: BTreeSet<&str> = conditionals
        .iter()
        .flat_map(|c| c.require.iter().map(String::as_str))
        .collect();
    let not = map.get("not");
    let forbidden = not.and_then(forbidden_names).unwrap_or_default();
    let include = root_option(&ctx.options.always_include, place);
    let omit = root_option(&ctx.options.omit, place);
    let mut props = Vec::new();
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, schema) in properties {
            let is_required = required.contains(name.as_str());
            if !is_required && (omit.contains(name.as_str()) || forbidden.contains(name)) {
                continue;
            }
            let shape = compile_at(ctx, schema, &place.child(&format!("properties/{name}")))?;
            props.push(Prop {
                name: name.clone(),
                shape,
                required: is_required,
                forced: include.contains(name.as_str()) || then_required.contains(name.as_str()),
                fixtures: ctx
                    .options
                    .fixtures
                    .get(name)
                    .filter(|v| !v.is_empty())
                    .cloned(),
            });
        }
    }
    for name in &required {
        if !props.iter().any(|p| p.name == *name) {
            props.push(Prop {
                name: name.to_string(),
                shape: any_shape(),
                required: true,
                forced: false,
                fixtures: ctx.options.fixtures.get(*name).cloned(),
            });
        }
    }
    Ok(ObjectSpec {
        props,
        closed: map.get("additionalProperties") == Some(&Value::Bool(false)),
        conditionals,
        forbidden,
        forbidden_rule: not
            .and_then(|not| not.get("x-rule"))
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// The names a `not` forbids: `{required: [a, b]}` (all together: only one name is taken
/// as forbidding alone) or `{anyOf: [{required: [a]}, {required: [b]}]}`.
fn forbidden_names(not: &Value) -> Option<Vec<String>> {
    let names = |schema: &Value| -> Option<Vec<String>> {
        let required = schema.get("required")?.as_array()?;
        required
            .iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect()
    };
    if let Some(branches) = not.get("anyOf").and_then(Value::as_array) {
        let mut out = Vec::new();
        for branch in branches {
            match names(branch)?.as_slice() {
                [one] => out.push(one.clone()),
                _ => return None,
            }
        }
        return Some(out);
    }
    match names(not)?.as_slice() {
        [one] => Some(vec![one.clone()]),
        _ => None,
    }
}

/// Names an option lists for any stem whose document root this object is.
fn root_option<'a>(
    option: &'a std::collections::BTreeMap<String, Vec<String>>,
    place: &Place,
) -> BTreeSet<&'a str> {
    place
        .roots
        .iter()
        .filter_map(|stem| option.get(stem))
        .flatten()
        .map(String::as_str)
        .collect()
}

fn conditionals(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<Vec<Conditional>, GenerateError> {
    let Some(Value::Array(pairs)) = map.get(CONDITIONALS) else {
        return Ok(Vec::new());
    };
    pairs
        .iter()
        .map(|pair| conditional(ctx, pair, place))
        .collect()
}

fn conditional(
    ctx: &Context<'_>,
    pair: &Value,
    place: &Place,
) -> Result<Conditional, GenerateError> {
    let bad = || {
        unsupported(
            ctx,
            place,
            "this if/then (want if: {properties: {p: {const|enum}}})",
        )
    };
    let condition = pair
        .get("if")
        .and_then(|c| c.get("properties"))
        .and_then(Value::as_object);
    let (when, test) = condition
        .filter(|props| props.len() == 1)
        .and_then(|props| props.iter().next())
        .ok_or_else(bad)?;
    let values = match (test.get("const"), test.get("enum")) {
        (Some(value), _) => vec![value.clone()],
        (None, Some(Value::Array(values))) => values.clone(),
        _ => return Err(bad()),
    };
    let then = pair.get("then").ok_or_else(bad)?;
    let names = |value: Option<&Value>| -> Vec<String> {
        value
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut forbid = names(then.get("not").and_then(|not| not.get("required")));
    if let Some(Value::Object(props)) = then.get("properties") {
        forbid.extend(
            props
                .iter()
                .filter(|(_, schema)| **schema == Value::Bool(false))
                .map(|(name, _)| name.clone()),
        );
    }
    let require = names(then.get("required"));
    if forbid.is_empty() && require.is_empty() {
        return Err(bad());
    }
    Ok(Conditional {
        when: when.clone(),
        values,
        forbid,
        require,
        // A rule inside `then` is deeper than one beside the `if`, so it wins.
        rule: [then.get("x-rule"), pair.get("x-rule")]
            .into_iter()
            .flatten()
            .find_map(Value::as_str)
            .map(str::to_string),
    })
}
