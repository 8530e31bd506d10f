//! A stem compiled once (its shape, its validator, and what is worked out from them alone, each
//! on first use), and the store, for the process, of the stems engines over the embedded registry
//! compiled, per option set.
//!
//! Apart from the [`Engine`](super::Engine) that asks for them: a compiled stem holds nothing of
//! where its schema came from, of a seed, a target or a leader's fixtures, so that any engine
//! with the same options may use it.

use super::breach::breaches;
use super::invalid;
use super::oracle::Oracle;
use super::tree::SchemaNode;
use super::{accept, boundary, constraint};
use super::{Acceptance, Constraint, GenOptions, Invalid};
use proptest::strategy::SBoxedStrategy;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A stem compiled once: its shape, its validator, and what is generated from them alone
/// (deterministic lists and strategies), built on first use. Every engine with the same options
/// shares them: several cases of a run ask for the same lists, and in a differential run both
/// targets do.
pub(crate) struct Compiled {
    pub(crate) shape: SchemaNode,
    pub(crate) oracle: Arc<Oracle>,
    /// The stem compiled, and the stems of its `oneOf` branches (the body shapes it is one of).
    stem: String,
    pub(crate) branches: Vec<String>,
    sites: OnceLock<Vec<invalid::Site>>,
    /// Per site of `sites`, the inventoried constraint it breaks.
    site_ids: OnceLock<Vec<Option<String>>>,
    constraints: OnceLock<Vec<Constraint>>,
    /// Per site of `sites`, its boundary mutations the validator confirms invalid.
    breaches: OnceLock<Vec<Vec<Invalid>>>,
    boundary_valid: OnceLock<Vec<Value>>,
    acceptance: OnceLock<Acceptance>,
    pub(crate) valid: OnceLock<SBoxedStrategy<Value>>,
    /// `None` when the stem has no constraint to break.
    pub(crate) invalid: OnceLock<Option<SBoxedStrategy<Invalid>>>,
    /// Each stated limit: its constraint's id, where it sits and the value at it.
    pub(crate) limits: OnceLock<Vec<(String, String, Value)>>,
}

impl Compiled {
    pub(crate) fn new(
        shape: SchemaNode,
        oracle: Oracle,
        stem: &str,
        branches: Vec<String>,
    ) -> Compiled {
        Compiled {
            shape,
            oracle: Arc::new(oracle),
            stem: stem.to_owned(),
            branches,
            sites: OnceLock::new(),
            site_ids: OnceLock::new(),
            constraints: OnceLock::new(),
            breaches: OnceLock::new(),
            boundary_valid: OnceLock::new(),
            acceptance: OnceLock::new(),
            valid: OnceLock::new(),
            invalid: OnceLock::new(),
            limits: OnceLock::new(),
        }
    }

    pub(crate) fn sites(&self) -> &[invalid::Site] {
        self.sites.get_or_init(|| invalid::sites(&self.shape))
    }

    pub(crate) fn site_ids(&self) -> &[Option<String>] {
        self.site_ids.get_or_init(|| {
            self.sites()
                .iter()
                .map(|site| {
                    constraint::describe(&self.shape, &self.stem, &self.branches, site)
                        .map(|c| c.id)
                })
                .collect()
        })
    }

    /// The constraints of its sites and its "or null"s, each once, in the order of the shape.
    pub(crate) fn constraints(&self) -> &[Constraint] {
        self.constraints.get_or_init(|| {
            let mut out: Vec<Constraint> = Vec::new();
            let sites = self.sites().iter();
            let described = sites.filter_map(|site| {
                constraint::describe(&self.shape, &self.stem, &self.branches, site)
            });
            let nulls = constraint::nullables(&self.shape, &self.stem, &self.branches);
            let listed = constraint::listed(&self.shape, &self.stem, &self.branches);
            for constraint in described.chain(nulls).chain(listed) {
                if !out.iter().any(|c| c.id == constraint.id) {
                    out.push(constraint);
                }
            }
            out
        })
    }

    pub(crate) fn boundary_valid(&self) -> &[Value] {
        self.boundary_valid.get_or_init(|| {
            boundary::valid(&self.shape)
                .into_iter()
                .filter(|value| self.oracle.is_valid(value))
                .collect()
        })
    }

    pub(crate) fn acceptance(&self) -> &Acceptance {
        self.acceptance
            .get_or_init(|| accept::acceptance(&self.shape, &|value| self.oracle.is_valid(value)))
    }

    pub(crate) fn boundary_invalid(&self) -> Vec<Invalid> {
        self.breaches().iter().flatten().cloned().collect()
    }

    pub(crate) fn breaches(&self) -> &[Vec<Invalid>] {
        self.breaches.get_or_init(|| {
            self.sites()
                .iter()
                .zip(self.site_ids())
                .map(|(site, id)| breaches(&self.shape, &self.oracle, site, id.as_deref()))
                .collect()
        })
    }
}

/// Option sets whose compiled schemas are kept for the whole process: a run has a few (the
/// profile's, the same without omissions, none), the self-test's runs share theirs.
const SHARED_OPTIONS: usize = 8;

/// Per option set, what engines over the embedded registry compiled, by stem.
type SharedCompiled = Vec<(GenOptions, HashMap<String, Arc<Compiled>>)>;

/// What engines over the embedded registry compiled, per option set: the generated cases of a
/// run each make an engine, and would compile the same schemas again.
fn shared() -> &'static Mutex<SharedCompiled> {
    static SHARED: OnceLock<Mutex<SharedCompiled>> = OnceLock::new();
    SHARED.get_or_init(Mutex::default)
}

/// Forgets what engines over the embedded registry compiled for the process (shapes, lists
/// and strategies, several MiB after a long run): for a process whose runs are over, so that
/// what comes after them (a run's reports) does not stand on top of it. An engine still alive
/// keeps what it holds; a later one compiles again.
pub fn forget_shared() {
    shared().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

pub(crate) fn shared_compiled(options: &GenOptions, stem: &str) -> Option<Arc<Compiled>> {
    let shared = shared().lock().unwrap_or_else(|e| e.into_inner());
    let (_, compiled) = shared.iter().find(|(o, _)| o == options)?;
    compiled.get(stem).cloned()
}

pub(crate) fn share(options: &GenOptions, stem: &str, compiled: &Arc<Compiled>) {
    let mut shared = shared().lock().unwrap_or_else(|e| e.into_inner());
    let index = match shared.iter().position(|(o, _)| o == options) {
        Some(index) => index,
        None => {
            if shared.len() == SHARED_OPTIONS {
                shared.remove(0);
            }
            shared.push((options.clone(), HashMap::new()));
            shared.len() - 1
        }
    };
    shared[index]
        .1
        .entry(stem.to_string())
        .or_insert_with(|| Arc::clone(compiled));
}
