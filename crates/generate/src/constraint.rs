//! One stated constraint of a request, described from the place of a shape or a parameter that
//! states it, and how an accepted request holds it: what the [`Inventory`](super::Inventory) is
//! made of, apart from it, so that a compiled schema labels its own breaches and builds its own
//! holds without knowing the operations that gather them.
//!
//! Each constraint the invalid generator can break (a [`Site`](super::invalid::Site): a type, a
//! format, a length, a bound, an item count, a listed value, a required or unknown property, an
//! "omitted when" pair) is one [`Constraint`], named by its body shape, where it is (a JSON
//! pointer with `*` for array items) and its keyword: `quote-create /trade_name maxLength 255`.
//! Every "or null" is one too, with nothing to break, and so is every listed value (held when a
//! request carrying it is accepted). A parameter's constraints are described the same way from
//! its schema in `operations.json` (`list-events query limit maximum 100`, `get-vat-id path
//! vat_id format uuid`), a header's named after its area (`finance header x-finops-version
//! format date`).
//! Each knows its edge: a length at the limit, a bound, an item count, `null`, or simply the
//! field present ([`hold_body`] builds a body at it).
//!
//! Nothing here goes over all operations or compiles a schema: that is the inventory's.

use super::invalid::{Mutation, Site};
use super::path::{apply, pointer, Edit};
use super::tree::{SchemaNode, ShapeKind, Step};
use super::ConstraintKind;
use super::{text, valid};
use covenant_contract::schema::{OperationId, Param, ParamLocation};
use serde_json::{json, Value};

/// One stated constraint of one body shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    /// `quote-create /line_items/*/vat_rate_id format uuid`: shape, place, keyword.
    pub id: String,
    pub operation: OperationId,
    /// The body shape: the schema stem of the body, or of its `oneOf` branch.
    pub stem: String,
    /// JSON pointer of the constrained value, `*` for any array item (empty: the body itself).
    pub at: String,
    /// The keyword and its value: `maxLength 255`, `required`, `or null`.
    pub keyword: String,
    /// The rule a breach of it breaks.
    pub rule: String,
    /// Why no request can break it (an "or null": null is admitted), if none can.
    pub unbreakable: Option<&'static str>,
    hold: Hold,
    /// The node a hold edits: the value itself, or the object for a property's presence.
    path: Vec<Step>,
    /// The parameter it constrains, for a constraint of a path, query or header value.
    pub param: Option<ParamAt>,
}

/// A parameter a constraint is of: where it goes and its name as the table gives it (the profile
/// key, in braces, for a header whose name the profile gives: `{banking.org_header}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamAt {
    pub location: ParamLocation,
    pub name: String,
}

/// What an accepted body must show for it to hold a constraint at its edge.
#[derive(Debug, Clone, PartialEq)]
enum Hold {
    /// A value there (not null, where null would break it).
    Present { non_null: bool },
    /// A string of exactly this many characters.
    Length(usize),
    /// A number equal to the bound.
    Bound(f64),
    /// An array of exactly this many items.
    Items(usize),
    /// `null` there.
    Null,
    /// This listed value there.
    Equals(Value),
    /// The object there without this property (a property `not` forbids).
    Without(String),
    /// The object there with `when` at one of `values`, and the pair kept.
    Conditional {
        when: String,
        values: Vec<Value>,
        forbid: Vec<String>,
        require: Vec<String>,
    },
}

impl Constraint {
    /// Whether a parameter's value, as sent, holds it at its edge.
    pub(crate) fn held_by_text(&self, text: &str) -> bool {
        match &self.hold {
            Hold::Present { .. } => true,
            Hold::Length(n) => text.chars().count() == *n,
            Hold::Bound(bound) => text.parse::<f64>().ok() == Some(*bound),
            Hold::Equals(value) => value.as_str().map_or(value.to_string(), str::to_owned) == text,
            _ => false,
        }
    }

