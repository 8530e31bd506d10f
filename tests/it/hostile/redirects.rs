//! Redirects: one to another origin is never followed and never gets the credentials; one
//! within the origin is, changed as browsers change it, and not forever.

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
fn a_redirect_loop_within_the_origin_ends_as_an_error_of_its_case() {
    let run = fault_run(
        "redirect-loop",
        // Back to where it was: the VAT ID's own path, which this fault answers again.
        |seen, _| HostileReply::typed(302, "text/plain", b"").with_header("location", &seen.path),
        &[],
    );
    assert_error(&run, VAT, "more than 5 redirects");
}

#[test]
fn a_create_answered_303_is_read_by_get_from_where_it_points() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if seen.method == "POST" && seen.path.ends_with("/vat-ids") {
            HostileReply::typed(303, "text/plain", b"").with_header("location", "/created")
        } else {
            normal(seen)
        }
    }));
    let _ = Covenant::new("see-other", &server.url())
        .args(["--filter", "vat.create-then-get"])
        .run(BOUND);
    let followed: Vec<Received> = server
        .seen()
        .into_iter()
        .filter(|s| s.path == "/created")
        .collect();
    assert!(!followed.is_empty(), "the 303 was not followed");
    for request in followed {
        assert_eq!(request.method, "GET", "a 303 is followed by GET");
        assert_eq!(
            request.header("content-type"),
            None,
            "without the create's body"
        );
        let length = request.header("content-length");
        assert!(
            length.is_none_or(|n| n == "0"),
            "without the body: {length:?}"
        );
    }
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
