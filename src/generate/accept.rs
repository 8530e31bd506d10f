//! Positive variants: every value the schema states as valid at its edges, each placed in the
//! smallest instance of its body shape, to be judged beside that instance (the baseline).
//!
//! A variant differs from its baseline only in the part under test: one value at a stated
//! limit (a length, a bound, an item count), one listed value of an enum, one `null` where the
//! spec says "or null", one string at its maximum length made of multi-byte characters (judged
//! beside the same characters at a quarter of the limit, its control). Lengths are Unicode code
//! points, as JSON Schema counts them: a target that counts UTF-8 bytes refuses `é` × max, one
//! that counts UTF-16 units refuses `𝄞` × max, and both accept the controls.

use super::path::{apply, display, pointer, walk, Edit, Step, Visit};
use super::shape::{Shape, ShapeKind, StringSpec};
use super::{text, valid};
use serde_json::{json, Value};

/// A character of two UTF-8 bytes and one UTF-16 unit, and one outside the Basic Multilingual
/// Plane: four UTF-8 bytes, two UTF-16 units.
pub const WIDE_CHARACTERS: [(char, &str); 2] = [
    ('é', "a 2-byte character"),
    ('𝄞', "a character outside the Basic Multilingual Plane"),
];

/// What a positive variant tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AcceptKind {
    /// A value at a stated limit: a length, a numeric bound, an item count.
    AtLimit,
    /// A string at its maximum length made of multi-byte characters.
    CodePoints,
    /// The same characters well inside the limit: what a [`AcceptKind::CodePoints`] variant is
    /// judged beside, so that a target refusing the characters themselves is not taken for one
    /// that counts bytes.
    Characters,
    /// A value the schema lists (`enum`).
    Listed,
    /// `null`, where the schema admits it.
    Null,
}

/// One positive variant of a stem.
#[derive(Debug, Clone, PartialEq)]
pub struct Accept {
    pub payload: Value,
    pub kind: AcceptKind,
    /// JSON pointer of the value under test.
    pub pointer: String,
    /// For people: `trade_name of 255 characters (max 255)`.
    pub detail: String,
    /// The nearest `x-rule` above the value: the field's own rule, for messages.
    pub field_rule: Option<String>,
    /// The top-level body shape whose smallest instance is the baseline (an index into
    /// [`Acceptance::baselines`]).
    pub baseline: usize,
    /// An earlier variant of the list to judge this one beside instead of the baseline.
    pub beside: Option<usize>,
}

/// The baselines of a stem (the smallest instance of each top-level shape) and its variants.
#[derive(Debug, Clone, PartialEq)]
pub struct Acceptance {
    pub baselines: Vec<Value>,
    pub variants: Vec<Accept>,
}

/// A value to place at a node, before it becomes an [`Accept`].
struct Edge {
    value: Value,
    kind: AcceptKind,
    detail: String,
    /// Index, among the node's own edges, of the one to judge it beside.
    beside: Option<usize>,
}

/// The baselines and variants of a compiled shape; `is_valid` is the validator, which every
/// variant must pass (a variant the schema refuses would be a false finding).
pub(crate) fn acceptance(root: &Shape, is_valid: &dyn Fn(&Value) -> bool) -> Acceptance {
    let branches = match &root.kind {
        ShapeKind::OneOf(b) | ShapeKind::AnyOf(b) => b.len(),
        _ => 1,
    };
    let top = |i: usize| match branches {
        1 if !matches!(root.kind, ShapeKind::OneOf(_) | ShapeKind::AnyOf(_)) => Vec::new(),
        _ => vec![Step::Branch(i)],
    };
    let baselines: Vec<Value> = (0..branches)
        .map(|i| valid::example(root, &top(i), false))
        .collect();
    let mut nodes: Vec<(Vec<Step>, Option<String>, Vec<Edge>)> = Vec::new();
    walk(root, &mut |visit| {
        let edges = edges(visit);
        if !edges.is_empty() {
            let rule = visit.rule.map(str::to_owned);
            nodes.push((visit.path.to_vec(), rule, edges));
        }
    });
    let mut variants: Vec<Accept> = Vec::new();
    for (path, field_rule, edges) in nodes {
        let baseline = match path.first() {
            Some(Step::Branch(i)) => *i,
            _ => 0,
        };
        let base = valid::example(root, &path, false);
        // Where each edge of this node landed among the variants, if it was kept.
        let mut placed: Vec<Option<usize>> = Vec::with_capacity(edges.len());
        for edge in edges {
            let payload = apply(base.clone(), &pointer(&path), Edit::Set(edge.value));
            let beside = edge.beside.map(|b| placed[b]);
            let keep = payload.filter(|p| {
                is_valid(p)
                    && *p != baselines[baseline]
                    && !variants.iter().any(|v| v.payload == *p)
                    && beside != Some(None)
            });
            placed.push(keep.map(|payload| {
                variants.push(Accept {
                    payload,
                    kind: edge.kind,
                    pointer: pointer(&path),
                    detail: edge.detail,
                    field_rule: field_rule.clone(),
                    baseline,
                    beside: beside.flatten(),
                });
                variants.len() - 1
            }));
        }
    }
    Acceptance {
        baselines,
        variants,
    }
}

