//! Positive variants: every value the schema states as valid at its edges, each placed in the
//! smallest instance of its body shape, to be judged beside that instance (the baseline).
//!
//! A variant differs from its baseline only in the part under test: one value at a stated
//! limit (a length, a bound, an item count), one listed value of an enum, one `null` where the
//! spec says "or null", one string at its maximum length made of multi-byte characters (judged
//! beside the same characters at a quarter of the limit, its control). Lengths are Unicode code
//! points, as JSON Schema counts them: a target that counts UTF-8 bytes refuses `é` × max, one
//! that counts UTF-16 units refuses `𝄞` × max, and both accept the controls.
//!
//! A value of a format or a pattern is also tried in each of the format's classes (a real leap
//! day, month ends, a far past and future date where the spec allows any date; date-time
//! offsets and fractions; a domain's all-digit, punycode, 63-character and one-character
//! segments), each beside an ordinary value of the same field, its control: a target refusing
//! the field itself (a nested shape the spec does not show in full) is not taken for one that
//! refuses the class. An id the profile gives (a fixture-bound uuid) is tried in its other case
//! beside the id as given, since RFC 4122 makes a uuid's hexadecimal digits case insensitive on
//! input.

use super::classes::{classes, ClassKind};
use super::path::{apply, display, pointer, walk, Edit, Visit};
use super::tree::Step;
use super::tree::{Format, SchemaNode, ShapeKind, StringSpec};
use super::{text, valid};
use serde_json::{json, Value};

/// A character of two UTF-8 bytes and one UTF-16 unit, and one outside the Basic Multilingual
/// Plane: four UTF-8 bytes, two UTF-16 units.
pub const WIDE_CHARACTERS: [(char, &str); 2] = [
    ('é', "a 2-byte character"),
    ('𝄞', "a character outside the Basic Multilingual Plane"),
];

/// A base letter and a combining accent: the decomposed (NFD) spelling of `é`, two code points
/// that a target counting characters after composing them counts as one.
const COMBINING: (&str, &str) = ("e\u{301}", "e and a combining acute accent, in NFD");

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
    /// An ordinary value of a format or a pattern (or an id as the profile gives it): what the
    /// [`AcceptKind::Class`] and [`AcceptKind::UuidCase`] variants of its field are judged beside.
    Ordinary,
    /// A value of a format or a pattern from one of its classes (a leap day, an all-digit domain
    /// segment).
    Class,
    /// An id the profile gives, in its other case.
    UuidCase,
    /// A stated optional field present with an ordinary value, beside the smallest body without
    /// it: what the field's other variants are judged beside.
    Optional,
    /// A field given the default the spec states for it.
    Default,
    /// An integral value written another way JSON allows: `100.0`, `1e2`, `-0`.
    IntegerForm,
    /// An integer past 2^53 or 2^63 where no maximum is stated: a refusal is no finding, but an
    /// answer repeating it must not hold another number.
    Large,
    /// A value of a class its type admits (see [`super::classes`]).
    ValueClass,
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
    /// The format of the value under test (`date`, `uuid`), if it has one.
    pub format: Option<&'static str>,
    /// The top-level body shape whose smallest instance is the baseline (an index into
    /// [`Acceptance::baselines`]).
    pub baseline: usize,
    /// An earlier variant of the list to judge this one beside instead of the baseline.
    pub beside: Option<usize>,
    /// The text to send for the value at `pointer`, where the class is a spelling (`1e2`): the
    /// payload holds what it means.
    pub literal: Option<String>,
}

/// The baselines of a stem (the smallest instance of each top-level shape) and its variants.
#[derive(Debug, Clone, PartialEq)]
pub struct Acceptance {
    pub baselines: Vec<Value>,
    pub variants: Vec<Accept>,
}

/// What an edge places at its node.
enum EdgeValue {
    Set(Value),
    /// The value the instance already has there (a fixture), as given.
    Given,
    /// The value the instance already has there, in its other case.
    OtherCase,
}

