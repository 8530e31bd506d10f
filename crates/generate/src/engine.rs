//! The generation engine: what cases ask of a schema (valid and invalid payloads, boundary lists,
//! acceptance variants, holds, limits), by stem, over one source of schemas and one profile's
//! options.
//!
//! It compiles each stem once (a [`Compiled`], shared by the engines over the embedded registry)
//! and hands out what was compiled. Beside a leader (the first target of a differential run) it
//! exchanges the leader's fixture values for its own and confirms every payload again, falling
//! back to its own options where one is left unconfirmed: it never hands out a payload the
//! validator has not confirmed, and never sends one.

use super::breach::site_strategy;
use super::compiled::{share, shared_compiled, Compiled};
use super::memo::Memo;
use super::oracle::Oracle;
use super::translate::Translation;
use super::{constraint, tree, valid};
use super::{Acceptance, GenOptions, GenerateError, Invalid, SchemaSource};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The generation engine over a set of schemas.
pub struct Engine<S> {
    source: S,
    /// What it compiles with: its own options, or, beside a leader, the leader's fixtures.
    pub(crate) options: GenOptions,
    /// Beside a leader: the leader's fixture values replaced with this engine's own.
    pub(crate) translation: Option<Translation>,
    cache: Mutex<HashMap<String, Arc<Compiled>>>,
}

