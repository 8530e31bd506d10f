//! The contract as data: the JSON Schemas under `schemas/` and the ten operations
//! (`schemas/operations.json`), embedded in the binary so runs never depend on the working
//! directory.
//!
//! Conventions of the schema files (JSON Schema 2020-12):
//! - `$id` is `https://covenant.invalid/schemas/<stem>.json`; files `$ref` each other by relative
//!   name (`line-item.json`, `vat-id.json#/$defs/country`), resolved in memory, never fetched.
//! - `x-rule` on a subschema names the catalogue rule (`cases/rules.toml`) its constraints come
//!   from; `x-keyword-rules` maps single keywords of that subschema to another rule (e.g.
//!   `{"type": "RCV-FIELD-TYPES"}` beside `maxLength` labelled `RCV-TRADE-NAME-MAX`, or
//!   `{"required": "RCV-REQUIRED", "additionalProperties": "RCV-UNKNOWN-PROPS"}` on a body).
//!   A validation error maps to the deepest of these on its evaluation path ([`Registry::rule_at`]).
//! - `examples` must validate; `x-negative-examples` (`{rule, why, instance}`) must be rejected
//!   with at least one issue labelled `rule`.
//! - Formats (uuid, date, date-time, uri) are asserted, not merely annotated.
//! - Where the spec says "not shown" a schema stays open and says so in its `description`.
//!
//! This module never fetches a schema over the network and never reads `schemas/` at run time.

mod check;
mod openapi;
mod operations;
mod registry;

pub use check::{check_sources, CheckReport};
pub use openapi::{openapi_document, openapi_document_with_org_header};
pub use operations::{
    operation, operations, path_fits, status_matches, Area, BodyFixture, ListRules, Method,
    Operation, OperationId, PageFields, Param, ParamLocation, Security, OPERATIONS_JSON,
};
pub use registry::{Registry, SchemaIssue, SCHEMA_FILES};

use crate::catalogue::{Catalogue, RULES_TOML};
use crate::exit;
use crate::verdict::JudgedAgainst;

/// The base of every schema `$id`.
pub const BASE_URI: &str = "https://covenant.invalid/schemas/";

/// What this binary judges against: the spec version a run sends by default, the number of
/// rules of the embedded catalogue, and the hash of the catalogue and schemas as embedded.
pub fn judged_against() -> JudgedAgainst {
    static JUDGED: std::sync::OnceLock<JudgedAgainst> = std::sync::OnceLock::new();
    JUDGED
        .get_or_init(|| JudgedAgainst {
            spec_version: crate::profile::DEFAULT_FINOPS_VERSION.to_owned(),
            rules: Catalogue::embedded().rules.len(),
            catalogue_hash: catalogue_hash(RULES_TOML, SCHEMA_FILES, OPERATIONS_JSON),
        })
        .clone()
}

/// The first 12 hex digits of the FNV-1a 64 hash of the catalogue, each schema (its name, then
/// its text) and the operations table, each part ended by a zero byte so that no two splits of
/// the same bytes hash alike. FNV-1a: stable across builds and platforms, a few lines, no crate.
fn catalogue_hash(rules: &str, schemas: &[(&str, &str)], operations: &str) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let parts = std::iter::once(rules)
        .chain(schemas.iter().flat_map(|(name, text)| [*name, *text]))
        .chain(std::iter::once(operations));
    let mut hash = OFFSET;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0)) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    }
    format!("{hash:016x}")[..12].to_owned()
}

/// Something wrong with a schema file, operations.json or a rule reference: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file} {pointer}: {reason}")]
pub struct Problem {
    /// The file, relative to the repository root (`schemas/quote-create.json`).
    pub file: String,
    /// JSON pointer into the file (empty: the whole file).
    pub pointer: String,
    pub reason: String,
}

impl Problem {
    pub fn new(file: &str, pointer: &str, reason: impl Into<String>) -> Problem {
        Problem {
            file: file.to_string(),
            pointer: pointer.to_string(),
            reason: reason.into(),
        }
    }
}

/// Runs `schemas check` on a schema set and writes each problem, then the summary, to `out`.
/// Returns the exit code: 0 when all is well, 1 otherwise.
pub fn run_check<S: AsRef<str>, T: AsRef<str>>(
    schemas: &[(S, T)],
    operations: &str,
    catalogue: &Catalogue,
    out: &mut impl std::io::Write,
) -> std::io::Result<u8> {
    let report = check_sources(schemas, operations, catalogue);
    for problem in &report.problems {
        writeln!(out, "{problem}")?;
    }
    writeln!(out, "{}", report.summary())?;
    Ok(if report.problems.is_empty() {
        exit::SUCCESS
    } else {
        exit::FAILURES
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_hash_changes_with_any_byte_and_with_where_a_part_ends() {
        let base = catalogue_hash("rules", &[("a.json", "{}")], "ops");
        assert_eq!(base.len(), 12);
        assert!(base.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(base, catalogue_hash("rules", &[("a.json", "{}")], "ops"));
        for other in [
            catalogue_hash("rulez", &[("a.json", "{}")], "ops"),
            catalogue_hash("rules", &[("a.json", "{ }")], "ops"),
            catalogue_hash("rules", &[("b.json", "{}")], "ops"),
            catalogue_hash("rules", &[("a.json", "{}")], "ops "),
            catalogue_hash("rule", &[("sa.json", "{}")], "ops"),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn the_embedded_contract_names_the_default_version_and_every_rule() {
        let judged = judged_against();
        assert_eq!(judged.spec_version, crate::profile::DEFAULT_FINOPS_VERSION);
        assert_eq!(judged.rules, Catalogue::embedded().rules.len());
        assert!(judged.sentence().contains(&judged.catalogue_hash));
    }
}
