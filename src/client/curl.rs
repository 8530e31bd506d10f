//! Requests as curl command lines, so that every failure can be replayed by hand.

/// Finds any of a few secrets in a text: a searcher built once per secret, for the thousands of
/// texts a run records and the few MiB of its reports (prebuilt, each is several times faster
/// there than `str::contains` or one Aho-Corasick automaton for all).
#[derive(Debug, Clone)]
pub struct SecretFinder {
    finders: Vec<memchr::memmem::Finder<'static>>,
    /// The length of the shortest secret: a shorter text holds none.
    shortest: usize,
}

impl SecretFinder {
    /// A finder of the non-empty `secrets` (an empty one would be found everywhere).
    pub fn new<S: AsRef<str>>(secrets: &[S]) -> SecretFinder {
        let secrets = secrets.iter().map(AsRef::as_ref).filter(|s| !s.is_empty());
        let finders: Vec<_> = secrets
            .map(|s| memchr::memmem::Finder::new(s.as_bytes()).into_owned())
            .collect();
        SecretFinder {
            shortest: finders
                .iter()
                .map(|f| f.needle().len())
                .min()
                .unwrap_or(usize::MAX),
            finders,
        }
    }

    /// Whether `text` holds any of the secrets.
    pub fn is_match(&self, text: &[u8]) -> bool {
        text.len() >= self.shortest && self.finders.iter().any(|f| f.find(text).is_some())
    }
}

/// The secrets of a target, with their finder: every request and answer kept in a record is
/// redacted, and almost none holds a secret.
#[derive(Debug)]
pub struct Redactor {
    secrets: Vec<String>,
    finder: SecretFinder,
}

impl Redactor {
    pub fn new(secrets: &[String]) -> Redactor {
        Redactor {
            finder: SecretFinder::new(secrets),
            secrets: secrets.to_vec(),
        }
    }

    /// `text` as [`redact`] gives it.
    pub fn redact(&self, text: &str) -> String {
        if self.finder.is_match(text.as_bytes()) {
            redact(text, &self.secrets)
        } else {
            text.to_owned()
        }
    }
}

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
        let redactor = Redactor::new(&secrets);
        assert_eq!(redactor.redact("a tokX b tokencovenant"), "a *** b ***");
        assert_eq!(redactor.redact("clean"), "clean");
        assert_eq!(Redactor::new(&["".into()]).redact("nothing"), "nothing");
    }
}
