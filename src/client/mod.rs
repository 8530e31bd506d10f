//! The HTTP client for a target: every request covenant sends goes through [`Target`].
//!
//! It exists to make a stranger's server safe to talk to: one client with bounded timeouts
//! (connect, headers and body alike), a shared rate limit and request budget, bounded body reads,
//! same-origin redirects only (a redirect elsewhere is an error, so credentials never leave the
//! origin), bounded retries (GET only, on 5xx and transport errors), an adaptive pace
//! (`target::pace`: a 429, or a 503 with `Retry-After`, means "not processed, come back later":
//! every lane pauses, the run slows down, and the request is sent again until an answer comes
//! through or the run stops; a rate-limit answer never reaches a check), `--read-only` enforced
//! at the one place requests leave, a stop flag that refuses new requests and later abandons
//! those in flight, and records of every exchange with secrets redacted. A target misbehaving never
//! becomes a panic or an `Err` of the run: it becomes an [`Exchange`] with an `error`, which the
//! case turns into a verdict.

mod curl;
mod lanes;
mod limit;
mod pace;

pub use curl::{curl_command, redact, SecretFinder};
pub use limit::{Budget, Halt};
pub use pace::{MAX_PAUSE, MAX_REFUSED};

use pace::{Admission, Pacer, Refusal};

use crate::verdict::{Exchange, RequestRecord, ResponseRecord};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use url::Url;

/// How much of a response body a record keeps.
const RECORD_BODY_LIMIT: usize = 4096;
/// Same-origin redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;
/// Tries of the OAuth token request while the target answers rate limits.
const SETUP_TRIES: u32 = 5;
/// Paths whose parsed URL is kept; the cache starts over when full.
const URL_CACHE: usize = 512;

/// Settings of the client.
#[derive(Debug, Clone)]
pub struct TargetConfig {
    pub base_url: Url,
    pub timeout: Duration,
    pub max_body: u64,
    pub retries: u32,
    /// `--rate`: the pace never goes above it; without it, no pace until the target refuses.
    pub rate: Option<f64>,
    pub max_requests: Option<u64>,
    pub ca_cert: Option<Vec<u8>>,
    pub insecure: bool,
    /// Refuse every request but GET, HEAD and OPTIONS (`--read-only`).
    pub read_only: bool,
    /// Values that must never appear in a record.
    pub secrets: Vec<String>,
    /// Requests in flight at once, at most, across all cases (`--concurrency`); `None`: no cap.
    pub max_in_flight: Option<usize>,
    /// Whether any URL the run may reach is `https`: only then are the system's root
    /// certificates loaded (reading them took a third of a run's start).
    pub https: bool,
}

/// A target that cannot even be set up (bad CA file, bad URL).
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("not a PEM certificate ({0}); give a file holding -----BEGIN CERTIFICATE----- blocks")]
    CaCert(String),
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("the path {0:?} does not join onto the base URL")]
    Path(String),
}

