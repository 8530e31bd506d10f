//! Value classes: for every typed site, the classes of value its stated type admits, each one a
//! positive variant judged beside an ordinary value of the same field (see [`super::accept`]).
//!
//! Implementations read values through regexes, binders and database columns, and each of those
//! lets through or refuses a different class: a text column refuses U+0000, a binder refuses
//! `1e2` for an integer, a 64-bit column wraps 2^64 to 0. One value per type proves a field is
//! read; a value per class proves it is read as the type the spec states. The classes are
//! derived from the shape alone, never written per field:
//!
//! - a stated default, given explicitly (`tag_ids: []`, `active: false`);
//! - integers: the same integral value written `100.0`, `1e2` and (where 0 is admitted) `-0`,
//!   which JSON and JSON Schema count as integers; past 2^53 and 2^63 where no maximum is stated
//!   (a target may refuse them, but one that accepts must not wrap them);
//! - numbers: 0, exponent notation, many fraction digits;
//! - plain strings: empty (where no minimum is stated), whitespace only, U+0000 and other
//!   control characters, right-to-left text (combining sequences and characters outside the
//!   Basic Multilingual Plane are tried at the maximum length, in `accept`);
//! - booleans: `false` beside the ordinary `true`; arrays: empty and one item where no minimum is
//!   stated; free-form objects: empty.
//!
//! A value is written as JSON writes it, except where the class is a spelling: the edge then
//! carries the literal text to send in its place (`1e2`), and its value is what the text means.

use super::tree::{ArraySpec, Bounds, ObjectSpec, SchemaNode, ShapeKind, StringSpec};
use super::{text, valid};
use serde_json::{json, Value};

/// What a class value tests, for the variant it becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ClassKind {
    /// The stated default, given explicitly.
    Default,
    /// An integral value written another way JSON allows.
    IntegerForm,
    /// An integer past 2^53 or 2^63 where no maximum is stated.
    Large,
    /// Any other class of the type.
    Value,
}

/// One value of a class: what to place at the node, the text to send for it where the class is
/// a spelling, and what it is, for people.
pub(super) struct Class {
    pub value: Value,
    pub literal: Option<String>,
    pub kind: ClassKind,
    pub detail: String,
}

/// Integers past the range a double holds exactly, and past the 64-bit ones: the literal, the
/// value it means, and what it is.
const LARGE: [(&str, &str); 4] = [
    (
        "9007199254740993",
        "2^53 + 1, past the integers a double holds exactly",
    ),
    (
        "9223372036854775808",
        "2^63, one past the largest signed 64-bit integer",
    ),
    (
        "18446744073709551616",
        "2^64, one past the largest unsigned 64-bit integer",
    ),
    (
        "1000000000000000000000000000000",
        "10^30, past every integer type",
    ),
];

/// Strings of each class a plain string admits, and what each is.
const STRINGS: [(&str, &str); 5] = [
    ("", "an empty string"),
    ("   ", "whitespace only"),
    ("a\u{0}b", "U+0000 inside"),
    (
        "a\u{1}\t\n\u{1f}b",
        "control characters (U+0001, tab, line feed, U+001F)",
    ),
    ("שלום مرحبا", "right-to-left text (Hebrew and Arabic)"),
];

/// The class edges of a node of `shape`, named `name` for people.
pub(super) fn classes(shape: &SchemaNode, name: &str) -> Vec<Class> {
    let mut out = Vec::new();
    if let Some(default) = &shape.default {
        out.push(class(
            default.clone(),
            None,
            ClassKind::Default,
            format!("{name} = {default} (the stated default, given explicitly)"),
        ));
    }
    match &shape.kind {
        ShapeKind::Integer(bounds) => integers(bounds, name, &mut out),
        ShapeKind::Number(bounds) => numbers(bounds, name, &mut out),
        ShapeKind::String(spec) => strings(spec, name, &mut out),
        ShapeKind::Boolean if shape.default != Some(json!(false)) => out.push(class(
            json!(false),
            None,
            ClassKind::Value,
            format!("{name} = false"),
        )),
        ShapeKind::Array(spec) => arrays(spec, shape.default.as_ref(), name, &mut out),
        ShapeKind::Object(spec) => objects(spec, name, &mut out),
        _ => {}
    }
    out
}

fn class(value: Value, literal: Option<String>, kind: ClassKind, detail: String) -> Class {
    Class {
        value,
        literal,
        kind,
        detail,
    }
}

