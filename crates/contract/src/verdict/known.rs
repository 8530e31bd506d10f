//! What a baseline of known failures did to a run (`covenant run --baseline`), as the record
//! keeps it for every surface.

use serde::{Deserialize, Serialize};

/// The baseline a run was judged with, and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineOutcome {
    /// The baseline file, as the user named it.
    pub file: String,
    /// Findings the baseline held: they no longer fail the run.
    pub known: usize,
    /// Entries whose listed cases ran and no longer break the rule: the target was fixed there,
    /// and the entry must go, or the rule could break again unseen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<StaleEntry>,
    /// Entries past their `until` date, each in a sentence: their failures fail again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expired: Vec<String>,
    /// `--accept-stale`: the run that removes stale entries is not failed for them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub accept_stale: bool,
}

/// An entry of the baseline that held nothing for some of its cases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleEntry {
    pub rule: String,
    /// Listed cases that ran and did not break the rule.
    pub cases: Vec<String>,
    /// Whether those are all the cases the entry lists: the whole entry can go.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
}

impl BaselineOutcome {
    /// Whether stale entries fail the gate.
    pub fn stale_fails(&self) -> bool {
        !self.stale.is_empty() && !self.accept_stale
    }
}

/// The failures a baseline held in one run, for one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownRule {
    pub rule: String,
    /// The reason the baseline gives.
    pub reason: String,
    /// The cases whose failure of the rule it held.
    pub cases: Vec<String>,
}
