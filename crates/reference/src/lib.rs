//! The embedded reference implementation of the API, with deliberate faults.
//!
//! It exists so that covenant can test itself: the clean server keeps every rule of
//! `cases/rules.toml`, and each [`Fault`] breaks exactly one, so that every check is proven
//! able to fail. A server keeps all state in memory per instance (no globals), binds
//! 127.0.0.1 only, starts in milliseconds and can run dozens of times in one process.
//!
//! It must never be mistaken for the contract: where the spec is silent it makes a choice
//! (documented on [`start`]) and the checks must not depend on that choice.

mod auth;
// Handlers return `Result<Response, Response>`: the error is the answer itself, built once
// per request, so boxing it would only add an allocation.
#[allow(clippy::result_large_err)]
mod banking;
mod fault;
#[allow(clippy::result_large_err)]
mod finance;
mod gateway;
mod page;
mod profile;
mod protocol;
mod receivable;
mod reply;
mod router;
mod server;
mod store;

pub use banking::ORG_HEADER;
pub use fault::{render_list, Asked, Fault, FaultSet, UnknownFault};
pub use gateway::Gateway;
pub use page::TOKEN_LIFETIME;
pub use server::{start, ReferenceConfig, RunningReference};
pub use store::TRANSACTION_COUNT;
