//! Paths into a shape and into the instances generated from it.
//!
//! A [`Step`] path names one node of a [`SchemaNode`] (through properties, the first array item and
//! union branches); generating with that path *forced* guarantees the instance has a value
//! there, so a mutation can be applied at [`pointer`]. Array steps always mean item 0.

use super::tree::{SchemaNode, ShapeKind, Step};
use serde_json::{Map, Value};

/// The JSON pointer of the instance value a path names.
pub(crate) fn pointer(path: &[Step]) -> String {
    pointer_with(path, "0")
}

/// The pointer of a path with `item` for each array step: `0` for an instance, `*` for a
/// pattern naming every item (`generate::constraint`).
pub(crate) fn pointer_with(path: &[Step], item: &str) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Prop(name) => {
                out.push('/');
                out.push_str(&name.replace('~', "~0").replace('/', "~1"));
            }
            Step::Item => {
                out.push('/');
                out.push_str(item);
            }
            Step::Branch(_) => {}
        }
    }
    out
}

/// A readable name for the value a path names: `line_items[0].product.name`, or `body`.
pub(crate) fn display(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Prop(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Step::Item => out.push_str("[0]"),
            Step::Branch(_) => {}
        }
    }
    if out.is_empty() {
        "body".to_string()
    } else {
        out
    }
}

/// Joins a property name to a path's display name.
pub(crate) fn display_child(path: &[Step], name: &str) -> String {
    if path.iter().all(|step| matches!(step, Step::Branch(_))) {
        name.to_string()
    } else {
        format!("{}.{}", display(path), name)
    }
}

/// One node met by [`walk`], with what labels need.
pub(crate) struct Visit<'a> {
    pub path: &'a [Step],
    pub shape: &'a SchemaNode,
    /// Nearest `x-rule` at or above this node.
    pub rule: Option<&'a str>,
    /// Properties of sibling `oneOf` branches that this object does not have, with an example
    /// value each (only for an object that is itself a `oneOf` branch).
    pub foreign: &'a [(String, Value)],
    /// The value comes from the profile's fixtures (at or above this node).
    pub fixed: bool,
}

/// Visits every node of a shape, depth first, with its path.
pub(crate) fn walk<'a>(shape: &'a SchemaNode, visit: &mut dyn FnMut(&Visit<'_>)) {
    walk_at(shape, &mut Vec::new(), (None, false), &[], visit);
}

fn walk_at<'a>(
    shape: &'a SchemaNode,
    path: &mut Vec<Step>,
    (rule, fixed): (Option<&'a str>, bool),
    foreign: &[(String, Value)],
    visit: &mut dyn FnMut(&Visit<'_>),
) {
    let rule = shape.rule.as_deref().or(rule);
    visit(&Visit {
        path,
        shape,
        rule,
        foreign,
        fixed,
    });
    match &shape.kind {
        ShapeKind::Object(spec) => {
            for prop in &spec.props {
                path.push(Step::Prop(prop.name.clone()));
                let fixed = fixed || prop.fixtures.is_some();
                walk_at(&prop.shape, path, (rule, fixed), &[], visit);
                path.pop();
            }
        }
        ShapeKind::Array(spec) => {
            path.push(Step::Item);
            walk_at(&spec.items, path, (rule, fixed), &[], visit);
            path.pop();
        }
        ShapeKind::OneOf(branches) | ShapeKind::AnyOf(branches) => {
            for (index, branch) in branches.iter().enumerate() {
                let foreign = foreign_props(branches, index);
                path.push(Step::Branch(index));
                walk_at(branch, path, (rule, fixed), &foreign, visit);
                path.pop();
            }
        }
        _ => {}
    }
}

fn foreign_props(branches: &[SchemaNode], index: usize) -> Vec<(String, Value)> {
    let ShapeKind::Object(own) = &branches[index].kind else {
        return Vec::new();
    };
    let mut out: Vec<(String, Value)> = Vec::new();
    for (other, branch) in branches.iter().enumerate() {
        let ShapeKind::Object(spec) = &branch.kind else {
            continue;
        };
        if other == index {
            continue;
        }
        for prop in &spec.props {
            let known = own.props.iter().any(|p| p.name == prop.name)
                || out.iter().any(|(name, _)| *name == prop.name);
            if !known {
                let value = super::valid::example_prop(prop, false);
                out.push((prop.name.clone(), value));
            }
        }
    }
    out
}

/// An edit of an instance at a path.
#[derive(Debug, Clone)]
pub(crate) enum Edit {
    /// Replace the value.
    Set(Value),
    /// Remove a property of the object.
    Remove(String),
    /// Add (or replace) properties of the object; `None` removes.
    Props(Vec<(String, Option<Value>)>),
}

/// Applies an edit at a pointer; `None` when the instance has nothing there.
pub(crate) fn apply(mut instance: Value, pointer: &str, edit: Edit) -> Option<Value> {
    let target = instance.pointer_mut(pointer)?;
    match edit {
        Edit::Set(value) => *target = value,
        Edit::Remove(name) => {
            target.as_object_mut()?.remove(&name)?;
        }
        Edit::Props(changes) => {
            let object: &mut Map<String, Value> = target.as_object_mut()?;
            for (name, value) in changes {
                match value {
                    Some(value) => {
                        object.insert(name, value);
                    }
                    None => {
                        object.remove(&name);
                    }
                }
            }
        }
    }
    Some(instance)
}

/// The JSON text of `value` with the value at `pointer` written as `text` (`1e2` for 100.0,
/// `-0` for 0): the spelling a class of values is about, which serializing the value would
/// lose. `None` when nothing is at `pointer`.
pub fn spell(value: &Value, pointer: &str, text: &str) -> Option<Vec<u8>> {
    const MARK: &str = "\u{1}covenant-spelling\u{1}";
    let mut marked = value.clone();
    *marked.pointer_mut(pointer)? = Value::String(MARK.to_owned());
    let json = serde_json::to_string(&marked).ok()?;
    let quoted = serde_json::to_string(MARK).ok()?;
    Some(json.replacen(&quoted, text, 1).into_bytes())
}

/// The JSON text of an object with its first property given twice, the same value each time:
/// RFC 8259 leaves what a receiver makes of it open, so only what it answers is judged.
pub fn with_first_key_twice(value: &Value) -> Option<Vec<u8>> {
    let (key, first) = value.as_object()?.iter().next()?;
    let json = serde_json::to_string(value).ok()?;
    let pair = format!("{}:{},", serde_json::to_string(key).ok()?, first);
    Some(json.replacen('{', &format!("{{{pair}"), 1).into_bytes())
}
