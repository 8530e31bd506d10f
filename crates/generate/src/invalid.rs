//! Invalid instances: every constraint of a shape is a [`Site`] that can be broken, each way of
//! breaking it a [`Mutation`] of a valid instance generated with the site's path forced.
//!
//! A mutation breaks one constraint and leaves the rest of the instance valid; whether the
//! result is really invalid against the top-level schema (a quote body turned into a valid
//! invoice body is not) is left to the validator in [`super::Engine`], which drops such cases.

use super::path::{display, display_child, walk, Edit, Visit};
use super::tree::Step;
use super::tree::{
    ArraySpec, Bounds, Conditional, JsonType, ObjectSpec, SchemaNode, ShapeKind, StringSpec,
};
use super::{text, valid, ConstraintKind, DEFAULT_RULE};
use proptest::prelude::*;
use serde_json::{json, Number, Value};
use std::sync::Arc;

/// Name of the unknown property added to closed objects.
const UNKNOWN_PROPERTY: &str = "covenant_unknown_property";
/// Random out-of-range numbers and too-long strings go at most this far past the bound.
const NUMBER_OVERSHOOT: i64 = 1_000_000;
const LENGTH_OVERSHOOT: usize = 64;

/// One way of breaking a site.
#[derive(Debug, Clone)]
pub(crate) struct Mutation {
    pub edit: Edit,
    /// JSON pointer of the broken spot (for a missing or extra property: the property).
    pub pointer: String,
    pub detail: String,
}

/// One constraint of a shape.
#[derive(Clone)]
pub(crate) struct Site {
    /// The node the edit applies to (the object, for property-level breaches).
    pub path: Vec<Step>,
    pub kind: ConstraintKind,
    pub rule: String,
    /// Deterministic mutations, boundary values first.
    pub boundary: Vec<Mutation>,
    pub random: SBoxedStrategy<Mutation>,
}

/// All sites of a shape.
pub(crate) fn sites(root: &SchemaNode) -> Vec<Site> {
    let mut out = Vec::new();
    walk(root, &mut |visit| {
        let rule = visit.rule.unwrap_or(DEFAULT_RULE);
        if let ShapeKind::Object(spec) = &visit.shape.kind {
            object_sites(visit, spec, rule, &mut out);
        }
        value_sites(visit, rule, &mut out);
    });
    out
}

/// A value edit at the node itself.
fn set(path: &[Step], value: Value, detail: String) -> Mutation {
    Mutation {
        edit: Edit::Set(value),
        pointer: super::path::pointer(path),
        detail,
    }
}

fn site(
    visit: &Visit<'_>,
    kind: ConstraintKind,
    rule: &str,
    boundary: Vec<Mutation>,
    random: SBoxedStrategy<Mutation>,
) -> Option<Site> {
    let keyword_rule = keywords(kind)
        .iter()
        .find_map(|keyword| visit.shape.keyword_rules.get(*keyword));
    Some(Site {
        path: visit.path.to_vec(),
        kind,
        rule: keyword_rule.map_or(rule, String::as_str).to_string(),
        boundary,
        random,
    })
}

/// A site whose mutations are all `Set` of values drawn from `boundary` and `random`.
fn value_site(
    visit: &Visit<'_>,
    kind: ConstraintKind,
    rule: &str,
    boundary: Vec<(Value, String)>,
    random: SBoxedStrategy<(Value, String)>,
) -> Option<Site> {
    let path = visit.path.to_vec();
    let boundary = boundary
        .into_iter()
        .map(|(value, detail)| set(&path, value, detail))
        .collect();
    let random = random
        .prop_map(move |(value, detail)| set(&path, value, detail))
        .sboxed();
    site(visit, kind, rule, boundary, random)
}

/// The same fixed values for boundary and random.
fn fixed_site(
    visit: &Visit<'_>,
    kind: ConstraintKind,
    rule: &str,
    values: Vec<(Value, String)>,
) -> Option<Site> {
    if values.is_empty() {
        return None;
    }
    let random = proptest::sample::select(values.clone()).sboxed();
    value_site(visit, kind, rule, values, random)
}

