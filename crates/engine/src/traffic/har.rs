//! Recorded traffic: HAR 1.2 files as browsers, mitmproxy and Charles export them, read into
//! the exchanges [`super::Judge`] judges.
//!
//! Read leniently where exporters differ (HTTP/2 pseudo-headers, bodies in base64, bodies not
//! captured, failed requests recorded with status 0), strictly where the file is not HAR at all.

use super::{Answer, Observed, KEPT_BODY};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A HAR file that cannot be read. Each message names the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum HarError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a HAR file: {message}")]
    Malformed { path: PathBuf, message: String },
}

/// The exchanges of a HAR file, and where they went.
#[derive(Debug)]
pub struct Recorded {
    pub exchanges: Vec<Observed>,
    /// The origin (scheme, host and port) of the first entry of this API (its path fits an
    /// operation), else of the first entry: the target the traffic went to. Without a base
    /// URL, an entry to another origin is outside it, never judged.
    pub origin: Option<String>,
    /// The first and the last entry's `startedDateTime`, where the file gives them.
    pub from: Option<String>,
    pub to: Option<String>,
}

/// The exchanges of the HAR file at `path`, in the order recorded, each keeping where it went.
/// An entry whose URL starts with `base_url` is read relative to it (a target served under a
/// path prefix); with a `base_url`, any other went to another origin.
pub fn read(path: &Path, base_url: Option<&str>) -> Result<Recorded, HarError> {
    let text = std::fs::read_to_string(path).map_err(|source| HarError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse(&text, base_url).map_err(|message| HarError::Malformed {
        path: path.to_owned(),
        message,
    })
}

/// [`read`] of a HAR document's text.
pub fn parse(text: &str, base_url: Option<&str>) -> Result<Recorded, String> {
    let har: Value = serde_json::from_str(text)
        .map_err(|e| format!("not JSON (line {}, column {}): {e}", e.line(), e.column()))?;
    let entries = har["log"]["entries"]
        .as_array()
        .ok_or("it has no log.entries array")?;
    let exchanges = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| observed(entry, base_url).map_err(|e| format!("log.entries[{i}]: {e}")))
        .collect::<Result<_, _>>()?;
    let mut exchanges: Vec<Observed> = exchanges;
    let origin = exchanges
        .iter()
        .find(|e| !e.outside && super::operation::find(&e.method, e.path()).is_some())
        .or(exchanges.first())
        .and_then(|e| e.origin.clone());
    // With no base URL given, the target is that origin: an entry to another one (a CDN, an
    // analytics beacon, another API) is never the target's answer.
    if base_url.is_none() {
        for e in &mut exchanges {
            e.outside = e.origin != origin;
        }
    }
    let mut started: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["startedDateTime"].as_str())
        .collect();
    started.sort_unstable();
    Ok(Recorded {
        exchanges,
        origin,
        from: started.first().map(|s| (*s).to_owned()),
        to: started.last().map(|s| (*s).to_owned()),
    })
}

fn observed(entry: &Value, base_url: Option<&str>) -> Result<Observed, String> {
    let request = &entry["request"];
    let method = request["method"]
        .as_str()
        .ok_or("request.method is missing")?
        .to_ascii_uppercase();
    let url = request["url"].as_str().ok_or("request.url is missing")?;
    let (origin, target, outside) = locate(url, base_url)?;
    let request_body = match request["postData"]["text"].as_str() {
        Some(text) => text.as_bytes().to_vec(),
        None => Vec::new(),
    };
    let response = &entry["response"];
    let status = response["status"].as_u64().unwrap_or(0);
    let answer = match u16::try_from(status) {
        Ok(status @ 100..=999) => Some(answer(status, response)),
        _ => None,
    };
    // Browsers name why a request failed in `_error` (`net::ERR_CONNECTION_REFUSED`).
    let failure = answer.is_none().then(|| match response["_error"].as_str() {
        Some(error) if !error.is_empty() => format!("recorded without an answer ({error})"),
        _ => format!(
            "recorded without an answer (status {status}: the request was aborted, blocked or \
             failed)"
        ),
    });
    Ok(Observed {
        method,
        target,
        request_headers: headers(&request["headers"]),
        request_body,
        answer,
        failure,
        origin: Some(origin),
        outside,
        duration_ms: entry["time"].as_f64().unwrap_or(0.0).max(0.0),
    })
}

/// Where `url` went and its path and query: relative to `base_url` where it starts with it,
/// else its origin and whole path; and whether it went outside `base_url`, where one is given.
fn locate(url: &str, base_url: Option<&str>) -> Result<(String, String, bool), String> {
    if let Some(base) = base_url.map(|b| b.trim_end_matches('/')) {
        if let Some(rest) = url.strip_prefix(base) {
            if rest.starts_with('/') || rest.starts_with('?') || rest.is_empty() {
                let target = format!("/{}", rest.trim_start_matches('/'));
                return Ok((base.to_owned(), target, false));
            }
        }
    }
    let parsed = url::Url::parse(url).map_err(|e| format!("request.url {url:?}: {e}"))?;
    let target = match parsed.query() {
        Some(query) => format!("{}?{query}", parsed.path()),
        None => parsed.path().to_owned(),
    };
    Ok((
        parsed.origin().ascii_serialization(),
        target,
        base_url.is_some(),
    ))
}

