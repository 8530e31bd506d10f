//! Why the generator cannot do what it was asked: a stem it does not know, a schema it cannot
//! read, compile or break. One enum for the boundary between the schemas and the generator, each
//! message naming the schema, the place and what to do; a target's answer never makes one.

#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("no schema named `{stem}`: is it under schemas/?")]
    UnknownStem { stem: String },
    #[error("schema `{stem}`: `$ref` {reference} does not resolve (want `x.json`, `x.json#/pointer` or `#/pointer`)")]
    BadRef { stem: String, reference: String },
    #[error("schema `{stem}`: `$ref`s nest too deep (recursive schema?)")]
    Recursive { stem: String },
    #[error("schema `{stem}` at `{pointer}`: the generator does not support {what}; simplify the schema or extend crates/generate/src/tree")]
    Unsupported {
        stem: String,
        pointer: String,
        what: String,
    },
    #[error("schema `{stem}` does not compile for validation: {message}")]
    Validator { stem: String, message: String },
    #[error("schema `{stem}` has no constraint to break")]
    NothingToBreak { stem: String },
}