fn object_sites(visit: &Visit<'_>, spec: &ObjectSpec, rule: &str, out: &mut Vec<Site>) {
    let object = super::path::pointer(visit.path);
    for prop in spec.props.iter().filter(|prop| prop.required) {
        let mutation = Mutation {
            edit: Edit::Remove(prop.name.clone()),
            pointer: format!("{object}/{}", prop.name),
            detail: format!(
                "{} missing (required)",
                display_child(visit.path, &prop.name)
            ),
        };
        let random = Just(mutation.clone()).sboxed();
        out.extend(site(
            visit,
            ConstraintKind::MissingRequired,
            rule,
            vec![mutation],
            random,
        ));
    }
    if spec.closed {
        out.extend(extra_site(visit, spec, rule, &object));
    }
    let forbidden_rule = spec.forbidden_rule.as_deref().unwrap_or(rule);
    for name in &spec.forbidden {
        let mutation = Mutation {
            edit: Edit::Props(vec![(name.clone(), Some(json!("x")))]),
            pointer: format!("{object}/{name}"),
            detail: format!(
                "{} present (forbidden here)",
                display_child(visit.path, name)
            ),
        };
        let random = Just(mutation.clone()).sboxed();
        let kind = ConstraintKind::ExtraProperty;
        // Not through `site`: the object's keyword rule for additionalProperties does not apply.
        out.push(Site {
            path: visit.path.to_vec(),
            kind,
            rule: forbidden_rule.to_string(),
            boundary: vec![mutation],
            random,
        });
    }
    for conditional in &spec.conditionals {
        let keyword_rule = ["then", "if"]
            .iter()
            .find_map(|keyword| visit.shape.keyword_rules.get(*keyword));
        let rule = conditional
            .rule
            .as_ref()
            .or(keyword_rule)
            .map_or(rule, String::as_str);
        out.extend(combination_site(visit, spec, conditional, rule, &object));
    }
}

fn extra_site(visit: &Visit<'_>, spec: &ObjectSpec, rule: &str, object: &str) -> Option<Site> {
    let extra = |name: &str, value: Value, why: &str| Mutation {
        edit: Edit::Props(vec![(name.to_string(), Some(value))]),
        pointer: format!("{object}/{name}"),
        detail: format!("{} present ({why})", display_child(visit.path, name)),
    };
    let mut boundary = vec![extra(UNKNOWN_PROPERTY, json!("x"), "unknown property")];
    for (name, value) in visit.foreign {
        boundary.push(extra(name, value.clone(), "property of another body shape"));
    }
    // Another spelling of a known property is no alias: it is unknown.
    for prop in &spec.props {
        // Not a fixture's value: under another name, nothing would stand in for it beside a
        // leader of other fixtures.
        let value = valid::example(&prop.shape, &[], false);
        for (spelling, style) in text::spellings(&prop.name) {
            if spec.props.iter().all(|p| p.name != spelling) {
                let why = format!("{style} spelling of {}: an unknown property", prop.name);
                boundary.push(extra(&spelling, value.clone(), &why));
            }
        }
    }
    let known: Arc<Vec<String>> = Arc::new(spec.props.iter().map(|p| p.name.clone()).collect());
    let object = object.to_string();
    let path = visit.path.to_vec();
    let named = (
        "[a-z][a-z_]{2,12}",
        prop_oneof![Just(json!("x")), Just(json!(1)), Just(json!(null))],
    )
        .prop_filter_map("name of a known property", move |(name, value)| {
            (!known.contains(&name)).then(|| Mutation {
                edit: Edit::Props(vec![(name.clone(), Some(value))]),
                pointer: format!("{object}/{name}"),
                detail: format!("{} present (unknown property)", display_child(&path, &name)),
            })
        });
    let random = prop_oneof![proptest::sample::select(boundary.clone()), named].sboxed();
    site(visit, ConstraintKind::ExtraProperty, rule, boundary, random)
}

