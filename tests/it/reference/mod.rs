//! The reference server driven over HTTP, as a stranger holding only its profile would.
//!
//! Part one: every operation, positive and negative (startup, auth, finance, banking,
//! pagination, errors). Part two: for every fault, a probe that sees the deviation with the
//! fault on and does not see it on the clean server (probes); the probe is one exhaustive
//! `match`, so a new fault without a probe does not compile. Last, the commands, and the gateway
//! in front of the reference (latency, a rate limit). One test
//! binary, so that it links once; the client they share is in `client`.

mod auth;
mod banking;
mod client;
mod commands;
mod errors;
mod faults;
mod finance;
mod gateway;
mod pagination;
mod probes;
mod startup;