/// What [`Target::send`] knows of an exchange besides its outcome: enough to record it later.
#[derive(Debug)]
pub struct Sent {
    pub duration_ms: f64,
    /// Retries made before the outcome, rate-limit answers sent again included.
    pub retries: u32,
    /// The last rate-limit answer when the run stopped before one came through (the outcome is
    /// then [`SendError::Stopped`]).
    rate_limited: Option<Response>,
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
    /// Methods that change nothing on the server: the only ones `--read-only` lets through.
    fn is_safe(&self) -> bool {
        self.is_idempotent_read() || self.method == reqwest::Method::OPTIONS
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
    /// The response with its body parsed as JSON, when it is JSON.
    fn parsed(mut self) -> Response {
        self.json = serde_json::from_slice(&self.body).ok();
        self
    }

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
    #[error("--read-only: covenant sends no {0} request in a read-only run")]
    ReadOnly(String),
    #[error("{0}")]
    Transport(String),
    #[error("timed out after {0:.1} s (--timeout)")]
    Timeout(f64),
    #[error("response body exceeds {0} bytes (--max-body)")]
    TooLarge(u64),
    #[error("the target redirected to {0}, another origin; covenant follows redirects only within the target's origin and never sends credentials elsewhere")]
    CrossOriginRedirect(String),
}

/// The client for one target.
pub struct Target {
    client: reqwest::Client,
    config: TargetConfig,
    /// When requests may start: `--rate`, and the pauses and pace the target's rate limits ask.
    pacer: Arc<Pacer>,
    budget: Arc<Budget>,
    /// `--concurrency` lanes every request goes through; `None`: sent directly.
    lanes: Option<lanes::Lanes>,
    /// Parsed URLs by path: a run sends thousands of requests to a few dozen paths, and parsing
    /// every URL afresh cost a twentieth of a run.
    urls: Mutex<HashMap<String, Url>>,
    /// `config.secrets`, looked for in one pass.
    redactor: Arc<curl::Redactor>,
}

impl Target {
    pub fn new(config: TargetConfig) -> Result<Arc<Target>, TargetError> {
        let origin = config.base_url.origin();
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.url().origin() != origin {
                // Returned as it is, and turned into an error of the case by `head`.
                attempt.stop()
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else {
                attempt.follow()
            }
        });
        let mut builder = reqwest::Client::builder()
            .redirect(policy)
            // No client-wide timeout: `bounded` already holds every request to --timeout, and a
            // second timer per request is work on the hot path that guards nothing more.
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .pool_max_idle_per_host(64)
            // Covenant retries itself, and counts what it sends: reqwest's own retries (of
            // refused HTTP/2 streams) are off, and with them its copy of every request.
            .retry(reqwest::retry::never().max_retries_per_request(0))
            .user_agent(concat!("covenant/", env!("CARGO_PKG_VERSION")));
        let extra = match &config.ca_cert {
            Some(pem) => ca_certificates(pem)?,
            None => Vec::new(),
        };
        builder = if config.https {
            builder.tls_certs_merge(extra)
        } else {
            builder.tls_certs_only(extra)
        };
        if config.insecure {
            builder = builder.danger_accept_invalid_certs(true);
        }
        let client = builder
            .build()
            .map_err(|e| TargetError::Client(error_chain(&e)))?;
        let pacer = Arc::new(Pacer::new(config.rate));
        let budget = Arc::new(Budget::new(config.max_requests));
        let max_in_flight = config.max_in_flight;
        let redactor = Arc::new(curl::Redactor::new(&config.secrets));
        let direct = Arc::new(Target {
            client,
            config,
            pacer,
            budget,
            lanes: None,
            urls: Mutex::default(),
            redactor,
        });
        let lanes = max_in_flight.and_then(|n| lanes::Lanes::start(direct.clone(), n));
        Ok(Arc::new(Target {
            lanes,
            ..direct.same()
        }))
    }

    /// The same client, settings, rate limit, budget and lanes, with a cache of its own.
    fn same(&self) -> Target {
        Target {
            client: self.client.clone(),
            config: self.config.clone(),
            pacer: self.pacer.clone(),
            budget: self.budget.clone(),
            lanes: self.lanes.clone(),
            urls: Mutex::default(),
            redactor: self.redactor.clone(),
        }
    }

