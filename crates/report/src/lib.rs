//! Covenant's reports: what a finished run, a comparison or a behaviour diff says, laid out in
//! every format, the conformance matrix of several runs, and the baseline of known failures.
//!
//! It reads records as data (the `covenant-contract` crate's verdicts, rules and trace) and
//! writes files and console text: it sends nothing and judges nothing again, so it builds and
//! runs without the engine (`cargo build -p covenant-report`). The engine re-exports its modules
//! under their names (`covenant::report`, `covenant::matrix`, `covenant::baseline`).

/// Known failures: a baseline of the failures a team accepts, so a gate fails on what is new.
pub mod baseline;
/// The conformance matrix: several implementations' reports side by side, for a spec owner.
pub mod matrix;
/// Reports: JUnit XML, JSON, HTML, Markdown; compare and merge.
pub mod report;
/// Colours and counted nouns, as every command and report words them.
pub mod style;

// The contract's modules under the names the reports reach them by (`crate::verdict`).
use covenant_contract::{body_file, catalogue, exit, schema, secret, trace, verdict};
