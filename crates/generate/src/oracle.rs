//! The validator that has the last word on what the generator produces.
//!
//! The generator builds instances from its own reading of a schema; before one leaves the
//! engine, the real JSON Schema validator (draft 2020-12, formats checked) confirms it: a "valid"
//! payload that a correct target could reject would be a false positive, and an "invalid" one
//! that is in fact valid (a quote body mutated into a valid invoice body) would be too.

use super::tree::Documents;
use super::GenerateError;
use covenant_contract::schema::{self, DocumentSource};
use serde_json::Value;

/// Base of the `$id`s the schemas use; a document without `$id` is placed here.
const BASE: &str = "https://covenant.invalid/schemas/";

pub(crate) struct Oracle {
    validator: Validator,
}

enum Validator {
    /// Compiled for a schema source of the caller's.
    Own(jsonschema::Validator),
    /// The embedded registry's: it compiled every schema once for the checks, with the same
    /// draft, formats checked and the same documents (an engine compiling its own again held
    /// one more copy of every validator per set of generator options).
    Embedded(&'static jsonschema::Validator),
}

impl Oracle {
    /// The embedded registry's validator of `stem`, when the registry compiled one.
    pub fn embedded(stem: &str) -> Option<Oracle> {
        let validator = schema::Registry::embedded().validator(stem)?;
        Some(Oracle {
            validator: Validator::Embedded(validator),
        })
    }

    /// Compiles the schema of `stem`, serving every referenced document from `docs`.
    pub fn build(stem: &str, root: &Value, docs: Documents) -> Result<Oracle, GenerateError> {
        let base_uri = root
            .get("$id")
            .is_none()
            .then(|| format!("{BASE}{stem}.json"));
        let served: DocumentSource = Box::new(move |uri| served(&docs, uri));
        let validator = schema::compile(root, base_uri, Some(served)).map_err(|message| {
            GenerateError::Validator {
                stem: stem.to_string(),
                message,
            }
        })?;
        Ok(Oracle {
            validator: Validator::Own(validator),
        })
    }

    pub fn is_valid(&self, instance: &Value) -> bool {
        match &self.validator {
            Validator::Own(validator) => schema::holds(validator, instance),
            Validator::Embedded(validator) => schema::holds(validator, instance),
        }
    }
}

/// Serves documents by the last segment of their URI (`line-item.json` -> `line-item`).
fn served(docs: &Documents, uri: &str) -> Result<Value, String> {
    let text = uri.split('#').next().unwrap_or(uri);
    let last = text.rsplit('/').next().unwrap_or(text);
    let stem = last.strip_suffix(".json").unwrap_or(last);
    docs.get(stem)
        .cloned()
        .ok_or_else(|| format!("no schema named `{stem}` (from {text})"))
}
