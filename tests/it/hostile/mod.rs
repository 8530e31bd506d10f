//! Hostile and broken targets: the real binary against a misbehaving raw-HTTP server.
//!
//! Each test starts a server on 127.0.0.1 that breaks one thing (a reset mid-body, a drip, a
//! lying Content-Length, an endless body, a redirect to another origin, 429s, 500s...), runs
//! `covenant run` against it with a couple of cases selected by `--filter`, and asserts that the
//! run ends within its bound with a documented exit code, that the affected case is an error or
//! a failure with a clear message, that the other case still ran, that report.json and
//! junit.xml are valid, and that no secret of the profile appears anywhere.

mod harness;
mod server;

use harness::{
    Covenant, FinishedRun, BANKING_TOKEN, BANK_ACCOUNT, COUNTERPART, DELETABLE_ACCOUNT,
    DELETABLE_TAG, FINOPS_TOKEN,
};
use server::{Hostile, HostileReply, Received};
use std::time::Duration;

/// The case that meets the fault: one GET of a VAT ID with the finance token.
const VAT: &str = "vat.get-unknown";
/// The bystander: two GETs of events, answered normally.
const EVENTS: &str = "events.invalid-order-and-sort";
const BOUND: Duration = Duration::from_secs(20);

use crate::support::runtime;

/// A request of VAT (the authentication cases use another counterpart id).
fn is_vat(seen: &Received) -> bool {
    seen.path
        .contains(&format!("/counterparts/{COUNTERPART}/vat-ids/"))
}

/// What a harmless server answers, keeping the contract where the tests do not break it: the
/// probe gets 200, a request without a token 401 with its area's error body, the profile's bank
/// account an empty page of transactions (the preflight reads it), everything else a finance 404.
fn normal(seen: &Received) -> HostileReply {
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
fn server_with(
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
fn fault_run(
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

fn assert_error(run: &FinishedRun, id: &str, needle: &str) {
    assert_eq!(run.verdict(id), "error", "{id}: {}", run.says(id));
    assert!(
        run.says(id).contains(needle),
        "{id} should say {needle:?}: {}",
        run.says(id)
    );
    assert_eq!(run.code, 1, "a case error fails the run");
}

#[test]
fn a_reset_mid_body_is_an_error_of_that_case_only() {
    let run = fault_run("reset", |_, _| HostileReply::ResetMidBody, &[]);
    assert_error(&run, VAT, "broke off");
}

#[test]
fn a_body_shorter_than_its_content_length_is_an_error() {
    let lie = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{\"a\":1}";
    let run = fault_run(
        "short-body",
        move |_, _| HostileReply::Raw(lie.to_vec()),
        &[],
    );
    assert_error(&run, VAT, "broke off");
}

#[test]
fn a_slow_drip_times_out_at_the_request_timeout() {
    let run = fault_run("drip", |_, _| HostileReply::Drip, &[]);
    assert_error(&run, VAT, "timed out after 1.0 s (--timeout)");
    assert!(
        run.elapsed < Duration::from_secs(10),
        "took {:?}",
        run.elapsed
    );
}

#[test]
fn a_target_that_never_answers_times_out() {
    let run = fault_run("hang", |_, _| HostileReply::Hang, &[]);
    assert_error(&run, VAT, "timed out after 1.0 s");
}

#[test]
fn an_oversized_body_is_an_error_at_max_body() {
    let big = HostileReply::typed(404, "application/json", &vec![b' '; 5000]);
    let run = fault_run(
        "oversized",
        move |_, _| big.clone(),
        &["--max-body", "1000"],
    );
    assert_error(&run, VAT, "exceeds 1000 bytes (--max-body)");
}

#[test]
fn an_endless_body_is_cut_at_max_body() {
    let run = fault_run(
        "endless",
        |_, _| HostileReply::Endless,
        &["--max-body", "300000"],
    );
    assert_error(&run, VAT, "exceeds 300000 bytes");
    assert!(
        run.elapsed < Duration::from_secs(10),
        "took {:?}",
        run.elapsed
    );
}

#[test]
fn malformed_bodies_are_findings_of_the_generic_rules() {
    let cases: [(&str, HostileReply, &str, &str); 5] = [
        (
            "not-json",
            HostileReply::typed(404, "text/html", b"<html>oops</html>"),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "truncated-json",
            HostileReply::typed(404, "application/json", br#"{"error":{"mess"#),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "invalid-utf8",
            HostileReply::typed(
                404,
                "application/json",
                b"{\"error\":{\"message\":\"\xff\xfe\xc3\"}}",
            ),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "json-labelled-text",
            HostileReply::typed(404, "text/plain", br#"{"error":{"message":"no"}}"#),
            "GEN-JSON-BODY",
            "fail",
        ),
        (
            "json-like-content-type",
            HostileReply::typed(404, "text/json", br#"{"error":{"message":"no"}}"#),
            "GEN-JSON-CONTENT-TYPE",
            "warn",
        ),
    ];
    for (name, reply, rule, verdict) in cases {
        let run = fault_run(name, move |_, _| reply.clone(), &[]);
        assert!(
            run.rules(VAT).iter().any(|r| r == rule),
            "{name}: {}",
            run.says(VAT)
        );
        assert_eq!(run.verdict(VAT), verdict, "{name}: {}", run.says(VAT));
    }
}

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

#[test]
fn an_unknown_host_is_exit_3_naming_it() {
    let run = Covenant::new("dns", "http://covenant-no-such-host.invalid/").run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("covenant-no-such-host.invalid"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("unreachable"), "{}", run.stderr);
}

#[test]
fn a_refused_connection_before_any_case_is_exit_3() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let run = Covenant::new("refused", &format!("http://127.0.0.1:{port}")).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("unreachable"), "{}", run.stderr);
    // Nothing was judged, but the reports a CI job reads say why.
    let report = std::fs::read_to_string(run.dir.join("reports/report.json")).expect("a report");
    assert!(report.contains("\"verdict\": \"unreachable\""), "{report}");
}

#[test]
fn https_to_a_plain_http_server_is_a_clear_tls_error() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| normal(seen)));
    let url = format!("https://127.0.0.1:{}", server.port);
    let run = Covenant::new("tls", &url).args(["--insecure"]).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("TLS error"), "{}", run.stderr);
    assert!(run.stderr.contains("--ca-cert"), "{}", run.stderr);
}

#[test]
fn a_ca_cert_that_is_not_pem_is_exit_2_naming_the_file() {
    let covenant = Covenant::new("ca-cert", "https://127.0.0.1:9");
    let dir = harness::scratch("ca-cert-file");
    let bad = dir.join("not-a-cert.pem");
    std::fs::write(&bad, "this is not a certificate\n").expect("write the file");
    let run = covenant
        .args(["--ca-cert".as_ref(), bad.as_os_str()])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not-a-cert.pem"), "{}", run.stderr);
    let missing = Covenant::new("ca-cert-missing", "https://127.0.0.1:9")
        .args(["--ca-cert", "no-such-file.pem"])
        .run(BOUND);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("no-such-file.pem"),
        "{}",
        missing.stderr
    );
}

