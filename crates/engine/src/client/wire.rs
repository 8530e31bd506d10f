//! What goes over the wire: a request as a case builds it, a response as it came back, and why a
//! request produced no usable response.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use serde_json::Value;
use std::borrow::Cow;

/// A request body.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Json(Value),
    /// Raw bytes with an optional content type (malformed bodies, wrong types).
    Raw {
        bytes: Vec<u8>,
        content_type: Option<String>,
    },
    /// A JSON value sent in a spelling of its own (another key order, other whitespace, a
    /// charset on the content type): the bytes go on the wire, the value is what they mean,
    /// for every check that reads a body.
    Spelled {
        value: Value,
        bytes: Vec<u8>,
        content_type: Option<String>,
    },
}

impl Body {
    /// The JSON value the body means, when it is one: a JSON body's, or a spelled one's.
    pub fn json(&self) -> Option<&Value> {
        match self {
            Body::Json(value) | Body::Spelled { value, .. } => Some(value),
            Body::Raw { .. } => None,
        }
    }

    /// The bytes the body goes on the wire as, and the content type it goes with: the one
    /// place both are worked out, for both clients and for the record. A JSON body is its
    /// compact text; raw and re-spelled bodies are their bytes as given.
    pub fn wire(&self) -> (Cow<'_, [u8]>, Option<ContentType<'_>>) {
        match self {
            Body::Json(v) => (
                Cow::Owned(serde_json::to_vec(v).expect("a JSON value serializes")),
                Some(ContentType::Json),
            ),
            Body::Raw {
                bytes,
                content_type,
            }
            | Body::Spelled {
                bytes,
                content_type,
                ..
            } => (
                Cow::Borrowed(bytes.as_slice()),
                content_type.as_deref().map(ContentType::Given),
            ),
        }
    }
}

/// The `Content-Type` a body goes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentType<'a> {
    /// `application/json`, for a JSON body, unless the request names a type of its own.
    Json,
    /// The type a raw or re-spelled body was given, added beside the request's own headers
    /// (a case that sends two types means to).
    Given(&'a str),
}

impl<'a> ContentType<'a> {
    /// The `Content-Type` value to add to a request whose headers name one already
    /// (`named`) or not; `None`: nothing to add.
    pub fn added(self, named: bool) -> Option<&'a str> {
        match self {
            ContentType::Json if named => None,
            ContentType::Json => Some("application/json"),
            ContentType::Given(value) => Some(value),
        }
    }
}

/// A request, relative to the target's base URL.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: reqwest::Method,
    /// Path and query, e.g. `/finops/v1/events?limit=10`.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Body>,
    /// Sent with no `Accept` header at all, not even the `*/*` an HTTP client adds to a
    /// request that names none (the spec allows a request without one).
    pub no_accept: bool,
    /// Sent with every header name in title case (`X-Finops-Version`), as its `headers` spell
    /// them, where a request otherwise goes with lower-case names: header names are
    /// case-insensitive (RFC 9110 §5.1).
    pub title_case: bool,
}

impl Request {
    pub fn new(method: reqwest::Method, path: impl Into<String>) -> Request {
        Request {
            method,
            path: path.into(),
            headers: Vec::new(),
            body: None,
            no_accept: false,
            title_case: false,
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
    /// With no `Accept` header at all: any the request names is removed, and none is added.
    pub fn without_accept(mut self) -> Request {
        self.no_accept = true;
        self.without_header("accept")
    }
    /// With every header name sent in title case (see [`Request::title_case`]), the names it
    /// carries so spelled, so that its record and curl show what went on the wire.
    pub fn title_case_names(mut self) -> Request {
        self.title_case = true;
        for (name, _) in &mut self.headers {
            *name = title_case(name);
        }
        self
    }
    pub fn json(mut self, body: Value) -> Request {
        self.body = Some(Body::Json(body));
        self
    }
    /// With the JSON `value` sent as `bytes`, a spelling of it of the caller's.
    pub fn spelled(mut self, value: Value, bytes: Vec<u8>, content_type: &str) -> Request {
        self.body = Some(Body::Spelled {
            value,
            bytes,
            content_type: Some(content_type.to_owned()),
        });
        self
    }
    pub fn raw(mut self, bytes: impl Into<Vec<u8>>, content_type: Option<&str>) -> Request {
        self.body = Some(Body::Raw {
            bytes: bytes.into(),
            content_type: content_type.map(Into::into),
        });
        self
    }
    pub(super) fn is_idempotent_read(&self) -> bool {
        self.method == reqwest::Method::GET || self.method == reqwest::Method::HEAD
    }
    /// Methods that change nothing on the server: the only ones `--read-only` lets through.
    pub(super) fn is_safe(&self) -> bool {
        self.is_idempotent_read() || self.method == reqwest::Method::OPTIONS
    }
}

/// A header name as hyper's title case writes it: the first letter and each after a hyphen in
/// upper case, the others in lower case (`x-finops-version` is `X-Finops-Version`).
fn title_case(name: &str) -> String {
    let mut upper = true;
    name.chars()
        .map(|c| {
            let c = match upper {
                true => c.to_ascii_uppercase(),
                false => c.to_ascii_lowercase(),
            };
            upper = c == '-';
            c
        })
        .collect()
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
    pub(super) fn parsed(mut self) -> Response {
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
    #[error("the target refused every try for {0:.0} s: rate-limited, not judged (429, or 503 with Retry-After; --max-refusal)")]
    Refused(f64),
    #[error("timed out after {0:.1} s (--timeout)")]
    Timeout(f64),
    #[error("response body exceeds {0} bytes (--max-body)")]
    TooLarge(u64),
    #[error("the target redirected to {0}, another origin; covenant follows redirects only within the target's origin and never sends credentials elsewhere")]
    CrossOriginRedirect(String),
}

pub(super) fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, SendError> {
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

/// A request's headers and its body's bytes as either client sends them, the body's content
/// type among the headers ([`Body::wire`]); no body, `None`.
pub(super) fn head_and_body(request: &Request) -> Result<(HeaderMap, Option<Vec<u8>>), SendError> {
    let mut headers = header_map(&request.headers)?;
    let Some(body) = &request.body else {
        return Ok((headers, None));
    };
    let (bytes, content_type) = body.wire();
    if let Some(ct) = content_type.and_then(|ct| ct.added(headers.contains_key(CONTENT_TYPE))) {
        let value = HeaderValue::from_str(ct)
            .map_err(|_| SendError::Transport(format!("invalid content type {ct:?}")))?;
        headers.append(CONTENT_TYPE, value);
    }
    Ok((headers, Some(bytes.into_owned())))
}

/// The first 300 characters of a body on one line (an HTML page's line breaks are spaces),
/// for messages: a finding is one line.
pub fn snippet(response: &Response) -> String {
    let text: String = response
        .text()
        .split(['\r', '\n'])
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
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
