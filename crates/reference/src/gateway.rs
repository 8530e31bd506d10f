//! What stands between a remote target and covenant, for the reference to play: network latency
//! and a gateway's rate limit, as axum middleware in front of every route. Both are off by
//! default.
//!
//! It exists so that anyone can see how covenant behaves against a target far away or behind a
//! rate limit without one (`covenant serve --latency-ms N --rate-limit REQ_PER_S`). The spec
//! states no rate limit, so a 429 is never a breach: it answers one with `Retry-After` and no
//! spec-shaped body, since covenant never judges it. It must never change what an answer that
//! gets through says.

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The burst of the token bucket, in seconds of its rate: 150 requests per second allow 30 at
/// once, as the staging gateway of issue 20 did.
const BURST_SECONDS: f64 = 0.2;

/// The gateway in front of the reference's routes.
#[derive(Debug)]
pub struct Gateway {
    latency: Duration,
    bucket: Option<Mutex<Bucket>>,
}

/// A token bucket: `rate` tokens a second up to `burst`, one taken per request.
#[derive(Debug)]
struct Bucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new(rate: f64) -> Bucket {
        let burst = (rate * BURST_SECONDS).max(1.0);
        Bucket {
            rate,
            burst,
            tokens: burst,
            at: Instant::now(),
        }
    }

    /// Takes a token; when there is none, how long until there is one.
    fn take(&mut self, now: Instant) -> Result<(), Duration> {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / self.rate))
        }
    }
}

impl Gateway {
    /// A gateway adding `latency` to every answer and, with a `rate_limit` (requests per
    /// second, positive), refusing with 429 what exceeds it; `None` when it would do nothing.
    pub fn new(latency: Duration, rate_limit: Option<f64>) -> Option<Arc<Gateway>> {
        let bucket = rate_limit
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| Mutex::new(Bucket::new(r)));
        (bucket.is_some() || !latency.is_zero()).then(|| Arc::new(Gateway { latency, bucket }))
    }

    /// Whether a request may pass now; `Err(retry_after)` in whole seconds, at least 1, when
    /// the bucket is empty.
    pub fn admit(&self) -> Result<(), u64> {
        let Some(bucket) = &self.bucket else {
            return Ok(());
        };
        // Every update is one step of a few numbers: a poisoned bucket is still a bucket.
        let mut bucket = bucket.lock().unwrap_or_else(|e| e.into_inner());
        bucket
            .take(Instant::now())
            .map_err(|wait| wait.as_secs_f64().ceil().max(1.0) as u64)
    }
}

/// The middleware: the rate limit decides at once, the latency delays every answer alike.
pub async fn pass(State(gateway): State<Arc<Gateway>>, request: Request, next: Next) -> Response {
    let admitted = gateway.admit();
    if !gateway.latency.is_zero() {
        tokio::time::sleep(gateway.latency).await;
    }
    match admitted {
        Ok(()) => next.run(request).await,
        Err(seconds) => (
            StatusCode::TOO_MANY_REQUESTS,
            [
                (header::RETRY_AFTER, seconds.to_string()),
                (header::CONTENT_TYPE, "application/json".to_owned()),
            ],
            r#"{"error":{"message":"rate limit exceeded; retry after the time Retry-After names"}}"#,
        )
            .into_response(),
    }
}
