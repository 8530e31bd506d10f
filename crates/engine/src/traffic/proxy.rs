//! The validating proxy: forwards each request to the target and the target's answer back
//! unchanged, and hands a copy of the exchange to a [`Judge`] off the client's path.
//!
//! What the client gets is what the target said: the status, the headers (hop-by-hop ones
//! aside, as any proxy does), and every byte of the body as it comes, however long or slow it
//! is; a redirect is passed back, never followed. Covenant keeps at most [`KEPT_BODY`] bytes of
//! a body to judge. This is a forwarder, not covenant's client: it sends only what a client
//! sent, with the client's own credentials, and adds nothing of its own.

use super::{Answer, Judge, Observed, Said, KEPT_BODY};
use crate::client::{hyper_client, HyperClient, Trust};
use axum::body::{Body, Bytes, HttpBody};
use axum::http::uri::{Authority, PathAndQuery, Scheme};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::serve::ListenerExt;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The largest request body passed on (a client sending more gets a 413 from the proxy).
const MAX_REQUEST_BODY: usize = 64 << 20;
/// Exchanges waiting for the judge at most; more are passed on and counted, not judged, so that
/// a judge behind the traffic never slows a client nor holds memory without bound.
const QUEUED: usize = 16_384;
/// How long the proxy waits for the target to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the judge lets exchanges gather once woken before it judges them all: one wake-up
/// of its thread for a burst of exchanges, not one per exchange (see [`judge_all`]).
const GATHER: Duration = Duration::from_millis(5);

/// The forwarding client: hyper's own (the one reqwest wraps, without reqwest's URL parsing,
/// default headers and layers on every request), HTTP/1.1 to an `http` or `https` target.
type ForwardingClient = HyperClient<Full<Bytes>>;

/// Where the proxy listens and where it forwards to.
pub struct ProxyConfig {
    pub listen: SocketAddr,
    /// The target's base URL; a request's path and query are appended to it.
    pub target: url::Url,
    /// How long a client waits for the target's answer (its status and headers, and a short
    /// body) before the proxy answers it 504 itself.
    pub timeout: Duration,
}

/// A proxy listening, with its judge behind it.
pub struct RunningProxy {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
    judging: std::thread::JoinHandle<Judge>,
    shared: Arc<Shared>,
}

/// What reaches the judge: an exchange, or the word that the proxy has stopped.
enum Passed {
    Exchange(Box<Forwarded>),
    Stopped,
}

/// An exchange as forwarding saw it, in the types it had at hand (moved or shared, never
/// copied on the client's path); the judge's thread turns it into an [`Observed`].
struct Forwarded {
    method: Method,
    target: String,
    headers: HeaderMap,
    body: Bytes,
    answer: Option<Heard>,
    failure: Option<String>,
    /// The origin an absolute-form request named (a client using the proxy as its HTTP
    /// proxy), where it is not the target's: passed on as ever, never judged.
    elsewhere: Option<String>,
    duration_ms: f64,
}

/// The target's answer as it was passed on: its first [`KEPT_BODY`] bytes.
struct Heard {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
    cut: bool,
}