    /// The same target (client, rate limit, budget, stop flag) redacting more secrets, such as
    /// a token fetched after the client was built.
    pub fn with_secrets(&self, extra: &[String]) -> Arc<Target> {
        let mut config = self.config.clone();
        for secret in extra.iter().filter(|s| !s.is_empty()) {
            if !config.secrets.contains(secret) {
                config.secrets.push(secret.clone());
            }
        }
        Arc::new(Target {
            redactor: Arc::new(curl::Redactor::new(&config.secrets)),
            config,
            ..self.same()
        })
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

    /// How the target's rate limits paced the run so far; `None` while it has refused nothing.
    pub fn pace(&self) -> Option<crate::verdict::Pace> {
        self.pacer.report()
    }

    /// Whether `--max-requests` is spent.
    pub fn budget_exhausted(&self) -> bool {
        self.budget.is_exhausted()
    }

    /// The `--max-requests` limit, if any.
    pub fn budget_limit(&self) -> Option<u64> {
        self.budget.limit()
    }

    /// Stops all further sends: they fail with [`SendError::Stopped`].
    pub fn stop(&self) {
        self.budget.stop("the run is stopping");
    }

    /// Stops all further sends, noting why (the first reason given is kept).
    pub fn stop_because(&self, reason: &str) {
        self.budget.stop(reason);
    }

    /// Abandons the requests in flight too: they end at once with [`SendError::Stopped`].
    pub fn cancel_in_flight(&self) {
        self.budget.cancel();
    }

    /// Why the target was stopped, once it was.
    pub fn stop_reason(&self) -> Option<String> {
        self.budget.reason()
    }

    pub fn is_stopped(&self) -> bool {
        self.budget.is_stopped()
    }

    /// The absolute URL of a path.
    pub fn url(&self, path: &str) -> Result<Url, TargetError> {
        if let Some(url) = self.lock_urls().get(path) {
            return Ok(url.clone());
        }
        let base = self.config.base_url.as_str().trim_end_matches('/');
        let url =
            Url::parse(&format!("{base}{path}")).map_err(|_| TargetError::Path(path.to_owned()))?;
        let mut urls = self.lock_urls();
        if urls.len() >= URL_CACHE {
            urls.clear();
        }
        urls.insert(path.to_owned(), url.clone());
        Ok(url)
    }

    fn lock_urls(&self) -> std::sync::MutexGuard<'_, HashMap<String, Url>> {
        // Inserts and clears are single calls: a poisoned cache is still a cache.
        self.urls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the target answers at all: `GET /`, any status, the body unread. Rate limited,
    /// but not counted against `--max-requests` and not recorded.
    pub async fn probe(&self) -> Result<u16, SendError> {
        let url = self
            .url("/")
            .map_err(|e| SendError::Transport(e.to_string()))?;
        let admission = self.admit().await?;
        let head = self.head(self.client.get(url));
        let response = self.bounded(head).await?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        self.answered(admission, status, retry_after.as_deref());
        Ok(status)
    }

    /// A form POST to `url` (the OAuth token endpoint), bounded like every request but neither
    /// counted against `--max-requests` nor recorded: its body holds a client secret.
    pub async fn post_form(&self, url: &str, form: &[(&str, &str)]) -> Result<Response, SendError> {
        let url = Url::parse(url).map_err(|e| SendError::Transport(format!("{url}: {e}")))?;
        // Sent again after a rate limit's pause, a few times: the deadline does not bound the
        // run's setup yet, and a profile problem must not be blamed on a busy token endpoint.
        let mut tries = 1;
        loop {
            let outcome = self.execute(self.client.post(url.clone()).form(form)).await;
            match &outcome {
                Ok(r) if rate_limit(r).is_some() && tries < SETUP_TRIES => tries += 1,
                Ok(r) if rate_limit(r).is_some() => {
                    return Err(SendError::Transport(format!(
                        "still answered {} (a rate limit) after {SETUP_TRIES} tries, each after \
                         its Retry-After",
                        r.status
                    )))
                }
                _ => return outcome.map(Response::parsed),
            }
        }
    }

    /// Sends a request. Never panics, whatever the target does. The exchange is recorded only
    /// on demand ([`Target::exchange`]): redacting and rendering a `curl` command for every
    /// request would cost more than sending it, and most exchanges are never kept.
    pub async fn send(&self, request: &Request) -> (Sent, Result<Response, SendError>) {
        let started = Instant::now();
        let mut retries = 0;
        let outcome = loop {
            let outcome = self.send_once(request).await;
            // A rate-limit answer was not processed: the pacer has paused every lane, and the
            // request goes again once the pause is over, until an answer comes through or the
            // run stops (the deadline, an interrupt, covenant giving up on the target).
            if outcome.as_ref().is_ok_and(|r| rate_limit(r).is_some()) {
                if self.budget.is_stopped() {
                    break outcome;
                }
                retries += 1;
                continue;
            }
            match self.retry_delay(request, &outcome, retries) {
                Some(delay) => {
                    retries += 1;
                    if !self.pause(delay).await {
                        break Err(SendError::Stopped);
                    }
                }
                None => break outcome,
            }
        };
        let (outcome, rate_limited) = match outcome {
            Ok(r) if rate_limit(&r).is_some() => (Err(SendError::Stopped), Some(r)),
            other => (other, None),
        };
        let sent = Sent {
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            retries,
            rate_limited,
        };
        (sent, outcome)
    }

    /// A read of the preflight: paced, bounded and redacted like any request, but never
    /// retried and not counted against `--max-requests`, the cases' budget (like the
    /// reachability probe and the OAuth token request). Only a safe method is sent.
    pub async fn preflight_read(&self, request: &Request) -> Result<Response, SendError> {
        if !request.is_safe() {
            return Err(SendError::ReadOnly(request.method.to_string()));
        }
        let url = self
            .url(&request.path)
            .map_err(|e| SendError::Transport(e.to_string()))?;
        let builder = self
            .client
            .request(request.method.clone(), url)
            .headers(header_map(&request.headers)?);
        self.execute(builder).await.map(Response::parsed)
    }

    /// The record of an exchange [`Target::send`] made, with secrets redacted.
    pub fn exchange(
        &self,
        request: &Request,
        sent: &Sent,
        outcome: &Result<Response, SendError>,
    ) -> Exchange {
        let response = outcome.as_ref().ok().or(sent.rate_limited.as_ref());
        Exchange {
            request: self.record_request(request),
            response: response.map(|r| self.record_response(r)),
            error: outcome
                .as_ref()
                .err()
                .map(|e| self.redactor.redact(&e.to_string())),
            duration_ms: sent.duration_ms,
            retries: sent.retries,
        }
    }

    /// Sleeps `delay` unless the run stops first (an interrupt, the deadline); false when it
    /// stopped.
    pub async fn pause(&self, delay: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(delay) => !self.budget.is_stopped(),
            _ = self.budget.reached(Halt::Stopped) => false,
        }
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
        if self.config.read_only && !request.is_safe() {
            return Err(SendError::ReadOnly(request.method.to_string()));
        }
        if !self.budget.take() {
            return Err(if self.budget.is_stopped() {
                SendError::Stopped
            } else {
                SendError::BudgetExhausted
            });
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
        // Built and serialized here, parsed here: a lane only sends and reads.
        let response = match &self.lanes {
            Some(lanes) => lanes.execute(builder).await,
            None => self.execute(builder).await,
        };
        response.map(Response::parsed)
    }

    /// Sends a built request at the run's pace and reads its answer, unparsed; bounded by
    /// `--timeout` once it leaves. A lane runs this: a pause holds every lane.
    async fn execute(&self, builder: reqwest::RequestBuilder) -> Result<Response, SendError> {
        let admission = self.admit().await?;
        let outcome = self.bounded(self.read(builder)).await;
        if let Ok(response) = &outcome {
            self.answered(admission, response.status, response.header("retry-after"));
        }
        outcome
    }

    /// Waits until the pace lets a request start; fails when the run stops meanwhile.
    async fn admit(&self) -> Result<Admission, SendError> {
        let admission = tokio::select! {
            admission = self.pacer.admit() => admission,
            _ = self.budget.reached(Halt::Stopped) => return Err(SendError::Stopped),
        };
        if self.budget.is_stopped() {
            return Err(SendError::Stopped);
        }
        Ok(admission)
    }

    /// Tells the pacer how a request it let through was answered; stops the run when covenant
    /// gives up on a target that only refuses.
    fn answered(&self, admission: Admission, status: u16, retry_after: Option<&str>) {
        match rate_limit_of(status, retry_after) {
            None => self.pacer.came_through(),
            Some(wait) => {
                if let Refusal::GiveUp(why) = self.pacer.refused(admission, status, wait) {
                    self.budget.stop(&why);
                }
            }
        }
    }

    /// Bounds a request by `--timeout` and by a cancelled run.
    async fn bounded<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, SendError>>,
    ) -> Result<T, SendError> {
        let timeout = self.config.timeout;
        tokio::select! {
            outcome = tokio::time::timeout(timeout, work) => {
                outcome.unwrap_or(Err(SendError::Timeout(timeout.as_secs_f64())))
            }
            _ = self.budget.reached(Halt::Cancelled) => Err(SendError::Stopped),
        }
    }

