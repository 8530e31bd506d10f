//! Valid instances: shrinkable proptest strategies and deterministic examples.
//!
//! Both take a forced path (see the `path` module): every node on it is present and non-null, so
//! that a mutation can later be applied there.

use super::text;
use super::tree::{
    ArraySpec, Bounds, Conditional, ObjectSpec, Prop, SchemaNode, ShapeKind, Step, StringSpec,
};
use proptest::prelude::*;
use serde_json::{Map, Number, Value};

/// Unbounded integers and numbers are drawn from this far around zero.
const NUMBER_SPREAD: i64 = 1_000_000;
/// Arrays without `maxItems` hold at most this many items above `minItems`.
const ITEMS_SPREAD: usize = 3;

/// Random valid instances of `shape` with `path` forced present.
pub(crate) fn strategy(shape: &SchemaNode, path: &[Step]) -> SBoxedStrategy<Value> {
    let inner = kind_strategy(shape, path);
    if shape.nullable && path.is_empty() {
        // Non-null first, so that shrinking does not trade a value for null.
        prop_oneof![9 => inner, 1 => Just(Value::Null)].sboxed()
    } else {
        inner
    }
}

fn kind_strategy(shape: &SchemaNode, path: &[Step]) -> SBoxedStrategy<Value> {
    match &shape.kind {
        ShapeKind::Any => any_value().sboxed(),
        ShapeKind::Const(value) => Just(value.clone()).sboxed(),
        ShapeKind::Enum(values) => proptest::sample::select(values.clone()).sboxed(),
        ShapeKind::Boolean => any::<bool>().prop_map(Value::Bool).sboxed(),
        ShapeKind::Integer(bounds) => {
            let (lo, hi) = integer_range(bounds);
            (lo..=hi).prop_map(Value::from).sboxed()
        }
        ShapeKind::Number(bounds) => number_strategy(bounds),
        ShapeKind::String(spec) => string_strategy(spec),
        ShapeKind::Array(spec) => array_strategy(spec, path),
        ShapeKind::Object(spec) => object_strategy(spec, path),
        ShapeKind::OneOf(branches) | ShapeKind::AnyOf(branches) => match path.split_first() {
            Some((Step::Branch(index), rest)) => strategy(&branches[*index], rest),
            _ => proptest::strategy::Union::new(branches.iter().map(|b| strategy(b, &[]))).sboxed(),
        },
    }
}

fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        text::plain_strategy(0, 12).prop_map(Value::String),
        (-1000i64..1000).prop_map(Value::from),
        any::<bool>().prop_map(Value::Bool),
    ]
}

pub(crate) fn integer_range(bounds: &Bounds<i64>) -> (i64, i64) {
    match (bounds.min, bounds.max) {
        (Some(lo), Some(hi)) => (lo, hi.max(lo)),
        (Some(lo), None) => (lo, lo.saturating_add(NUMBER_SPREAD)),
        (None, Some(hi)) => (hi.saturating_sub(NUMBER_SPREAD), hi),
        (None, None) => (-NUMBER_SPREAD, NUMBER_SPREAD),
    }
}

fn number_range(bounds: &Bounds<f64>) -> (f64, f64) {
    let spread = NUMBER_SPREAD as f64;
    match (bounds.min, bounds.max) {
        (Some(lo), Some(hi)) => (lo, hi.max(lo)),
        (Some(lo), None) => (lo, lo + spread),
        (None, Some(hi)) => (hi - spread, hi),
        (None, None) => (-spread, spread),
    }
}

fn number_strategy(bounds: &Bounds<f64>) -> SBoxedStrategy<Value> {
    let (lo, hi) = number_range(bounds);
    (lo..=hi)
        .prop_map(move |x| {
            // Two decimals read like money; keep the raw value when rounding leaves the bounds.
            let rounded = (x * 100.0).round() / 100.0;
            let x = if (lo..=hi).contains(&rounded) {
                rounded
            } else {
                x
            };
            Number::from_f64(x).map_or(Value::from(0), Value::Number)
        })
        .sboxed()
}

