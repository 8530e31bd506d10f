//! Positive variants: every value the schema states as valid at its edges, each placed in the
//! smallest instance of its body shape, to be judged beside that instance (the baseline).
//!
//! A variant differs from its baseline only in the part under test: one value at a stated
//! limit (a length, a bound, an item count), one listed value of an enum, one `null` where the
//! spec says "or null", one string at its maximum length made of multi-byte characters (judged
//! beside the same characters at a quarter of the limit, its control). Lengths are Unicode code
//! points, as JSON Schema counts them: a target that counts UTF-8 bytes refuses `é` × max, one
//! that counts UTF-16 units refuses `𝄞` × max, and both accept the controls.

use super::path::{apply, display, pointer, walk, Edit, Visit};
use super::tree::Step;
use super::tree::{Shape, ShapeKind, StringSpec};
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

#[cfg(test)]
mod tests {
    use super::AcceptKind;
    use crate::generate::{Engine, GenOptions};
    use crate::schema::Registry;

    fn engine() -> Engine<&'static Registry> {
        Engine::new(Registry::embedded(), GenOptions::default())
    }

    #[test]
    fn every_variant_is_valid_and_differs_from_its_baseline_only_at_its_pointer() {
        let engine = engine();
        for stem in [
            "quote-create",
            "invoice-create",
            "vat-id-create",
            "velocity-control-create",
        ] {
            let acceptance = engine.acceptance(stem).expect("the schema compiles");
            assert!(!acceptance.variants.is_empty(), "{stem} has variants");
            for v in &acceptance.variants {
                assert!(
                    engine.is_valid(stem, &v.payload).unwrap(),
                    "{stem} {}",
                    v.detail
                );
                let baseline = &acceptance.baselines[v.baseline];
                let field = v.pointer.split('/').nth(1).unwrap_or_default();
                let (mut a, mut b) = (baseline.clone(), v.payload.clone());
                for object in [&mut a, &mut b] {
                    if let Some(map) = object.as_object_mut() {
                        map.remove(field);
                    }
                }
                assert_eq!(a, b, "{stem}: {} changes more than {field}", v.detail);
                if let Some(beside) = v.beside {
                    assert!(beside < acceptance.variants.len(), "{}", v.detail);
                    assert_eq!(acceptance.variants[beside].kind, AcceptKind::Characters);
                }
            }
        }
    }

    #[test]
    fn every_listed_country_and_type_of_a_vat_id_is_a_variant() {
        let acceptance = engine().acceptance("vat-id-create").unwrap();
        let listed = |field: &str| {
            acceptance
                .variants
                .iter()
                .filter(|v| v.kind == AcceptKind::Listed && v.pointer == format!("/{field}"))
                .count()
        };
        // The spec lists 250 countries and 47 types; the baseline holds one of each already.
        assert!(listed("country") >= 249, "{}", listed("country"));
        assert!(listed("type") >= 46, "{}", listed("type"));
    }

    #[test]
    fn a_maximum_length_is_tried_in_code_points_beside_a_short_control_of_the_same_characters() {
        let acceptance = engine().acceptance("vat-id-create").unwrap();
        let value = |v: &super::Accept| v.payload["value"].as_str().unwrap_or_default().to_owned();
        let wide: Vec<_> = acceptance
            .variants
            .iter()
            .filter(|v| v.kind == AcceptKind::CodePoints)
            .collect();
        assert_eq!(wide.len(), 2, "one 2-byte, one outside the BMP");
        for v in wide {
            let s = value(v);
            assert_eq!(s.chars().count(), 32, "{}", v.detail);
            assert!(s.len() > 32, "more bytes than code points: {}", v.detail);
            let control = &acceptance.variants[v.beside.expect("judged beside its control")];
            let c = value(control);
            assert_eq!(c.chars().next(), s.chars().next(), "the same character");
            assert!(c.len() <= 32, "the control fits even counted in bytes: {c}");
        }
        let astral = acceptance
            .variants
            .iter()
            .any(|v| v.kind == AcceptKind::CodePoints && value(v).encode_utf16().count() == 64);
        assert!(astral, "a variant that a UTF-16 count doubles");
    }

    #[test]
    fn null_is_a_variant_only_where_the_schema_says_or_null() {
        let engine = engine();
        let nulls = |stem: &str| -> Vec<String> {
            let acceptance = engine.acceptance(stem).unwrap();
            let mut fields: Vec<String> = acceptance
                .variants
                .iter()
                .filter(|v| v.kind == AcceptKind::Null)
                .map(|v| v.pointer.trim_start_matches('/').to_owned())
                .collect();
            fields.sort();
            fields
        };
        let mut expected = engine.nullable_properties("quote-create").unwrap();
        expected.sort();
        assert_eq!(nulls("quote-create"), expected);
        assert!(
            nulls("velocity-control-create").is_empty(),
            "mcc is untyped, not nullable"
        );
        assert!(nulls("vat-id-create").is_empty());
    }
}
