//! The records of exchanges: what a report keeps of a request and its answer, with every
//! secret redacted and long bodies cut.

use super::{curl, Body, Request, Response, SendError, Target};
use crate::verdict::{Exchange, RequestRecord, ResponseRecord};

/// How much of a response body a record keeps.
const RECORD_BODY_LIMIT: usize = 4096;

/// What [`Target::send`] knows of an exchange besides its outcome: enough to record it later.
#[derive(Debug)]
pub struct Sent {
    pub duration_ms: f64,
    /// Retries made before the outcome, rate-limit answers sent again included.
    pub retries: u32,
    /// The last rate-limit answer when the run stopped before one came through (the outcome is
    /// then [`SendError::Stopped`]) or the request was refused for `--max-refusal`
    /// ([`SendError::Refused`]).
    pub(super) rate_limited: Option<Response>,
}

impl Target {
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
        let curl = self.config.shell_vars.curl(
            request.method.as_str(),
            &url,
            &headers,
            body.as_deref(),
            redactor,
        );
        let headers: Vec<(String, String)> = headers
            .into_iter()
            .map(|(n, v)| (n.clone(), redact_header(&n, &v, redactor)))
            .collect();
        let body = body.map(|b| redactor.redact(&b));
        let url = redactor.redact(&url);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::TargetConfig;
    use std::sync::Arc;
    use std::time::Duration;
    use url::Url;

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

    fn target(secrets: Vec<String>) -> Arc<Target> {
        Target::new(TargetConfig {
            base_url: Url::parse("http://127.0.0.1:9/base/").expect("a URL"),
            timeout: Duration::from_secs(1),
            max_body: 1024,
            retries: 0,
            rate: None,
            max_refusal: crate::client::DEFAULT_MAX_REFUSAL,
            max_requests: None,
            ca_cert: None,
            insecure: false,
            read_only: false,
            max_in_flight: Some(8),
            https: false,
            // A name no secret of the tests can be found in: curls name the secret by it.
            shell_vars: crate::client::ShellVars::new(
                secrets.iter().map(|s| (s.clone(), "_a_b_c".to_owned())),
            ),
            secrets,
        })
        .expect("a client")
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
            let named = record.curl.contains("$_a_b_c") || record.curl.contains("${_a_b_c}");
            proptest::prop_assert!(named, "the curl names no variable: {}", record.curl);
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
