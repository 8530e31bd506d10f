//! The HTTP client for a target: every request covenant sends goes through [`Target::send`].
//!
//! It exists to make a stranger's server safe to talk to: one client with bounded timeouts, a
//! shared rate limit and request budget, bounded body reads, same-origin redirects only, bounded
//! retries (GET only on 5xx and transport errors; any method on 429, which means "not
//! processed"), and records of every exchange with secrets redacted. A target misbehaving never
//! becomes a panic or an `Err` of the run: it becomes an [`Exchange`] with an `error`, which the
//! case turns into a verdict.

mod curl;
mod limit;

pub use curl::{curl_command, redact};
pub use limit::{Budget, RateLimiter};

use crate::verdict::{Exchange, RequestRecord, ResponseRecord};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// How much of a response body a record keeps.
const RECORD_BODY_LIMIT: usize = 4096;
/// Longest wait covenant honours from a `Retry-After`.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);
/// 429 answers retried before giving up.
const MAX_429_RETRIES: u32 = 3;

/// Settings of the client.
#[derive(Debug, Clone)]
pub struct TargetConfig {
    pub base_url: Url,
    pub timeout: Duration,
    pub max_body: u64,
    pub retries: u32,
    pub rate: Option<f64>,
    pub max_requests: Option<u64>,
    pub ca_cert: Option<Vec<u8>>,
    pub insecure: bool,
    /// Values that must never appear in a record.
    pub secrets: Vec<String>,
}

/// A target that cannot even be set up (bad CA file, bad URL).
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("--ca-cert: not a PEM certificate: {0}")]
    CaCert(String),
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("the path {0:?} does not join onto the base URL")]
    Path(String),
}

/// A request body.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Json(Value),
    /// Raw bytes with an optional content type (malformed bodies, wrong types).
    Raw {
        bytes: Vec<u8>,
        content_type: Option<String>,
    },
}

/// A request, relative to the target's base URL.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: reqwest::Method,
    /// Path and query, e.g. `/finops/v1/events?limit=10`.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Body>,
}

impl Request {
    pub fn new(method: reqwest::Method, path: impl Into<String>) -> Request {
        Request {
            method,
            path: path.into(),
            headers: Vec::new(),
            body: None,
        }
    }
    pub fn get(path: impl Into<String>) -> Request {
        Request::new(reqwest::Method::GET, path)
    }
    pub fn post(path: impl Into<String>, body: Value) -> Request {
        Request::new(reqwest::Method::POST, path).json(body)
    }
    pub fn patch(path: impl Into<String>, body: Value) -> Request {
        Request::new(reqwest::Method::PATCH, path).json(body)
    }
    pub fn delete(path: impl Into<String>) -> Request {
        Request::new(reqwest::Method::DELETE, path)
    }
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Request {
        self.headers.push((name.into(), value.into()));
        self
    }
    /// Removes every header of this name (case-insensitive).
    pub fn without_header(mut self, name: &str) -> Request {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }
    /// Replaces the header of this name, or adds it.
    pub fn with_header(self, name: &str, value: impl Into<String>) -> Request {
        self.without_header(name).header(name, value)
    }
    pub fn json(mut self, body: Value) -> Request {
        self.body = Some(Body::Json(body));
        self
    }
    pub fn raw(mut self, bytes: impl Into<Vec<u8>>, content_type: Option<&str>) -> Request {
        self.body = Some(Body::Raw {
            bytes: bytes.into(),
            content_type: content_type.map(Into::into),
        });
        self
    }
    fn is_idempotent_read(&self) -> bool {
        self.method == reqwest::Method::GET || self.method == reqwest::Method::HEAD
    }
}

/// A response, read in full (up to `max_body`).
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body parsed as JSON, when it is JSON.
    pub json: Option<Value>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
    pub fn is_client_error(&self) -> bool {
        (400..500).contains(&self.status)
    }
    /// A field of the JSON body by pointer.
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        self.json.as_ref().and_then(|j| j.pointer(pointer))
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Why a request produced no usable response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SendError {
    #[error("request budget reached (--max-requests)")]
    BudgetExhausted,
    #[error("the run is stopping")]
    Stopped,
    #[error("{0}")]
    Transport(String),
    #[error("timed out after {0:.1} s (--timeout)")]
    Timeout(f64),
    #[error("response body exceeds {0} bytes (--max-body)")]
    TooLarge(u64),
}

