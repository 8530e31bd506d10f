//! Valid and invalid payloads generated from the JSON Schemas, with proptest.
//!
//! The runner sends these bodies and parameters to a target: valid ones must be accepted,
//! invalid ones (each breaking exactly one constraint, labelled with the rule it breaks) must
//! not be. Boundary values come first, deterministically ([`Engine::boundary_valid`],
//! [`Engine::boundary_invalid`]); random, shrinkable ones follow ([`Engine::valid`],
//! [`Engine::invalid`]), drawn from a seeded stream ([`rng_for`], [`sample`]).
//!
//! This module never sends a request and never invents identifiers a target must already
//! know: a property named in [`GenOptions::fixtures`] takes one of the profile's values. Every
//! payload it hands out has been confirmed by the JSON Schema validator (valid ones validate,
//! invalid ones do not), so a generator bug cannot turn into a false finding.

mod accept;
mod boundary;
mod classes;
mod constraint;
mod invalid;
mod inventory;
mod memo;
mod oracle;
mod parameter;
mod params;
mod path;
mod pattern;
mod seed;
mod text;
mod translate;
mod tree;
mod valid;

#[cfg(test)]
mod tests;

pub use accept::{Accept, AcceptKind, Acceptance, WIDE_CHARACTERS};
pub use constraint::{param_name, Constraint, ParamAt};
pub use inventory::Inventory;
pub use params::{invalid_param_values, param_breaches};
pub use path::{spell, with_first_key_twice};
pub use seed::{redraw, rng_for, sample, Draws};
pub use text::plain as plain_text;

use memo::Memo;
use oracle::Oracle;
use proptest::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use translate::Translation;
use tree::Shape;

/// The rule an invalid payload breaks when no `x-rule` is written above the broken spot.
pub const DEFAULT_RULE: &str = "GEN-REJECT-NOT-2XX";

/// Where schemas come from, by file stem (`quote-create`); `$ref`s resolve through it.
pub trait SchemaSource {
    fn resolve(&self, stem: &str) -> Option<&Value>;

    /// Whether this is the embedded registry, whose schemas never change: what engines compile
    /// from it is shared by every engine of the process with the same options.
    fn is_embedded(&self) -> bool {
        false
    }
}

impl SchemaSource for BTreeMap<String, Value> {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        self.get(stem)
    }
}

impl SchemaSource for HashMap<String, Value> {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        self.get(stem)
    }
}

impl<T: SchemaSource + ?Sized> SchemaSource for &T {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        (**self).resolve(stem)
    }
    fn is_embedded(&self) -> bool {
        (**self).is_embedded()
    }
}

impl<T: SchemaSource + ?Sized> SchemaSource for Arc<T> {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        (**self).resolve(stem)
    }
    fn is_embedded(&self) -> bool {
        (**self).is_embedded()
    }
}

/// What the target profile decides about generated payloads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenOptions {
    /// Property name (`counterpart_id`, `vat_rate_id`, `cardId`) -> values it takes, anywhere
    /// in any schema.
    pub fixtures: BTreeMap<String, Vec<Value>>,
    /// Stem -> properties that are always sent although the schema does not require them.
    pub always_include: BTreeMap<String, Vec<String>>,
    /// Stem -> optional properties never generated (the runner controls them).
    pub omit: BTreeMap<String, Vec<String>>,
}

/// The kind of constraint an invalid payload breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ConstraintKind {
    MissingRequired,
    ExtraProperty,
    WrongType,
    OutOfRange,
    TooLong,
    TooShort,
    BadFormat,
    BadPattern,
    NotInEnum,
    TooManyItems,
    TooFewItems,
    UnexpectedNull,
    WrongConst,
    /// An `if`/`then` broken (e.g. `usageLimit` with the `TRANSACTION` window).
    ForbiddenCombination,
    /// A fraction where an integer is stated (`100.5`): judged under a `should` rule of its own,
    /// since common binders truncate it silently.
    Fraction,
    /// A value a common lax binder reads as the stated type (`"3"` for an integer, `"true"` for
    /// a boolean, a number for a string): judged under a `should` rule of its own, and no
    /// stated constraint of the inventory.
    LaxType,
}

/// Why an invalid payload is invalid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    pub kind: ConstraintKind,
    /// JSON pointer of the broken spot (for a missing or extra property: that property).
    pub pointer: String,
    /// The nearest `x-rule` above the broken spot, else [`DEFAULT_RULE`].
    pub rule: String,
    /// For people: `trade_name of 256 chars (max 255)`.
    pub detail: String,
    /// The id of the inventoried constraint it breaks (see [`Inventory`]), where the schema
    /// compiled is a body schema of its own (not a parameter's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraint: Option<String>,
}

/// A payload that breaks exactly one constraint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Invalid {
    pub payload: Value,
    pub label: Label,
}

#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("no schema named `{stem}`: is it under schemas/?")]
    UnknownStem { stem: String },
    #[error("schema `{stem}`: `$ref` {reference} does not resolve (want `x.json`, `x.json#/pointer` or `#/pointer`)")]
    BadRef { stem: String, reference: String },
    #[error("schema `{stem}`: `$ref`s nest too deep (recursive schema?)")]
    Recursive { stem: String },
    #[error("schema `{stem}` at `{pointer}`: the generator does not support {what}; simplify the schema or extend crates/generate/src/tree")]
    Unsupported {
        stem: String,
        pointer: String,
        what: String,
    },
    #[error("schema `{stem}` does not compile for validation: {message}")]
    Validator { stem: String, message: String },
    #[error("schema `{stem}` has no constraint to break")]
    NothingToBreak { stem: String },
}

