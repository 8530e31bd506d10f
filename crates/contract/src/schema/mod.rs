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
mod compile;
mod judged;
mod openapi;
mod operations;
mod problem;
mod registry;

pub use check::{check_sources, run_check, CheckReport};
pub use compile::{compile, errors, holds, DocumentSource};
pub use judged::{judged_against, JudgedAgainst, DEFAULT_FINOPS_VERSION};
pub use openapi::{openapi_document, openapi_document_with_org_header};
pub use operations::{
    operation, operations, path_fits, status_matches, Area, BodyFixture, ListRules, Method,
    Operation, OperationId, PageFields, Param, ParamLocation, Security, OPERATIONS_JSON,
};
pub use problem::Problem;
pub use registry::{Registry, SchemaIssue, BASE_URI, SCHEMA_FILES};
