//! The target most tests break at one place: a harmless server that keeps the contract where a
//! test does not break it, whose VAT path answers as the test says, and the run of the case that
//! meets the fault (VAT) beside a bystander (EVENTS) that must still run.

use super::harness::{Covenant, FinishedRun, BANK_ACCOUNT, COUNTERPART};
use super::server::{Hostile, HostileReply, Received};
use crate::support::runtime;
use std::time::Duration;

/// The case that meets the fault: one GET of a VAT ID with the finance token.
pub(super) const VAT: &str = "vat.get-unknown";
/// The bystander: two GETs of events, answered normally.
pub(super) const EVENTS: &str = "events.invalid-order-and-sort";
pub(super) const BOUND: Duration = Duration::from_secs(20);

/// A request of VAT (the authentication cases use another counterpart id).
pub(super) fn is_vat(seen: &Received) -> bool {
    seen.path
        .contains(&format!("/counterparts/{COUNTERPART}/vat-ids/"))
}

/// What a harmless server answers, keeping the contract where the tests do not break it: the
/// probe gets 200, a request without a token 401 with its area's error body, the profile's bank
/// account an empty page of transactions (the preflight reads it), everything else a finance 404.
pub(super) fn normal(seen: &Received) -> HostileReply {
    let transactions = format!("/embedded-banking/v1/bank-accounts/{BANK_ACCOUNT}/transactions");
    let unauthenticated = seen.header("authorization").is_none();
    if seen.path == "/" {
        HostileReply::json(200, "{}")
    } else if unauthenticated && seen.path.starts_with("/embedded-banking/") {
        HostileReply::json(
            401,
            r#"{"detail":"no token","errorCode":"UNAUTHORIZED","instance":"/","status":401,"title":"Unauthorized","type":"about:blank"}"#,
        )
    } else if unauthenticated {
        HostileReply::json(401, r#"{"error":{"message":"no token"}}"#)
    } else if seen.path.split('?').next() == Some(transactions.as_str()) {
        HostileReply::json(
            200,
            r#"{"data":[],"nextPaginationToken":null,"prevPaginationToken":null}"#,
        )
    } else {
        HostileReply::not_found()
    }
}

/// A server whose VAT path answers with `fault` and everything else normally.
pub(super) fn server_with(
    rt: &tokio::runtime::Runtime,
    fault: impl Fn(&Received, usize) -> HostileReply + Send + Sync + 'static,
) -> Hostile {
    rt.block_on(Hostile::start(move |seen, n| {
        if is_vat(seen) {
            fault(seen, n)
        } else {
            normal(seen)
        }
    }))
}

/// Runs VAT and EVENTS against a server whose VAT path has `fault`; checks the run is sound
/// and the bystander ran.
pub(super) fn fault_run(
    name: &str,
    fault: impl Fn(&Received, usize) -> HostileReply + Send + Sync + 'static,
    args: &[&str],
) -> FinishedRun {
    let rt = runtime();
    let server = server_with(&rt, fault);
    let run = Covenant::new(name, &server.url())
        .args(["--filter", VAT, "--filter", EVENTS])
        .args(args)
        .run(BOUND);
    run.assert_sound();
    run.assert_ran(EVENTS);
    run
}

pub(super) fn assert_error(run: &FinishedRun, id: &str, needle: &str) {
    assert_eq!(run.verdict(id), "error", "{id}: {}", run.says(id));
    assert!(
        run.says(id).contains(needle),
        "{id} should say {needle:?}: {}",
        run.says(id)
    );
    assert_eq!(run.code, 1, "a case error fails the run");
}