    /// Sends and waits for the status line and headers; refuses a redirect to another origin.
    async fn head(&self, builder: reqwest::RequestBuilder) -> Result<reqwest::Response, SendError> {
        let response = builder.send().await.map_err(|e| self.transport_error(&e))?;
        if response.status().is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            if let Some(location) = location {
                let to = response.url().join(&location).ok();
                if to.is_none_or(|to| to.origin() != self.config.base_url.origin()) {
                    return Err(SendError::CrossOriginRedirect(location));
                }
            }
        }
        Ok(response)
    }

    async fn read(&self, builder: reqwest::RequestBuilder) -> Result<Response, SendError> {
        let mut response = self.head(builder).await?;
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
        let max = self.config.max_body;
        if response.content_length().is_some_and(|n| n > max) {
            return Err(SendError::TooLarge(max));
        }
        let mut body = Vec::new();
        loop {
            let chunk = response.chunk().await.map_err(|e| match e.is_timeout() {
                true => SendError::Timeout(self.config.timeout.as_secs_f64()),
                false => SendError::Transport(format!(
                    "the response body broke off after {} bytes: {}",
                    body.len(),
                    error_chain(&e)
                )),
            })?;
            let Some(chunk) = chunk else { break };
            if (body.len() + chunk.len()) as u64 > max {
                return Err(SendError::TooLarge(max));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Response {
            status,
            headers,
            body,
            json: None,
        })
    }

    /// A transport error in words a user can act on, with the configured timeout and a hint for
    /// TLS trouble.
    fn transport_error(&self, error: &reqwest::Error) -> SendError {
        if error.is_timeout() {
            return SendError::Timeout(self.config.timeout.as_secs_f64());
        }
        let message = error_chain(error);
        let lower = message.to_ascii_lowercase();
        let tls = [
            "tls",
            "certificate",
            "handshake",
            "corrupt message",
            "invalidcontenttype",
        ]
        .iter()
        .any(|w| lower.contains(w));
        if tls && self.config.base_url.scheme() == "https" {
            return SendError::Transport(format!(
                "TLS error: {message} (does the target speak HTTPS? for a private CA give \
                 --ca-cert FILE; to test without verification, --insecure)"
            ));
        }
        SendError::Transport(message)
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
        let redactor = &self.redactor;
        let headers: Vec<(String, String)> = headers
            .into_iter()
            .map(|(n, v)| (n.clone(), redact_header(&n, &v, redactor)))
            .collect();
        let body = body.map(|b| redactor.redact(&b));
        let url = redactor.redact(&url);
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
        let redactor = &self.redactor;
        // Redact before cutting, so that a secret across the cut leaves no prefix behind.
        let text = redactor.redact(&response.text());
        let truncated = text.len() > RECORD_BODY_LIMIT;
        let body = if truncated {
            let mut end = RECORD_BODY_LIMIT;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_owned()
        } else {
            text
        };
        let headers = response
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), redact_header(n, v, redactor)))
            .collect();
        ResponseRecord {
            status: response.status,
            headers,
            body,
            truncated,
        }
    }
}

