//! Targets that choose where the spec is silent or open: an unknown mcc refused, a baseline
//! refused, a status and a field of their own. Nothing the spec does not state fails them: a
//! choice the contract allows passes, and what cannot be judged is skipped or inconclusive (a
//! run of nothing but that, incomplete), never failed.

use super::harness::{Covenant, COUNTERPART};
use super::server::{Hostile, HostileReply, Received};
use super::target::{normal, BOUND, EVENTS};
use crate::support::runtime;

#[test]
fn a_target_refusing_an_mcc_it_does_not_know_is_skipped_saying_the_values_are_not_shown() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if seen.method == "POST" && seen.path.ends_with("/velocity-controls") {
            HostileReply::json(
                400,
                r#"{"detail":"unknown merchant category","errorCode":"INVALID_MCC","instance":"/","status":400,"title":"Bad Request","type":"about:blank"}"#,
            )
        } else {
            normal(seen)
        }
    }));
    let run = Covenant::new("mcc-refused", &server.url())
        .args(["--filter", "velocity.fields-kept.mcc", "--filter", EVENTS])
        .run(BOUND);
    run.assert_sound();
    run.assert_ran(EVENTS);
    assert_eq!(
        run.code, 0,
        "no failure, no warning; stdout:\n{}",
        run.stdout
    );
    for id in ["velocity.fields-kept.mcc", "velocity.fields-kept.mcc-group"] {
        let case = run.case(id);
        assert_eq!(case["verdict"], "skip", "{id}: {case}");
        let reason = case["skip_reason"].as_str().unwrap_or("");
        assert!(
            reason.contains("refused with 400")
                && reason.contains("does not show the allowed values of mcc and mccGroup"),
            "{id}: {reason}"
        );
    }
}

/// A VAT ID create, as covenant's acceptance case sends it.
fn is_vat_create(seen: &Received) -> bool {
    seen.method == "POST" && seen.path == format!("/finops/v1/counterparts/{COUNTERPART}/vat-ids")
}

#[test]
fn a_target_that_refuses_the_baseline_leaves_its_variants_inconclusive_never_failed() {
    // A target stricter where the spec is open (it checks VAT numbers against a format the spec
    // does not state) refuses the baseline and every variant alike: nothing is known of the
    // listed values, limits or lengths, so nothing fails.
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if is_vat_create(seen) {
            HostileReply::json(
                422,
                r#"{"detail":[{"loc":["body","value"],"msg":"not a VAT number","type":"value_error"}]}"#,
            )
        } else {
            normal(seen)
        }
    }));
    let id = "accept.create-vat-id";
    let run = Covenant::new("baseline-refused", &server.url())
        .args(["--filter", id, "--filter", EVENTS])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 0, "nothing failed; stdout:\n{}", run.stdout);
    let case = run.case(id);
    assert_eq!(case["verdict"], "inconclusive", "{case}");
    assert_eq!(case["requests"], 1, "only the baseline is sent: {case}");
    let blocked = &case["inconclusive"];
    let rules: Vec<&str> = blocked
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["rule"].as_str())
        .collect();
    for rule in [
        "GEN-ENUM-ACCEPTED",
        "GEN-LIMIT-INCLUSIVE",
        "GEN-LENGTH-CODE-POINTS",
    ] {
        assert!(rules.contains(&rule), "{rule} not blocked: {blocked}");
    }
    assert!(
        blocked[0]["answer"]
            .as_str()
            .unwrap_or("")
            .starts_with("422: "),
        "the baseline's answer is the diagnosis: {blocked}"
    );
    assert_eq!(run.report()["counts"]["inconclusive"], 1);
    assert!(
        run.stdout.contains("variants not judged, the baseline"),
        "{}",
        run.stdout
    );
    let md = std::fs::read_to_string(run.dir.join("reports/summary.md")).unwrap_or_default();
    assert!(
        md.contains("Inconclusive: blocked by a refused baseline (1)"),
        "{md}"
    );
    let html = std::fs::read_to_string(run.dir.join("reports/summary.html")).unwrap_or_default();
    assert!(html.contains("id=\"inconclusive\""), "summary.html");
}

#[test]
fn a_run_where_every_case_is_blocked_by_its_baseline_is_incomplete_not_a_pass() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if is_vat_create(seen) {
            HostileReply::json(403, r#"{"error":{"message":"VAT IDs are read-only here"}}"#)
        } else {
            normal(seen)
        }
    }));
    let run = Covenant::new("all-inconclusive", &server.url())
        .args(["--filter", "accept.create-vat-id"])
        .run(BOUND);
    run.assert_sound();
    run.assert_incomplete();
}

#[test]
fn a_target_keeping_the_contract_with_its_own_choices_passes_every_listed_value() {
    // 200 rather than 201 (the spec gives no status for this create) and a field the spec does
    // not list: every variant is accepted, and the case passes clean.
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if is_vat_create(seen) {
            let body = format!(
                r#"{{"id":"0b6a1c1e-8d1f-4a4e-9c1b-2f3e4d5c6b7a","counterpart_id":"{COUNTERPART}","value":"DE1","country":"DE","type":"eu_vat","verified":false}}"#
            );
            HostileReply::json(200, &body)
        } else {
            normal(seen)
        }
    }));
    let id = "accept.create-vat-id";
    let run = Covenant::new("own-choices", &server.url())
        .args(["--filter", id])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 0, "stdout:\n{}", run.stdout);
    assert_eq!(run.verdict(id), "pass", "{}", run.case(id));
    assert!(
        run.case(id)["requests"].as_u64() > Some(250),
        "every listed value is sent"
    );
}
