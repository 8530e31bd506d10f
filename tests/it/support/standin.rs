//! Stand-ins: a proxy in front of an embedded reference of its own that changes requests and
//! answers as it is told, to play an implementation that keeps the contract with other choices
//! where the spec is silent (or that breaks one stated rule). Shared by the integration tests
//! that run the binary against such targets.

use axum::http::Method;
use covenant::reference::{start, ReferenceConfig, RunningReference};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a request looks like on its way in.
pub struct Incoming<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub body: &'a [u8],
    /// Read by the stand-ins of `tests/it/choices.rs` alone (the others include this file too).
    #[allow(dead_code)]
    pub headers: &'a axum::http::HeaderMap,
}

/// An answer: a status and a body (JSON unless a reply says otherwise).
pub type StandInAnswer = (u16, Vec<u8>);

type QueryFn = dyn Fn(&Incoming) -> Option<String> + Send + Sync;
type BodyFn = dyn Fn(&Incoming) -> Vec<u8> + Send + Sync;
type ReplyFn = dyn Fn(&Incoming) -> Option<StandInAnswer> + Send + Sync;
type AnswerFn = dyn Fn(&Incoming, StandInAnswer) -> StandInAnswer + Send + Sync;
type HoldFn = dyn Fn(&Incoming) -> Option<std::time::Duration> + Send + Sync;
type HeadersFn = dyn Fn(&Incoming) -> axum::http::HeaderMap + Send + Sync;
type LabelFn = dyn Fn(&Incoming, u16) -> Option<&'static str> + Send + Sync;
type AnswerHeadersFn = dyn Fn(&Incoming, u16, &mut axum::http::HeaderMap) + Send + Sync;

/// What the stand-in changes; each part defaults to passing things through.
pub struct Choices {
    /// The query sent behind (`None`: none).
    pub query: Box<QueryFn>,
    /// The body sent behind.
    pub body: Box<BodyFn>,
    /// An answer of the stand-in's own, without asking the reference behind.
    pub reply: Box<ReplyFn>,
    /// The reference's answer as the stand-in gives it.
    pub answer: Box<AnswerFn>,
    /// How long a request not replied to waits before it is sent behind: a slow operation,
    /// so that requests sent at once surely meet in flight, however loaded the machine.
    pub hold: Box<HoldFn>,
    /// The headers sent behind.
    pub headers: Box<HeadersFn>,
    /// The Content-Type of an answer of the given status (`None`: JSON when the body is JSON,
    /// else the reference's own).
    pub label: Box<LabelFn>,
    /// The headers of an answer of the given status, as the stand-in gives them (the
    /// reference's, its label applied, by default).
    pub answer_headers: Box<AnswerHeadersFn>,
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            query: Box::new(|seen| seen.query.map(str::to_owned)),
            body: Box::new(|seen| seen.body.to_vec()),
            reply: Box::new(|_| None),
            answer: Box::new(|_, answer| answer),
            hold: Box::new(|_| None),
            headers: Box::new(|seen| seen.headers.clone()),
            label: Box::new(|_, _| None),
            answer_headers: Box::new(|_, _, _| {}),
        }
    }
}

pub use super::{runtime, says, scratch};

/// A reference with fixtures of `seed`, and the path of the profile written for it.
pub fn reference(
    rt: &tokio::runtime::Runtime,
    seed: u64,
    dir: &Path,
    name: &str,
) -> (RunningReference, PathBuf) {
    let server = rt
        .block_on(start(ReferenceConfig {
            seed,
            ..ReferenceConfig::default()
        }))
        .expect("the reference starts");
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, server.profile().to_toml()).expect("write the profile");
    (server, path)
}

/// A stand-in making `choices` in front of a reference of its own with fixtures of `seed`; the
/// reference behind (to keep it running), and the path of the stand-in's profile, `dir/NAME.toml`.
pub fn stand_in(
    rt: &tokio::runtime::Runtime,
    seed: u64,
    dir: &Path,
    name: &str,
    choices: Choices,
) -> (RunningReference, PathBuf) {
    let (server, _) = reference(rt, seed, dir, &format!("{name}-behind"));
    let behind = server.base_url();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind the stand-in");
    let base = format!("http://{}", listener.local_addr().expect("an address"));
    let client = super::http()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let app = axum::Router::new()
        .fallback(forward)
        .with_state(Arc::new(StandInState {
            client,
            behind,
            choices,
        }));
    rt.spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let mut profile = server.profile().clone();
    profile.base_url = Some(base.clone());
    if let Some(oauth) = profile.banking.as_mut().and_then(|b| b.oauth.as_mut()) {
        oauth.token_url = format!("{base}/oauth/token");
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, profile.to_toml()).expect("write the profile");
    (server, path)
}

/// What a stand-in serves with: a client, the reference behind it, and the choices it plays.
struct StandInState {
    client: reqwest::Client,
    behind: String,
    choices: Choices,
}

/// Answers a request as the choices say: on its own, or by asking the reference behind.
async fn forward(
    axum::extract::State(proxy): axum::extract::State<Arc<StandInState>>,
    request: axum::extract::Request,
) -> axum::response::Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 16 << 20)
        .await
        .unwrap_or_default();
    let seen = Incoming {
        method: &parts.method,
        path: parts.uri.path(),
        query: parts.uri.query(),
        body: &body,
        headers: &parts.headers,
    };
    let choices = &proxy.choices;
    if let Some((status, bytes)) = (choices.reply)(&seen) {
        let label = (choices.label)(&seen, status);
        let mut response = respond(status, bytes, &reqwest::header::HeaderMap::new(), label);
        (choices.answer_headers)(&seen, status, response.headers_mut());
        return response;
    }
    if let Some(pause) = (choices.hold)(&seen) {
        tokio::time::sleep(pause).await;
    }
    let url = match (choices.query)(&seen) {
        Some(q) => format!("{}{}?{q}", proxy.behind, seen.path),
        None => format!("{}{}", proxy.behind, seen.path),
    };
    let mut sent = proxy
        .client
        .request(parts.method.clone(), url)
        .body((choices.body)(&seen));
    for (name, value) in &(choices.headers)(&seen) {
        if name != "host" && name != "content-length" {
            sent = sent.header(name, value);
        }
    }
    let answer = sent.send().await.expect("the reference behind answers");
    let status = answer.status().as_u16();
    let headers = answer.headers().clone();
    let bytes = answer.bytes().await.unwrap_or_default();
    let (status, bytes) = (choices.answer)(&seen, (status, bytes.to_vec()));
    let label = (choices.label)(&seen, status);
    let mut response = respond(status, bytes, &headers, label);
    (choices.answer_headers)(&seen, status, response.headers_mut());
    response
}

fn respond(
    status: u16,
    bytes: Vec<u8>,
    headers: &reqwest::header::HeaderMap,
    label: Option<&'static str>,
) -> axum::response::Response {
    let json = serde_json::from_slice::<serde_json::Value>(&bytes).is_ok();
    let mut response = axum::response::Response::new(axum::body::Body::from(bytes));
    *response.status_mut() = axum::http::StatusCode::from_u16(status).expect("a status");
    for (name, value) in headers {
        if name != "content-length" && name != "transfer-encoding" {
            response.headers_mut().insert(name, value.clone());
        }
    }
    if let Some(label) = label.or(json.then_some("application/json")) {
        let value = axum::http::HeaderValue::from_static(label);
        response.headers_mut().insert("content-type", value);
    }
    response
}