fn string_strategy(spec: &StringSpec) -> SBoxedStrategy<Value> {
    let lo = spec.min_len;
    let hi = spec.max_len.unwrap_or(usize::MAX).min(lo + text::SPREAD);
    let strings = match (spec.format, &spec.pattern) {
        (Some(format), _) => {
            let max = spec.max_len.unwrap_or(usize::MAX);
            super::memo::Memo(text::format_strategy(format))
                .prop_filter("format string out of length bounds", move |s| {
                    (lo..=max).contains(&s.chars().count())
                })
                .sboxed()
        }
        (None, Some(pattern)) => text::pattern_strategy(pattern, lo, hi),
        (None, None) => text::plain_strategy(lo, hi),
    };
    strings.prop_map(Value::String).sboxed()
}

fn array_strategy(spec: &ArraySpec, path: &[Step]) -> SBoxedStrategy<Value> {
    let forced = matches!(path.first(), Some(Step::Item));
    let lo = if forced {
        spec.min_items.max(1)
    } else {
        spec.min_items
    };
    let hi = spec
        .max_items
        .unwrap_or(usize::MAX)
        .min(lo + ITEMS_SPREAD)
        .max(lo);
    let item = strategy(&spec.items, &[]);
    let unique = spec.unique;
    let min = spec.min_items;
    let items = if forced {
        let first = strategy(&spec.items, &path[1..]);
        (first, proptest::collection::vec(item, lo - 1..=hi - 1))
            .prop_map(|(first, mut rest)| {
                rest.insert(0, first);
                rest
            })
            .sboxed()
    } else {
        proptest::collection::vec(item, lo..=hi).sboxed()
    };
    items
        .prop_filter_map("too few unique items", move |mut items| {
            if unique {
                dedup(&mut items);
            }
            (items.len() >= min.max(usize::from(forced))).then_some(Value::Array(items))
        })
        .sboxed()
}

fn dedup(items: &mut Vec<Value>) {
    let mut seen: Vec<Value> = Vec::with_capacity(items.len());
    items.retain(|item| {
        let fresh = !seen.contains(item);
        if fresh {
            seen.push(item.clone());
        }
        fresh
    });
}

fn object_strategy(spec: &ObjectSpec, path: &[Step]) -> SBoxedStrategy<Value> {
    let on_path = match path.split_first() {
        Some((Step::Prop(name), rest)) => Some((name.as_str(), rest)),
        _ => None,
    };
    let parts: Vec<SBoxedStrategy<Option<(String, Value)>>> = spec
        .props
        .iter()
        .map(|prop| {
            let rest = on_path
                .filter(|(name, _)| *name == prop.name)
                .map(|(_, rest)| rest);
            prop_strategy(prop, rest)
        })
        .collect();
    let extra = if !spec.closed && spec.props.is_empty() {
        proptest::collection::btree_map(text::key_strategy(), text::plain_strategy(0, 12), 0..3)
            .sboxed()
    } else {
        Just(Default::default()).sboxed()
    };
    // The conditionals alone: the whole spec would copy every property's shape, all the way
    // down, into each object's strategy (and a schema has a strategy per site it breaks).
    let conditionals = spec.conditionals.clone();
    (parts, extra)
        .prop_map(move |(parts, extra)| {
            let mut object: Map<String, Value> = parts.into_iter().flatten().collect();
            for (name, value) in extra {
                object.entry(name).or_insert(Value::String(value));
            }
            settle_conditionals(&conditionals, &mut object);
            Value::Object(object)
        })
        .sboxed()
}

/// A property: `Some` always when required, forced or on the path; otherwise maybe absent.
fn prop_strategy(prop: &Prop, rest: Option<&[Step]>) -> SBoxedStrategy<Option<(String, Value)>> {
    let name = prop.name.clone();
    let value = match (rest, &prop.fixtures) {
        (None, Some(fixtures)) | (Some([]), Some(fixtures)) => {
            proptest::sample::select(fixtures.clone()).sboxed()
        }
        (Some(rest), _) => kind_strategy(&prop.shape, rest),
        (None, None) => strategy(&prop.shape, &[]),
    };
    let pair = value.prop_map(move |value| (name.clone(), value));
    if prop.required || prop.forced || rest.is_some() {
        pair.prop_map(Some).sboxed()
    } else {
        proptest::option::of(pair).sboxed()
    }
}