impl<S: SchemaSource> Engine<S> {
    pub fn new(source: S, options: GenOptions) -> Engine<S> {
        Engine {
            source,
            options,
            translation: None,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// This engine beside one whose fixtures are `leader`'s (the first target of a differential
    /// run): it generates what the leader generates, with its own fixture values in place of the
    /// leader's, so that both targets get the same payloads and the second builds none itself.
    /// Only when the two give the same properties the same number of values; each payload is
    /// confirmed by the validator again after the exchange, and a list in which one is not is
    /// built from this engine's own options instead.
    pub fn following(mut self, leader: &BTreeMap<String, Vec<Value>>) -> Engine<S> {
        if let Some(translation) = Translation::between(leader, &self.options.fixtures) {
            self.options.fixtures = leader.clone();
            self.translation = Some(translation);
        }
        self
    }

    /// Random valid instances of `stem`: shrinkable (optional properties shrink away, strings
    /// toward their minimum length, numbers toward a bound); each confirmed by the validator.
    pub fn valid(&self, stem: &str) -> Result<SBoxedStrategy<Value>, GenerateError> {
        let compiled = self.compiled(stem)?;
        let strategy = compiled
            .valid
            .get_or_init(|| {
                let oracle = Arc::clone(&compiled.oracle);
                Memo(valid::strategy(&compiled.shape, &[]))
                    .prop_filter("rejected by the validator", move |value| {
                        oracle.is_valid(value)
                    })
                    .sboxed()
            })
            .clone();
        let Some(translation) = self.translation.clone() else {
            return Ok(strategy);
        };
        let oracle = Arc::clone(&compiled.oracle);
        Ok(strategy
            .prop_map(move |value| translation.value(value))
            .prop_filter("rejected by the validator", move |value| {
                oracle.is_valid(value)
            })
            .sboxed())
    }

    /// The top-level properties of `stem` whose schema admits `null` ("X or null" in the spec),
    /// in the schema's order; empty when `stem` is not an object schema.
    pub fn nullable_properties(&self, stem: &str) -> Result<Vec<String>, GenerateError> {
        let compiled = self.compiled(stem)?;
        Ok(match &compiled.shape.kind {
            tree::ShapeKind::Object(object) => object
                .props
                .iter()
                .filter(|p| p.shape.nullable)
                .map(|p| p.name.clone())
                .collect(),
            _ => Vec::new(),
        })
    }

    /// Random invalid instances of `stem`, each breaking one constraint. A constraint is picked
    /// first and never changes while shrinking; the rest of the payload shrinks.
    pub fn invalid(&self, stem: &str) -> Result<SBoxedStrategy<Invalid>, GenerateError> {
        let compiled = self.compiled(stem)?;
        let strategy = compiled.invalid.get_or_init(|| {
            let strategies: Vec<SBoxedStrategy<Invalid>> = compiled
                .sites()
                .iter()
                .zip(compiled.breaches())
                .zip(compiled.site_ids())
                .filter(|((site, breaches), _)| site.boundary.is_empty() || !breaches.is_empty())
                .map(|((site, _), id)| {
                    site_strategy(&compiled.shape, &compiled.oracle, site.clone(), id.clone())
                })
                .collect();
            if strategies.is_empty() {
                return None;
            }
            let strategies = Arc::new(strategies);
            Some(
                (0..strategies.len())
                    .no_shrink()
                    .prop_flat_map(move |index| strategies[index].clone())
                    .sboxed(),
            )
        });
        let Some(strategy) = strategy.clone() else {
            return Err(GenerateError::NothingToBreak {
                stem: stem.to_string(),
            });
        };
        let Some(translation) = self.translation.clone() else {
            return Ok(strategy);
        };
        let oracle = Arc::clone(&compiled.oracle);
        Ok(strategy
            .prop_map(move |invalid| translation.invalid(invalid))
            .prop_filter("the exchange left the payload valid", move |invalid| {
                !oracle.is_valid(&invalid.payload)
            })
            .sboxed())
    }

    /// Deterministic valid instances: the smallest and the fullest of each body shape, then
    /// each boundary value (lengths at min and max, numbers at their bounds, 0 and -1, arrays at
    /// min and max items, null where allowed, every value of small enums) in the smallest.
    pub fn boundary_valid(&self, stem: &str) -> Result<Vec<Value>, GenerateError> {
        let compiled = self.compiled(stem)?;
        let values = compiled.boundary_valid();
        let Some(translation) = &self.translation else {
            return Ok(values.to_vec());
        };
        let values: Vec<Value> = values
            .iter()
            .map(|v| translation.value(v.clone()))
            .collect();
        if values.iter().all(|v| compiled.oracle.is_valid(v)) {
            return Ok(values);
        }
        Ok(self.own(stem)?.boundary_valid().to_vec())
    }

    /// Positive variants of `stem`, each differing from the smallest instance of its body shape
    /// (its baseline) only in one value: at a stated limit, a listed value, `null` where
    /// admitted, a maximum length of multi-byte characters. Each is confirmed valid.
    pub fn acceptance(&self, stem: &str) -> Result<Acceptance, GenerateError> {
        let compiled = self.compiled(stem)?;
        let acceptance = compiled.acceptance();
        let Some(translation) = &self.translation else {
            return Ok(acceptance.clone());
        };
        let mut acceptance = acceptance.clone();
        for value in &mut acceptance.baselines {
            *value = translation.value(std::mem::take(value));
        }
        for variant in &mut acceptance.variants {
            variant.payload = translation.value(std::mem::take(&mut variant.payload));
        }
        let valid = |v: &Value| compiled.oracle.is_valid(v);
        if acceptance.baselines.iter().all(valid)
            && acceptance.variants.iter().all(|v| valid(&v.payload))
        {
            return Ok(acceptance);
        }
        Ok(self.own(stem)?.acceptance().clone())
    }

    /// Deterministic invalid instances: each constraint broken at its boundary (max+1 and
    /// min-1 lengths and values, one past the item limits) and in the other fixed ways.
    pub fn boundary_invalid(&self, stem: &str) -> Result<Vec<Invalid>, GenerateError> {
        let compiled = self.compiled(stem)?;
        let all = compiled.boundary_invalid();
        let Some(translation) = &self.translation else {
            return Ok(all);
        };
        let all: Vec<Invalid> = all.into_iter().map(|i| translation.invalid(i)).collect();
        if all.iter().all(|i| !compiled.oracle.is_valid(&i.payload)) {
            return Ok(all);
        }
        Ok(self.own(stem)?.boundary_invalid())
    }

    /// Bodies of `stem` that hold its inventoried constraints at their edges, one per
    /// constraint (the id of the constraint, the body), each confirmed valid: a value at its
    /// limit, `null`, a pair's trigger, or simply the field present (see [`Inventory`]).
    pub fn holds(&self, stem: &str) -> Result<Vec<(String, Value)>, GenerateError> {
        let compiled = self.compiled(stem)?;
        let holds = compiled.constraints().iter().filter_map(|c| {
            let body = constraint::hold_body(&compiled.shape, c)?;
            compiled
                .oracle
                .is_valid(&body)
                .then(|| (c.id.clone(), body))
        });
        let Some(translation) = &self.translation else {
            return Ok(holds.collect());
        };
        let translated = holds.map(|(id, body)| (id, translation.value(body)));
        Ok(translated
            .filter(|(_, body)| compiled.oracle.is_valid(body))
            .collect())
    }

    /// Each stated limit of `stem` (a least or greatest length, value or item count) as the
    /// constraint's id, the JSON pointer of the value in a body, and the value at the limit:
    /// what a request that is otherwise another body sets to meet the limit.
    pub fn limits(&self, stem: &str) -> Result<Vec<(String, String, Value)>, GenerateError> {
        let compiled = self.compiled(stem)?;
        // Worked out once (a string at its longest may be searched for): the explorer asks
        // for them at every second write.
        let limits = compiled.limits.get_or_init(|| {
            compiled
                .constraints()
                .iter()
                .filter(|c| c.is_limit())
                .filter_map(|c| {
                    let (at, value) = c.at_limit(&compiled.shape)?;
                    Some((c.id.clone(), at, value))
                })
                .collect()
        });
        Ok(limits.clone())
    }

    /// The smallest body of `stem` with every stated upper limit at its maximum at once (each
    /// length, value and item count of [`Engine::holds`] at its maximum, merged), if the
    /// validator confirms it: a target may refuse it for its payload size, which the spec does
    /// not show.
    pub fn at_maximum(&self, stem: &str) -> Result<Option<Value>, GenerateError> {
        let compiled = self.compiled(stem)?;
        let mut body = valid::example(&compiled.shape, &[], false);
        let maxima = compiled.constraints().iter().filter(|c| c.is_maximum());
        for hold in maxima.filter_map(|c| constraint::hold_body(&compiled.shape, c)) {
            constraint::merge(&mut body, hold);
        }
        let body = match &self.translation {
            Some(translation) => translation.value(body),
            None => body,
        };
        Ok(compiled.oracle.is_valid(&body).then_some(body))
    }

    /// Whether the validator accepts `instance` as `stem`.
    pub fn is_valid(&self, stem: &str, instance: &Value) -> Result<bool, GenerateError> {
        Ok(self.compiled(stem)?.oracle.is_valid(instance))
    }

    pub(crate) fn compiled(&self, stem: &str) -> Result<Arc<Compiled>, GenerateError> {
        if let Some(compiled) = self.lock().get(stem) {
            return Ok(Arc::clone(compiled));
        }
        let compiled = self.compiled_with(stem, &self.options)?;
        self.lock().insert(stem.to_string(), Arc::clone(&compiled));
        Ok(compiled)
    }

    /// `stem` compiled with `options`: from what engines over the embedded registry share, or
    /// compiled now (and shared when the source is the embedded registry).
    fn compiled_with(
        &self,
        stem: &str,
        options: &GenOptions,
    ) -> Result<Arc<Compiled>, GenerateError> {
        let embedded = self.source.is_embedded();
        let known = embedded.then(|| shared_compiled(options, stem)).flatten();
        let compiled = match known {
            Some(compiled) => compiled,
            None => Arc::new(self.compile(stem, options)?),
        };
        if embedded {
            share(options, stem, &compiled);
        }
        Ok(compiled)
    }

    /// `stem` compiled with this engine's own fixtures rather than a leader's: for a list in
    /// which the exchange of fixture values left a payload unconfirmed.
    fn own(&self, stem: &str) -> Result<Arc<Compiled>, GenerateError> {
        let mut options = self.options.clone();
        if let Some(translation) = &self.translation {
            options.fixtures = translation.own_fixtures();
        }
        self.compiled_with(stem, &options)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Compiled>>> {
        // A panic elsewhere cannot leave the cache half-written: inserts are single calls.
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn compile(&self, stem: &str, options: &GenOptions) -> Result<Compiled, GenerateError> {
        let root = self
            .source
            .resolve(stem)
            .ok_or_else(|| GenerateError::UnknownStem {
                stem: stem.to_string(),
            })?;
        let mut docs = tree::Documents::new();
        docs.insert(stem.to_string(), root.clone());
        let inlined = tree::inline(&self.source, root, stem, 0, &mut docs)?;
        let context = tree::Context { options, stem };
        let shape = tree::compile(&context, &inlined)?;
        let embedded = self.source.is_embedded().then(|| Oracle::embedded(stem));
        let oracle = match embedded.flatten() {
            Some(oracle) => oracle,
            None => Oracle::build(stem, root, docs)?,
        };
        let branches = constraint::branch_stems(root);
        Ok(Compiled::new(shape, oracle, stem, branches))
    }
}