/// Where an edge landed: a variant, the baseline itself, or nowhere.
#[derive(Clone, Copy)]
enum Placed {
    Variant(usize),
    Baseline,
    Dropped,
}

/// A node with edges: its path, its rule, its format, and its edges.
type Node = (Vec<Step>, Option<String>, Option<&'static str>, Vec<Edge>);

/// A value to place at a node, before it becomes an [`Accept`].
struct Edge {
    value: EdgeValue,
    kind: AcceptKind,
    detail: String,
    /// Index, among the node's own edges, of the one to judge it beside.
    beside: Option<usize>,
    /// The text to send in place of the value (see [`Accept::literal`]).
    literal: Option<String>,
}

/// The baselines and variants of a compiled shape; `is_valid` is the validator, which every
/// variant must pass (a variant the schema refuses would be a false finding).
pub(crate) fn acceptance(root: &SchemaNode, is_valid: &dyn Fn(&Value) -> bool) -> Acceptance {
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
    let mut nodes: Vec<Node> = Vec::new();
    walk(root, &mut |visit| {
        let edges = edges(visit);
        if !edges.is_empty() {
            let rule = visit.rule.map(str::to_owned);
            let format = match &visit.shape.kind {
                ShapeKind::String(spec) => spec.format.map(Format::name),
                _ => None,
            };
            nodes.push((visit.path.to_vec(), rule, format, edges));
        }
    });
    let mut variants: Vec<Accept> = Vec::new();
    for (path, field_rule, format, edges) in nodes {
        let baseline = match path.first() {
            Some(Step::Branch(i)) => *i,
            _ => 0,
        };
        let base = valid::example(root, &path, false);
        let at = pointer(&path);
        // Where each edge of this node landed among the variants, if it was kept.
        let mut placed: Vec<Placed> = Vec::with_capacity(edges.len());
        for edge in edges {
            let value = match edge.value {
                EdgeValue::Set(value) => Some(value),
                EdgeValue::Given => base.pointer(&at).cloned(),
                EdgeValue::OtherCase => base.pointer(&at).and_then(other_case),
            };
            let payload = value.and_then(|value| apply(base.clone(), &at, Edit::Set(value)));
            let beside = match edge.beside.map(|b| placed[b]) {
                Some(Placed::Dropped) => {
                    placed.push(Placed::Dropped);
                    continue;
                }
                Some(Placed::Variant(b)) => Some(b),
                Some(Placed::Baseline) | None => None,
            };
            let Some(payload) = payload.filter(|p| is_valid(p)) else {
                placed.push(Placed::Dropped);
                continue;
            };
            // A field the smallest body holds already is no optional field.
            let required =
                edge.kind == AcceptKind::Optional && baselines[baseline].pointer(&at).is_some();
            if payload == baselines[baseline] || required {
                placed.push(Placed::Baseline);
                continue;
            }
            let same = |v: &&Accept| v.payload == payload && v.literal == edge.literal;
            if let Some(i) = variants.iter().position(|v| same(&v)) {
                // The field present with its default is the default given explicitly.
                if edge.kind == AcceptKind::Default && variants[i].kind == AcceptKind::Optional {
                    variants[i].kind = AcceptKind::Default;
                    variants[i].detail = edge.detail;
                }
                placed.push(Placed::Variant(i));
                continue;
            }
            variants.push(Accept {
                payload,
                kind: edge.kind,
                pointer: at.clone(),
                detail: edge.detail,
                field_rule: field_rule.clone(),
                format,
                baseline,
                beside,
                literal: edge.literal,
            });
            placed.push(Placed::Variant(variants.len() - 1));
        }
    }
    Acceptance {
        baselines,
        variants,
    }
}

/// A uuid string in its other case: upper case when it has a lower-case letter, else lower case
/// (`None` for one without letters, whose other case is itself).
fn other_case(value: &Value) -> Option<Value> {
    let s = value.as_str()?;
    let other = match s.chars().any(|c| c.is_ascii_lowercase()) {
        true => s.to_ascii_uppercase(),
        false => s.to_ascii_lowercase(),
    };
    (other != s).then(|| text::string(other))
}

/// The valid values at the edges of a node's constraints.
fn edges(visit: &Visit<'_>) -> Vec<Edge> {
    let shape = visit.shape;
    let is_branch = matches!(visit.path.last(), Some(Step::Branch(_)));
    if visit.path.is_empty() || is_branch {
        return Vec::new();
    }
    let name = display(visit.path);
    if visit.fixed {
        return fixture_edges(shape, &name);
    }
    let mut out = Vec::new();
    // "X or null": a node of any value admits null without saying so.
    if shape.nullable && !matches!(shape.kind, ShapeKind::Any) {
        out.push(edge(
            EdgeValue::Set(Value::Null),
            AcceptKind::Null,
            format!("{name} = null"),
        ));
    }
    match &shape.kind {
        ShapeKind::String(spec) => {
            string_edges(spec, &name, &mut out);
            class_edges(spec, &name, &mut out);
        }
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
                out.push(edge(
                    EdgeValue::Set(value.clone()),
                    AcceptKind::Listed,
                    detail,
                ));
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
    out.extend(classes(shape, &name).into_iter().map(|c| Edge {
        value: EdgeValue::Set(c.value),
        kind: match c.kind {
            ClassKind::Default => AcceptKind::Default,
            ClassKind::IntegerForm => AcceptKind::IntegerForm,
            ClassKind::Large => AcceptKind::Large,
            ClassKind::Value => AcceptKind::ValueClass,
        },
        detail: c.detail,
        beside: None,
        literal: c.literal,
    }));
    optional_first(visit, out)
}

/// The edges of a property node led by the field present with its ordinary value (the
/// [`AcceptKind::Optional`] variant, dropped where the smallest body holds the field already):
/// every other edge of the node is judged beside it, so that a target refusing the field
/// itself fails once, not once per value tried in it.
fn optional_first(visit: &Visit<'_>, mut edges: Vec<Edge>) -> Vec<Edge> {
    let property = matches!(visit.path.last(), Some(Step::Prop(_)));
    if !property || matches!(visit.shape.kind, ShapeKind::Any) {
        return edges;
    }
    for edge in &mut edges {
        edge.beside = match (edge.kind, edge.beside) {
            // A default is what the field is when omitted, null says it has no value: the
            // smallest body without the field is their control.
            (AcceptKind::Default | AcceptKind::Null, _) => None,
            (_, beside) => Some(beside.map_or(0, |b| b + 1)),
        };
    }
    let name = display(visit.path);
    // An ordinary value where the smallest one is a class of its own (0 for a number, `{}` for
    // a free-form object): the field present is then not taken for that class.
    let value = match &visit.shape.kind {
        ShapeKind::Number(b)
            if b.min.is_none_or(|m| m <= 1.0) && b.max.is_none_or(|m| m >= 1.0) =>
        {
            EdgeValue::Set(json!(1))
        }
        ShapeKind::Object(spec) if spec.props.is_empty() && !spec.closed => {
            EdgeValue::Set(json!({ "covenant": "ordinary" }))
        }
        // A date in the near future: a field may refuse a past one where the spec does not
        // say it may be past (a quote's expiry), and the field present must not hang on that.
        ShapeKind::String(StringSpec {
            format: Some(format),
            ..
        }) => match text::format_ordinary(*format) {
            Some(ordinary) => EdgeValue::Set(text::string(ordinary)),
            None => EdgeValue::Given,
        },
        _ => EdgeValue::Given,
    };
    let present = edge(
        value,
        AcceptKind::Optional,
        format!("{name} present, with an ordinary value"),
    );
    edges.insert(0, present);
    edges
}

/// `1 character`, `255 characters`.
fn characters(n: usize) -> String {
    match n {
        1 => "1 character".to_owned(),
        n => format!("{n} characters"),
    }
}

fn edge(value: EdgeValue, kind: AcceptKind, detail: String) -> Edge {
    Edge {
        value,
        kind,
        detail,
        beside: None,
        literal: None,
    }
}

fn at_limit(value: Value, detail: String) -> Edge {
    edge(EdgeValue::Set(value), AcceptKind::AtLimit, detail)
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
    let wide = WIDE_CHARACTERS.map(|(c, what)| (c.to_string(), what));
    for (unit, what) in wide
        .into_iter()
        .chain([COMBINING].map(|(u, w)| (u.to_owned(), w)))
    {
        // `n` code points of the unit, repeated (a combining pair may end on its base letter).
        let of = |n: usize| text::string(unit.chars().cycle().take(n).collect::<String>());
        let (short_detail, max_detail) = match unit.chars().count() {
            1 => (
                format!("{name} of {short} × {unit} ({what}), well inside max {max}"),
                format!("{name} of {max} × {unit} ({what}): {max} code points (max {max})"),
            ),
            _ => (
                format!("{name} of {short} code points of {unit} repeated ({what}), well inside max {max}"),
                format!("{name} of {max} code points of {unit} repeated ({what}) (max {max})"),
            ),
        };
        let control = out.len();
        out.push(edge(
            EdgeValue::Set(of(short)),
            AcceptKind::Characters,
            short_detail,
        ));
        out.push(Edge {
            value: EdgeValue::Set(of(max)),
            kind: AcceptKind::CodePoints,
            detail: max_detail,
            beside: Some(control),
            literal: None,
        });
    }
}

/// A fixture-bound uuid (an id the profile gives) in its other case, beside the id as given: the
/// target must know the id, so no other uuid can stand in for it.
fn fixture_edges(shape: &SchemaNode, name: &str) -> Vec<Edge> {
    let ShapeKind::String(StringSpec {
        format: Some(Format::Uuid),
        ..
    }) = &shape.kind
    else {
        return Vec::new();
    };
    vec![
        edge(
            EdgeValue::Given,
            AcceptKind::Ordinary,
            format!("{name} as the profile gives it"),
        ),
        Edge {
            value: EdgeValue::OtherCase,
            kind: AcceptKind::UuidCase,
            detail: format!("{name} as the profile gives it, in its other case (RFC 4122)"),
            beside: Some(0),
            literal: None,
        },
    ]
}

/// An ordinary value of a format or a pattern, then each value of its classes beside it.
fn class_edges(spec: &StringSpec, name: &str, out: &mut Vec<Edge>) {
    let (ordinary, classes): (Option<String>, Vec<(String, &str)>) =
        match (spec.format, &spec.pattern) {
            (Some(format), _) => {
                let classes = text::format_classes(format, spec.any_date);
                (text::format_ordinary(format), classes)
            }
            (None, Some(pattern)) => match regex::Regex::new(pattern) {
                Ok(pattern) => {
                    let ordinary = text::PATTERN_ORDINARY;
                    let ordinary = pattern.is_match(ordinary).then(|| ordinary.to_owned());
                    (ordinary, text::pattern_classes(&pattern, spec))
                }
                Err(_) => return,
            },
            (None, None) => return,
        };
    if classes.is_empty() {
        return;
    }
    let control = ordinary.map(|value| {
        out.push(edge(
            EdgeValue::Set(text::string(value.clone())),
            AcceptKind::Ordinary,
            format!("{name} = {value} (an ordinary value)"),
        ));
        out.len() - 1
    });
    for (value, what) in classes {
        out.push(Edge {
            detail: format!("{name} = {value} ({what})"),
            value: EdgeValue::Set(text::string(value)),
            kind: AcceptKind::Class,
            beside: control,
            literal: None,
        });
    }
}

// Its tests ask the engine, which compiles with this module: they are `tests.rs`'s `acceptance`.