/// Starts a run whose VAT request hangs, waits until it is in flight, and sends `signal`.
fn interrupted_run(name: &str, signal: &str) -> FinishedRun {
    let rt = runtime();
    let server = server_with(&rt, |_, _| HostileReply::Hang);
    let mut running = Covenant::new(name, &server.url())
        .args([
            "--filter",
            "auth.finance-missing-token",
            "--filter",
            VAT,
            "--filter",
            EVENTS,
        ])
        .args(["--timeout", "30", "--concurrency", "1"])
        .spawn();
    let start = std::time::Instant::now();
    while !server.seen().iter().any(is_vat) {
        assert!(
            start.elapsed() < BOUND && !running.has_ended(),
            "the VAT request never arrived"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let signalled = std::time::Instant::now();
    harness::signal(running.pid(), signal);
    let run = running.wait(BOUND);
    assert!(
        signalled.elapsed() < Duration::from_secs(6),
        "covenant took {:?} to stop after SIG{signal}",
        signalled.elapsed()
    );
    run.assert_sound();
    assert!(run.case("auth.finance-missing-token.list-events")["requests"].as_u64() == Some(1));
    for id in [VAT, EVENTS] {
        let case = run.case(id);
        // The bystander may have run whole before the VAT case took the one place (the order
        // of cases that wait on nothing is not fixed): then it passed, and is not cut short.
        if id == EVENTS && case["verdict"] == "pass" {
            continue;
        }
        assert_eq!(case["verdict"], "skip", "{id}: {case}");
        let reason = case["skip_reason"].as_str().unwrap_or("");
        assert!(reason.contains("interrupted"), "{id}: {reason}");
    }
    assert!(run.report()["meta"]["interrupted"]
        .as_str()
        .is_some_and(|w| w.contains(signal)));
    run.assert_incomplete();
    run
}

#[test]
fn sigterm_stops_the_run_and_still_writes_its_reports() {
    let run = interrupted_run("sigterm", "TERM");
    assert!(run.stderr.contains("SIGTERM"), "{}", run.stderr);
}

#[test]
fn sigint_stops_the_run_and_still_writes_its_reports() {
    interrupted_run("sigint", "INT");
}

#[test]
fn the_deadline_bounds_the_whole_run() {
    let rt = runtime();
    let server = server_with(&rt, |_, _| HostileReply::Hang);
    let run = Covenant::new("deadline", &server.url())
        .args(["--filter", VAT, "--filter", EVENTS])
        .args(["--timeout", "30", "--concurrency", "1", "--deadline", "1"])
        .run(BOUND);
    run.assert_sound();
    assert!(
        run.elapsed < Duration::from_secs(7),
        "took {:?}",
        run.elapsed
    );
    let why = run.report()["meta"]["interrupted"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(why.contains("deadline"), "{why}");
    run.assert_incomplete();
    // With one case at a time, either may go first: the hanging VAT read holds the run until
    // the deadline, and what it had not reached by then is skipped naming the deadline.
    let (vat, events) = (run.case(VAT), run.case(EVENTS));
    let stopped = [&vat, &events]
        .into_iter()
        .filter(|case| case["verdict"] != "pass")
        .collect::<Vec<_>>();
    assert!(!stopped.is_empty(), "{vat}\n{events}");
    for case in stopped {
        assert!(case.to_string().contains("deadline"), "{case}");
    }
}

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
fn max_requests_stops_cleanly_and_says_why() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| normal(seen)));
    let run = Covenant::new("max-requests", &server.url())
        .args([
            "--filter",
            "auth.finance-missing-token",
            "--max-requests",
            "3",
            "--concurrency",
            "1",
        ])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(server.seen_by_cases().len(), 3);
    let uncounted = server
        .seen()
        .into_iter()
        .filter(|s| s.path == "/" || s.is_preflight())
        .count();
    assert!(uncounted >= 2, "the probe and the preflight's reads");
    assert_eq!(
        server.seen().len(),
        3 + uncounted,
        "the probe and the preflight are not counted against --max-requests"
    );
    let report = run.report();
    let cases = report["cases"].as_array().expect("cases");
    let skipped: Vec<&serde_json::Value> =
        cases.iter().filter(|c| c["verdict"] == "skip").collect();
    assert_eq!(skipped.len(), 5);
    for case in skipped {
        let reason = case["skip_reason"].as_str().unwrap_or("");
        assert!(reason.contains("--max-requests"), "{reason}");
    }
    assert!(report["meta"]["interrupted"]
        .as_str()
        .is_some_and(|w| w.contains("--max-requests")));
    run.assert_incomplete();
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

#[test]
fn a_closed_stdout_is_never_a_panic() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| normal(seen)));
    let list = Covenant::new("closed-stdout-list", &server.url())
        .args(["--list"])
        .closed_stdout()
        .run(BOUND);
    list.assert_sound();
    assert_eq!(list.code, 0, "{}", list.stderr);
    let run = Covenant::new("closed-stdout-run", &server.url())
        .args([
            "--filter",
            "auth.finance-missing-token",
            "--concurrency",
            "1",
        ])
        .closed_stdout()
        .run(BOUND);
    run.assert_sound();
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let report = run.report();
    let cases = report["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 8, "every planned case is in the report");
    for case in cases.iter().filter(|c| c["verdict"] == "skip") {
        let reason = case["skip_reason"].as_str().unwrap_or("");
        assert!(reason.contains("output closed"), "{reason}");
    }
}