fn combination_site(
    visit: &Visit<'_>,
    spec: &ObjectSpec,
    conditional: &Conditional,
    rule: &str,
    object: &str,
) -> Option<Site> {
    let mut boundary = Vec::new();
    let mut randoms: Vec<SBoxedStrategy<Mutation>> = Vec::new();
    let when = conditional.when.clone();
    let triggers = conditional.values.clone();
    for name in &conditional.forbid {
        let Some(prop) = spec.props.iter().find(|p| p.name == *name) else {
            continue;
        };
        let make = {
            let (when, name, object, path) = (
                when.clone(),
                name.clone(),
                object.to_string(),
                visit.path.to_vec(),
            );
            move |trigger: Value, value: Value| Mutation {
                detail: format!(
                    "{} present with {} = {trigger}",
                    display_child(&path, &name),
                    when
                ),
                edit: Edit::Props(vec![
                    (when.clone(), Some(trigger)),
                    (name.clone(), Some(value)),
                ]),
                pointer: format!("{object}/{name}"),
            }
        };
        for trigger in &triggers {
            boundary.push(make(trigger.clone(), valid::example_prop(prop, false)));
        }
        let value = valid::strategy(&prop.shape, &[]);
        randoms.push(
            (proptest::sample::select(triggers.clone()), value)
                .prop_map(move |(trigger, value)| make(trigger, value))
                .sboxed(),
        );
    }
    for name in &conditional.require {
        for trigger in &triggers {
            boundary.push(Mutation {
                detail: format!(
                    "{} missing with {} = {trigger}",
                    display_child(visit.path, name),
                    when
                ),
                edit: Edit::Props(vec![
                    (when.clone(), Some(trigger.clone())),
                    (name.clone(), None),
                ]),
                pointer: format!("{object}/{name}"),
            });
        }
    }
    if randoms.is_empty() {
        randoms.push(proptest::sample::select(boundary.clone()).sboxed());
    }
    let random = proptest::strategy::Union::new(randoms).sboxed();
    site(
        visit,
        ConstraintKind::ForbiddenCombination,
        rule,
        boundary,
        random,
    )
}

fn value_sites(visit: &Visit<'_>, rule: &str, out: &mut Vec<Site>) {
    let shape = visit.shape;
    let is_branch = matches!(visit.path.last(), Some(Step::Branch(_)));
    let name = display(visit.path);
    if !is_branch {
        out.extend(wrong_type_site(visit, rule, &name));
        out.extend(lax_site(visit, &name));
        let nullable_kind = matches!(
            shape.kind,
            ShapeKind::Any | ShapeKind::OneOf(_) | ShapeKind::AnyOf(_)
        );
        let null_breaks = !shape.nullable && !shape.null_unstated;
        if null_breaks && !visit.path.is_empty() && !nullable_kind {
            let detail = format!("{name} is null (not nullable)");
            out.extend(fixed_site(
                visit,
                ConstraintKind::UnexpectedNull,
                rule,
                vec![(Value::Null, detail)],
            ));
        }
    }
    match &shape.kind {
        ShapeKind::String(spec) => string_sites(visit, spec, rule, &name, out),
        ShapeKind::Integer(bounds) => integer_sites(visit, bounds, rule, out),
        ShapeKind::Number(bounds) => number_sites(visit, bounds, rule, out),
        ShapeKind::Enum(values) => out.extend(fixed_site(
            visit,
            ConstraintKind::NotInEnum,
            rule,
            outsiders(values, &name, "not in enum", visit.shape.case_exact),
        )),
        ShapeKind::Const(value) => out.extend(fixed_site(
            visit,
            ConstraintKind::WrongConst,
            rule,
            outsiders(
                std::slice::from_ref(value),
                &name,
                "not the constant",
                false,
            ),
        )),
        ShapeKind::Array(spec) => array_sites(visit, spec, rule, &name, out),
        _ => {}
    }
}

