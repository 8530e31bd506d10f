//! The records of exchanges: what a report keeps of a request and its answer, with every
//! secret redacted and long bodies cut.

use super::curl::{Redactor, ShellVars};
use super::{Request, Response};
use crate::verdict::{RequestRecord, ResponseRecord};

/// How much of a response body a record keeps.
const RECORD_BODY_LIMIT: usize = 4096;

/// The record of a request sent to `url` (its absolute URL, or its path when it has none), with
/// every secret redacted and its curl naming each secret by the shell variable `vars` gives it.
pub(super) fn record_request(
    request: Request,
    url: &str,
    redactor: &Redactor,
    vars: &ShellVars,
) -> RequestRecord {
    let Request {
        method,
        mut headers,
        body,
        no_accept,
        ..
    } = request;
    // The body and its content type as both clients send them (`Body::wire`).
    let body: Option<String> = body.map(|body| {
        let (bytes, content_type) = body.wire();
        let named = headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("content-type"));
        if let Some(ct) = content_type.and_then(|ct| ct.added(named)) {
            headers.push(("content-type".into(), ct.into()));
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    // Sent with no `Accept`: curl must not send its own `*/*` either.
    let named = |h: &[(String, String)]| h.iter().any(|(n, _)| n.eq_ignore_ascii_case("accept"));
    let without: &[&str] = match no_accept && !named(&headers) {
        true => &["Accept"],
        false => &[],
    };
    let curl = vars.curl(
        method.as_str(),
        url,
        &headers,
        without,
        body.as_deref(),
        redactor,
    );
    let headers: Vec<(String, String)> = headers
        .into_iter()
        .map(|(n, v)| (n.clone(), redact_header(&n, &v, redactor)))
        .collect();
    let body = body.map(|b| redactor.mask(&b).unwrap_or(b));
    RequestRecord {
        method: method.to_string(),
        url: redactor.redact(url),
        headers,
        body,
        curl,
    }
}

/// The record of a response, its secrets redacted and its body cut to [`RECORD_BODY_LIMIT`].
pub(super) fn record_response(response: &Response, redactor: &Redactor) -> ResponseRecord {
    // Redact before cutting, so that a secret across the cut leaves no prefix behind; only
    // what is kept is copied (an answer may be megabytes long).
    let text = String::from_utf8_lossy(&response.body);
    let masked = redactor.mask(&text);
    let text = masked.as_deref().unwrap_or(&text);
    let truncated = text.len() > RECORD_BODY_LIMIT;
    let mut end = text.len().min(RECORD_BODY_LIMIT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let body = text[..end].to_owned();
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

fn redact_header(name: &str, value: &str, redactor: &Redactor) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" || lower == "proxy-authorization" {
        crate::secret::mask_authorization(value)
    } else {
        redactor.redact(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use url::Url;

    #[test]
    fn authorization_is_redacted_but_keeps_its_scheme() {
        assert_eq!(
            redact_header("Authorization", "Bearer abc", &Redactor::new(&[])),
            "Bearer ***"
        );
        assert_eq!(
            redact_header("x-other", "has abc inside", &Redactor::new(&["abc".into()])),
            "has *** inside"
        );
    }

    /// The redactor of `secrets`, and shell variables naming each by a name no secret of the
    /// tests can be found in: curls name the secret by it.
    fn redaction(secrets: &[String]) -> (Redactor, ShellVars) {
        let vars = ShellVars::new(secrets.iter().map(|s| (s.clone(), "_a_b_c".to_owned())));
        (Redactor::new(secrets), vars)
    }

    /// The URL a target at `http://127.0.0.1:9/base/` records a request to, as it builds it.
    fn url(path: &str) -> String {
        Url::parse(&format!("http://127.0.0.1:9/base{path}"))
            .map(|u| u.to_string())
            .unwrap_or_else(|_| path.to_owned())
    }

    #[test]
    fn a_secret_across_the_record_cut_leaves_no_prefix_behind() {
        let secret = "SECRETSECRET".to_owned();
        let (redactor, _) = redaction(std::slice::from_ref(&secret));
        let mut body = vec![b'a'; RECORD_BODY_LIMIT - 4];
        body.extend_from_slice(secret.as_bytes());
        body.extend_from_slice(&[b'a'; 100]);
        let record = record_response(
            &Response {
                status: 200,
                headers: Vec::new(),
                body,
                json: None,
            },
            &redactor,
        );
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
            let (redactor, vars) = redaction(std::slice::from_ref(&secret));
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
            let record = record_request(request.clone(), &url(&request.path), &redactor, &vars);
            let text = serde_json::to_string(&record).expect("a record serialises");
            proptest::prop_assert!(!text.contains(&secret), "{text}");
            let named = record.curl.contains("$_a_b_c") || record.curl.contains("${_a_b_c}");
            proptest::prop_assert!(named, "the curl names no variable: {}", record.curl);
            let response = Response {
                status,
                headers: vec![("set-cookie".into(), format!("s={secret}"))],
                json: serde_json::from_slice(&sent).ok(),
                body: sent,
            };
            let record = record_response(&response, &redactor);
            proptest::prop_assert!(record.body.len() <= RECORD_BODY_LIMIT);
            let text = serde_json::to_string(&record).expect("a record serialises");
            proptest::prop_assert!(!text.contains(&secret), "{text}");
        }
    }
}