fn redact_header(name: &str, value: &str, redactor: &curl::Redactor) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" || lower == "proxy-authorization" {
        match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} {}", crate::profile::REDACTED),
            None => crate::profile::REDACTED.to_owned(),
        }
    } else {
        redactor.redact(value)
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

/// An error with its chain of causes, which is where reqwest keeps the useful part.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message = format!("{message}: {text}");
        }
        source = s.source();
    }
    message
}

/// The certificates of a PEM bundle; at least one, or an error.
fn ca_certificates(pem: &[u8]) -> Result<Vec<reqwest::Certificate>, TargetError> {
    let certs = reqwest::Certificate::from_pem_bundle(pem)
        .map_err(|e| TargetError::CaCert(error_chain(&e)))?;
    if certs.is_empty() {
        return Err(TargetError::CaCert("no certificate found".into()));
    }
    Ok(certs)
}

/// Whether an answer is a rate limit, and the pause it asks for: a 429, or a 503 with
/// `Retry-After` (a 503 without one is an error of the target, judged like any 5xx).
fn rate_limit(response: &Response) -> Option<Option<Duration>> {
    rate_limit_of(response.status, response.header("retry-after"))
}

fn rate_limit_of(status: u16, retry_after: Option<&str>) -> Option<Option<Duration>> {
    match (status, retry_after) {
        (429, value) => Some(value.and_then(parse_retry_after)),
        (503, Some(value)) => Some(parse_retry_after(value)),
        _ => None,
    }
}

/// A `Retry-After` value: seconds, or an HTTP date (RFC 9110, section 10.2.3); a date in the
/// past asks for no wait.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let at =
        time::OffsetDateTime::parse(value, &time::format_description::well_known::Rfc2822).ok()?;
    let wait = at - time::OffsetDateTime::now_utc();
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

fn backoff(done: u32) -> Duration {
    Duration::from_millis(100 * 2u64.pow(done.min(6)))
}