fn answer(status: u16, response: &Value) -> Answer {
    let content = &response["content"];
    let text = content["text"].as_str();
    let (body, unrecorded) = match (text, content["encoding"].as_str()) {
        (Some(text), Some("base64")) => match base64(text) {
            Some(body) => (body, false),
            None => (Vec::new(), true),
        },
        (Some(text), None | Some("")) => (text.as_bytes().to_vec(), false),
        // An encoding covenant cannot read: as good as no body.
        (Some(_), Some(_)) => (Vec::new(), true),
        // The exporter kept no body: none to judge, unless the answer had none (a size of 0,
        // a 204 or a 304).
        (None, _) => {
            let empty = content["size"].as_i64() == Some(0) || matches!(status, 204 | 304);
            (Vec::new(), !empty)
        }
    };
    let cut = body.len() > KEPT_BODY;
    let body = if body.len() > KEPT_BODY {
        body[..KEPT_BODY].to_vec()
    } else {
        body
    };
    Answer {
        status,
        headers: headers(&response["headers"]),
        body,
        cut,
        unrecorded,
    }
}

/// `[{name, value}]` as pairs, HTTP/2 pseudo-headers (`:authority`) left out.
fn headers(list: &Value) -> Vec<(String, String)> {
    list.as_array()
        .map(|list| {
            list.iter()
                .filter_map(|h| Some((h["name"].as_str()?, h["value"].as_str()?)))
                .filter(|(name, _)| !name.starts_with(':'))
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// Standard base64 (RFC 4648, padding optional, whitespace ignored), as HAR bodies use it.
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for byte in text.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b'\r' | b'\n' | b' ' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_bodies_are_decoded() {
        assert_eq!(base64("eyJhIjoxfQ==").as_deref(), Some(&b"{\"a\":1}"[..]));
        assert_eq!(base64("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64("!"), None);
    }

    #[test]
    fn entries_as_browsers_and_mitmproxy_write_them_are_read() {
        let har = r#"{"log":{"version":"1.2","creator":{"name":"mitmproxy","version":"10"},"entries":[
          {"startedDateTime":"2026-01-01T00:00:00Z","time":12.5,
           "request":{"method":"get","url":"https://api.example/base/finops/v1/events?limit=2",
             "httpVersion":"HTTP/2","headers":[{"name":":authority","value":"api.example"},
             {"name":"authorization","value":"Bearer x"}],"queryString":[],"cookies":[],
             "headersSize":-1,"bodySize":0},
           "response":{"status":200,"statusText":"OK","httpVersion":"HTTP/2","headers":[],
             "cookies":[],"content":{"size":7,"mimeType":"application/json","text":"eyJhIjoxfQ==",
             "encoding":"base64"},"redirectURL":"","headersSize":-1,"bodySize":7},
           "cache":{},"timings":{"send":0,"wait":12,"receive":0}},
          {"startedDateTime":"2026-01-01T00:00:01Z","time":0,
           "request":{"method":"POST","url":"https://other.example/x","headers":[],
             "postData":{"mimeType":"application/json","text":"{}"}},
           "response":{"status":0,"headers":[],"content":{"size":0}}},
          {"time":1,"request":{"method":"GET","url":"https://api.example/base/finops/v1/events"},
           "response":{"status":200,"headers":[],"content":{"size":900,"mimeType":"application/json"}}}
        ]}}"#;
        let recorded = parse(har, Some("https://api.example/base/")).expect("a HAR file");
        // The target is where the first entry of this API went: under the base URL's prefix.
        assert_eq!(recorded.origin.as_deref(), Some("https://api.example/base"));
        let seen = recorded.exchanges;
        assert_eq!(seen[0].method, "GET");
        assert_eq!(seen[0].target, "/finops/v1/events?limit=2");
        assert_eq!(seen[0].request_headers.len(), 1);
        let answer = seen[0].answer.as_ref().expect("an answer");
        assert_eq!(answer.body, b"{\"a\":1}");
        assert_eq!(seen[0].origin.as_deref(), Some("https://api.example/base"));
        assert_eq!(seen[1].target, "/x");
        assert_eq!(seen[1].origin.as_deref(), Some("https://other.example"));
        assert!(seen[1].outside && !seen[0].outside);
        assert_eq!(seen[1].request_body, b"{}");
        assert!(seen[1].answer.is_none(), "status 0: no answer came");
        assert!(seen[1]
            .failure
            .as_deref()
            .is_some_and(|f| f.contains("status 0")));
        assert!(
            seen[2].answer.as_ref().is_some_and(|a| a.unrecorded),
            "a body not captured"
        );
    }

    #[test]
    fn a_file_that_is_not_har_is_named_so() {
        assert!(parse("[]", None).unwrap_err().contains("log.entries"));
        assert!(parse("{", None).unwrap_err().contains("not JSON"));
        let bad = r#"{"log":{"entries":[{"request":{}}]}}"#;
        assert!(parse(bad, None).unwrap_err().contains("entries[0]"));
    }
}
