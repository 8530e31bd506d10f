//! Requests as curl command lines, so that every failure can be replayed by hand.

// Redaction lives in `crate::secret`, below the client and the reports alike.
pub use crate::secret::{redact, Redactor, SecretFinder};

/// A POSIX-shell-safe curl command for a request (headers and body as given: redact first).
pub fn curl_command(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: Option<&str>,
) -> String {
    let mut parts = vec!["curl".to_owned(), "-sS".to_owned()];
    if method != "GET" {
        parts.push(format!("-X {method}"));
    }
    parts.push(quote(url));
    for (name, value) in headers {
        parts.push(format!("-H {}", quote(&format!("{name}: {value}"))));
    }
    if let Some(body) = body {
        parts.push(format!("--data-raw {}", quote(body)));
    }
    parts.join(" ")
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_quotes_single_quotes_and_names_method_and_headers() {
        let c = curl_command(
            "POST",
            "http://h/p",
            &[("x-a".into(), "1".into())],
            Some(r#"{"a":"it's"}"#),
        );
        assert_eq!(
            c,
            r#"curl -sS -X POST 'http://h/p' -H 'x-a: 1' --data-raw '{"a":"it'\''s"}'"#
        );
    }
}