    /// Whether a body valid against this constraint's shape holds it at its edge.
    pub(crate) fn held_by(&self, body: &Value) -> bool {
        if let Hold::Without(name) = &self.hold {
            // The object the property is forbidden in, not the property.
            let object = self.at.rsplit_once('/').map_or("", |(object, _)| object);
            let lacks = |v: &Value| v.as_object().is_some_and(|o| !o.contains_key(name));
            return any_at(body, object, &lacks);
        }
        let any = |f: &dyn Fn(&Value) -> bool| any_at(body, &self.at, f);
        match &self.hold {
            Hold::Present { non_null } => any(&|v| !(*non_null && v.is_null())),
            Hold::Length(n) => any(&|v| v.as_str().is_some_and(|s| s.chars().count() == *n)),
            Hold::Bound(bound) => any(&|v| v.as_f64() == Some(*bound)),
            Hold::Items(n) => any(&|v| v.as_array().is_some_and(|a| a.len() == *n)),
            Hold::Null => any(&Value::is_null),
            Hold::Equals(listed) => any(&|v| v == listed),
            Hold::Without(_) => false,
            Hold::Conditional {
                when,
                values: triggers,
                forbid,
                require,
            } => any(&|v| {
                let Some(object) = v.as_object() else {
                    return false;
                };
                object.get(when).is_some_and(|w| triggers.contains(w))
                    && forbid.iter().all(|name| !object.contains_key(name))
                    && require.iter().all(|name| object.contains_key(name))
            }),
        }
    }

    /// Whether it is an upper limit: a maximum length, value or item count.
    pub fn is_maximum(&self) -> bool {
        ["maxLength ", "maximum ", "maxItems "]
            .iter()
            .any(|k| self.keyword.starts_with(k))
    }

    /// Whether it is a stated limit: a least or greatest length, value or item count.
    pub fn is_limit(&self) -> bool {
        let least = ["minLength ", "minimum ", "minItems ", "exclusive"];
        self.is_maximum() || least.iter().any(|k| self.keyword.starts_with(k))
    }

    /// The value that holds it at its limit in `root`'s shape, and the JSON pointer of that
    /// value in a body (the first item of an array for `*`).
    pub(crate) fn at_limit(&self, root: &SchemaNode) -> Option<(String, Value)> {
        let at = pointer(&self.path);
        Some((at.clone(), hold_body(root, self)?.pointer(&at)?.clone()))
    }

    /// How it is held, in words: `a value of 255 characters`.
    pub fn edge(&self) -> String {
        match &self.hold {
            Hold::Present { .. } => "the field present".to_owned(),
            Hold::Length(n) => format!("a value of {n} characters"),
            Hold::Bound(bound) => format!("the value {bound}"),
            Hold::Items(n) => format!("{n} items"),
            Hold::Null => "null".to_owned(),
            Hold::Equals(value) => format!("the value {value}"),
            Hold::Without(name) => format!("the object without {name}"),
            Hold::Conditional { when, .. } => format!("{when} at a value that triggers it"),
        }
    }
}

