//! A JSON Schema compiled into the small shape the generator walks.
//!
//! Compiling happens in two passes: [`inline()`] replaces every `$ref` by the schema it names
//! (through the [`SchemaSource`](super::SchemaSource)), then [`compile()`] folds `allOf`, type
//! arrays and nullable branches into one [`SchemaNode`] tree. A keyword the generator does not
//! understand is an error rather than a silent gap, because a payload generated past it could be
//! wrongly labelled valid.
//!
//! [`node`] holds the shape itself, which the generators walk; [`keywords`] what the passes
//! share: the marks one leaves for the next ([`STEM_MARK`], [`CONDITIONALS`]) and which keywords
//! carry no constraint. Each pass has a file of its own: [`inline`](mod@inline),
//! [`compile`](mod@compile), and [`merge`], the folding of `allOf` members that compiling starts
//! each node with.

mod compile;
mod inline;
mod keywords;
mod merge;
mod node;
mod place;

pub(crate) use compile::compile;
pub(crate) use inline::{inline, Documents};
pub(crate) use node::{
    ArraySpec, Bounds, Conditional, Format, JsonType, ObjectSpec, Prop, SchemaNode, ShapeKind,
    Step, StringSpec,
};
pub(crate) use place::Context;

use keywords::{is_annotation, CONDITIONALS, STEM_MARK};
