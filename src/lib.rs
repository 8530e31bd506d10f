//! Covenant: a contract-conformance suite for the Finance Operations and Embedded Banking
//! Partner API.
//!
//! Data flows one way: profile + schemas + rules -> plan (cases, seeded) -> target client
//! (rate limit, timeouts) -> checks -> verdicts -> reporters. See `ARCHITECTURE.md`.

/// The rule catalogue (`cases/rules.toml`): every normative statement with a stable id.
pub mod catalogue;
/// Checks: exchanges in, findings with rule ids out.
pub mod check;
/// The command line: argument definitions and dispatch to the library.
pub mod cli;
/// Exit codes, documented in one place.
pub mod exit;
/// Valid and invalid payloads generated from the schemas with proptest.
pub mod generate;
/// Cursor pagination invariants, for any paginated list.
pub mod pagination;
/// The target profile (TOML): base URL, credentials, fixtures.
pub mod profile;
/// The embedded reference implementation of the API, with deliberate faults.
pub mod reference;
/// Reports: JUnit XML, JSON, HTML, Markdown; compare and merge.
pub mod report;
/// The runner: plans cases, runs them concurrently, collects verdicts.
pub mod runner;
/// Hand-written scenarios: the stateful cases, one file per area.
pub mod scenario;
/// The contract as data: JSON Schemas and the operations.
pub mod schema;
/// The HTTP client for a target: rate limit, timeouts, retries, redaction.
pub mod target;
/// Verdicts, findings and exchanges as plain data.
pub mod verdict;
