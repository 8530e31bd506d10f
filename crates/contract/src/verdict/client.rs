//! A client's slips seen in real traffic (`covenant proxy`, `covenant check`): requests that
//! break what the spec asks of clients, held in cases of their own verdict
//! ([`Verdict::Client`](super::Verdict::Client)), never the target's failure. Every surface
//! names them under one heading, per rule, from here (`RunRecord::client_slips` gathers them).

use super::{CaseResult, Finding};

/// The heading every report gives the client's slips; it says what they are and that they
/// never fail the target.
pub const CLIENT_TITLE: &str = "The client's slips: requests that break what the spec asks of \
                                clients (they never fail the target)";

/// The shell variable a traffic report's curl names a client's credential by (the first; the
/// next are `COVENANT_CLIENT_TOKEN_2` and on): covenant never writes the credential, and the
/// user who exports it can run the curl as printed.
pub const CLIENT_TOKEN_VAR: &str = "COVENANT_CLIENT_TOKEN";

/// One rule the client broke, as the reports name it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientSlip<'a> {
    pub rule: String,
    /// How many of the client's requests broke it.
    pub requests: usize,
    /// The cases holding them (`client.<operation>`), first one first.
    pub cases: Vec<String>,
    /// The first of them, and its case.
    pub first: (&'a CaseResult, &'a Finding),
}
