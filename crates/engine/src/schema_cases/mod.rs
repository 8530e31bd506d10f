//! The cases drawn from the schemas: payloads the generator (`crate::generate`) draws from the
//! schemas and sends to the target, apart from the hand-written scenarios. (Their ids keep the
//! prefixes `generated.` and `accept.`, and `--generated-only` selects them with the pagination
//! cases.)
//!
//! `body` draws request bodies (a valid and an invalid case per operation that takes a body);
//! `acceptance` sends every value the schemas state as valid (limits, listed values, nulls)
//! beside a baseline;
//! `invalid_params` draws invalid path, query and header values. Both name the rule each drawn
//! value breaks, so a finding is always about a rule of the catalogue.

mod acceptance;
mod body;
mod drawn;
mod invalid_params;

pub use acceptance::cases as accept_cases;
pub use drawn::cases;
pub use invalid_params::cases as param_cases;