struct Shared {
    client: ForwardingClient,
    /// The target's scheme, host and port, and its base path without the trailing slash
    /// (empty at the root): a request's path and query go after it.
    scheme: Scheme,
    authority: Authority,
    base_path: String,
    exchanges: mpsc::Sender<Passed>,
    timeout: Duration,
    /// Exchanges passed on while the judge was [`QUEUED`] behind.
    unjudged: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// Hands an exchange to the judge, or counts it when the judge is too far behind.
    fn judge(&self, seen: Forwarded) {
        if self
            .exchanges
            .try_send(Passed::Exchange(Box::new(seen)))
            .is_err()
        {
            self.unjudged
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The origin an absolute-form request URI names, where it is not the target's.
    fn elsewhere(&self, uri: &Uri) -> Option<String> {
        let authority = uri.authority()?;
        let scheme = uri.scheme().unwrap_or(&self.scheme);
        let same = authority
            .as_str()
            .eq_ignore_ascii_case(self.authority.as_str())
            && scheme == &self.scheme;
        (!same).then(|| format!("{scheme}://{authority}"))
    }

    /// Where a request for `target` (a path and query) goes.
    fn uri(&self, target: &PathAndQuery) -> Result<Uri, axum::http::Error> {
        let path_and_query = if self.base_path.is_empty() {
            target.clone()
        } else {
            PathAndQuery::try_from(format!("{}{target}", self.base_path))?
        };
        Uri::builder()
            .scheme(self.scheme.clone())
            .authority(self.authority.clone())
            .path_and_query(path_and_query)
            .build()
    }
}

/// The forwarding client (`client::hyper_client`): keeps connections to the target alive,
/// follows no redirect and decodes nothing (the answer's bytes go to the client as the target
/// coded them; the judge reads a decoded copy). An `https` target's certificate is verified as
/// reqwest does, by the platform's roots.
fn client() -> std::io::Result<ForwardingClient> {
    let trust = Trust {
        insecure: false,
        system: true,
        ca_cert: None,
    };
    hyper_client(trust, CONNECT_TIMEOUT, false).map_err(std::io::Error::other)
}

/// Starts the proxy on `config.listen`; each exchange is judged by `judge` in the order it
/// ended, and `tell` hears what it found as it is found.
pub async fn start(
    config: ProxyConfig,
    judge: Judge,
    tell: impl Fn(Vec<Said>) + Send + 'static,
) -> std::io::Result<RunningProxy> {
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let base = Uri::try_from(config.target.as_str()).map_err(std::io::Error::other)?;
    let (Some(scheme), Some(authority)) = (base.scheme(), base.authority()) else {
        return Err(std::io::Error::other(format!(
            "{}: not a URL with a scheme and a host",
            config.target
        )));
    };
    let (exchanges, judged) = mpsc::channel::<Passed>(QUEUED);
    let judging = std::thread::Builder::new()
        .name("covenant-judge".to_owned())
        .spawn(move || judge_all(judged, judge, tell))?;
    let shared = Arc::new(Shared {
        client: client()?,
        scheme: scheme.clone(),
        authority: authority.clone(),
        base_path: base.path().trim_end_matches('/').to_owned(),
        exchanges,
        timeout: config.timeout,
        unjudged: std::sync::atomic::AtomicU64::new(0),
    });
    let app = axum::Router::new()
        .fallback(forward)
        .with_state(shared.clone());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let timeout = config.timeout;
    let server = tokio::spawn(async move {
        // Each answer leaves at once: no small write waits on Nagle's algorithm for an ACK.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let serving = axum::serve(listener, app).with_graceful_shutdown(async {
            let _ = stopped.await;
        });
        let serving = std::future::IntoFuture::into_future(serving);
        tokio::select! {
            _ = serving => {}
            () = keep_a_deadline_ahead(timeout) => {}
        }
    });
    Ok(RunningProxy {
        addr,
        stop,
        server,
        judging,
        shared,
    })
}

/// Keeps a timer due within half the `--timeout` armed, for as long as the proxy serves.
/// Arming an exchange's deadline later than every timer the runtime's driver will wake for
/// makes tokio wake the driver (a write to its eventfd and one more `epoll_wait`, on every
/// exchange); with this timer always due before any exchange's deadline, it never has to.
async fn keep_a_deadline_ahead(timeout: Duration) {
    let period = (timeout / 2).max(Duration::from_millis(1));
    loop {
        tokio::time::sleep(period).await;
    }
}
impl RunningProxy {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops listening, lets the exchanges in flight end (at most two seconds), judges what is
    /// left, and returns the judge with every verdict.
    pub async fn finish(self) -> Judge {
        let _ = self.stop.send(());
        let mut server = self.server;
        if tokio::time::timeout(Duration::from_secs(2), &mut server)
            .await
            .is_err()
        {
            server.abort();
        }
        // An answer still streaming holds a sender until it ends: judge what came, then stop.
        let _ = self.shared.exchanges.send(Passed::Stopped).await;
        let judging = self.judging;
        let mut judge = tokio::task::spawn_blocking(move || judging.join())
            .await
            .expect("joining the judge's thread")
            .expect("the judge never panics on what it is given");
        let unjudged = self
            .shared
            .unjudged
            .load(std::sync::atomic::Ordering::Relaxed);
        judge.unjudged(unjudged);
        judge
    }
}