/// `other` merged into `body`: objects key by key, arrays item by item, anything else replaced.
pub(crate) fn merge(body: &mut Value, other: Value) {
    match (body, other) {
        (Value::Object(mine), Value::Object(theirs)) => {
            for (key, value) in theirs {
                match mine.get_mut(&key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        mine.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(mine), Value::Array(theirs)) if mine.len() <= theirs.len() => {
            for (i, value) in theirs.into_iter().enumerate() {
                match mine.get_mut(i) {
                    Some(slot) => merge(slot, value),
                    None => mine.push(value),
                }
            }
        }
        (Value::Array(_), Value::Array(_)) => {}
        (slot, value) => *slot = value,
    }
}

/// Whether some value at a pointer pattern (`*` for every item of an array) passes `f`.
fn any_at(value: &Value, pattern: &str, f: &dyn Fn(&Value) -> bool) -> bool {
    let Some(rest) = pattern.strip_prefix('/') else {
        return f(value);
    };
    let (segment, rest) = match rest.find('/') {
        Some(end) => (&rest[..end], &rest[end..]),
        None => (rest, ""),
    };
    match (segment, value) {
        ("*", Value::Array(items)) => items.iter().any(|item| any_at(item, rest, f)),
        (_, Value::Object(map)) if segment.contains('~') => {
            let name = segment.replace("~1", "/").replace("~0", "~");
            map.get(&name).is_some_and(|v| any_at(v, rest, f))
        }
        (_, Value::Object(map)) => map.get(segment).is_some_and(|v| any_at(v, rest, f)),
        _ => false,
    }
}

/// The pointer pattern of a path: properties by name, `*` for items, branches left out.
fn pattern(path: &[Step]) -> String {
    super::path::pointer_with(path, "*")
}

/// The node a path names.
fn node<'s>(root: &'s SchemaNode, path: &[Step]) -> Option<&'s SchemaNode> {
    let mut shape = root;
    for step in path {
        shape = match (step, &shape.kind) {
            (Step::Prop(name), ShapeKind::Object(spec)) => {
                &spec.props.iter().find(|p| p.name == *name)?.shape
            }
            (Step::Item, ShapeKind::Array(spec)) => &spec.items,
            (Step::Branch(i), ShapeKind::OneOf(b) | ShapeKind::AnyOf(b)) => b.get(*i)?,
            _ => return None,
        };
    }
    Some(shape)
}

/// The stem of the body shape a path is in: the branch's stem, for a body that is one of several
/// shapes.
fn shape_stem<'a>(stem: &'a str, branches: &'a [String], path: &[Step]) -> &'a str {
    match path.first() {
        Some(Step::Branch(i)) => branches.get(*i).map_or(stem, String::as_str),
        _ => stem,
    }
}

/// The stems of a schema's `oneOf` branches that are `$ref`s (`quote-create.json` ->
/// `quote-create`), in order; empty for a schema of one shape.
pub(crate) fn branch_stems(root: &Value) -> Vec<String> {
    let Some(branches) = root.get("oneOf").and_then(Value::as_array) else {
        return Vec::new();
    };
    branches
        .iter()
        .map(|branch| {
            let reference = branch.get("$ref").and_then(Value::as_str).unwrap_or("");
            let file = reference.split('#').next().unwrap_or("");
            file.trim_end_matches(".json").to_owned()
        })
        .collect()
}

/// The constraint a site stands for: its id, place, keyword and how it is held.
pub(crate) fn describe(
    root: &SchemaNode,
    stem: &str,
    branches: &[String],
    site: &Site,
) -> Option<Constraint> {
    let shape = node(root, &site.path)?;
    let object = pattern(&site.path);
    let first = site.boundary.first();
    let (at, keyword, hold) = match site.kind {
        ConstraintKind::MissingRequired => {
            let name = last_segment(first?);
            let at = format!("{object}/{name}");
            (at, "required".to_owned(), Hold::Present { non_null: false })
        }
        ConstraintKind::ExtraProperty => extra(shape, &object, first?)?,
        ConstraintKind::ForbiddenCombination => conditional(shape, &object, first?)?,
        ConstraintKind::WrongType => {
            let types: Vec<&str> = shape.admitted().iter().map(|t| t.name()).collect();
            let keyword = format!("type {}", types.join(" or "));
            (object, keyword, Hold::Present { non_null: true })
        }
        ConstraintKind::UnexpectedNull => (
            object,
            "not null".to_owned(),
            Hold::Present { non_null: true },
        ),
        ConstraintKind::TooLong | ConstraintKind::TooShort => {
            let ShapeKind::String(spec) = &shape.kind else {
                return None;
            };
            let (keyword, len) = match site.kind {
                ConstraintKind::TooLong => ("maxLength", spec.max_len?),
                _ => ("minLength", spec.min_len),
            };
            // No value of a format is as short as its minimum (a URI of one character): the
            // shortest the format admits holds it.
            let hold = match (site.kind, spec.format) {
                (ConstraintKind::TooShort, Some(_)) => Hold::Present { non_null: true },
                _ => Hold::Length(len),
            };
            (object, format!("{keyword} {len}"), hold)
        }
        ConstraintKind::BadPattern | ConstraintKind::BadFormat => {
            let ShapeKind::String(spec) = &shape.kind else {
                return None;
            };
            let keyword = match (site.kind, spec.format) {
                (ConstraintKind::BadFormat, Some(format)) => format!("format {}", format.name()),
                _ => format!("pattern {}", spec.pattern.as_deref().unwrap_or("")),
            };
            (object, keyword, Hold::Present { non_null: true })
        }
        ConstraintKind::NotInEnum => (object, "enum".to_owned(), Hold::Present { non_null: true }),
        ConstraintKind::WrongConst => {
            let ShapeKind::Const(value) = &shape.kind else {
                return None;
            };
            let keyword = format!("const {value}");
            (object, keyword, Hold::Present { non_null: true })
        }
        ConstraintKind::OutOfRange => range(shape, object, first?)?,
        ConstraintKind::TooManyItems | ConstraintKind::TooFewItems => {
            let ShapeKind::Array(spec) = &shape.kind else {
                return None;
            };
            let (keyword, n) = match site.kind {
                ConstraintKind::TooManyItems => ("maxItems", spec.max_items?),
                _ => ("minItems", spec.min_items),
            };
            (object, format!("{keyword} {n}"), Hold::Items(n))
        }
        ConstraintKind::Fraction => {
            let keyword = "integer, no fraction".to_owned();
            (object, keyword, Hold::Present { non_null: true })
        }
        ConstraintKind::LaxType => return None,
    };
    let mut c = constraint(
        shape_stem(stem, branches, &site.path),
        at,
        keyword,
        site.rule.clone(),
        hold,
    );
    c.path = site.path.clone();
    Some(c)
}

