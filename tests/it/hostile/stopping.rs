//! How a run stops short and still says what it did: on SIGTERM or SIGINT, at its deadline, at
//! `--max-requests`, and with its stdout closed (never a panic).

use super::harness::{self, Covenant, FinishedRun};
use super::server::{Hostile, HostileReply};
use super::target::{is_vat, normal, server_with, BOUND, EVENTS, VAT};
use crate::support::runtime;
use std::time::Duration;

/// The bystander without a token: one request, answered at once.
const AUTH: &str = "auth.finance-missing-token.list-events";

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
    for id in [AUTH, VAT, EVENTS] {
        let case = run.case(id);
        // A bystander may have run whole before the VAT case took the one place (the order of
        // cases that wait on nothing is not fixed): then it passed, and is not cut short.
        if id != VAT && case["verdict"] == "pass" {
            assert!(case["requests"].as_u64() >= Some(1), "{id}: {case}");
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