fn within<T: PartialOrd>(bounds: &Bounds<T>, value: T) -> bool {
    bounds.min.as_ref().is_none_or(|min| value >= *min)
        && bounds.max.as_ref().is_none_or(|max| value <= *max)
}

/// An integral value in other spellings, 0 as `-0`, and integers past 2^53 and 2^63 where no
/// maximum is stated (past a stated maximum they are breaches: see `invalid`).
fn integers(bounds: &Bounds<i64>, name: &str, out: &mut Vec<Class>) {
    let n = 100i64.clamp(
        bounds.min.unwrap_or(i64::MIN),
        bounds.max.unwrap_or(i64::MAX),
    );
    for literal in [format!("{n}.0"), exponent(n)] {
        let detail = format!("{name} = {literal} ({n} written another way: an integer in JSON)");
        out.push(class(
            json!(n as f64),
            Some(literal),
            ClassKind::IntegerForm,
            detail,
        ));
    }
    if within(bounds, 0) {
        let detail = format!("{name} = -0 (zero with a sign: an integer in JSON)");
        out.push(class(
            json!(-0.0),
            Some("-0".into()),
            ClassKind::IntegerForm,
            detail,
        ));
    }
    if bounds.max.is_some() {
        return;
    }
    for (literal, what) in LARGE {
        let value = match literal.parse::<u64>() {
            Ok(u) => json!(u),
            Err(_) => json!(literal.parse::<f64>().unwrap_or(f64::MAX)),
        };
        let detail = format!("{name} = {literal} ({what}; no maximum is stated)");
        out.push(class(value, Some(literal.into()), ClassKind::Large, detail));
    }
}

/// `n` in exponent notation: `1e2` for 100, `25e0` for 25.
pub(super) fn exponent(n: i64) -> String {
    let (mut mantissa, mut power) = (n, 0);
    while mantissa != 0 && mantissa % 10 == 0 {
        mantissa /= 10;
        power += 1;
    }
    format!("{mantissa}e{power}")
}

fn numbers(bounds: &Bounds<f64>, name: &str, out: &mut Vec<Class>) {
    let classes = [
        (0.0, "0", "zero"),
        (100.0, "1e2", "exponent notation"),
        (
            0.123_456_789_012_345_68,
            "0.1234567890123456789",
            "19 fraction digits",
        ),
    ];
    for (value, literal, what) in classes {
        if !within(bounds, value) {
            continue;
        }
        let literal = (literal != "0").then(|| literal.to_owned());
        let detail = format!("{name} = {} ({what})", literal.as_deref().unwrap_or("0"));
        out.push(class(json!(value), literal, ClassKind::Value, detail));
    }
}

/// The classes of a plain string (no format, pattern or listed values: theirs are their own).
fn strings(spec: &StringSpec, name: &str, out: &mut Vec<Class>) {
    if spec.format.is_some() || spec.pattern.is_some() {
        return;
    }
    for (value, what) in STRINGS {
        // Whitespace only, at the stated minimum where one is stated.
        let value = match value {
            "   " => " ".repeat(spec.min_len.max(3)),
            other => other.to_owned(),
        };
        let detail = format!("{name} = {value:?} ({what})");
        out.push(class(text::string(value), None, ClassKind::Value, detail));
    }
}

fn arrays(spec: &ArraySpec, default: Option<&Value>, name: &str, out: &mut Vec<Class>) {
    if spec.min_items > 0 {
        return;
    }
    if default != Some(&json!([])) {
        let detail = format!("{name} = [] (empty; no minimum is stated)");
        out.push(class(json!([]), None, ClassKind::Value, detail));
    }
    if spec.max_items != Some(0) {
        let item = valid::example(&spec.items, &[], false);
        let detail = format!("{name} with one item");
        out.push(class(json!([item]), None, ClassKind::Value, detail));
    }
}

/// `{}` for a free-form object (no property named, others allowed): one whose shape is not
/// shown may need what the spec does not show.
fn objects(spec: &ObjectSpec, name: &str, out: &mut Vec<Class>) {
    if spec.props.is_empty() && !spec.closed {
        let detail = format!("{name} = {{}} (an empty free-form object)");
        out.push(class(json!({}), None, ClassKind::Value, detail));
    }
}

#[cfg(test)]
mod tests {
    use super::exponent;

    #[test]
    fn an_integer_in_exponent_notation_means_the_same_integer() {
        for n in [100, 25, 0, -3000, 10000] {
            let text = exponent(n);
            assert!(text.contains('e'), "{text}");
            assert_eq!(text.parse::<f64>().unwrap(), n as f64, "{text}");
        }
        assert_eq!(exponent(100), "1e2");
    }
}
