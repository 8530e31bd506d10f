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
mod invalid;
mod memo;
mod oracle;
mod params;
mod path;
mod pattern;
mod seed;
mod shape;
mod text;
mod valid;

#[cfg(test)]
mod tests;

pub use accept::{Accept, AcceptKind, Acceptance, WIDE_CHARACTERS};
pub use params::invalid_param_values;
pub use seed::{redraw, rng_for, sample, Draws};

use memo::Memo;
use oracle::Oracle;
use proptest::prelude::*;
use serde::Serialize;
use serde_json::Value;
use shape::Shape;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

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
    #[error("schema `{stem}` at `{pointer}`: the generator does not support {what}; simplify the schema or extend src/generate/shape.rs")]
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

/// A stem compiled once: its shape and its validator.
struct Compiled {
    shape: Shape,
    oracle: Arc<Oracle>,
}

/// The generation engine over a set of schemas.
pub struct Engine<S> {
    source: S,
    options: GenOptions,
    cache: Mutex<HashMap<String, Arc<Compiled>>>,
}

impl<S: SchemaSource> Engine<S> {
    pub fn new(source: S, options: GenOptions) -> Engine<S> {
        Engine {
            source,
            options,
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub fn options(&self) -> &GenOptions {
        &self.options
    }

    /// Random valid instances of `stem`: shrinkable (optional properties shrink away, strings
    /// toward their minimum length, numbers toward a bound); each confirmed by the validator.
    pub fn valid(&self, stem: &str) -> Result<SBoxedStrategy<Value>, GenerateError> {
        let compiled = self.compiled(stem)?;
        let oracle = Arc::clone(&compiled.oracle);
        Ok(Memo(valid::strategy(&compiled.shape, &[]))
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
            shape::ShapeKind::Object(object) => object
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
        let strategies: Vec<SBoxedStrategy<Invalid>> = invalid::sites(&compiled.shape)
            .into_iter()
            .filter(|site| site.boundary.is_empty() || !self.breaches(&compiled, site).is_empty())
            .map(|site| site_strategy(&compiled, site))
            .collect();
        if strategies.is_empty() {
            return Err(GenerateError::NothingToBreak {
                stem: stem.to_string(),
            });
        }
        let strategies = Arc::new(strategies);
        Ok((0..strategies.len())
            .no_shrink()
            .prop_flat_map(move |index| strategies[index].clone())
            .sboxed())
    }

    /// Deterministic valid instances: the smallest and the fullest of each body shape, then
    /// each boundary value (lengths at min and max, numbers at their bounds, 0 and -1, arrays at
    /// min and max items, null where allowed, every value of small enums) in the smallest.
    pub fn boundary_valid(&self, stem: &str) -> Result<Vec<Value>, GenerateError> {
        let compiled = self.compiled(stem)?;
        Ok(boundary::valid(&compiled.shape)
            .into_iter()
            .filter(|value| compiled.oracle.is_valid(value))
            .collect())
    }

    /// Positive variants of `stem`, each differing from the smallest instance of its body shape
    /// (its baseline) only in one value: at a stated limit, a listed value, `null` where
    /// admitted, a maximum length of multi-byte characters. Each is confirmed valid.
    pub fn acceptance(&self, stem: &str) -> Result<Acceptance, GenerateError> {
        let compiled = self.compiled(stem)?;
        let oracle = Arc::clone(&compiled.oracle);
        Ok(accept::acceptance(&compiled.shape, &|value| {
            oracle.is_valid(value)
        }))
    }

    /// Deterministic invalid instances: each constraint broken at its boundary (max+1 and
    /// min-1 lengths and values, one past the item limits) and in the other fixed ways.
    pub fn boundary_invalid(&self, stem: &str) -> Result<Vec<Invalid>, GenerateError> {
        let compiled = self.compiled(stem)?;
        Ok(invalid::sites(&compiled.shape)
            .iter()
            .flat_map(|site| self.breaches(&compiled, site))
            .collect())
    }

    /// Whether the validator accepts `instance` as `stem`.
    pub fn is_valid(&self, stem: &str, instance: &Value) -> Result<bool, GenerateError> {
        Ok(self.compiled(stem)?.oracle.is_valid(instance))
    }

    /// The boundary mutations of a site that the validator confirms invalid.
    fn breaches(&self, compiled: &Compiled, site: &invalid::Site) -> Vec<Invalid> {
        let base = valid::example(&compiled.shape, &site.path, false);
        site.boundary
            .iter()
            .filter_map(|mutation| finish(compiled, site, base.clone(), mutation.clone()))
            .collect()
    }

    fn compiled(&self, stem: &str) -> Result<Arc<Compiled>, GenerateError> {
        if let Some(compiled) = self.lock().get(stem) {
            return Ok(Arc::clone(compiled));
        }
        let embedded = self.source.is_embedded();
        let known = embedded.then(|| self.shared_compiled(stem)).flatten();
        let compiled = match known {
            Some(compiled) => compiled,
            None => Arc::new(self.compile(stem)?),
        };
        if embedded {
            self.share(stem, &compiled);
        }
        self.lock().insert(stem.to_string(), Arc::clone(&compiled));
        Ok(compiled)
    }

    fn shared_compiled(&self, stem: &str) -> Option<Arc<Compiled>> {
        let shared = shared().lock().unwrap_or_else(|e| e.into_inner());
        let (_, compiled) = shared.iter().find(|(o, _)| *o == self.options)?;
        compiled.get(stem).cloned()
    }

    fn share(&self, stem: &str, compiled: &Arc<Compiled>) {
        let mut shared = shared().lock().unwrap_or_else(|e| e.into_inner());
        let index = match shared.iter().position(|(o, _)| *o == self.options) {
            Some(index) => index,
            None => {
                if shared.len() == SHARED_OPTIONS {
                    shared.remove(0);
                }
                shared.push((self.options.clone(), HashMap::new()));
                shared.len() - 1
            }
        };
        shared[index]
            .1
            .entry(stem.to_string())
            .or_insert_with(|| Arc::clone(compiled));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Compiled>>> {
        // A panic elsewhere cannot leave the cache half-written: inserts are single calls.
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn compile(&self, stem: &str) -> Result<Compiled, GenerateError> {
        let root = self
            .source
            .resolve(stem)
            .ok_or_else(|| GenerateError::UnknownStem {
                stem: stem.to_string(),
            })?;
        let mut docs = shape::Documents::new();
        docs.insert(stem.to_string(), root.clone());
        let inlined = shape::inline(&self.source, root, stem, 0, &mut docs)?;
        let context = shape::Context {
            options: &self.options,
            stem,
        };
        let shape = shape::compile(&context, &inlined)?;
        let oracle = Arc::new(Oracle::build(stem, root, docs)?);
        Ok(Compiled { shape, oracle })
    }
}

/// Applies a mutation to a base instance; `None` when it does not apply or leaves it valid.
fn finish(
    compiled: &Compiled,
    site: &invalid::Site,
    base: Value,
    mutation: invalid::Mutation,
) -> Option<Invalid> {
    let payload = path::apply(base, &path::pointer(&site.path), mutation.edit)?;
    if compiled.oracle.is_valid(&payload) {
        return None;
    }
    Some(Invalid {
        payload,
        label: Label {
            kind: site.kind,
            pointer: mutation.pointer,
            rule: site.rule.clone(),
            detail: mutation.detail,
        },
    })
}

fn site_strategy(compiled: &Arc<Compiled>, site: invalid::Site) -> SBoxedStrategy<Invalid> {
    let base = valid::strategy(&compiled.shape, &site.path);
    let random = site.random.clone();
    let compiled = Arc::clone(compiled);
    (base, random)
        .prop_filter_map(
            "mutation left the payload valid",
            move |(base, mutation)| finish(&compiled, &site, base, mutation),
        )
        .sboxed()
}

impl SchemaSource for crate::schema::Registry {
    fn resolve(&self, stem: &str) -> Option<&Value> {
        self.schema(stem)
    }
    fn is_embedded(&self) -> bool {
        std::ptr::eq(self, crate::schema::Registry::embedded())
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
    static SHARED: std::sync::OnceLock<Mutex<SharedCompiled>> = std::sync::OnceLock::new();
    SHARED.get_or_init(Mutex::default)
}
