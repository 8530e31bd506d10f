//! What the passes share about keywords: the marks one pass leaves in a schema for the next
//! ([`STEM_MARK`] for inlining's roots, [`CONDITIONALS`] for merging's `if`/`then` pairs), and
//! which keywords carry no constraint, so that inlining and compiling skip the same ones.

/// Marks the root of an inlined document, so that per-stem options apply there.
pub(super) const STEM_MARK: &str = "x-covenant-stem";
/// Where `if`/`then` pairs gathered from `allOf` members are kept while merging.
pub(super) const CONDITIONALS: &str = "x-covenant-conditionals";

/// Keywords that carry no constraint.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "definitions",
    "$comment",
    "$anchor",
    "title",
    "description",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
];

pub(super) fn is_annotation(key: &str) -> bool {
    ANNOTATIONS.contains(&key) || (key.starts_with("x-") && key != "x-rule")
}