/// The client for one target.
pub struct Target {
    client: reqwest::Client,
    config: TargetConfig,
    limiter: Option<RateLimiter>,
    budget: Budget,
}

impl Target {
    pub fn new(config: TargetConfig) -> Result<Arc<Target>, TargetError> {
        let origin = config.base_url.origin();
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 5 || attempt.url().origin() != origin {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        let mut builder = reqwest::Client::builder()
            .redirect(policy)
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .pool_max_idle_per_host(64)
            .user_agent(concat!("covenant/", env!("CARGO_PKG_VERSION")));
        if let Some(pem) = &config.ca_cert {
            let cert = reqwest::Certificate::from_pem(pem)
                .map_err(|e| TargetError::CaCert(e.to_string()))?;
            builder = builder.add_root_certificate(cert);
        }
        if config.insecure {
            builder = builder.danger_accept_invalid_certs(true);
        }
        let client = builder
            .build()
            .map_err(|e| TargetError::Client(e.to_string()))?;
        let limiter = config.rate.filter(|r| *r > 0.0).map(RateLimiter::new);
        let budget = Budget::new(config.max_requests);
        Ok(Arc::new(Target {
            client,
            config,
            limiter,
            budget,
        }))
    }

    pub fn base_url(&self) -> &Url {
        &self.config.base_url
    }

    pub fn secrets(&self) -> &[String] {
        &self.config.secrets
    }

    /// Requests sent so far (retries included).
    pub fn requests_sent(&self) -> u64 {
        self.budget.used()
    }

    /// Stops all further sends: they fail with [`SendError::Stopped`].
    pub fn stop(&self) {
        self.budget.stop();
    }

    pub fn is_stopped(&self) -> bool {
        self.budget.is_stopped()
    }

    /// The absolute URL of a path.
    pub fn url(&self, path: &str) -> Result<Url, TargetError> {
        let base = self.config.base_url.as_str().trim_end_matches('/');
        Url::parse(&format!("{base}{path}")).map_err(|_| TargetError::Path(path.to_owned()))
    }

    /// Sends a request and records the exchange. Never panics, whatever the target does.
    pub async fn send(&self, request: &Request) -> (Exchange, Result<Response, SendError>) {
        let started = Instant::now();
        let record = self.record_request(request);
        let mut retries = 0;
        let outcome = loop {
            let outcome = self.send_once(request).await;
            match self.retry_delay(request, &outcome, retries) {
                Some(delay) => {
                    retries += 1;
                    tokio::time::sleep(delay).await;
                }
                None => break outcome,
            }
        };
        let exchange = Exchange {
            request: record,
            response: outcome.as_ref().ok().map(|r| self.record_response(r)),
            error: outcome.as_ref().err().map(|e| e.to_string()),
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            retries,
        };
        (exchange, outcome)
    }

    fn retry_delay(
        &self,
        request: &Request,
        outcome: &Result<Response, SendError>,
        done: u32,
    ) -> Option<Duration> {
        if self.budget.is_stopped() {
            return None;
        }
        match outcome {
            Ok(r) if r.status == 429 && done < MAX_429_RETRIES => Some(
                retry_after(r)
                    .unwrap_or(Duration::from_millis(500))
                    .min(MAX_RETRY_AFTER),
            ),
            Ok(r)
                if r.status >= 500
                    && request.is_idempotent_read()
                    && done < self.config.retries =>
            {
                Some(backoff(done))
            }
            Err(SendError::Transport(_) | SendError::Timeout(_))
                if request.is_idempotent_read() && done < self.config.retries =>
            {
                Some(backoff(done))
            }
            _ => None,
        }
    }

    async fn send_once(&self, request: &Request) -> Result<Response, SendError> {
        if !self.budget.take() {
            return Err(if self.budget.is_stopped() {
                SendError::Stopped
            } else {
                SendError::BudgetExhausted
            });
        }
        if let Some(limiter) = &self.limiter {
            limiter.acquire().await;
        }
        let url = self
            .url(&request.path)
            .map_err(|e| SendError::Transport(e.to_string()))?;
        let mut builder = self.client.request(request.method.clone(), url);
        builder = builder.headers(header_map(&request.headers)?);
        builder = match &request.body {
            None => builder,
            Some(Body::Json(v)) => builder.json(v),
            Some(Body::Raw {
                bytes,
                content_type,
            }) => {
                let b = builder.body(bytes.clone());
                match content_type {
                    Some(ct) => b.header(reqwest::header::CONTENT_TYPE, ct),
                    None => b,
                }
            }
        };
        let timeout = self.config.timeout;
        match tokio::time::timeout(timeout, self.read(builder)).await {
            Ok(result) => result,
            Err(_) => Err(SendError::Timeout(timeout.as_secs_f64())),
        }
    }

    async fn read(&self, builder: reqwest::RequestBuilder) -> Result<Response, SendError> {
        let mut response = builder.send().await.map_err(|e| transport_error(&e))?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| transport_error(&e))? {
            if (body.len() + chunk.len()) as u64 > self.config.max_body {
                return Err(SendError::TooLarge(self.config.max_body));
            }
            body.extend_from_slice(&chunk);
        }
        let json = serde_json::from_slice(&body).ok();
        Ok(Response {
            status,
            headers,
            body,
            json,
        })
    }

