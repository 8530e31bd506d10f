//! Requests as curl command lines, so that every failure can be replayed by hand.

/// Replaces every occurrence of each secret with `***`, the longest first: a secret that
/// holds another (a token and its tampered forms) is masked whole, leaving no tail behind.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut secrets: Vec<&str> = secrets
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_owned();
    for secret in secrets {
        if out.contains(secret) {
            out = out.replace(secret, crate::profile::REDACTED);
        }
    }
    out
}

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

    #[test]
    fn secrets_are_masked_everywhere_they_occur() {
        assert_eq!(redact("a tok b tok", &["tok".into()]), "a *** b ***");
        assert_eq!(redact("nothing", &["".into()]), "nothing");
    }

    #[test]
    fn a_secret_holding_another_is_masked_whole_whatever_the_order() {
        let secrets = [
            "tok".to_owned(),
            "tokX".to_owned(),
            "tokencovenant".to_owned(),
        ];
        assert_eq!(redact("a tokX b tokencovenant", &secrets), "a *** b ***");
    }
}