/// Every "or null" of a shape: a constraint with nothing to break, held by `null`.
pub(crate) fn nullables(root: &SchemaNode, stem: &str, branches: &[String]) -> Vec<Constraint> {
    let mut out = Vec::new();
    super::path::walk(root, &mut |visit| {
        // `x-null: not shown`: the spec does not say null is admitted, so nothing holds it.
        let stated = visit.shape.nullable && !visit.shape.null_unstated;
        if stated && !visit.path.is_empty() {
            let mut c = constraint(
                shape_stem(stem, branches, visit.path),
                pattern(visit.path),
                "or null".to_owned(),
                visit.rule.unwrap_or(super::DEFAULT_RULE).to_owned(),
                Hold::Null,
            );
            c.unbreakable = Some("null is admitted: there is nothing to break");
            c.path = visit.path.to_vec();
            out.push(c);
        }
    });
    out
}

/// The longest list whose every value is a constraint of its own: a longer one (the country
/// codes) is a class, held by any value of the list (its `enum` constraint).
const EACH_LISTED_MAX: usize = 16;

/// Every listed value of a shape: a constraint with nothing to break, held when a request
/// carrying that value is accepted (each value of an enum in each shape where it appears, for
/// lists of at most [`EACH_LISTED_MAX`] values).
pub(crate) fn listed(root: &SchemaNode, stem: &str, branches: &[String]) -> Vec<Constraint> {
    let mut out = Vec::new();
    super::path::walk(root, &mut |visit| {
        let ShapeKind::Enum(values) = &visit.shape.kind else {
            return;
        };
        if values.len() > EACH_LISTED_MAX {
            return;
        }
        for value in values.iter().filter(|v| !v.is_null()) {
            let mut c = constraint(
                shape_stem(stem, branches, visit.path),
                pattern(visit.path),
                format!("enum value {value}"),
                visit.rule.unwrap_or(super::DEFAULT_RULE).to_owned(),
                Hold::Equals(value.clone()),
            );
            c.unbreakable = Some("a listed value: there is nothing to break");
            c.path = visit.path.to_vec();
            out.push(c);
        }
    });
    out
}

/// The name a constraint gives a parameter: the table's, or the profile key that names it.
pub fn param_name(param: &Param) -> String {
    match (&param.name, &param.name_from_profile) {
        (Some(name), _) => name.clone(),
        (None, Some(key)) => format!("{{{key}}}"),
        (None, None) => "?".to_owned(),
    }
}