    fn record_request(&self, request: &Request) -> RequestRecord {
        let url = self
            .url(&request.path)
            .map(|u| u.to_string())
            .unwrap_or_else(|_| request.path.clone());
        let mut headers = request.headers.clone();
        let body = match &request.body {
            None => None,
            Some(Body::Json(v)) => {
                headers.push(("content-type".into(), "application/json".into()));
                Some(v.to_string())
            }
            Some(Body::Raw {
                bytes,
                content_type,
            }) => {
                if let Some(ct) = content_type {
                    headers.push(("content-type".into(), ct.clone()));
                }
                Some(String::from_utf8_lossy(bytes).into_owned())
            }
        };
        let secrets = &self.config.secrets;
        let headers: Vec<(String, String)> = headers
            .into_iter()
            .map(|(n, v)| (n.clone(), redact_header(&n, &v, secrets)))
            .collect();
        let body = body.map(|b| redact(&b, secrets));
        let url = redact(&url, secrets);
        let curl = curl_command(request.method.as_str(), &url, &headers, body.as_deref());
        RequestRecord {
            method: request.method.to_string(),
            url,
            headers,
            body,
            curl,
        }
    }

    fn record_response(&self, response: &Response) -> ResponseRecord {
        let secrets = &self.config.secrets;
        let text = response.text();
        let truncated = text.len() > RECORD_BODY_LIMIT;
        let mut body = if truncated {
            let mut end = RECORD_BODY_LIMIT;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_owned()
        } else {
            text
        };
        body = redact(&body, secrets);
        let headers = response
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), redact_header(n, v, secrets)))
            .collect();
        ResponseRecord {
            status: response.status,
            headers,
            body,
            truncated,
        }
    }
}

fn redact_header(name: &str, value: &str, secrets: &[String]) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" || lower == "proxy-authorization" {
        match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} {}", crate::profile::REDACTED),
            None => crate::profile::REDACTED.to_owned(),
        }
    } else {
        redact(value, secrets)
    }
}

fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, SendError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| SendError::Transport(format!("invalid header name {name:?}")))?;
        let value = HeaderValue::from_bytes(value.as_bytes())
            .map_err(|_| SendError::Transport(format!("invalid value for header {name}")))?;
        map.append(name, value);
    }
    Ok(map)
}

fn transport_error(error: &reqwest::Error) -> SendError {
    if error.is_timeout() {
        return SendError::Timeout(0.0);
    }
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(s) = source {
        message = format!("{message}: {s}");
        source = s.source();
    }
    SendError::Transport(message)
}

fn retry_after(response: &Response) -> Option<Duration> {
    let value = response.header("retry-after")?.trim();
    value.parse::<u64>().ok().map(Duration::from_secs)
}

fn backoff(done: u32) -> Duration {
    Duration::from_millis(100 * 2u64.pow(done.min(6)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_is_redacted_but_keeps_its_scheme() {
        assert_eq!(
            redact_header("Authorization", "Bearer abc", &[]),
            "Bearer ***"
        );
        assert_eq!(
            redact_header("x-other", "has abc inside", &["abc".into()]),
            "has *** inside"
        );
    }

    #[test]
    fn numeric_retry_after_is_read() {
        let r = Response {
            status: 429,
            headers: vec![("Retry-After".into(), "2".into())],
            body: vec![],
            json: None,
        };
        assert_eq!(retry_after(&r), Some(Duration::from_secs(2)));
    }
}