/// A stem compiled once: its shape, its validator, and what is generated from them alone
/// (deterministic lists and strategies), built on first use. Every engine with the same options
/// shares them: several cases of a run ask for the same lists, and in a differential run both
/// targets do.
struct Compiled {
    shape: Shape,
    oracle: Arc<Oracle>,
    /// The stem compiled, and the stems of its `oneOf` branches (the body shapes it is one of).
    stem: String,
    branches: Vec<String>,
    sites: OnceLock<Vec<invalid::Site>>,
    /// Per site of `sites`, the inventoried constraint it breaks.
    site_ids: OnceLock<Vec<Option<String>>>,
    constraints: OnceLock<Vec<Constraint>>,
    /// Per site of `sites`, its boundary mutations the validator confirms invalid.
    breaches: OnceLock<Vec<Vec<Invalid>>>,
    boundary_valid: OnceLock<Vec<Value>>,
    acceptance: OnceLock<Acceptance>,
    valid: OnceLock<SBoxedStrategy<Value>>,
    /// `None` when the stem has no constraint to break.
    invalid: OnceLock<Option<SBoxedStrategy<Invalid>>>,
    /// Each stated limit: its constraint's id, where it sits and the value at it.
    limits: OnceLock<Vec<(String, String, Value)>>,
}

impl Compiled {
    fn new(shape: Shape, oracle: Oracle, stem: &str, branches: Vec<String>) -> Compiled {
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

    fn sites(&self) -> &[invalid::Site] {
        self.sites.get_or_init(|| invalid::sites(&self.shape))
    }

    fn site_ids(&self) -> &[Option<String>] {
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
    fn constraints(&self) -> &[Constraint] {
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

    fn boundary_valid(&self) -> &[Value] {
        self.boundary_valid.get_or_init(|| {
            boundary::valid(&self.shape)
                .into_iter()
                .filter(|value| self.oracle.is_valid(value))
                .collect()
        })
    }

    fn acceptance(&self) -> &Acceptance {
        self.acceptance
            .get_or_init(|| accept::acceptance(&self.shape, &|value| self.oracle.is_valid(value)))
    }

    fn boundary_invalid(&self) -> Vec<Invalid> {
        self.breaches().iter().flatten().cloned().collect()
    }

    fn breaches(&self) -> &[Vec<Invalid>] {
        self.breaches.get_or_init(|| {
            self.sites()
                .iter()
                .zip(self.site_ids())
                .map(|(site, id)| breaches(&self.shape, &self.oracle, site, id.as_deref()))
                .collect()
        })
    }
}

/// The generation engine over a set of schemas.
pub struct Engine<S> {
    source: S,
    /// What it compiles with: its own options, or, beside a leader, the leader's fixtures.
    options: GenOptions,
    /// Beside a leader: the leader's fixture values replaced with this engine's own.
    translation: Option<Translation>,
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

    fn compiled(&self, stem: &str) -> Result<Arc<Compiled>, GenerateError> {
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

/// The boundary mutations of a site that the validator confirms invalid.
fn breaches(
    shape: &Shape,
    oracle: &Oracle,
    site: &invalid::Site,
    id: Option<&str>,
) -> Vec<Invalid> {
    let base = valid::example(shape, &site.path, false);
    site.boundary
        .iter()
        .filter_map(|mutation| finish(oracle, site, id, base.clone(), mutation.clone()))
        .collect()
}

/// Applies a mutation to a base instance; `None` when it does not apply or leaves it valid.
fn finish(
    oracle: &Oracle,
    site: &invalid::Site,
    id: Option<&str>,
    base: Value,
    mutation: invalid::Mutation,
) -> Option<Invalid> {
    let payload = path::apply(base, &path::pointer(&site.path), mutation.edit)?;
    if oracle.is_valid(&payload) {
        return None;
    }
    Some(Invalid {
        payload,
        label: Label {
            kind: site.kind,
            pointer: mutation.pointer,
            rule: site.rule.clone(),
            detail: mutation.detail,
            constraint: id.map(str::to_owned),
        },
    })
}

/// Random breaches of one site. It holds the validator, not the [`Compiled`] it is kept in.
fn site_strategy(
    shape: &Shape,
    oracle: &Arc<Oracle>,
    site: invalid::Site,
    id: Option<String>,
) -> SBoxedStrategy<Invalid> {
    let base = valid::strategy(shape, &site.path);
    let random = site.random.clone();
    let oracle = Arc::clone(oracle);
    (base, random)
        .prop_filter_map(
            "mutation left the payload valid",
            move |(base, mutation)| finish(&oracle, &site, id.as_deref(), base, mutation),
        )
        .sboxed()
}

impl SchemaSource for covenant_contract::schema::Registry {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        self.schema(stem)
    }
    fn is_embedded(&self) -> bool {
        std::ptr::eq(self, covenant_contract::schema::Registry::embedded())
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

fn shared_compiled(options: &GenOptions, stem: &str) -> Option<Arc<Compiled>> {
    let shared = shared().lock().unwrap_or_else(|e| e.into_inner());
    let (_, compiled) = shared.iter().find(|(o, _)| o == options)?;
    compiled.get(stem).cloned()
}

fn share(options: &GenOptions, stem: &str, compiled: &Arc<Compiled>) {
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
