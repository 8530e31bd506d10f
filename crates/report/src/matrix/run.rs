//! One report as the matrix reads it: its run, its result on each rule, and what it chose
//! where the spec is silent.

use crate::report::Subject;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// An implementation's result on one rule, from its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum RuleOutcome {
    /// A finding at `must` level names the rule.
    #[serde(rename = "fail")]
    Fail,
    /// Only findings at `should` level name it.
    #[serde(rename = "warn")]
    Warn,
    /// It fails, but the baseline of known failures the run was judged with holds every
    /// failure of it.
    #[serde(rename = "known")]
    Known,
    /// No response was judged against it: its cases ended in an error, or beside a refused
    /// baseline.
    #[serde(rename = "inconclusive")]
    Inconclusive,
    /// Responses were judged against it and none broke it.
    #[serde(rename = "pass")]
    Pass,
    /// Its cases were skipped (a fixture the profile lacks, ...).
    #[serde(rename = "skipped")]
    Skipped,
    /// No case of the run judged it (filtered out, not observable, not in the traffic).
    #[serde(rename = "not run")]
    NotRun,
    /// The covenant version that wrote the report did not have the rule.
    #[serde(rename = "not in that version")]
    NotInVersion,
}

impl RuleOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleOutcome::Fail => "fail",
            RuleOutcome::Warn => "warn",
            RuleOutcome::Known => "known",
            RuleOutcome::Inconclusive => "inconclusive",
            RuleOutcome::Pass => "pass",
            RuleOutcome::Skipped => "skipped",
            RuleOutcome::NotRun => "not run",
            RuleOutcome::NotInVersion => "not in that version",
        }
    }

    /// The CSS class and short word of a cell.
    pub fn class(self) -> &'static str {
        match self {
            RuleOutcome::NotRun => "notrun",
            RuleOutcome::NotInVersion => "absent",
            other => other.as_str(),
        }
    }
}

/// One implementation's result on one rule: where it failed, the first failing case and its
/// message (or why it has no evidence).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub result: RuleOutcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Cell {
    pub fn of(result: RuleOutcome) -> Cell {
        Cell {
            result,
            case: None,
            message: None,
        }
    }
}

/// One choice a run showed where the spec is silent: a gap, what was looked at (`success
/// status` of an operation) and the value seen.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SilentChoice {
    pub gap: String,
    pub subject: Subject,
    pub what: String,
    pub value: String,
}

/// One report, as far as the matrix reads it.
#[derive(Debug, Clone)]
pub struct Run {
    /// The file it was read from.
    pub path: PathBuf,
    /// The name the command line gave it (`--name`).
    pub label: Option<String>,
    /// The name its profile gives (`name`).
    pub profile_name: Option<String>,
    pub target: String,
    pub covenant_version: String,
    pub seed: Option<u64>,
    /// When the run started (RFC 3339).
    pub date: Option<String>,
    /// The verdict the report states (`unknown` when it states none).
    pub verdict: String,
    /// Whether it judged real traffic (`covenant proxy`, `covenant check`).
    pub traffic: bool,
    /// Its result on each rule it knew.
    pub results: BTreeMap<String, Cell>,
    /// Whether the report lists every rule its version had (a rule it lacks was not in that
    /// version); without the list a rule it does not name was not run.
    pub lists_rules: bool,
    /// The gaps' texts as the report gives them.
    pub gap_texts: BTreeMap<String, String>,
    /// What it chose where the spec is silent.
    pub seen: Vec<SilentChoice>,
}
