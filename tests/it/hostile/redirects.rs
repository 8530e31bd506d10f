//! Redirects: one to another origin is never followed and never gets the credentials; one
//! within the origin is.

use super::harness::Covenant;
use super::server::{Hostile, HostileReply, Received};
use super::target::{assert_error, fault_run, is_vat, normal, BOUND, VAT};
use crate::support::runtime;

#[test]
fn a_redirect_to_another_origin_is_not_followed_and_gets_no_credentials() {
    let rt = runtime();
    let elsewhere = rt.block_on(Hostile::start(|_, _| HostileReply::json(200, "{}")));
    let location = format!("{}/collect", elsewhere.url());
    let run = fault_run(
        "cross-origin",
        move |_, _| HostileReply::typed(302, "text/plain", b"").with_header("location", &location),
        &[],
    );
    assert_error(&run, VAT, "another origin");
    assert!(
        elsewhere.seen().is_empty(),
        "the other origin was contacted: {:?}",
        elsewhere.seen()
    );
}

#[test]
fn a_redirect_within_the_origin_is_followed() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if is_vat(seen) {
            HostileReply::typed(307, "text/plain", b"").with_header("location", "/moved")
        } else {
            normal(seen)
        }
    }));
    let run = Covenant::new("same-origin", &server.url())
        .args(["--filter", VAT])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.verdict(VAT), "pass", "{}", run.says(VAT));
    let moved: Vec<Received> = server
        .seen()
        .into_iter()
        .filter(|s| s.path == "/moved")
        .collect();
    assert_eq!(moved.len(), 1);
}
