//! Pace against a rate-limited target (issue 20): the real binary against the reference behind
//! a token bucket (`ReferenceConfig::rate_limit`, as `covenant serve --rate-limit` starts it).
//!
//! The spec states no rate limit, so a target refusing with 429 keeps the contract: the run
//! must pass it, judging every case, without sending much more than it would unhindered, and
//! say how it was paced. A run the deadline cuts short while the target holds it back is
//! incomplete, never failed.

use covenant::reference::{start, ReferenceConfig, RunningReference};
use covenant::verdict::RunRecord;
use std::path::PathBuf;
use std::process::Output;

/// The seed of the reference's fixtures and of the runs: both runs test the same payloads.
const SEED: &str = "20";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the reference")
}

fn scratch(name: &str) -> PathBuf {
    crate::support::scratch(&format!("pace-{name}"))
}

/// A reference limited to `rate_limit` requests per second (none: unlimited).
fn reference(rt: &tokio::runtime::Runtime, rate_limit: Option<f64>) -> RunningReference {
    rt.block_on(start(ReferenceConfig {
        seed: 20,
        rate_limit,
        ..ReferenceConfig::default()
    }))
    .expect("the reference starts")
}

/// `covenant run` against `server` with its profile, its reports and fixture state in a scratch
/// directory of `name`.
fn run(name: &str, server: &RunningReference, extra: &[&str]) -> (Output, RunRecord, PathBuf) {
    let dir = scratch(name);
    let profile = dir.join("profile.toml");
    std::fs::write(&profile, server.profile().to_toml()).expect("the profile is written");
    let reports = dir.join("reports");
    let mut args = vec![
        "run".to_owned(),
        "--quiet".to_owned(),
        "--seed".to_owned(),
        SEED.to_owned(),
        "--profile".to_owned(),
        profile.display().to_string(),
        "--report-dir".to_owned(),
        reports.display().to_string(),
    ];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let output = crate::support::covenant()
        .args(&args)
        .env("COVENANT_STATE", dir.join("state.json"))
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .expect("covenant runs");
    let text = std::fs::read_to_string(reports.join("report.json")).unwrap_or_else(|e| {
        panic!(
            "no report.json ({e}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let record = serde_json::from_str(&text).expect("report.json is a RunRecord");
    (output, record, reports)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_run_limited_to_400_requests_a_second_judges_every_case_sends_little_more_and_gives_the_pace() {
    let rt = runtime();
    let free = reference(&rt, None);
    let (output, unhindered, _) = run("free", &free, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        unhindered.meta.pace.is_none(),
        "an unlimited target paces nothing"
    );

    // 400 a second: a tenth of what the run sends unhindered, and a run of a few seconds.
    let limited = reference(&rt, Some(400.0));
    let (output, record, reports) = run("limited", &limited, &[]);
    let c = &record.counts;
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(c.pass, c.total(), "every case judged and passed: {c:?}");
    assert_eq!(c.total(), unhindered.counts.total());
    let (sent, without) = (c.requests as f64, unhindered.counts.requests as f64);
    assert!(
        sent <= without * 1.05,
        "{sent} requests against {without} without the limit"
    );
    let pace = record
        .meta
        .pace
        .as_ref()
        .expect("the run says it was paced");
    assert!(pace.answers_429 > 0 && pace.pauses > 0, "{pace:?}");
    assert!(
        pace.rate > 40.0 && pace.rate < 600.0,
        "a pace near the limit: {pace:?}"
    );
    let said = stdout(&output);
    assert!(
        said.contains("pace: the target rate-limited the run")
            && said.contains(&format!("--rate {} next time", pace.suggested_rate())),
        "{said}"
    );
    let read = |name: &str| std::fs::read_to_string(reports.join(name)).expect("a report");
    assert!(read("summary.md").contains("**Pace:** the target rate-limited the run"));
    assert!(read("summary.html").contains("id=\"pace\""));
}

#[test]
fn a_run_held_back_by_a_rate_limit_past_its_deadline_is_incomplete_not_failed() {
    let rt = runtime();
    let server = reference(&rt, Some(2.0));
    let (output, record, _) = run("too-low", &server, &["--deadline", "2"]);
    assert_eq!(output.status.code(), Some(4), "{}", stdout(&output));
    assert_eq!(record.verdict().as_str(), "incomplete");
    let c = &record.counts;
    assert_eq!((c.fail, c.error, c.warn), (0, 0, 0), "{c:?}");
    assert!(c.skip > 0, "{c:?}");
    let why = record.meta.interrupted.clone().unwrap_or_default();
    assert!(why.contains("deadline"), "{why}");
    assert!(
        record.meta.pace.is_some(),
        "the run says the target paced it"
    );
    assert!(stdout(&output).contains("covenant: INCOMPLETE: "));
}
