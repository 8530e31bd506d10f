//! Hand-written scenarios: the stateful cases of the suite, one file per area (the cases drawn
//! from the schemas live in `schema_cases`).
//!
//! Each case names the rules it covers; a finding's level always comes from the catalogue.
//! Cases only use ids from the profile (or ids they created themselves), so they work against
//! any implementation of the contract, and deletes only ever touch the profile's deletable ids.

mod all;
mod answers;
mod auth;
mod comment;
mod deletes;
mod echo;
mod events;
mod invalid;
mod mailbox;
mod methods;
mod receivable;
mod robustness;
mod spelling;
mod standards;
mod tenant;
mod tenant_banking;
mod transactions;
mod vat;
mod velocity;
mod velocity_ids;

pub use crate::case::absent_uuid;
pub use crate::case::Bodies;
pub use all::all;
use answers::{expect_client_error, pretty, same_id, same_value};
