//! Hostile and broken targets: the real binary against a misbehaving raw-HTTP server.
//!
//! Each test starts a server on 127.0.0.1 that breaks one thing (a reset mid-body, a drip, a
//! lying Content-Length, an endless body, a redirect to another origin, 429s, 500s...), runs
//! `covenant run` against it with a couple of cases selected by `--filter`, and asserts that the
//! run ends within its bound with a documented exit code, that the affected case is an error or
//! a failure with a clear message, that the other case still ran, that report.json and
//! junit.xml are valid, and that no secret of the profile appears anywhere.
//!
//! `server` is the raw server, `harness` runs the binary against it under a watchdog, and
//! `target` is the harmless server most tests break at one place. The tests are grouped by what
//! the target does: broken bodies, slow answers, redirects, refusals, what ends a run before any
//! case (`preflight`), what stops it short (`stopping`), the bounds covenant keeps
//! (`restraint`), tampered tokens, and choices where the spec is silent.

mod broken_bodies;
mod choices;
mod harness;
mod preflight;
mod redirects;
mod refusals;
mod restraint;
mod server;
mod slow_answers;
mod stopping;
mod target;
mod tokens;