#[test]
fn a_refused_token_stops_in_the_preflight_before_anything_is_written() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if seen.path.starts_with("/finops/") && seen.header("authorization").is_some() {
            HostileReply::json(401, r#"{"error":{"message":"invalid token"}}"#)
        } else {
            normal(seen)
        }
    }));
    let run = Covenant::new("refused-token", &server.url()).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("finops.token: GET /finops/v1/events?limit=1 answered 401"),
        "{}",
        run.stderr
    );
    let writes: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| s.method != "GET")
        .map(|s| format!("{} {}", s.method, s.path))
        .collect();
    assert!(
        writes.is_empty(),
        "sent before the preflight stopped: {writes:?}"
    );
    assert!(server.seen_by_cases().is_empty(), "no case ran");
}

#[test]
fn a_static_file_server_is_named_in_one_line() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if seen.path == "/" {
            HostileReply::typed(200, "text/html", b"<html><body>index</body></html>")
        } else {
            HostileReply::typed(404, "text/html", b"<html><body>Not Found</body></html>")
        }
    }));
    let run = Covenant::new("static", &server.url()).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 2, "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0]
            .contains("does not look like the Finance Operations and Embedded Banking Partner API"),
        "{}",
        lines[0]
    );
    assert!(server.seen_by_cases().is_empty(), "no case ran");
}