/// What a parameter's constraints are named after: `list-events query limit`, or the area for
/// a header (`finance header x-finops-version`).
pub(crate) fn param_stem(operation: OperationId, param: &Param) -> String {
    let name = param_name(param);
    match param.location {
        ParamLocation::Header => {
            let area = match operation.area() {
                covenant_contract::schema::Area::Finance => "finance",
                covenant_contract::schema::Area::Banking => "banking",
            };
            format!("{area} header {name}")
        }
        ParamLocation::Query => format!("{operation} query {name}"),
        ParamLocation::Path => format!("{operation} path {name}"),
    }
}

/// The constraint a site of a parameter's compiled schema stands for, named after `stem`.
pub(crate) fn describe_param(shape: &SchemaNode, stem: &str, site: &Site) -> Option<Constraint> {
    let mut c = describe(shape, stem, &[], site)?;
    c.id = format!("{stem} {}", c.keyword);
    Some(c)
}

/// The constraints of one parameter: those its schema states, its listed values, and, for a
/// required header, its presence (what a request without it gets is not shown: nothing to
/// break).
pub(crate) fn of_parameter(operation: OperationId, param: &Param) -> Vec<Constraint> {
    let Some(shape) = super::parameter::compile(&param.schema) else {
        return Vec::new();
    };
    let stem = param_stem(operation, param);
    // A breach breaks the reject rule; a value held keeps the rule the constraint comes from.
    let stated = param.rule.clone();
    let rule = param.reject_rule.clone().or_else(|| stated.clone());
    let rule = rule.unwrap_or_else(|| super::DEFAULT_RULE.to_owned());
    let stated = stated.unwrap_or_else(|| rule.clone());
    let mut out: Vec<Constraint> = Vec::new();
    let sites = super::parameter::param_sites(&shape);
    for mut c in sites
        .iter()
        .filter_map(|s| describe_param(&shape, &stem, s))
    {
        c.rule = rule.clone();
        out.push(c);
    }
    for mut c in listed(&shape, &stem, &[]) {
        c.id = format!("{stem} {}", c.keyword);
        c.rule = stated.clone();
        out.push(c);
    }
    if param.required && param.location == ParamLocation::Header {
        let keyword = "required".to_owned();
        let hold = Hold::Present { non_null: false };
        let mut c = constraint(&stem, String::new(), keyword.clone(), stated.clone(), hold);
        c.id = format!("{stem} {keyword}");
        c.unbreakable = Some("what a request without it gets is not shown");
        out.push(c);
    }
    let at = ParamAt {
        location: param.location,
        name: param_name(param),
    };
    out.dedup_by(|a, b| a.id == b.id);
    for c in &mut out {
        c.operation = operation;
        c.param = Some(at.clone());
    }
    out
}

fn constraint(stem: &str, at: String, keyword: String, rule: String, hold: Hold) -> Constraint {
    let place = if at.is_empty() { "/" } else { at.as_str() };
    Constraint {
        id: format!("{stem} {place} {keyword}"),
        operation: OperationId::CreateReceivable,
        stem: stem.to_owned(),
        at,
        keyword,
        rule,
        unbreakable: None,
        hold,
        path: Vec::new(),
        param: None,
    }
}

