//! How a run exercised each inventoried constraint: the constraints the schemas state for a
//! request body, each broken alone and held at its edge (see the engine's `generate::Inventory`).

use serde::{Deserialize, Serialize};

/// One constraint of the inventory, and what the run did with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstraintCoverage {
    /// `quote-create /trade_name maxLength 255`: body shape, place, keyword.
    pub id: String,
    /// The operation id, as in `operations.json`.
    pub operation: String,
    /// The rule a breach of it breaks.
    pub rule: String,
    /// What holds it: `a value of 255 characters`, `null`, `the field present`.
    pub edge: String,
    /// Answers judged to requests that broke it alone.
    pub broken: u32,
    /// Accepted requests that held it at its edge.
    pub held: u32,
    /// Refused requests that would have held it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub refused: u32,
    /// Requests that broke it alone and were accepted: while any was, it does not count as
    /// broken, since one breaking value refused proves a check exists, and only all of them
    /// refused prove it is the stated one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub breaches_accepted: u32,
    /// Why no request can break it (an "or null"), where none can.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbreakable: Option<String>,
    /// Why a side was not exercised, where one was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl ConstraintCoverage {
    /// Broken (or unbreakable) and held: each side it has was exercised.
    pub fn covered(&self) -> bool {
        self.was_broken() && self.held > 0
    }

    /// Broken alone at least once and every breach refused, or unbreakable.
    pub fn was_broken(&self) -> bool {
        (self.broken > 0 && self.breaches_accepted == 0) || self.unbreakable.is_some()
    }

    /// Adds what another shard of the same run did with it.
    pub fn absorb(&mut self, other: &ConstraintCoverage) {
        self.broken += other.broken;
        self.held += other.held;
        self.refused += other.refused;
        self.breaches_accepted += other.breaches_accepted;
        if self.covered() {
            self.why_not = None;
        } else if self.why_not.is_none() {
            self.why_not.clone_from(&other.why_not);
        }
    }
}
