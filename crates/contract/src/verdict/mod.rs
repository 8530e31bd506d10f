//! Verdicts as plain data: what a case found, and the exchanges that show it.
//!
//! Everything here is serialisable so that runs can be written, merged and compared without the
//! code that produced them. Checks produce [`Finding`]s; the runner folds them into a
//! [`CaseResult`]; reporters read a [`RunRecord`]. Nothing here sends a request or writes a file.

mod case;
mod client;
mod constraint;
mod coverage;
mod exchange;
mod known;
mod pace;
mod record;
mod settle;
mod shape;

pub use case::{
    unified_diff, CaseResult, Counts, Evidence, Finding, Inconclusive, StatusExpected, StatusSeen,
    Verdict, CLIENT_SUITE, TRAFFIC_SUITE,
};
pub use client::{ClientSlip, CLIENT_TITLE, CLIENT_TOKEN_VAR};
pub use constraint::ConstraintCoverage;
pub use coverage::{CoverageMeasure, CoverageRequirement};
pub use exchange::{Exchange, RequestRecord, ResponseRecord};
pub use known::{BaselineOutcome, KnownRule, StaleEntry};
pub use pace::{Pace, Unanswered};
pub use record::{parse_shard, CurlVar, Incomplete, RunMeta, RunRecord, RunVerdict, TrafficMeta};
pub use settle::settled;
pub use shape::{Fill, PageFill, Shape};