/// The judge's own thread: judges each exchange in the order it ended until the proxy stops,
/// then what is still queued, and returns the judge. On a thread of its own rather than a task,
/// so that judging a burst never holds the runtime's worker from forwarding: the operating
/// system shares the cores between the two, and a client waits for no judging. Once woken it
/// lets [`GATHER`] pass and judges all that came: a sender wakes the judge's thread only when
/// it waits on an empty queue, a system call (and, on an idle core, a wake-up of that core) on
/// the client's path; gathered, that is once per burst of exchanges rather than once for each.
fn judge_all(
    mut judged: mpsc::Receiver<Passed>,
    mut judge: Judge,
    tell: impl Fn(Vec<Said>),
) -> Judge {
    yield_to_forwarding();
    loop {
        let passed = match judged.try_recv() {
            Ok(passed) => passed,
            Err(mpsc::error::TryRecvError::Disconnected) => break,
            Err(mpsc::error::TryRecvError::Empty) => {
                let Some(passed) = judged.blocking_recv() else {
                    break;
                };
                std::thread::sleep(GATHER);
                passed
            }
        };
        match passed {
            Passed::Exchange(seen) => {
                let said = judge.judge(&observed(*seen));
                if !said.is_empty() {
                    tell(said);
                }
            }
            // What ended before the stop is judged; nothing after it.
            Passed::Stopped => judged.close(),
        }
    }
    judge
}

/// How much lower the judge's thread is scheduled than the forwarding workers (a nice
/// increment): where the clients, the target and the proxy contend for the cores, forwarding
/// goes first and judging waits (a judge more than [`QUEUED`] behind lets exchanges pass on
/// unjudged, counted).
const JUDGE_NICENESS: i32 = 10;

/// Lowers the calling thread's scheduling priority by [`JUDGE_NICENESS`] (on Linux a thread's
/// nice value is its own), so that a client's exchange never waits for a judgement.
fn yield_to_forwarding() {
    // SAFETY: nice(3) changes only the calling thread's nice value on Linux; it reads no
    // memory of ours, and a failure leaves the priority as it was.
    unsafe {
        libc::nice(JUDGE_NICENESS);
    }
}

/// The exchange as the judge reads it, built on the judge's thread: the headers as text, the
/// bodies as bytes of their own, the answer's decoded.
fn observed(seen: Forwarded) -> Observed {
    Observed {
        method: seen.method.as_str().to_owned(),
        target: seen.target,
        request_headers: pairs(&seen.headers),
        request_body: seen.body.into(),
        answer: seen.answer.map(|heard| {
            let mut answer = Answer {
                status: heard.status.as_u16(),
                headers: pairs(&heard.headers),
                body: heard.body.into(),
                cut: heard.cut,
                unrecorded: false,
            };
            decode(&mut answer);
            answer
        }),
        failure: seen.failure,
        outside: seen.elsewhere.is_some(),
        origin: seen.elsewhere,
        duration_ms: seen.duration_ms,
    }
}

/// The kept body as the client reads it, decoded from its content coding (gzip, deflate); one
/// longer decoded than [`KEPT_BODY`] is judged on its status alone, as is one in a coding
/// covenant cannot decode.
fn decode(answer: &mut Answer) {
    if answer.cut || answer.unrecorded {
        return;
    }
    let body = std::mem::take(&mut answer.body);
    match crate::client::decoded(&answer.headers, body, KEPT_BODY as u64) {
        Ok(body) => answer.body = body,
        Err(crate::client::CodingError::TooLarge(_)) => answer.cut = true,
        Err(_) => answer.unrecorded = true,
    }
}

