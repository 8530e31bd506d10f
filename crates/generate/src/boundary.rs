//! Deterministic valid instances at the edges of each constraint.

use super::path::{apply, pointer, walk, Edit, Visit};
use super::tree::Step;
use super::tree::{SchemaNode, ShapeKind};
use super::{text, valid};
use serde_json::{json, Value};

/// Enums with more values than this contribute only their first and last.
const SMALL_ENUM: usize = 16;

/// The smallest and fullest instance of each top-level shape, then each boundary value placed
/// in the smallest instance; duplicates removed, order fixed.
pub(crate) fn valid(root: &SchemaNode) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut push = |value: Value| {
        if !out.contains(&value) {
            out.push(value);
        }
    };
    for path in top_paths(root) {
        push(valid::example(root, &path, false));
        push(valid::example(root, &path, true));
    }
    let mut edits: Vec<(Vec<Step>, Value)> = Vec::new();
    walk(root, &mut |visit| {
        for value in edge_values(visit) {
            edits.push((visit.path.to_vec(), value));
        }
    });
    for (path, value) in edits {
        let base = valid::example(root, &path, false);
        if let Some(instance) = apply(base, &pointer(&path), Edit::Set(value)) {
            push(instance);
        }
    }
    out
}

/// One path per top-level union branch, or just the root.
fn top_paths(root: &SchemaNode) -> Vec<Vec<Step>> {
    match &root.kind {
        ShapeKind::OneOf(branches) | ShapeKind::AnyOf(branches) => {
            (0..branches.len()).map(|i| vec![Step::Branch(i)]).collect()
        }
        _ => vec![Vec::new()],
    }
}

/// Values at the edges of a node's constraints.
fn edge_values(visit: &Visit<'_>) -> Vec<Value> {
    let shape = visit.shape;
    let mut out = Vec::new();
    let is_branch = matches!(visit.path.last(), Some(Step::Branch(_)));
    if shape.nullable && !visit.path.is_empty() && !is_branch {
        out.push(Value::Null);
    }
    if visit.fixed {
        return out;
    }
    match &shape.kind {
        ShapeKind::String(spec) if spec.format.is_none() || spec.max_len.is_some() => {
            let pattern = spec
                .pattern
                .as_deref()
                .and_then(|p| regex::Regex::new(p).ok());
            let lengths = [Some(spec.min_len), spec.max_len];
            for len in lengths.into_iter().flatten() {
                out.extend(text::of_length(spec, pattern.as_ref(), len).map(text::string));
            }
        }
        ShapeKind::Integer(bounds) => {
            let (lo, hi) = valid::integer_range(bounds);
            let picks = [bounds.min, bounds.max, Some(0), Some(-1)];
            out.extend(
                picks
                    .into_iter()
                    .flatten()
                    .filter(|v| (lo..=hi).contains(v))
                    .map(Value::from),
            );
        }
        ShapeKind::Number(bounds) => {
            let picks = [bounds.min, bounds.max, Some(0.0)];
            let inside = |v: &f64| {
                bounds.min.is_none_or(|lo| *v >= lo) && bounds.max.is_none_or(|hi| *v <= hi)
            };
            out.extend(picks.into_iter().flatten().filter(inside).map(|v| json!(v)));
        }
        ShapeKind::Enum(values) if values.len() <= SMALL_ENUM => out.extend(values.iter().cloned()),
        ShapeKind::Enum(values) => out.extend(values.last().cloned()),
        ShapeKind::Boolean => out.push(Value::Bool(false)),
        ShapeKind::Array(spec) if !spec.unique => {
            let item = valid::example(&spec.items, &[], false);
            let counts = [Some(spec.min_items), spec.max_items];
            for count in counts.into_iter().flatten() {
                out.push(Value::Array(vec![item.clone(); count]));
            }
        }
        _ => {}
    }
    out
}
