//! What a run did with each inventoried constraint (`crate::generate::Inventory`): how often a
//! request broke it alone and was answered, how often an accepted request held it at its edge,
//! and how often a request that would have held it was refused.
//!
//! Holds are read from every answered request of every case ([`Exercise::answered`], called
//! where each exchange is recorded), so a constraint is held by whatever reached it, not only by
//! the case written for it; breaks are named by the generator's labels ([`Exercise::broken`]).
//! Parameter constraints are held by the path, query and headers of every accepted request
//! ([`Exercise::accepted_params`]).

use crate::client::Request;
use crate::generate::{Constraint, Inventory, ParamAt};
use crate::schema::{OperationId, ParamLocation};
use crate::verdict::ConstraintCoverage;
use serde_json::Value;
use std::sync::Mutex;

#[derive(Debug, Clone, Copy, Default)]
struct ConstraintCounts {
    broken: u32,
    breaches_accepted: u32,
    held: u32,
    refused: u32,
}

/// The run's counts, one per constraint of the embedded inventory.
#[derive(Debug)]
pub struct Exercise {
    counts: Mutex<Vec<ConstraintCounts>>,
}

impl Default for Exercise {
    fn default() -> Exercise {
        Exercise {
            counts: Mutex::new(vec![
                ConstraintCounts::default();
                Inventory::embedded().len()
            ]),
        }
    }
}

/// A side of a constraint a run did not exercise: not broken, not held, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lacking {
    pub broken: bool,
    /// Breaking requests the target accepted (a reason it is not broken).
    pub breaches_accepted: u32,
    pub held: bool,
    /// Refused requests that would have held it.
    pub refused: u32,
}

impl Exercise {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ConstraintCounts>> {
        // Counting never panics half-way: a poisoned lock still holds whole counts.
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An answer to a request that broke the constraint `id` of `operation` alone.
    /// `accepted`: whether the target took it (a breach let through).
    pub fn broken(&self, operation: OperationId, id: &str, accepted: bool) {
        if let Some(index) = Inventory::embedded().index_of(operation, id) {
            let mut counts = self.lock();
            counts[index].broken += 1;
            counts[index].breaches_accepted += u32::from(accepted);
        }
    }

    /// An answer to a request of `operation` with a JSON `body`: an accepted body holds the
    /// constraints it keeps at their edges; a refused one is counted against them.
    pub fn answered(&self, operation: OperationId, body: &Value, accepted: bool) {
        let held = Inventory::embedded().held_by(operation, body);
        if held.is_empty() {
            return;
        }
        let mut counts = self.lock();
        for index in held {
            match accepted {
                true => counts[index].held += 1,
                false => counts[index].refused += 1,
            }
        }
    }

    /// An accepted request of `operation`: the parameter constraints its path, query and
    /// headers hold. `header_name` gives the name of a header the profile names (the key in
    /// braces, as the inventory writes it: `{banking.org_header}`).
    pub fn accepted_params<'a>(
        &self,
        operation: OperationId,
        request: &Request,
        header_name: impl Fn(&str) -> Option<&'a str>,
    ) {
        let (path, query) = request.path.split_once('?').unwrap_or((&request.path, ""));
        let value = |at: &ParamAt| -> Option<String> {
            match at.location {
                ParamLocation::Header => {
                    let key = at.name.strip_prefix('{').and_then(|n| n.strip_suffix('}'));
                    let name = match key {
                        Some(key) => header_name(key)?,
                        None => at.name.as_str(),
                    };
                    let mut headers = request.headers.iter();
                    let found = headers.find(|(n, _)| n.eq_ignore_ascii_case(name));
                    found.map(|(_, v)| v.clone())
                }
                ParamLocation::Query => url::form_urlencoded::parse(query.as_bytes())
                    .find(|(n, _)| *n == at.name)
                    .map(|(_, v)| v.into_owned()),
                ParamLocation::Path => {
                    let slot = format!("{{{}}}", at.name);
                    let template = operation.operation().path.split('/');
                    let mut pairs = template.zip(path.split('/'));
                    pairs
                        .find(|(want, _)| *want == slot)
                        .map(|(_, got)| got.to_owned())
                }
            }
        };
        let held = Inventory::embedded().held_by_params(operation, &value);
        if held.is_empty() {
            return;
        }
        let mut counts = self.lock();
        for index in held {
            counts[index].held += 1;
        }
    }

    /// Every constraint and what the run did with it; `why_not` says why a side was not
    /// exercised.
    pub fn coverage(
        &self,
        why_not: impl Fn(&Constraint, Lacking) -> String,
    ) -> Vec<ConstraintCoverage> {
        let counts = self.lock();
        let inventory = Inventory::embedded().constraints();
        inventory
            .iter()
            .zip(counts.iter())
            .map(|(c, n)| {
                let mut coverage = ConstraintCoverage {
                    id: c.id.clone(),
                    operation: c.operation.to_string(),
                    rule: c.rule.clone(),
                    edge: c.edge(),
                    broken: n.broken,
                    held: n.held,
                    refused: n.refused,
                    breaches_accepted: n.breaches_accepted,
                    unbreakable: c.unbreakable.map(str::to_owned),
                    why_not: None,
                };
                let lacking = Lacking {
                    broken: !coverage.was_broken(),
                    breaches_accepted: coverage.breaches_accepted,
                    held: coverage.held == 0,
                    refused: coverage.refused,
                };
                if lacking.broken || lacking.held {
                    coverage.why_not = Some(why_not(c, lacking));
                }
                coverage
            })
            .collect()
    }
}