/// The first 300 characters of a body, for messages.
pub fn snippet(response: &Response) -> String {
    let text = response.text();
    let mut end = text.len().min(300);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len() {
        format!("{}…", &text[..end])
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_is_redacted_but_keeps_its_scheme() {
        assert_eq!(
            redact_header("Authorization", "Bearer abc", &curl::Redactor::new(&[])),
            "Bearer ***"
        );
        assert_eq!(
            redact_header(
                "x-other",
                "has abc inside",
                &curl::Redactor::new(&["abc".into()])
            ),
            "has *** inside"
        );
    }

    #[test]
    fn a_429_or_a_503_with_retry_after_is_a_rate_limit_in_seconds_or_as_a_date() {
        let answer = |status, retry_after: Option<&str>| Response {
            status,
            headers: retry_after
                .map(|v| ("Retry-After".to_owned(), v.to_owned()))
                .into_iter()
                .collect(),
            body: vec![],
            json: None,
        };
        assert_eq!(
            rate_limit(&answer(429, Some("2"))),
            Some(Some(Duration::from_secs(2)))
        );
        assert_eq!(rate_limit(&answer(429, None)), Some(None));
        assert_eq!(
            rate_limit(&answer(503, Some("1"))),
            Some(Some(Duration::from_secs(1)))
        );
        assert_eq!(rate_limit(&answer(503, None)), None, "a 503 alone is a 5xx");
        assert_eq!(rate_limit(&answer(500, Some("1"))), None);
        let past = rate_limit(&answer(429, Some("Sun, 06 Nov 1994 08:49:37 GMT")));
        assert_eq!(past, Some(Some(Duration::ZERO)), "an HTTP date in the past");
        let soon = time::OffsetDateTime::now_utc() + time::Duration::seconds(30);
        let date = soon
            .format(&time::format_description::well_known::Rfc2822)
            .expect("a date");
        let wait = parse_retry_after(&date).expect("an HTTP date is read");
        assert!(
            wait > Duration::from_secs(25) && wait <= Duration::from_secs(30),
            "{date}: {wait:?}"
        );
    }

    fn target(secrets: Vec<String>) -> Arc<Target> {
        Target::new(TargetConfig {
            base_url: Url::parse("http://127.0.0.1:9/base/").expect("a URL"),
            timeout: Duration::from_secs(1),
            max_body: 1024,
            retries: 0,
            rate: None,
            max_requests: None,
            ca_cert: None,
            insecure: false,
            read_only: false,
            max_in_flight: Some(8),
            https: false,
            secrets,
        })
        .expect("a client")
    }

    #[test]
    fn a_ca_file_without_certificates_is_refused() {
        assert!(ca_certificates(b"not a certificate").is_err());
        assert!(
            ca_certificates(b"-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n")
                .is_err()
        );
    }

    #[test]
    fn a_secret_across_the_record_cut_leaves_no_prefix_behind() {
        let secret = "SECRETSECRET".to_owned();
        let t = target(vec![secret.clone()]);
        let mut body = vec![b'a'; RECORD_BODY_LIMIT - 4];
        body.extend_from_slice(secret.as_bytes());
        body.extend_from_slice(&[b'a'; 100]);
        let record = t.record_response(&Response {
            status: 200,
            headers: Vec::new(),
            body,
            json: None,
        });
        assert!(record.truncated);
        assert!(!record.body.contains("SECR"), "{}", &record.body[4000..]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: 256,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5EC2E7),
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]

        /// Whatever a case sends and whatever comes back, recording it never panics and never
        /// keeps a secret (tokens as they look in practice: no `*`, which the mask is made of).
        #[test]
        fn recording_never_panics_and_never_keeps_a_secret(
            secret in "[A-Za-z0-9._~+/-]{4,24}",
            path in ".{0,40}",
            header_value in ".{0,40}",
            body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..6000),
            status in proptest::prelude::any::<u16>(),
            raw in proptest::prelude::any::<bool>(),
        ) {
            let t = target(vec![secret.clone()]);
            let mut request = Request::new(reqwest::Method::POST, format!("/{path}{secret}"))
                .header("authorization", format!("Bearer {secret}"))
                .header("x-echo", format!("{header_value}{secret}"));
            let mut sent = body.clone();
            sent.extend_from_slice(secret.as_bytes());
            request = if raw {
                request.raw(sent.clone(), Some("application/octet-stream"))
            } else {
                request.json(serde_json::Value::String(String::from_utf8_lossy(&sent).into_owned()))
            };
            let record = t.record_request(&request);
            let text = serde_json::to_string(&record).expect("a record serialises");
            proptest::prop_assert!(!text.contains(&secret), "{text}");
            let response = Response {
                status,
                headers: vec![("set-cookie".into(), format!("s={secret}"))],
                json: serde_json::from_slice(&sent).ok(),
                body: sent,
            };
            let record = t.record_response(&response);
            proptest::prop_assert!(record.body.len() <= RECORD_BODY_LIMIT);
            let text = serde_json::to_string(&record).expect("a record serialises");
            proptest::prop_assert!(!text.contains(&secret), "{text}");
        }
    }
}
