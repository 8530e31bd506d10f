//! The client for one target: building it, and sending a request at the run's pace, bounded,
//! retried where that is safe, and refused where `--read-only` or the run's stop forbid it.

use super::bare::Bare;
use super::coding::{self, CodingError};
use super::config::{ca_certificates, error_chain};
use super::endpoint::endpoint;
use super::lanes::{self, Urgency};
use super::pace::{Admission, Pacer, Refusal};
use super::record::{record_request, record_response};
use super::retry_after::{rate_limit, rate_limit_of};
use super::wire::head_and_body;
use super::{curl, Budget, Halt, Request, Response, SendError, TargetConfig, TargetError};
use crate::verdict::Exchange;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use url::Url;

/// Same-origin redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;
/// Tries of the OAuth token request while the target answers rate limits.
const SETUP_TRIES: u32 = 5;
/// The `User-Agent` of every request.
const USER_AGENT: &str = concat!("covenant/", env!("CARGO_PKG_VERSION"));
/// Paths whose parsed URL is kept; the cache starts over when full.
const URL_CACHE: usize = 512;

/// The client for one target.
pub struct Target {
    client: reqwest::Client,
    config: TargetConfig,
    /// When requests may start: `--rate`, and the pauses and pace the target's rate limits ask.
    pacer: Arc<Pacer>,
    budget: Arc<Budget>,
    /// The client of requests without the headers `client` adds to each (`Request::no_accept`).
    bare: Bare,
    /// `--concurrency` lanes every request goes through; `None`: sent directly.
    lanes: Option<lanes::Lanes<Built>>,
    /// Parsed URLs by path: a run sends thousands of requests to a few dozen paths, and parsing
    /// every URL afresh cost a twentieth of a run.
    urls: Mutex<HashMap<String, Url>>,
    /// `config.secrets`, looked for in one pass.
    redactor: Arc<curl::Redactor>,
}

/// A request built for one of the two clients, ready to leave.
enum Built {
    Client(reqwest::RequestBuilder),
    /// For the bare client, with its header names in title case or not.
    Bare(hyper::Request<reqwest::Body>, bool),
}

