//! The user's cases: case files (TOML, `cases/case.schema.json`) of a team's own flows,
//! fixtures and regressions, run beside the built-in suite as cases of suite `user`.
//!
//! Loading reads every `*.toml` of the directories given (`--case-dir`, the profile's `cases`)
//! and checks every name in them before anything is sent: a bad case file is the user's mistake
//! (exit 2, naming file, line and column), never a finding of the target. Each case's answers go
//! through [`crate::case::CaseCx::send`], so the generic checks and the operation's schemas judge
//! them exactly as they judge the built-in cases'. This module never knows the runner.

mod file;
mod load;
mod steps;
mod template;

pub use file::{CaseStep, FileProblem, Spec, CASE_SCHEMA};
pub use load::load;
