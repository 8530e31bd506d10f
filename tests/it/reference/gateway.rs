//! The gateway in front of the reference (`serve --latency-ms`, `--rate-limit`): what a remote
//! or rate-limited target looks like over HTTP, and nothing else changed.

use super::client::{client, Ctx};
use covenant::reference::{start, ReferenceConfig};
use reqwest::Method;
use std::time::{Duration, Instant};

/// Status and `Retry-After` of a `GET /events` with the profile's credentials.
async fn events(ctx: &Ctx) -> (u16, Option<String>) {
    let r = ctx
        .finance(Method::GET, "/finops/v1/events?limit=1")
        .send()
        .await
        .expect("the reference answers");
    let retry_after = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (r.status().as_u16(), retry_after)
}

#[tokio::test]
async fn a_rate_limit_lets_its_burst_through_then_answers_429_with_retry_after() {
    let server = start(ReferenceConfig {
        rate_limit: Some(10.0),
        ..ReferenceConfig::default()
    })
    .await
    .expect("the reference starts");
    let ctx = Ctx::new(&server, client());
    assert_eq!(events(&ctx).await, (200, None));
    assert_eq!(events(&ctx).await, (200, None), "a burst of 0.2 s: 2");
    assert_eq!(events(&ctx).await, (429, Some("1".to_owned())));
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(events(&ctx).await.0, 200, "10 a second: one more in 100 ms");
    server.shutdown().await;
}

#[tokio::test]
async fn latency_delays_every_answer_and_changes_nothing_it_says() {
    let (plain, slow) = (
        start(ReferenceConfig::default()).await.expect("starts"),
        start(ReferenceConfig {
            latency: Duration::from_millis(40),
            ..ReferenceConfig::default()
        })
        .await
        .expect("starts"),
    );
    let (plain_ctx, slow_ctx) = (Ctx::new(&plain, client()), Ctx::new(&slow, client()));
    let path = "/finops/v1/events?limit=3";
    let expected = Ctx::send(plain_ctx.finance(Method::GET, path)).await;
    let started = Instant::now();
    let answer = Ctx::send(slow_ctx.finance(Method::GET, path)).await;
    assert!(
        started.elapsed() >= Duration::from_millis(40),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(answer.status, expected.status);
    assert_eq!(answer.ids().len(), expected.ids().len(), "{}", answer.text);
    plain.shutdown().await;
    slow.shutdown().await;
}

#[test]
fn serve_refuses_a_latency_or_rate_limit_out_of_range_naming_the_flag() {
    for (flag, value) in [("--latency-ms", "60001"), ("--rate-limit", "0")] {
        let out = crate::support::covenant()
            .args(["serve", "--port", "0", flag, value])
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag), "{err}");
    }
}

#[test]
fn a_gateway_that_would_do_nothing_is_not_built_and_a_limit_lets_its_burst_through() {
    use covenant::reference::Gateway;
    assert!(Gateway::new(Duration::ZERO, None).is_none());
    assert!(Gateway::new(Duration::ZERO, Some(0.0)).is_none());
    assert!(Gateway::new(Duration::from_millis(5), None).is_some());
    let limited = Gateway::new(Duration::ZERO, Some(0.5)).expect("a gateway");
    assert_eq!(limited.admit(), Ok(()));
    assert_eq!(limited.admit(), Err(2), "one token every 2 s");
    // 100 a second with a burst of 0.2 s: 20 pass at once, then the bucket runs dry.
    let fast = Gateway::new(Duration::ZERO, Some(100.0)).expect("a gateway");
    let passed = (0..40).filter(|_| fast.admit().is_ok()).count();
    assert!((20..40).contains(&passed), "{passed} of 40 passed at once");
}
