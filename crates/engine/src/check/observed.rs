//! One exchange as a client had it ([`Observed`]), read from real traffic (`covenant proxy`, a
//! HAR file) or made by the explorer for a request it sends on purpose: what [`super::slips`]
//! judges of the client's request, and the generic checks of the target's answer.

use crate::client::{Body, Request, Response};

/// The most bytes of one body covenant keeps to judge; the client gets every byte whatever the
/// size, and a longer answer is judged on its status alone.
pub const KEPT_BODY: usize = 1 << 20;

/// One exchange as a client had it: what it sent, and what came back.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub method: String,
    /// The path and query as the client sent them (`/finops/v1/events?limit=2`).
    pub target: String,
    pub request_headers: Vec<(String, String)>,
    pub request_body: Vec<u8>,
    /// `None`: no answer came (the target was unreachable or the connection broke).
    pub answer: Option<Answer>,
    /// Where no answer came: what happened, in words (`the target refused the connection`).
    pub failure: Option<String>,
    /// Where the request went (`https://api.example/base`), where it is not the judge's base
    /// URL: a HAR entry keeps its own, so that its record and curl point where it went.
    pub origin: Option<String>,
    /// The request went to another origin than the target's: counted, never judged.
    pub outside: bool,
    pub duration_ms: f64,
}

/// The target's answer, its body kept up to [`KEPT_BODY`].
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body was longer than what was kept: only the status is judged.
    pub cut: bool,
    /// The file holds no body of this answer (not recorded, or in an encoding covenant cannot
    /// read): only the status is judged, and its body checks are named as not judged.
    pub unrecorded: bool,
}

impl Observed {
    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split(['?', '#']).next().unwrap_or("")
    }

    /// The query's pairs, decoded, in order.
    pub fn query(&self) -> Vec<(String, String)> {
        match self.target.split_once('?') {
            Some((_, query)) => url::form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect(),
            None => Vec::new(),
        }
    }

    /// A request header's value (names are case-insensitive).
    pub fn request_header(&self, name: &str) -> Option<&str> {
        header(&self.request_headers, name)
    }

    /// The request as the checks read it.
    pub fn request(&self) -> Request {
        let method =
            reqwest::Method::from_bytes(self.method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let mut request = Request::new(method, self.target.clone());
        request.headers = self.request_headers.clone();
        if !self.request_body.is_empty() {
            request.body = Some(match serde_json::from_slice(&self.request_body) {
                Ok(json) => Body::Json(json),
                Err(_) => Body::Raw {
                    bytes: self.request_body.clone(),
                    content_type: self.request_header("content-type").map(str::to_owned),
                },
            });
        }
        request
    }
}

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

impl Answer {
    /// Whether only the status can be judged: the body was cut or not recorded.
    pub fn status_only(&self) -> bool {
        self.cut || self.unrecorded
    }

    /// The answer as the checks read it (a cut body is read as none).
    pub fn response(&self) -> Response {
        let body = if self.status_only() {
            Vec::new()
        } else {
            self.body.clone()
        };
        let json = serde_json::from_slice(&body).ok();
        Response {
            status: self.status,
            headers: self.headers.clone(),
            body,
            json,
        }
    }
}