/// Forwards one request and answers with the target's answer.
async fn forward(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_REQUEST_BODY).await else {
        return plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "covenant proxy: the request body is larger than 64 MiB, or broke off",
        );
    };
    let target = parts
        .uri
        .path_and_query()
        .cloned()
        .unwrap_or_else(|| PathAndQuery::from_static("/"));
    let mut headers = end_to_end(&parts.headers);
    headers.remove(header::HOST);
    headers.remove(header::CONTENT_LENGTH);
    let seen = Forwarded {
        method: parts.method.clone(),
        target: target.as_str().to_owned(),
        headers: parts.headers,
        body: body.clone(),
        answer: None,
        failure: None,
        elsewhere: shared.elsewhere(&parts.uri),
        duration_ms: 0.0,
    };
    let uri = match shared.uri(&target) {
        Ok(uri) => uri,
        Err(e) => {
            let failure = format!("the request's path is no path of the target ({e})");
            return unanswered(seen, started, &shared, StatusCode::BAD_GATEWAY, failure);
        }
    };
    let mut request = axum::http::Request::new(Full::new(body));
    *request.method_mut() = parts.method;
    *request.uri_mut() = uri;
    *request.headers_mut() = headers;
    let sent = shared.client.request(request);
    let deadline = tokio::time::Instant::from_std(started) + shared.timeout;
    let (status, failure) = match tokio::time::timeout_at(deadline, sent).await {
        Ok(Ok(answer)) => return passed_on(answer, seen, started, deadline, shared).await,
        Ok(Err(e)) if e.is_connect() => (
            StatusCode::BAD_GATEWAY,
            format!(
                "the target refused the connection or could not be reached ({})",
                cause(&e)
            ),
        ),
        Ok(Err(e)) => (
            StatusCode::BAD_GATEWAY,
            format!(
                "the target's connection broke before it answered ({})",
                cause(&e)
            ),
        ),
        Err(_) => (
            StatusCode::GATEWAY_TIMEOUT,
            no_answer_within(shared.timeout),
        ),
    };
    unanswered(seen, started, &shared, status, failure)
}

/// No answer came: the exchange is judged as one (an error of the run), and the client hears
/// from the proxy what happened.
fn unanswered(
    mut seen: Forwarded,
    started: Instant,
    shared: &Shared,
    status: StatusCode,
    failure: String,
) -> axum::response::Response {
    let text = format!("covenant proxy: {failure}");
    seen.failure = Some(failure);
    seen.duration_ms = elapsed(started);
    shared.judge(seen);
    plain(status, &text)
}

fn no_answer_within(timeout: Duration) -> String {
    format!(
        "the target did not answer within {} s (--timeout)",
        timeout.as_secs_f64()
    )
}

/// The innermost cause of an error (`Connection refused (os error 111)`): the client's own
/// message says only that the connection failed.
fn cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut inner = error;
    while let Some(next) = inner.source() {
        inner = next;
    }
    inner.to_string()
}

