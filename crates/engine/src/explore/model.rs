//! The model: what the spec states of the state a sequence built, per organization, which the
//! steps' post-conditions judge the target's answers against.

use std::collections::{BTreeMap, BTreeSet};

/// What the spec states of the state a sequence built, per organization.
#[derive(Debug, Default)]
pub struct Model {
    /// Distinguishes the ids of one play of a sequence from those of its replays.
    pub salt: String,
    /// The run's seed and the sequence's number: the shapes of its requests are drawn from them.
    pub seed: u64,
    pub k: u32,
    /// The place of the step being played in the sequence as drawn, and the requests it sent
    /// so far: a request's shape follows from both, whichever steps a shrink kept.
    pub origin: usize,
    pub sent: usize,
    /// Velocity control ids taken, per organization: per slot, the number of creates sent
    /// before it (the message says how many came between).
    pub velocity: [BTreeMap<u8, String>; 2],
    /// VAT IDs created under the first organization: id and the body sent.
    pub vat: Vec<(String, serde_json::Value)>,
    /// Ids the service assigned, per kind of resource.
    pub assigned: BTreeMap<&'static str, BTreeSet<String>>,
    pub quotes: Vec<String>,
    pub invoices: Vec<String>,
    /// Event ids a full read held, per organization.
    pub events: [BTreeSet<String>; 2],
    /// The transactions a first full read held, in its order.
    pub transactions: Option<Vec<String>>,
    /// Next tokens of first pages of events read under the first organization.
    pub tokens: Vec<String>,
    /// Those of them whose first query was `sort=created_at&limit=N` (ascending), with N.
    pub ascending: Vec<(String, u8)>,
    /// Ids the script names as shell variables: the value and the step (from 1) that made it.
    pub named: Vec<(String, usize)>,
    /// Creates sent so far in this play: numbers the values made unique.
    pub creates: usize,
    /// Velocity control slots only refused creates named, per organization.
    pub refused_velocity: [BTreeSet<u8>; 2],
    /// Whether a create of a fresh velocity control id was accepted, per organization: what a
    /// refused create of an id free there is judged beside.
    pub fresh_velocity: [bool; 2],
    /// Whether a quote without references the sequence made was accepted.
    pub quote_accepted: bool,
    /// A replay of a shrink (or the replay after it): it takes no fixture of the profile.
    pub replay: bool,
}

impl Model {
    pub fn new(salt: String, seed: u64, k: u32) -> Model {
        Model {
            salt,
            seed,
            k,
            ..Model::default()
        }
    }

    /// The model of a replay of sequence `k`: it takes no fixture of the profile.
    pub fn replay(salt: String, seed: u64, k: u32) -> Model {
        Model {
            replay: true,
            ..Model::new(salt, seed, k)
        }
    }

    /// Names `id` as a variable of the script, made by step `step` (from 1).
    pub fn name(&mut self, id: &str, step: usize) {
        if !self.named.iter().any(|(v, _)| v == id) {
            self.named.push((id.to_owned(), step));
        }
    }
}
