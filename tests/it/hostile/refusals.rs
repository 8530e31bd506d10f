//! Targets that push back: 429s and 503s with `Retry-After` are pauses, not failures; a wait
//! longer than covenant takes, or refusals until the deadline, leave the run incomplete; an
//! endpoint refusing every try is an error of its case alone; a 5xx fails its rule, and only
//! GETs are sent again.

use super::harness::Covenant;
use super::server::{Hostile, HostileReply, Received};
use super::target::{assert_error, is_vat, normal, server_with, BOUND, EVENTS, VAT};
use crate::support::runtime;
use std::time::Duration;

#[test]
fn a_429_retry_after_is_honoured_and_the_case_then_runs() {
    let rt = runtime();
    let server = server_with(&rt, |_, n| {
        if n == 0 {
            HostileReply::json(429, r#"{"error":{"message":"slow down"}}"#)
                .with_header("retry-after", "1")
        } else {
            HostileReply::not_found()
        }
    });
    let run = Covenant::new("429-once", &server.url())
        .args(["--filter", VAT])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.verdict(VAT), "pass", "{}", run.says(VAT));
    assert_eq!(run.case(VAT)["requests"], 2, "the 429, then the answer");
    assert_eq!(run.report()["meta"]["pace"]["answers_429"], 1);
    let arrivals: Vec<Received> = server.seen().into_iter().filter(is_vat).collect();
    assert_eq!(arrivals.len(), 2);
    let waited = arrivals[1].at - arrivals[0].at;
    assert!(
        waited >= Duration::from_millis(950),
        "Retry-After: 1 was not honoured: {waited:?}"
    );
}

#[test]
fn a_503_with_retry_after_is_a_pause_not_a_failure() {
    let rt = runtime();
    let server = server_with(&rt, |_, n| {
        if n == 0 {
            HostileReply::json(503, r#"{"error":{"message":"busy"}}"#)
                .with_header("retry-after", "1")
        } else {
            HostileReply::not_found()
        }
    });
    let run = Covenant::new("503-once", &server.url())
        .args(["--filter", VAT])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.verdict(VAT), "pass", "{}", run.says(VAT));
    assert!(run.rules(VAT).is_empty(), "the 503 was never judged");
    assert_eq!(run.report()["meta"]["pace"]["answers_503"], 1);
    assert!(run.stdout.contains("pace: the target rate-limited the run"));
}

