//! The HTTP client for a target: every request covenant sends goes through [`Target`].
//!
//! It exists to make a stranger's server safe to talk to: one client with bounded timeouts
//! (connect, headers and body alike), a shared rate limit and request budget, bounded body reads,
//! same-origin redirects only (a redirect elsewhere is an error, so credentials never leave the
//! origin), bounded retries (GET only, on 5xx and transport errors), an adaptive pace
//! (`client::pace`: a 429, or a 503 with `Retry-After`, means "not processed, come back later":
//! every lane pauses, or only the endpoint's requests when it refuses alone, the run slows down,
//! and the request is sent again until an answer comes through, the run stops, or it was refused
//! for `--max-refusal`, when it ends as an error of its case; a rate-limit answer never reaches a
//! check), `--read-only` enforced at the one place requests leave, a stop flag that refuses new
//! requests and later abandons those in flight, and records of every exchange with secrets
//! redacted. A target misbehaving never becomes a panic or an `Err` of the run: it becomes an
//! [`Exchange`] with an `error`, which the case turns into a verdict.

mod bare;
mod coding;
mod config;
mod crypto;
mod curl;
mod endpoint;
mod lanes;
mod limit;
mod pace;
mod record;
mod retry_after;
mod send;
mod wire;

pub use bare::{hyper_client, HyperClient, Trust};
pub use coding::{decoded, CodingError};
pub use config::{TargetConfig, TargetError};
pub use crypto::tls_provider;
pub use curl::{curl_command, redact, SecretFinder, ShellVars};
pub use lanes::Urgency;
pub use limit::{Budget, Halt};
pub use pace::{DEFAULT_MAX_REFUSAL, MAX_PAUSE};
pub use send::{Sent, Target};
pub use wire::{snippet, Body, ContentType, Request, Response, SendError};
