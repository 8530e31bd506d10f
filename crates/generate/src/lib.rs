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
mod breach;
mod classes;
mod compiled;
mod constraint;
mod engine;
mod error;
mod invalid;
mod inventory;
mod label;
mod memo;
mod options;
mod oracle;
mod parameter;
mod params;
mod path;
mod pattern;
mod seed;
mod source;
mod text;
mod translate;
mod tree;
mod valid;

#[cfg(test)]
mod tests;

pub use accept::{Accept, AcceptKind, Acceptance, WIDE_CHARACTERS};
pub use compiled::forget_shared;
pub use constraint::{param_name, Constraint, ParamAt};
pub use engine::Engine;
pub use error::GenerateError;
pub use inventory::Inventory;
pub use label::{ConstraintKind, Invalid, Label};
pub use options::GenOptions;
pub use params::{invalid_param_values, param_breaches};
pub use path::{spell, with_first_key_twice};
pub use seed::{redraw, rng_for, sample, Draws};
pub use source::SchemaSource;
pub use text::plain as plain_text;

/// The rule an invalid payload breaks when no `x-rule` is written above the broken spot.
pub const DEFAULT_RULE: &str = "GEN-REJECT-NOT-2XX";
