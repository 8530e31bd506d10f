//! Covenant: a contract-conformance suite for the Finance Operations and Embedded Banking
//! Partner API.
//!
//! The engine: it builds a plan from the contract (the `covenant-contract` crate), sends it to a
//! target (any implementation, or the `covenant-reference` crate), judges the answers and writes
//! the reports. Data flows one way: profile + schemas + rules -> plan (cases, seeded) -> target
//! client (rate limit, timeouts) -> checks -> verdicts -> reporters. No two modules import each
//! other: `ARCHITECTURE.md` says which may import which, and `.ci/layers` checks it.

/// The case layer: the case type, its needs, what it sees while it runs, how it ends.
pub mod case;
/// Checks: exchanges in, findings with rule ids out.
pub mod check;
/// The HTTP client for a target: rate limit, timeouts, retries, redaction.
pub mod client;
/// The explorer: random command sequences over both organizations, judged by a model of the
/// spec's state, shrunk to a replayable script.
pub mod explore;
/// The suite as a libtest harness: each case a trial of `cargo test` and `cargo nextest`.
pub mod harness;
/// SIGINT and SIGTERM, as a stream of reasons.
pub mod interrupt;
/// The fixture ledger: which deletable fixtures earlier runs used up, per target.
pub mod ledger;
/// Cursor pagination invariants, for any paginated list.
pub mod pagination;
/// The runner: selects and orders the cases it is given, runs them, collects verdicts.
pub mod runner;
/// Hand-written scenarios: the stateful cases, one file per area.
pub mod scenario;
/// The cases drawn from the schemas: bodies and parameters the generator draws, sent to the target.
pub mod schema_cases;
/// The self-test: every fault detected, every check proven able to fail.
pub mod selftest;
/// The settings of a run, as plain validated values.
pub mod settings;
/// The suite: every case, gathered in one stable order.
pub mod suite;
/// The terminal: stdout and stderr lines that never panic on a closed pipe.
pub mod terminal;
/// Real traffic judged: the validating proxy and recorded HAR files, with the suite's checks.
pub mod traffic;
/// The user's case files (TOML), run beside the suite as cases of suite `user`.
pub mod user;

// The contract, the generator, the reports and the reference are crates of their own (the
// compiler holds those seams: each of them needs only the contract); they keep their paths here
// so that `crate::schema`, `crate::generate`, `crate::report` and `covenant::reference` read as
// before.
pub use covenant_contract::{
    body_file, catalogue, digest, exit, profile, schema, secret, trace, verdict,
};
pub use covenant_generate as generate;
pub use covenant_reference as reference;
pub use covenant_report::{baseline, matrix, report, style};
