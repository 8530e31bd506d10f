//! What covenant sends stays within what it was told: the concurrency and the rate across
//! workers, nothing at all under `--dry-run`, no write under `--read-only`, and deletes only of
//! the profile's deletable ids.

use super::harness::{Covenant, COUNTERPART, DELETABLE_ACCOUNT, DELETABLE_TAG, FINOPS_TOKEN};
use super::server::{Hostile, HostileReply, Received};
use super::target::{normal, BOUND, VAT};
use crate::support::runtime;
use std::time::Duration;

#[test]
fn concurrency_caps_the_requests_in_flight_across_cases() {
    let rt = runtime();
    // Every body hangs: what the server holds when the deadline comes is what was in flight.
    let server = rt.block_on(Hostile::start(|seen, _| match seen.method.as_str() {
        "POST" => HostileReply::Hang,
        _ => normal(seen),
    }));
    let run = Covenant::new("in-flight", &server.url())
        .args(["--filter", "generated.create-vat-id"])
        .args(["--timeout", "30", "--concurrency", "3", "--deadline", "1"])
        .run(BOUND);
    run.assert_sound();
    let posts = server
        .seen_by_cases()
        .into_iter()
        .filter(|s| s.method == "POST")
        .count();
    // Two cases of up to eight bodies in flight each, held to three in all.
    assert_eq!(posts, 3, "requests in flight with --concurrency 3");
}

#[test]
fn rate_caps_requests_per_second_across_workers() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| normal(seen)));
    let rate = 5.0;
    let run = Covenant::new("rate", &server.url())
        .args([
            "--filter",
            "auth.finance-missing-token",
            "--rate",
            "5",
            "--concurrency",
            "8",
        ])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(server.seen_by_cases().len(), 8, "eight cases");
    let seen = server.seen();
    let span = seen[seen.len() - 1].at - seen[0].at;
    let least = Duration::from_secs_f64((seen.len() - 1) as f64 / rate) - Duration::from_millis(50);
    assert!(
        span >= least,
        "{} requests in {span:?} at --rate {rate}",
        seen.len()
    );
}

#[test]
fn dry_run_sends_nothing_at_all() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| normal(seen)));
    let run = Covenant::new("dry-run", &server.url())
        .args(["--filter", "auth.finance", "--filter", VAT, "--dry-run"])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(VAT), "{}", run.stdout);
    assert!(run.stdout.contains("nothing was sent"), "{}", run.stdout);
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        server.seen().is_empty(),
        "a dry run sent {:?}",
        server.seen()
    );
}

#[test]
fn read_only_sends_no_post_patch_or_delete() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| normal(seen)));
    let run = Covenant::new("read-only", &server.url())
        .args([
            "--filter",
            "auth.finance-missing-token",
            "--filter",
            "tag.delete-twice",
        ])
        .args([
            "--filter",
            "comment.update-unknown",
            "--filter",
            VAT,
            "--read-only",
        ])
        .run(BOUND);
    run.assert_sound();
    let writes: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| !matches!(s.method.as_str(), "GET" | "HEAD" | "OPTIONS"))
        .map(|s| format!("{} {}", s.method, s.path))
        .collect();
    assert!(writes.is_empty(), "--read-only sent {writes:?}");
    assert_eq!(run.verdict(VAT), "pass", "{}", run.says(VAT));
    let post = run.case("auth.finance-missing-token.create-receivable");
    assert_eq!(post["verdict"], "skip");
    assert!(
        post["skip_reason"]
            .as_str()
            .is_some_and(|r| r.contains("--read-only")),
        "{post}"
    );
    let report = run.report();
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert!(
        !ids.contains(&"tag.delete-twice"),
        "a writing case was planned: {ids:?}"
    );
}

#[test]
fn credentialed_deletes_name_only_the_profiles_deletable_ids() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, n| match (seen.method.as_str(), n) {
        ("DELETE", 0) => HostileReply::Full {
            status: 204,
            content_type: None,
            extra: Vec::new(),
            body: Vec::new(),
        },
        _ => normal(seen),
    }));
    let run = Covenant::new("deletes", &server.url())
        .args([
            "--filter",
            "tag.delete-twice",
            "--filter",
            "bank-account.delete-twice",
        ])
        .args([
            "--filter",
            "auth.finance-missing-token.delete",
            "--filter",
            "auth.finance-invalid-token.delete",
        ])
        .run(BOUND);
    run.assert_sound();
    let bearer = format!("Bearer {FINOPS_TOKEN}");
    let allowed = [
        format!("/finops/v1/tags/{DELETABLE_TAG}"),
        format!("/finops/v1/counterparts/{COUNTERPART}/bank-accounts/{DELETABLE_ACCOUNT}"),
    ];
    let credentialed: Vec<Received> = server
        .seen()
        .into_iter()
        .filter(|s| s.method == "DELETE" && s.header("authorization") == Some(bearer.as_str()))
        .collect();
    assert!(!credentialed.is_empty(), "no credentialed DELETE was sent");
    for s in &credentialed {
        assert!(
            allowed.contains(&s.path),
            "DELETE {} is not a deletable fixture",
            s.path
        );
    }
    assert!(
        server
            .seen()
            .iter()
            .filter(|s| s.method == "DELETE")
            .count()
            > credentialed.len()
    );
}
