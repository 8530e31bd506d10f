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
mod judged;
mod openapi;
mod operations;
mod registry;

pub use check::{check_sources, CheckReport};
pub use judged::{judged_against, JudgedAgainst};
pub use openapi::{openapi_document, openapi_document_with_org_header};
pub use operations::{
    operation, operations, path_fits, status_matches, Area, BodyFixture, ListRules, Method,
    Operation, OperationId, PageFields, Param, ParamLocation, Security, OPERATIONS_JSON,
};
pub use registry::{Registry, SchemaIssue, SCHEMA_FILES};

use crate::catalogue::Catalogue;
use crate::exit;

/// The base of every schema `$id`.
pub const BASE_URI: &str = "https://covenant.invalid/schemas/";

/// The `x-finops-version` the spec names for create receivable: the version a run sends by
/// default and the one a verdict is judged against.
pub const DEFAULT_FINOPS_VERSION: &str = "2026-09-24";

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