/// A body of `root`'s shape that holds `c` at its edge: the smallest with the constrained value
/// present, and at its limit, `null`, or the trigger of its pair. `None` when no such body can be
/// built (it is then checked by the validator, like every generated value).
pub(crate) fn hold_body(root: &SchemaNode, c: &Constraint) -> Option<Value> {
    let base = valid::example(root, &c.path, false);
    let at = pointer(&c.path);
    let shape = node(root, &c.path)?;
    let value = match (&c.hold, &shape.kind) {
        (Hold::Present { .. } | Hold::Without(_), _) => return Some(base),
        (Hold::Length(n), ShapeKind::String(spec)) => {
            let pattern = spec
                .pattern
                .as_deref()
                .and_then(|p| regex::Regex::new(p).ok());
            text::string(text::of_length(spec, pattern.as_ref(), *n)?)
        }
        (Hold::Bound(bound), ShapeKind::Integer(_)) => json!(*bound as i64),
        (Hold::Bound(bound), _) => json!(bound),
        (Hold::Items(n), ShapeKind::Array(spec)) if !spec.unique || *n < 2 => {
            Value::Array(vec![valid::example(&spec.items, &[], false); *n])
        }
        (Hold::Null, _) => Value::Null,
        (Hold::Equals(value), _) => value.clone(),
        (
            Hold::Conditional {
                when,
                values,
                forbid,
                ..
            },
            _,
        ) => {
            let mut edits = vec![(when.clone(), Some(values.first()?.clone()))];
            edits.extend(forbid.iter().map(|name| (name.clone(), None)));
            return apply(base, &at, Edit::Props(edits));
        }
        _ => return None,
    };
    apply(base, &at, Edit::Set(value))
}

/// The last segment of a mutation's pointer: the property it removes or adds.
fn last_segment(mutation: &Mutation) -> String {
    let name = mutation.pointer.rsplit('/').next().unwrap_or("");
    name.replace("~1", "/").replace("~0", "~")
}

fn extra(shape: &SchemaNode, object: &str, first: &Mutation) -> Option<(String, String, Hold)> {
    let ShapeKind::Object(spec) = &shape.kind else {
        return None;
    };
    let name = last_segment(first);
    if spec.forbidden.contains(&name) {
        let at = format!("{object}/{name}");
        return Some((at, "forbidden here".to_owned(), Hold::Without(name)));
    }
    let keyword = "additionalProperties false".to_owned();
    Some((object.to_owned(), keyword, Hold::Present { non_null: true }))
}

fn conditional(
    shape: &SchemaNode,
    object: &str,
    first: &Mutation,
) -> Option<(String, String, Hold)> {
    let ShapeKind::Object(spec) = &shape.kind else {
        return None;
    };
    let name = last_segment(first);
    let c = spec
        .conditionals
        .iter()
        .find(|c| c.forbid.contains(&name) || c.require.contains(&name))?;
    let values: Vec<String> = c.values.iter().map(Value::to_string).collect();
    let what = if c.forbid.contains(&name) {
        "omitted"
    } else {
        "present"
    };
    let keyword = format!("{name} {what} when {} is {}", c.when, values.join(" or "));
    let hold = Hold::Conditional {
        when: c.when.clone(),
        values: c.values.clone(),
        forbid: c.forbid.clone(),
        require: c.require.clone(),
    };
    Some((object.to_owned(), keyword, hold))
}

/// `maximum` or `minimum`, told apart by the side the site's first breach lies on.
fn range(shape: &SchemaNode, object: String, first: &Mutation) -> Option<(String, String, Hold)> {
    let Edit::Set(value) = &first.edit else {
        return None;
    };
    let value = value.as_f64()?;
    let (min, max) = match &shape.kind {
        ShapeKind::Integer(b) => (b.min.map(|v| v as f64), b.max.map(|v| v as f64)),
        ShapeKind::Number(b) => (b.min, b.max),
        _ => return None,
    };
    let (keyword, bound) = match (min, max) {
        (_, Some(max)) if value > max => ("maximum", max),
        (Some(min), _) if value < min => ("minimum", min),
        _ => return None,
    };
    Some((object, format!("{keyword} {bound}"), Hold::Bound(bound)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_both_sides_and_items_by_position() {
        let mut body = json!({"a": 1, "items": [{"x": 1}], "o": {"k": 1}});
        merge(
            &mut body,
            json!({"b": 2, "items": [{"y": 2}, {"z": 3}], "o": {"j": 2}}),
        );
        assert_eq!(
            body,
            json!({"a": 1, "b": 2, "items": [{"x": 1, "y": 2}, {"z": 3}], "o": {"k": 1, "j": 2}})
        );
    }
}