/// The target's answer, passed back to the client: a short body read whole (within the
/// deadline) and judged, a long one streamed.
async fn passed_on(
    answer: axum::http::Response<Incoming>,
    mut seen: Forwarded,
    started: Instant,
    deadline: tokio::time::Instant,
    shared: Arc<Shared>,
) -> axum::response::Response {
    let (parts, answer) = answer.into_parts();
    let headers = end_to_end(&parts.headers);
    let short = answer
        .size_hint()
        .exact()
        .is_some_and(|n| n <= KEPT_BODY as u64);
    let body = if short {
        match tokio::time::timeout_at(deadline, answer.collect()).await {
            Err(_) => {
                let failure = no_answer_within(shared.timeout);
                return unanswered(seen, started, &shared, StatusCode::GATEWAY_TIMEOUT, failure);
            }
            Ok(Ok(collected)) => {
                let bytes = collected.to_bytes();
                seen.answer = Some(Heard {
                    status: parts.status,
                    headers: headers.clone(),
                    body: bytes.clone(),
                    cut: false,
                });
                seen.duration_ms = elapsed(started);
                shared.judge(seen);
                Body::from(bytes)
            }
            Ok(Err(e)) => {
                let failure = format!("the target's answer broke off ({})", cause(&e));
                return unanswered(seen, started, &shared, StatusCode::BAD_GATEWAY, failure);
            }
        }
    } else {
        let heard = Heard {
            status: parts.status,
            headers: headers.clone(),
            body: Bytes::new(),
            cut: false,
        };
        stream(answer, seen, heard, started, shared.clone())
    };
    let mut response = axum::response::Response::new(body);
    *response.status_mut() = parts.status;
    *response.headers_mut() = headers;
    response
}

/// A long or unsized answer passed on chunk by chunk as it comes; its first [`KEPT_BODY`]
/// bytes kept, and the exchange judged once it has ended.
fn stream(
    mut answer: Incoming,
    mut seen: Forwarded,
    mut heard: Heard,
    started: Instant,
    shared: Arc<Shared>,
) -> Body {
    let (chunks, passed) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        let mut kept = Vec::new();
        let complete = loop {
            match answer.frame().await {
                Some(Ok(frame)) => {
                    // Trailers are hop-by-hop here: the answer goes on without them.
                    let Ok(chunk) = frame.into_data() else {
                        continue;
                    };
                    let room = KEPT_BODY.saturating_sub(kept.len());
                    kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
                    heard.cut |= chunk.len() > room;
                    if chunks.send(Ok(chunk)).await.is_err() {
                        break false;
                    }
                }
                None => break true,
                Some(Err(e)) => {
                    let _ = chunks.send(Err(std::io::Error::other(e))).await;
                    break false;
                }
            }
        };
        // An answer that broke off (or that the client left) is no answer to judge.
        if !complete {
            seen.failure = Some("the answer broke off before its end".to_owned());
        }
        heard.body = kept.into();
        seen.answer = complete.then_some(heard);
        seen.duration_ms = elapsed(started);
        shared.judge(seen);
    });
    Body::from_stream(futures_util::stream::unfold(passed, |mut passed| async {
        passed.recv().await.map(|chunk| (chunk, passed))
    }))
}

/// The headers a proxy passes on: hop-by-hop ones (RFC 9110, 7.6.1), and those the
/// `Connection` header names, left out.
fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let named: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect();
    let hop = |name: &HeaderName| {
        matches!(
            name.as_str(),
            "connection"
                | "keep-alive"
                | "proxy-authenticate"
                | "proxy-authorization"
                | "proxy-connection"
                | "te"
                | "trailer"
                | "transfer-encoding"
                | "upgrade"
        ) || named.iter().any(|n| n == name.as_str())
    };
    let mut out = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        if !hop(name) {
            out.append(name.clone(), value.clone());
        }
    }
    out
}

fn pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

fn plain(status: StatusCode, text: &str) -> axum::response::Response {
    let mut response = axum::response::Response::new(Body::from(text.to_owned()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn elapsed(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_not_passed_on() {
        let mut headers = HeaderMap::new();
        headers.insert("connection", HeaderValue::from_static("keep-alive, x-hop"));
        headers.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        headers.insert("x-hop", HeaderValue::from_static("1"));
        headers.insert("transfer-encoding", HeaderValue::from_static("chunked"));
        headers.insert("authorization", HeaderValue::from_static("Bearer t"));
        headers.append("x-kept", HeaderValue::from_static("a"));
        headers.append("x-kept", HeaderValue::from_static("b"));
        let passed = end_to_end(&headers);
        let names: Vec<&str> = passed.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["authorization", "x-kept"]);
        assert_eq!(passed.get_all("x-kept").iter().count(), 2);
    }
}
