//! The three create-receivable bodies, validated by hand rule by rule.
//!
//! The schemas module holds the contract as JSON Schema; the reference deliberately does not
//! use it, so that every rule is one line here and one fault can switch exactly that line off.
//! Where the spec is silent (nested shapes, currency values, line item fields beyond the
//! sample, tax_mode values) the reference accepts anything of the stated JSON type.

mod classes;
mod fields;
mod types;
mod validate;
mod values;

pub use validate::{validate, Create};
pub use values::{as_integer, parse_date, parse_uuid, wrapped};
