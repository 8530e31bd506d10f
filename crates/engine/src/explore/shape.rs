//! The wire shape of one explorer request: one of the spellings the spec allows for the same
//! meaning, drawn from the seed per request, so that an answer that changes with the spelling
//! (not JSON only when the body's content type carries a charset, say) is met by some sequence.
//!
//! Drawn: the `Accept` header (`application/json`, `*/*`, or none at all: the client then sends
//! the request without one, through the client that adds no default, and its printed curl says
//! `-H 'Accept:'` so that curl leaves out its own `*/*` too);
//! `Accept-Encoding: identity` or none; a charset on the body's content type or not; the query
//! parameters in another order; the body's JSON keys in another order and other whitespace.
//! Every shape means what the plain request means: the answers are judged by the same rules,
//! under the same ids. A shape never changes what a request says, only how it is spelled.

use super::Model;
use crate::case::{Abort, CaseCx, Outgoing};
use crate::client::{Body, Response};
use proptest::prelude::Rng;
use serde_json::Value;

/// The `Accept` header a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcceptHeader {
    Json,
    Any,
    /// No `Accept` header at all.
    Unset,
}

/// How one request is spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestForm {
    pub accept: AcceptHeader,
    /// `Accept-Encoding: identity`.
    pub identity: bool,
    /// `application/json; charset=utf-8` on a body.
    pub charset: bool,
    /// The query parameters in reverse order.
    pub reverse_query: bool,
    /// Every object's keys in reverse order (a JSON body is otherwise sent with sorted keys).
    pub reverse_keys: bool,
    /// Line breaks and spaces between the body's tokens.
    pub spaced: bool,
}

impl RequestForm {
    /// The shape of the step's next request: the model counts it as sent.
    pub fn next(model: &mut Model) -> RequestForm {
        model.sent += 1;
        RequestForm::draw(model.seed, model.k, model.origin, model.sent - 1)
    }

    /// The shape of request `n` of the step drawn `step`-th in sequence `k` of a run seeded
    /// `seed`: the same whichever steps a shrink keeps around it.
    pub fn draw(seed: u64, k: u32, step: usize, n: usize) -> RequestForm {
        let mut rng = crate::generate::rng_for(seed, &format!("explore-{k}-shape-{step}-{n}"));
        let bits = rng.next_u32();
        let bit = |i: u32| (bits >> i) & 1 == 1;
        RequestForm {
            accept: match bits % 3 {
                0 => AcceptHeader::Json,
                1 => AcceptHeader::Any,
                _ => AcceptHeader::Unset,
            },
            identity: bit(2),
            charset: bit(3),
            reverse_query: bit(4),
            reverse_keys: bit(5),
            spaced: bit(6),
        }
    }

    /// `out` spelled in this shape.
    pub fn apply(self, mut out: Outgoing) -> Outgoing {
        out = match self.accept {
            AcceptHeader::Json => out.with_header("accept", "application/json"),
            AcceptHeader::Any => out.with_header("accept", "*/*"),
            AcceptHeader::Unset => {
                out.request = out.request.without_accept();
                out
            }
        };
        if self.identity {
            out = out.with_header("accept-encoding", "identity");
        }
        if self.reverse_query {
            out.request.path = reverse_query(&out.request.path);
        }
        let reshaped = self.charset || self.reverse_keys || self.spaced;
        if let (true, Some(Body::Json(body))) = (reshaped, &out.request.body) {
            let body = body.clone();
            let mut text = String::new();
            render(&body, self, 0, &mut text);
            let content_type = if self.charset {
                "application/json; charset=utf-8"
            } else {
                "application/json"
            };
            // The value stays beside its spelling: the checks that read a body judge it.
            out.request = out.request.spelled(body, text.into_bytes(), content_type);
        }
        out
    }
}

/// Sends `out` in the shape drawn for the step's next request.
pub async fn send(
    cx: &mut CaseCx,
    model: &mut Model,
    out: impl Into<Outgoing>,
) -> Result<Response, Abort> {
    let shaped = RequestForm::next(model).apply(out.into());
    cx.send(shaped).await
}

/// `path` with its query parameters in reverse order.
fn reverse_query(path: &str) -> String {
    match path.split_once('?') {
        Some((path, query)) => {
            let mut pairs: Vec<&str> = query.split('&').collect();
            pairs.reverse();
            format!("{path}?{}", pairs.join("&"))
        }
        None => path.to_owned(),
    }
}

/// `value` as JSON text in `shape`'s key order and whitespace, at nesting `depth`.
fn render(value: &Value, shape: RequestForm, depth: usize, out: &mut String) {
    let (open, close, items): (char, char, Vec<(Option<&String>, &Value)>) = match value {
        Value::Object(map) => ('{', '}', map.iter().map(|(k, v)| (Some(k), v)).collect()),
        Value::Array(items) => ('[', ']', items.iter().map(|v| (None, v)).collect()),
        other => {
            out.push_str(&other.to_string());
            return;
        }
    };
    let mut items = items;
    if shape.reverse_keys && open == '{' {
        items.reverse();
    }
    let indent = |out: &mut String, depth: usize| {
        if shape.spaced {
            out.push('\n');
            out.push_str(&"  ".repeat(depth));
        }
    };
    out.push(open);
    for (i, (key, item)) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        indent(out, depth + 1);
        if let Some(key) = key {
            out.push_str(&Value::String((*key).clone()).to_string());
            out.push_str(if shape.spaced { " : " } else { ":" });
        }
        render(item, shape, depth + 1, out);
    }
    if !items.is_empty() {
        indent(out, depth);
    }
    out.push(close);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_shape() -> Vec<RequestForm> {
        (0..32)
            .map(|k| RequestForm::draw(5, k, 1, 0))
            .collect::<Vec<_>>()
    }

    #[test]
    fn every_spelling_of_a_body_means_the_same_json() {
        let body =
            serde_json::json!({"type": "quote", "a": [1, {"b": null, "c": "x\"y"}], "e": {}});
        for shape in every_shape() {
            let mut text = String::new();
            render(&body, shape, 0, &mut text);
            let back: Value = serde_json::from_str(&text).expect("JSON");
            assert_eq!(back, body, "{shape:?}: {text}");
        }
        let mut text = String::new();
        let reversed = RequestForm {
            reverse_keys: true,
            spaced: false,
            ..every_shape()[0]
        };
        render(&serde_json::json!({"a": 1, "b": 2}), reversed, 0, &mut text);
        assert_eq!(text, r#"{"b":2,"a":1}"#);
    }

    #[test]
    fn draws_spread_over_every_choice_and_repeat_for_one_seed() {
        let shapes = every_shape();
        for accept in [AcceptHeader::Json, AcceptHeader::Any, AcceptHeader::Unset] {
            assert!(shapes.iter().any(|s| s.accept == accept));
        }
        assert!(shapes.iter().any(|s| s.charset) && shapes.iter().any(|s| !s.charset));
        assert_eq!(RequestForm::draw(5, 3, 1, 0), shapes[3]);
        assert_eq!(
            reverse_query("/e?limit=2&order=desc"),
            "/e?order=desc&limit=2"
        );
    }
}