/// The valid values at the edges of a node's constraints.
fn edges(visit: &Visit<'_>) -> Vec<Edge> {
    let shape = visit.shape;
    let is_branch = matches!(visit.path.last(), Some(Step::Branch(_)));
    if visit.path.is_empty() || is_branch || visit.fixed {
        return Vec::new();
    }
    let name = display(visit.path);
    let mut out = Vec::new();
    // "X or null": a node of any value admits null without saying so.
    if shape.nullable && !matches!(shape.kind, ShapeKind::Any) {
        out.push(edge(
            Value::Null,
            AcceptKind::Null,
            format!("{name} = null"),
        ));
    }
    match &shape.kind {
        ShapeKind::String(spec) => string_edges(spec, &name, &mut out),
        ShapeKind::Integer(bounds) => {
            let sides = [("min", bounds.min), ("max", bounds.max)];
            for (side, bound) in sides {
                if let Some(v) = bound.filter(|v| *v > i64::MIN && *v < i64::MAX) {
                    out.push(at_limit(json!(v), format!("{name} = {v} ({side} {v})")));
                }
            }
        }
        ShapeKind::Number(bounds) => {
            for (side, bound) in [("min", bounds.min), ("max", bounds.max)] {
                if let Some(v) = bound {
                    out.push(at_limit(json!(v), format!("{name} = {v} ({side} {v})")));
                }
            }
        }
        ShapeKind::Enum(values) => {
            for value in values {
                let detail = format!("{name} = {value} (a listed value)");
                out.push(edge(value.clone(), AcceptKind::Listed, detail));
            }
        }
        ShapeKind::Array(spec) if !spec.unique => {
            let item = valid::example(&spec.items, &[], false);
            let counts = [("min", Some(spec.min_items)), ("max", spec.max_items)];
            for (side, count) in counts {
                let Some(n) = count.filter(|n| *n > 0) else {
                    continue;
                };
                let items = if n == 1 { "item" } else { "items" };
                let detail = format!("{name} with {n} {items} ({side} {n})");
                out.push(at_limit(Value::Array(vec![item.clone(); n]), detail));
            }
        }
        _ => {}
    }
    out
}

/// `1 character`, `255 characters`.
fn characters(n: usize) -> String {
    match n {
        1 => "1 character".to_owned(),
        n => format!("{n} characters"),
    }
}

fn edge(value: Value, kind: AcceptKind, detail: String) -> Edge {
    Edge {
        value,
        kind,
        detail,
        beside: None,
    }
}

fn at_limit(value: Value, detail: String) -> Edge {
    edge(value, AcceptKind::AtLimit, detail)
}

/// A string at each of its length limits; for plain strings with a maximum, the maximum made of
/// each of [`WIDE_CHARACTERS`], each beside its control.
fn string_edges(spec: &StringSpec, name: &str, out: &mut Vec<Edge>) {
    let pattern = spec
        .pattern
        .as_deref()
        .and_then(|p| regex::Regex::new(p).ok());
    let min = Some(spec.min_len).filter(|min| *min > 0);
    for (side, len) in [("min", min), ("max", spec.max_len)] {
        let Some(len) = len else { continue };
        if let Some(s) = text::of_length(spec, pattern.as_ref(), len) {
            let detail = format!("{name} of {} ({side} {len})", characters(len));
            out.push(at_limit(text::string(s), detail));
        }
    }
    let (Some(max), None, None) = (spec.max_len, spec.format, &spec.pattern) else {
        return;
    };
    // A quarter of the limit: inside it even when each character is counted as four bytes.
    let short = (max / 4).max(spec.min_len).max(1);
    if short >= max {
        return;
    }
    for (c, what) in WIDE_CHARACTERS {
        let control = out.len();
        out.push(edge(
            text::string(c.to_string().repeat(short)),
            AcceptKind::Characters,
            format!("{name} of {short} × {c} ({what}), well inside max {max}"),
        ));
        out.push(Edge {
            value: text::string(c.to_string().repeat(max)),
            kind: AcceptKind::CodePoints,
            detail: format!("{name} of {max} × {c} ({what}): {max} code points (max {max})"),
            beside: Some(control),
        });
    }
}