/// Removes what a triggered `if`/`then` forbids.
pub(crate) fn settle_conditionals(conditionals: &[Conditional], object: &mut Map<String, Value>) {
    for conditional in conditionals {
        let triggered = object
            .get(&conditional.when)
            .is_some_and(|value| conditional.values.contains(value));
        if triggered {
            for name in &conditional.forbid {
                object.remove(name);
            }
        }
    }
}

/// A deterministic valid instance: the smallest (`full == false`: only what is required, forced
/// or on the path) or the fullest (every property).
pub(crate) fn example(shape: &SchemaNode, path: &[Step], full: bool) -> Value {
    match &shape.kind {
        ShapeKind::Any => Value::String("any".into()),
        ShapeKind::Const(value) => value.clone(),
        ShapeKind::Enum(values) => values[0].clone(),
        ShapeKind::Boolean => Value::Bool(true),
        ShapeKind::Integer(bounds) => Value::from(clamp_zero(bounds.min, bounds.max)),
        ShapeKind::Number(bounds) => Number::from_f64(clamp_zero(bounds.min, bounds.max))
            .map_or(Value::from(0), Value::Number),
        ShapeKind::String(spec) => Value::String(example_string(spec)),
        ShapeKind::Array(spec) => example_array(spec, path, full),
        ShapeKind::Object(spec) => example_object(spec, path, full),
        ShapeKind::OneOf(branches) | ShapeKind::AnyOf(branches) => match path.split_first() {
            Some((Step::Branch(index), rest)) => example(&branches[*index], rest, full),
            _ => example(&branches[0], &[], full),
        },
    }
}

/// The example value of a property: its first fixture, or its schema's example.
pub(crate) fn example_prop(prop: &Prop, full: bool) -> Value {
    match &prop.fixtures {
        Some(fixtures) => fixtures[0].clone(),
        None => example(&prop.shape, &[], full),
    }
}

fn clamp_zero<T: PartialOrd + Default + Copy>(min: Option<T>, max: Option<T>) -> T {
    let mut value = T::default();
    if let Some(min) = min.filter(|min| *min > value) {
        value = min;
    }
    if let Some(max) = max.filter(|max| *max < value) {
        value = max;
    }
    value
}

pub(crate) fn example_string(spec: &StringSpec) -> String {
    if let Some(format) = spec.format {
        let value = text::format_example(format);
        let len = value.chars().count();
        if len >= spec.min_len && spec.max_len.is_none_or(|max| len <= max) {
            return value;
        }
    }
    let pattern = spec
        .pattern
        .as_deref()
        .and_then(|p| regex::Regex::new(p).ok());
    let max = spec.max_len.unwrap_or(usize::MAX);
    let preferred = spec.min_len.max(8.min(max));
    (preferred..=max.min(preferred + 64))
        .chain(spec.min_len..preferred)
        .find_map(|len| text::of_length(spec, pattern.as_ref(), len))
        .unwrap_or_default()
}

fn example_array(spec: &ArraySpec, path: &[Step], full: bool) -> Value {
    let forced = matches!(path.first(), Some(Step::Item));
    let count = spec.min_items.max(usize::from(forced || full));
    let count = spec
        .max_items
        .map_or(count, |max| count.min(max.max(spec.min_items)));
    let items = (0..count)
        .map(|index| {
            let rest = if forced && index == 0 {
                &path[1..]
            } else {
                &[]
            };
            example(&spec.items, rest, full)
        })
        .collect();
    Value::Array(items)
}

fn example_object(spec: &ObjectSpec, path: &[Step], full: bool) -> Value {
    let on_path = match path.split_first() {
        Some((Step::Prop(name), rest)) => Some((name.as_str(), rest)),
        _ => None,
    };
    let mut object = Map::new();
    for prop in &spec.props {
        let rest = on_path
            .filter(|(name, _)| *name == prop.name)
            .map(|(_, rest)| rest);
        let value = match rest {
            Some([]) if prop.fixtures.is_some() => example_prop(prop, full),
            Some(rest) => example(&prop.shape, rest, full),
            None if prop.required || prop.forced || full => example_prop(prop, full),
            None => continue,
        };
        object.insert(prop.name.clone(), value);
    }
    settle_conditionals(&spec.conditionals, &mut object);
    Value::Object(object)
}