fn wrong_type_site(visit: &Visit<'_>, rule: &str, name: &str) -> Option<Site> {
    let admitted = visit.shape.admitted();
    if admitted.is_empty() {
        return None;
    }
    // Only values that no common lax binder turns into an admitted type: Pydantic's lax mode
    // reads "1" and true as integers and "yes" as a boolean, Jackson reads numbers and booleans
    // as strings and 1.5 as an integer. A target that does so keeps the stated type in what it
    // stores and answers; refusing those is not stated, so they are never sent as breaches
    // here (a fraction in an integer field is, under a `should` rule: see `fraction_site`).
    let candidates = [
        json!("not of this type"),
        json!({}),
        json!([]),
        json!(12345),
        json!(true),
    ];
    let wrong: Vec<(Value, String)> = candidates
        .into_iter()
        .filter(|value| {
            !admitted
                .iter()
                .any(|ty| ty.admits(value) || lax_reads(*ty, value))
        })
        .map(|value| {
            let detail = format!("{name} = {value} (wrong type)");
            (value, detail)
        })
        .collect();
    let boundary = wrong.iter().take(2).cloned().collect();
    let random = proptest::sample::select(wrong).sboxed();
    value_site(visit, ConstraintKind::WrongType, rule, boundary, random)
}

/// The rule a value that a lax binder reads as the stated type is judged under.
const LAX_RULE: &str = "GEN-LAX-BINDING";

/// A value of another type that common lax binders read as the stated one: a string of digits
/// for an integer or a number (within its bounds), `"true"` for a boolean, a number for a plain
/// string. Accepting it only warns (see [`LAX_RULE`]).
fn lax_site(visit: &Visit<'_>, name: &str) -> Option<Site> {
    let shape = visit.shape;
    if visit.path.is_empty() || shape.admitted().len() != 1 {
        return None;
    }
    let (value, what) = match &shape.kind {
        ShapeKind::Integer(b) => {
            let n = 3i64.clamp(b.min.unwrap_or(i64::MIN), b.max.unwrap_or(i64::MAX));
            (
                json!(n.to_string()),
                "a string of digits where an integer is stated",
            )
        }
        ShapeKind::Number(b) => {
            let n = 3f64.clamp(b.min.unwrap_or(f64::MIN), b.max.unwrap_or(f64::MAX));
            (
                json!(n.to_string()),
                "a string of digits where a number is stated",
            )
        }
        ShapeKind::Boolean => (json!("true"), "a string where a boolean is stated"),
        ShapeKind::String(spec) if spec.format.is_none() && spec.pattern.is_none() => {
            (json!(12345), "a number where a string is stated")
        }
        _ => return None,
    };
    let detail = format!("{name} = {value} ({what})");
    fixed_site(
        visit,
        ConstraintKind::LaxType,
        LAX_RULE,
        vec![(value, detail)],
    )
}

/// Whether a common lax binder reads `value` as a `ty`: numbers and booleans as strings, booleans
/// as numbers, numbers as booleans.
fn lax_reads(ty: JsonType, value: &Value) -> bool {
    match ty {
        JsonType::String => value.is_number() || value.is_boolean(),
        JsonType::Integer | JsonType::Number => value.is_boolean(),
        JsonType::Boolean => value.is_number(),
        JsonType::Array | JsonType::Object => false,
    }
}