#[test]
fn a_target_asking_for_a_longer_wait_than_covenant_takes_leaves_the_run_incomplete_not_failed() {
    let rt = runtime();
    let server = server_with(&rt, |_, _| {
        HostileReply::json(429, r#"{"error":{"message":"no"}}"#).with_header("retry-after", "3600")
    });
    let run = Covenant::new("429-hour", &server.url())
        .args(["--filter", VAT])
        .run(BOUND);
    run.assert_sound();
    run.assert_incomplete();
    assert_eq!(run.verdict(VAT), "skip", "{}", run.says(VAT));
    let why = run.report()["meta"]["interrupted"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(why.contains("wait 3600 s (Retry-After)"), "{why}");
    assert_eq!(server.seen().into_iter().filter(is_vat).count(), 1);
    assert!(run.elapsed < Duration::from_secs(5), "{:?}", run.elapsed);
}

#[test]
fn a_target_refusing_until_the_deadline_leaves_the_run_incomplete_not_failed() {
    let rt = runtime();
    let server = server_with(&rt, |_, _| {
        HostileReply::json(429, r#"{"error":{"message":"no"}}"#).with_header("retry-after", "1")
    });
    let run = Covenant::new("429-always", &server.url())
        .args(["--filter", VAT, "--deadline", "2.5"])
        .run(BOUND);
    run.assert_sound();
    run.assert_incomplete();
    assert_eq!(run.verdict(VAT), "skip", "{}", run.says(VAT));
    let reason = run.case(VAT)["skip_reason"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(reason.contains("deadline"), "{reason}");
    let arrivals: Vec<Received> = server.seen().into_iter().filter(is_vat).collect();
    assert!(
        (2..=4).contains(&arrivals.len()),
        "sent again after each 1 s pause until the deadline: {}",
        arrivals.len()
    );
    for pair in arrivals.windows(2) {
        assert!(pair[1].at - pair[0].at >= Duration::from_millis(950));
    }
    let pace = &run.report()["meta"]["pace"];
    assert_eq!(pace["answers_429"], arrivals.len());
    assert!(run.stdout.contains("pace: the target rate-limited the run"));
}

#[test]
fn an_endpoint_refusing_every_try_ends_as_an_error_of_its_case_and_the_run_goes_on() {
    let rt = runtime();
    let server = server_with(&rt, |_, _| {
        HostileReply::json(429, r#"{"error":{"message":"quota used up"}}"#)
            .with_header("retry-after", "1")
    });
    let bystander = "generated.params.list-events";
    let run = Covenant::new("429-endpoint", &server.url())
        .args(["--filter", VAT, "--filter", EVENTS, "--filter", bystander])
        .args(["--max-refusal", "3"])
        .run(BOUND);
    run.assert_sound();
    assert!(
        run.elapsed < Duration::from_secs(10),
        "bounded by --max-refusal 3: {:?}",
        run.elapsed
    );
    // The seconds named are those the tries took: 3 and a little more, read as 4 on a loaded
    // machine.
    assert_error(&run, VAT, "the target refused every try for ");
    assert!(
        run.says(VAT).contains(" s: rate-limited, not judged"),
        "{}",
        run.says(VAT)
    );
    assert!(run.rules(VAT).is_empty(), "no rule judged a refusal");
    run.assert_ran(EVENTS);
    run.assert_ran(bystander);
    let arrivals = server.seen().into_iter().filter(is_vat).count();
    assert!(
        (3..=6).contains(&arrivals),
        "sent again after each 1 s pause for 3 s: {arrivals}"
    );
    let pace = &run.report()["meta"]["pace"];
    let unanswered = &pace["unanswered"][0];
    assert_eq!(unanswered["requests"], 1, "{pace}");
    let endpoint = unanswered["endpoint"].as_str().unwrap_or_default();
    assert!(
        endpoint.starts_with("GET /") && endpoint.contains("/vat-ids/{"),
        "{pace}"
    );
    assert!(
        pace["rate"].as_f64() >= Some(1.0),
        "the pace does not fall toward zero: {pace}"
    );
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("never answered"))
        .unwrap_or_else(|| panic!("the summary names the endpoint: {}", run.stdout));
    assert!(line.contains(endpoint), "{line}");
    let reports = run.dir.join("reports");
    for name in ["summary.md", "summary.html"] {
        let text = std::fs::read_to_string(reports.join(name)).expect("a report");
        assert!(text.contains("refused every try"), "{name}");
    }
}

#[test]
fn a_5xx_fails_gen_no_5xx_and_only_gets_are_retried() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if is_vat(seen) || seen.path.starts_with("/finops/v1/comments/") {
            HostileReply::json(500, r#"{"error":{"message":"boom"}}"#)
        } else {
            normal(seen)
        }
    }));
    let comment = "comment.update-unknown";
    let run = Covenant::new("5xx", &server.url())
        .args(["--filter", VAT, "--filter", comment, "--retries", "2"])
        .run(BOUND);
    run.assert_sound();
    for id in [VAT, comment] {
        assert_eq!(run.verdict(id), "fail", "{id}: {}", run.says(id));
        assert!(run.rules(id).iter().any(|r| r == "GEN-NO-5XX"), "{id}");
    }
    let seen = server.seen();
    assert_eq!(
        seen.iter()
            .filter(|s| s.method == "GET" && is_vat(s))
            .count(),
        3
    );
    assert_eq!(
        seen.iter().filter(|s| s.method == "PATCH").count(),
        1,
        "a PATCH is never retried"
    );
    assert_eq!(run.case(VAT)["exchanges"][0]["retries"], 2);
    assert_eq!(run.case(VAT)["requests"], 3);
    assert_eq!(run.case(comment)["exchanges"][0]["retries"], 0);
}