/// What [`Target::send`] knows of an exchange besides its outcome: enough to record it later.
#[derive(Debug)]
pub struct Sent {
    pub duration_ms: f64,
    /// Retries made before the outcome, rate-limit answers sent again included.
    pub retries: u32,
    /// The last rate-limit answer when the run stopped before one came through (the outcome is
    /// then [`SendError::Stopped`]) or the request was refused for `--max-refusal`
    /// ([`SendError::Refused`]).
    rate_limited: Option<Response>,
    /// Tries that went out, each counted against `--max-requests` (retries and rate-limited
    /// tries included); 0 when the budget, `--read-only` or a stop held the request back.
    pub tries: u32,
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
        super::tls_provider();
        let mut builder = reqwest::Client::builder()
            .redirect(policy)
            // No client-wide timeout: `bounded` already holds every request to --timeout, and a
            // second timer per request is work on the hot path that guards nothing more.
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .pool_max_idle_per_host(64)
            // Covenant retries itself, and counts what it sends: reqwest's own retries (of
            // refused HTTP/2 streams) are off, and with them its copy of every request.
            .retry(reqwest::retry::never().max_retries_per_request(0))
            // Nothing asked of the target that the request does not say (its curl shows every
            // header sent): answers are decoded by `coding`, whatever coding they come in.
            .no_gzip()
            .no_brotli()
            .no_deflate()
            .no_zstd()
            .user_agent(USER_AGENT);
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
        let pacer = Arc::new(Pacer::new(config.rate, config.max_refusal));
        let budget = Arc::new(Budget::new(config.max_requests));
        let max_in_flight = config.max_in_flight;
        let redactor = Arc::new(curl::Redactor::new(&config.secrets));
        let bare = Bare::new(&config);
        let direct = Arc::new(Target {
            client,
            bare,
            config,
            pacer,
            budget,
            lanes: None,
            urls: Mutex::default(),
            redactor,
        });
        let lanes = max_in_flight.and_then(|n| {
            let direct = direct.clone();
            lanes::Lanes::start(n, move |request, key| {
                let direct = direct.clone();
                async move { direct.execute(request, &key).await }
            })
        });
        Ok(Arc::new(Target {
            lanes,
            ..direct.same()
        }))
    }

    /// The same client, settings, rate limit, budget and lanes, with a cache of its own.
    fn same(&self) -> Target {
        Target {
            client: self.client.clone(),
            bare: self.bare.clone(),
            config: self.config.clone(),
            pacer: self.pacer.clone(),
            budget: self.budget.clone(),
            lanes: self.lanes.clone(),
            urls: Mutex::default(),
            redactor: self.redactor.clone(),
        }
    }

    /// The same target (client, rate limit, budget, stop flag) redacting more secrets, such as
    /// a token fetched after the client was built, its curls naming the secrets of `vars`.
    pub fn with_secrets(&self, extra: &[String], vars: super::ShellVars) -> Arc<Target> {
        let mut config = self.config.clone();
        config.shell_vars = vars;
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

    /// Whether the run may only read (`--read-only`): writes are refused before they are sent.
    pub fn read_only(&self) -> bool {
        self.config.read_only
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
        self.answered(admission, "GET /", status, retry_after.as_deref());
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
            let key = endpoint("POST", url.path());
            if let Some(until) = self.pacer.endpoint_pause(&key) {
                tokio::time::sleep_until(until).await;
            }
            let outcome = self
                .execute(
                    Built::Client(self.client.post(url.clone()).form(form)),
                    &key,
                )
                .await;
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
    /// `urgency` says which queue it waits in before a lane takes it.
    pub async fn send(
        &self,
        request: &Request,
        urgency: Urgency,
    ) -> (Sent, Result<Response, SendError>) {
        let started = Instant::now();
        let key = endpoint(request.method.as_str(), &request.path);
        let mut retries = 0;
        // The first refusal of this request, when it was refused.
        let mut refused: Option<Instant> = None;
        let mut last_refusal = None;
        let mut tries = 0;
        let outcome = loop {
            // An endpoint refusing alone holds only its own requests, outside the lanes.
            if let Some(until) = self.pacer.endpoint_pause(&key) {
                let wait = until.saturating_duration_since(tokio::time::Instant::now());
                if !self.pause(wait).await {
                    break Err(SendError::Stopped);
                }
            }
            let outcome = self.send_once(request, &key, &mut tries, urgency).await;
            // A rate-limit answer was not processed: the pacer has paused every lane (or this
            // endpoint's requests), and the request goes again once the pause is over, until an
            // answer comes through, the run stops (the deadline, an interrupt, covenant giving
            // up on the target), or it was refused for `--max-refusal`: then it ends unjudged.
            if outcome.as_ref().is_ok_and(|r| rate_limit(r).is_some()) {
                if self.budget.is_stopped() {
                    break outcome;
                }
                let tried = refused.get_or_insert_with(Instant::now).elapsed();
                let earlier = self.pacer.given_up(&key);
                if tried >= self.config.max_refusal || earlier.is_some() {
                    self.pacer.gave_up(&key, tried);
                    let seconds = earlier.unwrap_or(tried).max(tried).as_secs_f64();
                    last_refusal = outcome.ok();
                    break Err(SendError::Refused(seconds));
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
            Err(e @ SendError::Refused(_)) => (Err(e), last_refusal),
            other => (other, None),
        };
        let sent = Sent {
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            retries,
            rate_limited,
            tries,
        };
        (sent, outcome)
    }

    /// The record of an exchange [`Target::send`] made, with secrets redacted; the request
    /// becomes the record's.
    pub fn exchange(
        &self,
        request: Request,
        sent: &Sent,
        outcome: &Result<Response, SendError>,
    ) -> Exchange {
        let response = outcome.as_ref().ok().or(sent.rate_limited.as_ref());
        let url = self
            .url(&request.path)
            .map(|u| u.to_string())
            .unwrap_or_else(|_| request.path.clone());
        let redactor = &self.redactor;
        Exchange {
            request: record_request(request, &url, redactor, &self.config.shell_vars),
            response: response.map(|r| record_response(r, redactor)),
            error: outcome
                .as_ref()
                .err()
                .map(|e| self.redactor.redact(&e.to_string())),
            duration_ms: sent.duration_ms,
            retries: sent.retries,
        }
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
        let builder = self.build(request, url)?;
        let key = endpoint(request.method.as_str(), &request.path);
        self.execute(Built::Client(builder), &key)
            .await
            .map(Response::parsed)
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

    /// One try of `request`; `tries` counts it once the budget let it go.
    async fn send_once(
        &self,
        request: &Request,
        key: &str,
        tries: &mut u32,
        urgency: Urgency,
    ) -> Result<Response, SendError> {
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
        *tries += 1;
        let url = self
            .url(&request.path)
            .map_err(|e| SendError::Transport(e.to_string()))?;
        // Built and serialized here, parsed here: a lane only sends and reads.
        let builder = match request.no_accept || request.title_case {
            true => Built::Bare(bare_request(request, url)?, request.title_case),
            false => Built::Client(self.build(request, url)?),
        };
        let response = match &self.lanes {
            Some(lanes) => lanes.execute(builder, key, urgency).await,
            None => self.execute(builder, key).await,
        };
        response.map(Response::parsed)
    }

    /// `request` for the main client.
    fn build(&self, request: &Request, url: Url) -> Result<reqwest::RequestBuilder, SendError> {
        let (headers, body) = head_and_body(request)?;
        let builder = self
            .client
            .request(request.method.clone(), url)
            .headers(headers);
        Ok(match body {
            Some(bytes) => builder.body(bytes),
            None => builder,
        })
    }

    /// Sends a built request at the run's pace and reads its answer, unparsed; bounded by
    /// `--timeout` once it leaves. A lane runs this: a pause holds every lane.
    async fn execute(&self, builder: Built, key: &str) -> Result<Response, SendError> {
        let admission = self.admit().await?;
        let outcome = match builder {
            Built::Client(builder) => self.bounded(self.read(builder)).await,
            Built::Bare(request, titled) => {
                let read = async { self.read_body(self.bare.send(request, titled).await?).await };
                self.bounded(read).await
            }
        };
        if let Ok(response) = &outcome {
            self.answered(
                admission,
                key,
                response.status,
                response.header("retry-after"),
            );
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
    fn answered(&self, admission: Admission, key: &str, status: u16, retry_after: Option<&str>) {
        match rate_limit_of(status, retry_after) {
            None => self.pacer.came_through(key),
            Some(wait) => {
                if let Refusal::GiveUp(why) = self.pacer.refused(admission, key, status, wait) {
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
        self.read_body(self.head(builder).await?).await
    }

    /// Reads an answer's body, bounded by `--max-body`, and decodes it.
    async fn read_body(&self, mut response: reqwest::Response) -> Result<Response, SendError> {
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
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
        // Room for the whole body at once where its length is announced: read in chunks into a
        // growing vector, a body was copied as the vector grew, which held up to twice its size.
        let announced = response.content_length().unwrap_or(0).min(max);
        let mut body = Vec::with_capacity(usize::try_from(announced).unwrap_or(0));
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
        let body = coding::decoded(&headers, body, max).map_err(|e| match e {
            CodingError::TooLarge(max) => SendError::TooLarge(max),
            other => SendError::Transport(other.to_string()),
        })?;
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
}

/// `request` for the bare client, at `url`: its headers, its body and the body's content type,
/// and covenant's `User-Agent` and (unless it goes without) the `Accept: */*` as the main
/// client sends them; nothing else.
fn bare_request(request: &Request, url: Url) -> Result<hyper::Request<reqwest::Body>, SendError> {
    let (mut headers, body) = head_and_body(request)?;
    headers
        .entry(reqwest::header::USER_AGENT)
        .or_insert(reqwest::header::HeaderValue::from_static(USER_AGENT));
    if !request.no_accept {
        headers
            .entry(reqwest::header::ACCEPT)
            .or_insert(reqwest::header::HeaderValue::from_static("*/*"));
    }
    let mut built = hyper::Request::builder()
        .method(request.method.clone())
        .uri(url.as_str())
        .body(reqwest::Body::from(body.unwrap_or_default()))
        .map_err(|e| SendError::Transport(format!("cannot build the request: {e}")))?;
    *built.headers_mut() = headers;
    Ok(built)
}

fn backoff(done: u32) -> Duration {
    Duration::from_millis(100 * 2u64.pow(done.min(6)))
}
