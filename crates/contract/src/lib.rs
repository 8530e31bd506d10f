//! The contract of the Finance Operations and Embedded Banking Partner API as data: what every
//! other crate of covenant reads and none may change.
//!
//! It holds the rule catalogue, the JSON Schemas and the operations table, the target profile,
//! and verdicts as plain serialisable data, with the exit codes that name how a command ended,
//! and what every record is written with: its secrets masked, its long bodies in files beside it.
//! It does no I/O toward a target and knows neither the engine that judges nor the reference
//! that serves: both depend on it, never the other way round.

/// Long bodies written beside the reports and shown by reference.
pub mod body_file;
/// The rule catalogue (`cases/rules.toml`): every normative statement with a stable id.
pub mod catalogue;
/// FNV-1a 64: the one stable hash (catalogue hash, seeds, shards).
pub mod digest;
/// Exit codes and the errors that end a command, documented in one place.
pub mod exit;
/// The target profile (TOML): base URL, credentials, fixtures.
pub mod profile;
/// The contract as data: JSON Schemas and the operations.
pub mod schema;
/// Secrets found and masked, for the target client and the reports alike.
pub mod secret;
/// The trace (`cases/trace.toml`): each statement of the spec, its strength, what judges it.
pub mod trace;
/// Verdicts, findings and exchanges as plain data.
pub mod verdict;
