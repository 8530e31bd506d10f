//! `allOf` folded into one keyword map, the first step of compiling a node (see
//! [`compile`](super::compile())).
//!
//! Members are merged into the map they stand in, so that compiling reads a single map per
//! node: a property named twice becomes an `allOf` of both (folded in turn when that property
//! is compiled), `required` lists and conditionals are united, the tighter of two `minimum`,
//! `maximum`, length or item-count bounds is kept and a closing `additionalProperties: false`
//! wins. Any other keyword met twice keeps its first value, the outermost one (meant for
//! annotations and `x-rule`). `if`/`then` pairs are set aside under [`CONDITIONALS`] (with the
//! rule written beside them in an `allOf` member) for compiling to read as
//! [`Conditional`](super::Conditional)s. Compiling checks the merged map's keywords as it would
//! any other, so nothing unknown slips through a member.

use super::place::{unsupported, Context, Place};
use super::CONDITIONALS;
use crate::GenerateError;
use serde_json::{Map, Value};

/// Folds `allOf` members and `if`/`then` into one keyword map.
pub(super) fn flatten_all_of(
    ctx: &Context<'_>,
    map: &Map<String, Value>,
    place: &Place,
) -> Result<Map<String, Value>, GenerateError> {
    let mut out = Map::new();
    let mut pending = vec![Value::Object(map.clone())];
    let mut guard = 0;
    while let Some(member) = pending.pop() {
        guard += 1;
        if guard > 256 {
            return Err(unsupported(ctx, place, "allOf nested too deep"));
        }
        let Value::Object(mut member) = member else {
            if member == Value::Bool(true) {
                continue;
            }
            return Err(unsupported(
                ctx,
                place,
                "an allOf member that is not an object",
            ));
        };
        if let Some(Value::Array(members)) = member.remove("allOf") {
            pending.extend(members.into_iter().rev());
        }
        take_conditional(&mut member, guard == 1);
        merge_into(&mut out, member);
    }
    Ok(out)
}

/// Moves `if`/`then` of a member into the conditionals list, keeping its `x-rule`.
fn take_conditional(member: &mut Map<String, Value>, is_root: bool) {
    let Some(condition) = member.remove("if") else {
        return;
    };
    let mut pair = Map::new();
    pair.insert("if".into(), condition);
    if let Some(then) = member.remove("then") {
        pair.insert("then".into(), then);
    }
    // In an allOf member, the rule written beside an if/then names that combination; on the
    // object itself it names the object, and only a rule inside `then` names the combination.
    if !is_root {
        if let Some(rule) = member.remove("x-rule") {
            pair.insert("x-rule".into(), rule);
        }
    }
    member.insert(CONDITIONALS.into(), Value::Array(vec![Value::Object(pair)]));
}

fn merge_into(out: &mut Map<String, Value>, member: Map<String, Value>) {
    for (key, value) in member {
        let Some(existing) = out.get_mut(&key) else {
            out.insert(key, value);
            continue;
        };
        match key.as_str() {
            "properties" => merge_properties(existing, value),
            "required" | CONDITIONALS => union_arrays(existing, value),
            "minLength" | "minItems" | "minimum" => keep_number(existing, value, f64::max),
            "maxLength" | "maxItems" | "maximum" => keep_number(existing, value, f64::min),
            "additionalProperties" if value == Value::Bool(false) => *existing = value,
            // Annotations and x-rule: the outermost wins.
            _ => {}
        }
    }
}

fn merge_properties(existing: &mut Value, value: Value) {
    let (Value::Object(existing), Value::Object(value)) = (existing, value) else {
        return;
    };
    for (name, schema) in value {
        match existing.get_mut(&name) {
            None => {
                existing.insert(name, schema);
            }
            Some(current) => {
                let both = Value::Array(vec![current.take(), schema]);
                let mut wrapper = Map::new();
                wrapper.insert("allOf".into(), both);
                *current = Value::Object(wrapper);
            }
        }
    }
}

fn union_arrays(existing: &mut Value, value: Value) {
    if let (Value::Array(existing), Value::Array(value)) = (existing, value) {
        for item in value {
            if !existing.contains(&item) {
                existing.push(item);
            }
        }
    }
}

fn keep_number(existing: &mut Value, value: Value, pick: fn(f64, f64) -> f64) {
    if let (Some(a), Some(b)) = (existing.as_f64(), value.as_f64()) {
        let chosen = pick(a, b);
        *existing = if chosen == b { value } else { existing.clone() };
    }
}