/// A stand-in that checks tokens exactly and says which token it refused: finance answers 401
/// and banking 403 (the spec gives banking no status), each echoing the token it was sent.
fn echoing_refusal(seen: &Received) -> HostileReply {
    let Some(sent) = seen.header("authorization") else {
        return normal(seen);
    };
    let token = sent.strip_prefix("Bearer ").unwrap_or(sent);
    if seen.path.starts_with("/embedded-banking/") && token != BANKING_TOKEN {
        HostileReply::json(
            403,
            &format!(
                r#"{{"detail":"token {token} is not valid","errorCode":"FORBIDDEN","instance":"/","status":403,"title":"Forbidden","type":"about:blank"}}"#
            ),
        )
    } else if seen.path.starts_with("/finops/") && token != FINOPS_TOKEN {
        HostileReply::json(
            401,
            &format!(r#"{{"error":{{"message":"token {token} is not valid"}}}}"#),
        )
    } else {
        normal(seen)
    }
}

#[test]
fn a_target_refusing_tampered_tokens_with_403_on_banking_passes_the_must_rules() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| echoing_refusal(seen)));
    let run = Covenant::new("tampered-403", &server.url())
        .args(["--filter", "auth.finance-tampered-token"])
        .args(["--filter", "auth.banking-tampered-token"])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 0, "warnings only; stdout:\n{}", run.stdout);
    let report = run.report();
    let cases = report["cases"].as_array().expect("cases");
    assert_eq!(
        cases.len(),
        10,
        "eight finance operations and two banking ones"
    );
    for case in cases {
        let id = case["id"].as_str().unwrap_or("");
        assert_eq!(case["requests"], 3, "{id}: one request per tampered form");
        if id.starts_with("auth.banking-") {
            assert_eq!(case["verdict"], "warn", "{id}: {}", run.says(id));
            assert_eq!(run.rules(id), ["AUTH-BANK-401"; 3], "{id}");
        } else {
            assert_eq!(case["verdict"], "pass", "{id}: {}", run.says(id));
        }
    }
}

#[test]
fn tampered_tokens_a_target_echoes_are_redacted_in_every_record() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| echoing_refusal(seen)));
    let run = Covenant::new("tampered-echo", &server.url())
        .args(["--filter", "auth.finance-tampered-token.list-events"])
        .args(["--filter", "auth.banking-tampered-token.list-transactions"])
        .args(["--keep-exchanges"])
        .run(BOUND);
    // No token, nor all of one but its last character, in any output or report.
    run.assert_sound();
    for (token, area) in [
        (FINOPS_TOKEN, "finops"),
        (BANKING_TOKEN, "embedded-banking"),
    ] {
        let forms = server
            .seen_by_cases()
            .iter()
            .filter(|s| s.path.starts_with(&format!("/{area}/")))
            .filter_map(|s| s.header("authorization").map(str::to_owned))
            .collect::<Vec<_>>();
        assert_eq!(forms.len(), 3, "{area}: {forms:?}");
        assert!(
            forms.iter().all(|f| f != &format!("Bearer {token}")),
            "{forms:?}"
        );
        assert!(
            forms.iter().any(|f| f.ends_with("covenant")),
            "{area}: one with characters appended: {forms:?}"
        );
    }
    for id in [
        "auth.finance-tampered-token.list-events",
        "auth.banking-tampered-token.list-transactions",
    ] {
        let case = run.case(id);
        let exchanges = case["exchanges"].as_array().expect("every exchange kept");
        assert_eq!(exchanges.len(), 3, "{id}");
        for exchange in exchanges {
            let body = exchange["response"]["body"].as_str().unwrap_or("");
            assert!(body.contains("token *** is not valid"), "{id}: {body}");
            // The curl builds the tampered token from its variable: what was sent, no secret.
            let curl = exchange["request"]["curl"].as_str().unwrap_or("");
            assert!(curl.contains("authorization: Bearer "), "{id}: {curl}");
            assert!(curl.contains("COVENANT_"), "{id}: {curl}");
            assert!(
                !curl.contains(FINOPS_TOKEN) && !curl.contains(BANKING_TOKEN),
                "{id}: {curl}"
            );
        }
    }
}

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
