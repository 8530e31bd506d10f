//! Compiling one schema and holding instances against it, for the crates above the contract.
//!
//! jsonschema's compiler and validators are generic over the JSON value type, so each crate that
//! calls them builds its own copy of the whole compiler (its keywords, formats and references)
//! at its own optimisation level. These functions are not generic: the copy is built once, here,
//! and generation calls them. The embedded schemas themselves are compiled by
//! [`Registry`](super::Registry), with the same draft and formats asserted.

use jsonschema::{Retrieve, Uri, ValidationError, Validator};
use serde_json::Value;

/// Serves a document a schema refers to, by the URI it was referred to with.
pub type DocumentSource = Box<dyn Fn(&str) -> Result<Value, String> + Send + Sync>;

/// Compiles `root` as draft 2020-12 with formats asserted, `base_uri` placing a document without
/// `$id` and `documents` serving what it refers to (nothing is fetched without it); the error
/// as jsonschema words it.
#[inline(never)]
pub fn compile(
    root: &Value,
    base_uri: Option<String>,
    documents: Option<DocumentSource>,
) -> Result<Validator, String> {
    let mut options = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true);
    if let Some(documents) = documents {
        options = options.with_retriever(Served(documents));
    }
    if let Some(base_uri) = base_uri {
        options = options.with_base_uri(base_uri);
    }
    options.build(root).map_err(|error| error.to_string())
}

/// Whether `instance` holds against `validator`.
#[inline(never)]
pub fn holds(validator: &Validator, instance: &Value) -> bool {
    validator.is_valid(instance)
}

/// Every error of `instance` against `validator`.
#[inline(never)]
pub fn errors<'i>(validator: &'i Validator, instance: &'i Value) -> Vec<ValidationError<'i>> {
    validator.iter_errors(instance).collect()
}

struct Served(DocumentSource);

impl Retrieve for Served {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        (self.0)(uri.as_str()).map_err(Into::into)
    }
}