/// Values of the same type as `values` that are none of them; with `case_exact` (the values are
/// spelled as a standard fixes them), a listed value in lower case first.
fn outsiders(values: &[Value], name: &str, why: &str, case_exact: bool) -> Vec<(Value, String)> {
    let mut candidates = Vec::new();
    // `de` is no ISO 3166-1 alpha-2 code: the standard spells its codes in upper case, and the
    // spec says "ISO 3166 alpha-2 code from the list below". A window (`velocityWindow`) or a
    // type is a word the spec lists, not a code a standard spells; binders that read enums
    // regardless of case (.NET's, Jackson's with ACCEPT_CASE_INSENSITIVE_ENUMS) take `day` as
    // the listed `DAY` and store and answer the listed value, which the spec does not forbid:
    // those are never sent in another case.
    let lowered = values
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_lowercase)
        .find(|lower| case_exact && !values.contains(&json!(lower)));
    let lowered = lowered.map(|lower| json!(lower));
    candidates.extend(lowered.clone());
    for value in values {
        match value {
            Value::String(s) => candidates.push(json!(format!("{s}_x"))),
            Value::Bool(b) => candidates.push(json!(!b)),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    candidates.push(json!(i.saturating_add(1)));
                }
            }
            _ => {}
        }
    }
    candidates.push(json!("NOT_IN_ENUM"));
    let mut out: Vec<(Value, String)> = Vec::new();
    for candidate in candidates {
        let same_type = values
            .iter()
            .any(|v| std::mem::discriminant(v) == std::mem::discriminant(&candidate));
        if same_type && !values.contains(&candidate) && !out.iter().any(|(v, _)| *v == candidate) {
            let why = match Some(&candidate) == lowered.as_ref() {
                true => "a listed value in lower case, where the list is spelled in upper case",
                false => why,
            };
            let detail = format!("{name} = {candidate} ({why})");
            out.push((candidate, detail));
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

fn string_sites(visit: &Visit<'_>, spec: &StringSpec, rule: &str, name: &str, out: &mut Vec<Site>) {
    let pattern = spec
        .pattern
        .as_deref()
        .and_then(|p| regex::Regex::new(p).ok())
        .map(Arc::new);
    if let Some(max) = spec.max_len {
        out.extend(too_long_site(visit, spec, pattern.clone(), rule, name, max));
    }
    if spec.min_len > 0 {
        let min = spec.min_len;
        let at = |len: usize| {
            let value =
                text::of_length(spec, pattern.as_deref(), len).unwrap_or_else(|| text::plain(len));
            (
                text::string(value),
                format!("{name} of {len} chars (min {min})"),
            )
        };
        let boundary = vec![at(min - 1)];
        let name = name.to_string();
        let random = text::plain_strategy(0, min - 1)
            .prop_map(move |s| {
                let detail = format!("{name} of {} chars (min {min})", s.chars().count());
                (text::string(s), detail)
            })
            .sboxed();
        out.extend(value_site(
            visit,
            ConstraintKind::TooShort,
            rule,
            boundary,
            random,
        ));
    }
    if let Some(pattern) = &pattern {
        let bad = text::bad_patterns(pattern, spec)
            .into_iter()
            .map(|s| {
                let detail = format!("{name} = {s:?} (does not match {})", pattern.as_str());
                (text::string(s), detail)
            })
            .collect();
        out.extend(fixed_site(visit, ConstraintKind::BadPattern, rule, bad));
    }
    if let Some(format) = spec.format {
        let fits = |s: &&&str| {
            let len = s.chars().count();
            len >= spec.min_len && spec.max_len.is_none_or(|max| len <= max)
        };
        let mut bad: Vec<(Value, String)> = text::bad_formats(format)
            .iter()
            .filter(fits)
            .map(|s| {
                (
                    text::string(*s),
                    format!("{name} = {s:?} (not a {})", format.name()),
                )
            })
            .collect();
        // A number, which a lax binder reads as its digits: still no value of the format.
        let number = text::format_number(format);
        bad.push((
            json!(number),
            format!(
                "{name} = {number} (a number where a {} string is stated)",
                format.name()
            ),
        ));
        out.extend(fixed_site(visit, ConstraintKind::BadFormat, rule, bad));
    }
}

fn too_long_site(
    visit: &Visit<'_>,
    spec: &StringSpec,
    pattern: Option<Arc<regex::Regex>>,
    rule: &str,
    name: &str,
    max: usize,
) -> Option<Site> {
    let detail = {
        let name = name.to_string();
        move |len: usize| format!("{name} of {len} chars (max {max})")
    };
    let boundary: Vec<(Value, String)> = text::of_length(spec, pattern.as_deref(), max + 1)
        .map(|s| (text::string(s), detail(max + 1)))
        .into_iter()
        .collect();
    if boundary.is_empty() {
        return None;
    }
    let random = if spec.format.is_none() && pattern.is_none() {
        text::plain_strategy(max + 1, max + LENGTH_OVERSHOOT)
            .prop_map(move |s| {
                let len = s.chars().count();
                (text::string(s), detail(len))
            })
            .sboxed()
    } else {
        let spec = spec.clone();
        (max + 1..=max + LENGTH_OVERSHOOT)
            .prop_filter_map("no string of this length", move |len| {
                text::of_length(&spec, pattern.as_deref(), len)
                    .map(|s| (text::string(s), detail(len)))
            })
            .sboxed()
    };
    value_site(visit, ConstraintKind::TooLong, rule, boundary, random)
}

/// Out-of-range values just past a bound (and further, for an integer), and random ones
/// further out.
type RangeSide = (Vec<(Value, String)>, SBoxedStrategy<(Value, String)>);

fn range_sites(visit: &Visit<'_>, rule: &str, sides: Vec<RangeSide>, out: &mut Vec<Site>) {
    for (boundary, random) in sides {
        let kind = ConstraintKind::OutOfRange;
        out.extend(value_site(visit, kind, rule, boundary, random));
    }
}

fn integer_sites(visit: &Visit<'_>, bounds: &Bounds<i64>, rule: &str, out: &mut Vec<Site>) {
    let name = display(visit.path);
    let detail = |side: &'static str, bound: i64| {
        let name = name.clone();
        move |v: i64| (json!(v), format!("{name} = {v} ({side} {bound})"))
    };
    let mut sides: Vec<RangeSide> = Vec::new();
    if let Some(max) = bounds.max.filter(|max| *max < i64::MAX) {
        let make = detail("max", max);
        let random = (max + 1..=max.saturating_add(NUMBER_OVERSHOOT)).prop_map(make.clone());
        let mut boundary = vec![make(max + 1)];
        // Past the 64-bit integers too, where a parser that wraps lands back inside the range.
        boundary.extend(past_64_bits().into_iter().map(|(value, what)| {
            let detail = format!("{name} = {value} ({what}; max {max})");
            (value, detail)
        }));
        sides.push((boundary, random.sboxed()));
    }
    if let Some(min) = bounds.min.filter(|min| *min > i64::MIN) {
        let make = detail("min", min);
        // Shrinks toward the bound: the offset runs down from min - 1.
        let random = (0..=NUMBER_OVERSHOOT).prop_map({
            let make = make.clone();
            move |d| make(min.saturating_sub(1).saturating_sub(d))
        });
        sides.push((vec![make(min - 1)], random.sboxed()));
    }
    range_sites(visit, rule, sides, out);
    out.extend(fraction_site(visit, bounds, &name));
}

/// Integers past the 64-bit types: 2^63 (one past the largest signed one), 2^64 (which a
/// parser reading modulo 2^64 takes for 0), 10^30.
fn past_64_bits() -> [(Value, &'static str); 3] {
    [
        (json!(1u64 << 63), "2^63, past the signed 64-bit integers"),
        (json!(2f64.powi(64)), "2^64, which wraps to 0 in 64 bits"),
        (json!(1e30), "10^30"),
    ]
}

/// The rule a fraction in an integer field is judged under: a `should`, since Jackson (by
/// default) reads 100.5 as 100, keeping the stated type in what it stores and answers.
const FRACTION_RULE: &str = "GEN-INTEGER-FRACTION";

/// An integer field given a fraction within its bounds (100.5 where it fits), so that the
/// fraction is the one thing wrong with it.
fn fraction_site(visit: &Visit<'_>, bounds: &Bounds<i64>, name: &str) -> Option<Site> {
    let (min, max) = (
        bounds.min.unwrap_or(i64::MIN),
        bounds.max.unwrap_or(i64::MAX),
    );
    let whole = 100i64.clamp(min, max);
    if whole >= max || !(-(1 << 50)..=(1 << 50)).contains(&whole) {
        return None;
    }
    let value = json!(whole as f64 + 0.5);
    let detail = format!("{name} = {value} (a fraction where an integer is stated)");
    fixed_site(
        visit,
        ConstraintKind::Fraction,
        FRACTION_RULE,
        vec![(value, detail)],
    )
}

fn number_sites(visit: &Visit<'_>, bounds: &Bounds<f64>, rule: &str, out: &mut Vec<Site>) {
    let name = display(visit.path);
    let mut sides: Vec<RangeSide> = Vec::new();
    let bounds = [("max", bounds.max, 1.0), ("min", bounds.min, -1.0)];
    for (side, bound, sign) in bounds {
        let Some(bound) = bound else { continue };
        let name = name.clone();
        let make = move |v: f64| {
            let value = Number::from_f64(v).map_or(Value::Null, Value::Number);
            (value, format!("{name} = {v} ({side} {bound})"))
        };
        let overshoot = NUMBER_OVERSHOOT as f64;
        let random = (1.0..overshoot).prop_map({
            let make = make.clone();
            move |d| make(bound + sign * d)
        });
        sides.push((vec![make(bound + sign)], random.sboxed()));
    }
    range_sites(visit, rule, sides, out);
}

fn array_sites(visit: &Visit<'_>, spec: &ArraySpec, rule: &str, name: &str, out: &mut Vec<Site>) {
    let item_example = valid::example(&spec.items, &[], false);
    let items = valid::strategy(&spec.items, &[]);
    let counted = |name: String, bound: String| {
        move |items: Vec<Value>| {
            let detail = format!("{name} with {} items ({bound})", items.len());
            (Value::Array(items), detail)
        }
    };
    if let Some(max) = spec.max_items {
        let make = counted(name.to_string(), format!("max {max}"));
        // Unique items cannot be copies of one example; let the random side find distinct ones.
        let boundary = if spec.unique {
            Vec::new()
        } else {
            vec![make.clone()(vec![item_example.clone(); max + 1])]
        };
        let random = proptest::collection::vec(items.clone(), max + 1..=max + 4)
            .prop_map(make)
            .sboxed();
        out.extend(value_site(
            visit,
            ConstraintKind::TooManyItems,
            rule,
            boundary,
            random,
        ));
    }
    if spec.min_items > 0 {
        let min = spec.min_items;
        let make = counted(name.to_string(), format!("min {min}"));
        let boundary = vec![make(vec![item_example; min - 1])];
        let random = proptest::collection::vec(items, 0..=min - 1)
            .prop_map(make)
            .sboxed();
        out.extend(value_site(
            visit,
            ConstraintKind::TooFewItems,
            rule,
            boundary,
            random,
        ));
    }
}

/// The schema keywords a kind of breach violates (for `x-keyword-rules`).
pub(crate) fn keywords(kind: ConstraintKind) -> &'static [&'static str] {
    match kind {
        ConstraintKind::MissingRequired => &["required"],
        ConstraintKind::ExtraProperty => &["additionalProperties"],
        ConstraintKind::WrongType | ConstraintKind::UnexpectedNull => &["type"],
        ConstraintKind::OutOfRange => {
            &["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"]
        }
        ConstraintKind::TooLong => &["maxLength"],
        ConstraintKind::TooShort => &["minLength"],
        ConstraintKind::BadFormat => &["format"],
        ConstraintKind::BadPattern => &["pattern"],
        ConstraintKind::NotInEnum => &["enum"],
        ConstraintKind::TooManyItems => &["maxItems"],
        ConstraintKind::TooFewItems => &["minItems"],
        ConstraintKind::WrongConst => &["const"],
        // The conditional carries its own rule (see object_sites), a fraction and a lax type
        // too (see integer_sites, lax_site).
        ConstraintKind::ForbiddenCombination
        | ConstraintKind::Fraction
        | ConstraintKind::LaxType => &[],
    }
}
