//! Requests as curl command lines, so that every failure can be replayed by hand: pasted in a
//! POSIX shell, a command sends the request as covenant sent it, and `-i` shows the status.
//! A secret is never written: where the run knows the shell variable that holds it
//! ([`ShellVars`]), the command names the variable (`"authorization: Bearer $VAR"`), and a form
//! built from it (a tampered token) is built from the variable in the line
//! (`"Bearer ${VAR}covenant"`, `"Bearer ${VAR%?}"`), so that the command sends what was sent;
//! any other secret is masked.

// Redaction lives in `crate::secret`, below the client and the reports alike.
pub use crate::secret::{redact, Redactor, SecretFinder};

use super::coding::asks_for_coding;
use std::borrow::Cow;

/// A POSIX-shell-safe curl command for a request (headers and body as given: redact first),
/// which went `without` the headers named there: curl would send its own of those.
pub fn curl_command(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    without: &[&str],
    body: Option<&str>,
) -> String {
    let words = |text: &str| vec![Piece::Text(Cow::Owned(text.to_owned()))];
    let compressed = asks_for_coding(headers);
    let headers: Vec<Vec<Piece>> = headers
        .iter()
        .map(|(name, value)| words(&header_line(name, value)))
        .collect();
    let headers = headers.into_iter().chain(left_out(without)).collect();
    command(method, words(url), headers, body.map(words), compressed)
}

/// A header as curl's `-H` takes it: one sent with an empty value is `name;` (curl reads
/// `name:` as "send none of this header").
fn header_line(name: &str, value: &str) -> String {
    match value.is_empty() {
        true => format!("{name};"),
        false => format!("{name}: {value}"),
    }
}

/// `-H 'Accept:'` for each header the request went without where curl would send its own
/// (`Accept: */*`, its `User-Agent`): curl then sends none.
fn left_out<'a>(without: &'a [&'a str]) -> impl Iterator<Item = Vec<Piece<'a>>> + 'a {
    without
        .iter()
        .map(|name| vec![Piece::Text(Cow::Owned(format!("{name}:")))])
}

/// Secrets with the shell variables a curl names in their place: each value with the variable
/// a user exports to replay the command, and forms built from a value (a tampered token) with
/// the shell expression that builds them from its variable (`${VAR%?}`). Longest value first,
/// so that a value holding another (a token with characters appended) is named by its longest
/// known part.
#[derive(Debug, Clone, Default)]
pub struct ShellVars {
    named: Vec<(String, Shell)>,
    /// Finds any of the values named: most texts hold none, and are not searched for each.
    any: crate::secret::SecretFinder,
}

/// How a curl spells a secret: its variable, or an expression built from one.
#[derive(Debug, Clone, PartialEq)]
enum Shell {
    Var(String),
    Built(String),
}

impl ShellVars {
    /// `(value, variable)` pairs; empty values and variables that are no shell name are left out.
    pub fn new(pairs: impl IntoIterator<Item = (String, String)>) -> ShellVars {
        let named = pairs
            .into_iter()
            .filter(|(value, var)| !value.is_empty() && is_shell_name(var))
            .map(|(value, var)| (value, Shell::Var(var)))
            .collect();
        ShellVars::sorted(named)
    }

    /// These and `(value, expression)` pairs: each value a form built from a named secret, its
    /// expression the POSIX shell text that builds it inside double quotes (`${VAR}xyz`,
    /// `$(printf %.20s "$VAR")`). A value already named keeps its variable.
    pub fn with_built(self, built: impl IntoIterator<Item = (String, String)>) -> ShellVars {
        let mut named = self.named;
        named.extend(
            built
                .into_iter()
                .filter(|(value, _)| !value.is_empty())
                .map(|(value, expr)| (value, Shell::Built(expr))),
        );
        ShellVars::sorted(named)
    }

    /// The variable that names `value`, if one does.
    pub fn var_of(&self, value: &str) -> Option<&str> {
        self.named.iter().find_map(|(v, shell)| match shell {
            Shell::Var(var) if v == value => Some(var.as_str()),
            _ => None,
        })
    }

    /// Longest first, a variable before a built form of the same value, each value once.
    fn sorted(mut named: Vec<(String, Shell)>) -> ShellVars {
        named.sort_by_key(|(value, shell)| {
            (
                std::cmp::Reverse(value.len()),
                matches!(shell, Shell::Built(_)),
            )
        });
        let mut seen = std::collections::HashSet::new();
        named.retain(|(value, _)| seen.insert(value.clone()));
        let values: Vec<&str> = named.iter().map(|(value, _)| value.as_str()).collect();
        ShellVars {
            any: crate::secret::SecretFinder::new(&values),
            named,
        }
    }

    /// `text` as pieces: each named secret a variable or the expression that builds it, the rest
    /// redacted. A secret that holds a named one without being named itself is masked whole
    /// first: a curl never shows a secret's tail beside a variable.
    fn pieces<'a>(&self, text: &'a str, redactor: &Redactor) -> Vec<Piece<'a>> {
        let mut masked: Option<String> = None;
        for secret in redactor.secrets() {
            let is_named = self.named.iter().any(|(value, _)| value == secret);
            let holds_named = self
                .named
                .iter()
                .any(|(value, _)| secret.contains(value.as_str()));
            let current = masked.as_deref().unwrap_or(text);
            if !is_named && holds_named && current.contains(secret.as_str()) {
                masked = Some(current.replace(secret.as_str(), crate::secret::MASK));
            }
        }
        match masked {
            None => self.split(text, redactor),
            Some(masked) => {
                let pieces = self.split(&masked, redactor);
                pieces.into_iter().map(Piece::into_owned).collect()
            }
        }
    }

    /// `text` as pieces, as [`ShellVars::pieces`] gives them once a secret holding a named one
    /// is masked; the text between the secrets is borrowed where it holds no other secret (a
    /// body may be a mebibyte long).
    fn split<'a>(&self, text: &'a str, redactor: &Redactor) -> Vec<Piece<'a>> {
        let redacted = |text: &'a str| match redactor.mask(text) {
            Some(masked) => Piece::Text(Cow::Owned(masked)),
            None => Piece::Text(Cow::Borrowed(text)),
        };
        if !self.any.is_match(text.as_bytes()) {
            return vec![redacted(text)];
        }
        let mut out = Vec::new();
        let mut rest: &str = text;
        loop {
            let next = self
                .named
                .iter()
                .filter_map(|(value, shell)| rest.find(value.as_str()).map(|at| (at, value, shell)))
                // The earliest, and at one position the longest (the list is longest first).
                .min_by_key(|(at, _, _)| *at);
            let Some((at, value, shell)) = next else {
                break;
            };
            if at > 0 {
                out.push(redacted(&rest[..at]));
            }
            out.push(match shell {
                Shell::Var(var) => Piece::Var(var.clone()),
                Shell::Built(expr) => Piece::Built(expr.clone()),
            });
            rest = &rest[at + value.len()..];
        }
        if !rest.is_empty() || out.is_empty() {
            out.push(redacted(rest));
        }
        out
    }

    /// A replayable curl command of a request as sent (`without` the headers named there, where
    /// curl would send its own), secrets unredacted: each secret this
    /// knows becomes its variable (`Basic $VAR`, a bare `$VAR`: the spelling sent shows), every
    /// other secret is masked (an `authorization` value's credentials, whatever they hold,
    /// unless they name a variable; its scheme is kept, and a value with no credentials is no
    /// secret).
    pub fn curl(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        without: &[&str],
        body: Option<&str>,
        redactor: &Redactor,
    ) -> String {
        let compressed = asks_for_coding(headers);
        let headers = headers
            .iter()
            .map(|(name, value)| {
                let line = header_line(name, value);
                let pieces: Vec<Piece<'_>> = self.pieces(&line, redactor);
                let named = pieces.iter().any(|p| !matches!(p, Piece::Text(_)));
                let lower = name.to_ascii_lowercase();
                if !named && (lower == "authorization" || lower == "proxy-authorization") {
                    let masked = crate::secret::mask_authorization(value);
                    vec![Piece::Text(Cow::Owned(format!("{name}: {masked}")))]
                } else {
                    pieces.into_iter().map(Piece::into_owned).collect()
                }
            })
            .chain(left_out(without))
            .collect();
        command(
            method,
            self.pieces(url, redactor),
            headers,
            body.map(|b| self.pieces(b, redactor)),
            compressed,
        )
    }

    /// The variables a text names as this renders them (`$VAR` or `${VAR}`).
    pub fn vars(&self) -> impl Iterator<Item = &str> {
        self.named.iter().filter_map(|(_, shell)| match shell {
            Shell::Var(var) => Some(var.as_str()),
            Shell::Built(_) => None,
        })
    }
}

/// A part of a shell word: text as it is, a variable the shell expands, or an expression that
/// builds a value from variables.
#[derive(Debug, Clone, PartialEq)]
enum Piece<'a> {
    Text(Cow<'a, str>),
    Var(String),
    Built(String),
}

impl Piece<'_> {
    fn len(&self) -> usize {
        match self {
            Piece::Text(text) => text.len(),
            Piece::Var(s) | Piece::Built(s) => s.len(),
        }
    }

    fn into_owned(self) -> Piece<'static> {
        match self {
            Piece::Text(text) => Piece::Text(Cow::Owned(text.into_owned())),
            Piece::Var(var) => Piece::Var(var),
            Piece::Built(expr) => Piece::Built(expr),
        }
    }
}

fn command(
    method: &str,
    url: Vec<Piece<'_>>,
    headers: Vec<Vec<Piece<'_>>>,
    body: Option<Vec<Piece<'_>>>,
    compressed: bool,
) -> String {
    let mut parts = vec!["curl".to_owned(), "-sS".to_owned(), "-i".to_owned()];
    // The request asked for a coding: curl then shows the answer decoded, as covenant read it
    // (its own `Accept-Encoding` is replaced by the request's, given with -H).
    if compressed {
        parts.push("--compressed".to_owned());
    }
    if method != "GET" {
        parts.push(format!("-X {method}"));
    }
    parts.push(word(&url));
    for header in &headers {
        parts.push(format!("-H {}", word(header)));
    }
    let Some(body) = body else {
        return parts.join(" ");
    };
    // A body longer than one argument of a program may be (Linux takes 128 KiB) is piped in
    // by printf, a builtin of every shell, which takes any length. Its word is written once,
    // straight into the command that pipes it, with room for the rest (a body may be a
    // mebibyte long).
    const PIPED: &str = "printf '%s' ";
    const SENT: &str = " --data-binary @-";
    let head = parts.join(" ");
    let text: usize = body.iter().map(Piece::len).sum();
    let mut piped =
        String::with_capacity(PIPED.len() + text + text / 8 + 8 + head.len() + SENT.len());
    piped.push_str(PIPED);
    word_into(&mut piped, &body);
    if piped.len() - PIPED.len() <= LONGEST_ARGUMENT {
        return format!("{head} --data-raw {}", &piped[PIPED.len()..]);
    }
    piped.push_str(" | ");
    piped.push_str(&head);
    piped.push_str(SENT);
    piped
}

/// The longest body given to curl as an argument: Linux refuses one argument longer than
/// 128 KiB to a program it starts (MAX_ARG_STRLEN), so a longer body is piped in.
const LONGEST_ARGUMENT: usize = 64 << 10;

/// One shell word that reads back as the pieces, each variable expanded: in double quotes where
/// the text has nothing a double quote would read otherwise (`"... Bearer $VAR"`), else single
/// quotes around the text and double quotes around each variable.
fn word(pieces: &[Piece<'_>]) -> String {
    let mut out = String::new();
    word_into(&mut out, pieces);
    out
}

/// [`word`], written at the end of `out`.
fn word_into(out: &mut String, pieces: &[Piece<'_>]) {
    let has_var = pieces.iter().any(|p| !matches!(p, Piece::Text(_)));
    if let (false, [Piece::Text(text)]) = (has_var, pieces) {
        return quote_into(out, text);
    }
    if !has_var {
        let text: String = pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.as_ref(),
                Piece::Var(t) | Piece::Built(t) => t.as_str(),
            })
            .collect();
        return quote_into(out, &text);
    }
    let plain = pieces.iter().all(|p| match p {
        Piece::Text(t) => !t.contains(['"', '\\', '$', '`', '!']),
        Piece::Var(_) | Piece::Built(_) => true,
    });
    if plain {
        out.push('"');
        for (i, piece) in pieces.iter().enumerate() {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Built(expr) => out.push_str(expr),
                Piece::Var(var) => {
                    let glued = match pieces.get(i + 1) {
                        Some(Piece::Text(t)) => {
                            t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                        }
                        _ => false,
                    };
                    if glued {
                        out.push_str(&format!("${{{var}}}"));
                    } else {
                        out.push_str(&format!("${var}"));
                    }
                }
            }
        }
        out.push('"');
    } else {
        for piece in pieces {
            match piece {
                Piece::Text(t) => quote_into(out, t),
                Piece::Var(var) => out.push_str(&format!("\"${{{var}}}\"")),
                Piece::Built(expr) => out.push_str(&format!("\"{expr}\"")),
            }
        }
    }
}

/// `text` in single quotes, written at the end of `out` in one pass (a body's word may be a
/// mebibyte long).
fn quote_into(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('\'');
    for (i, part) in text.split('\'').enumerate() {
        if i > 0 {
            out.push_str("'\\''");
        }
        out.push_str(part);
    }
    out.push('\'');
}

/// A POSIX shell variable name: a letter or `_`, then letters, digits and `_`.
fn is_shell_name(var: &str) -> bool {
    var.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
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
            &[],
            Some(r#"{"a":"it's"}"#),
        );
        assert_eq!(
            c,
            r#"curl -sS -i -X POST 'http://h/p' -H 'x-a: 1' --data-raw '{"a":"it'\''s"}'"#
        );
    }

    #[test]
    fn a_header_the_request_went_without_is_dropped_from_curls_own() {
        let c = curl_command("GET", "http://h/p", &[], &["Accept"], None);
        assert_eq!(c, "curl -sS -i 'http://h/p' -H 'Accept:'");
        let empty = [("x-organization-id".to_owned(), String::new())];
        let c = curl_command("GET", "http://h/p", &empty, &[], None);
        assert_eq!(c, "curl -sS -i 'http://h/p' -H 'x-organization-id;'");
    }

    #[test]
    fn a_request_asking_for_gzip_is_replayed_with_compressed_and_no_other_is() {
        let asked = [("accept-encoding".to_owned(), "gzip".to_owned())];
        let c = curl_command("GET", "http://h/p", &asked, &[], None);
        assert_eq!(
            c,
            "curl -sS -i --compressed 'http://h/p' -H 'accept-encoding: gzip'"
        );
        let c = vars().curl("GET", "http://h/p", &asked, &[], None, &Redactor::new(&[]));
        assert!(c.contains(" --compressed "), "{c}");
        let plain = curl_command("GET", "http://h/p", &[], &[], None);
        assert!(!plain.contains("--compressed"), "{plain}");
    }

    fn vars() -> ShellVars {
        ShellVars::new([
            ("tok".to_owned(), "COVENANT_FINOPS_TOKEN".to_owned()),
            ("other".to_owned(), "MY_VAR".to_owned()),
            ("bad".to_owned(), "not a name".to_owned()),
        ])
    }

    #[test]
    fn a_known_secret_is_named_as_its_variable_and_never_written() {
        let redactor = Redactor::new(&["tok".into(), "tokX".into(), "bad".into()]);
        let c = vars().curl(
            "GET",
            "http://h/p",
            &[
                ("authorization".into(), "Bearer tok".into()),
                ("x-b".into(), "Bearer tokcovenant".into()),
                ("x-c".into(), "it's tok".into()),
                ("x-d".into(), "bad".into()),
                ("x-e".into(), "Bearer tokX".into()),
                ("x-f".into(), "$HOME tok".into()),
            ],
            &[],
            None,
            &redactor,
        );
        assert_eq!(
            c,
            "curl -sS -i 'http://h/p' -H \"authorization: Bearer $COVENANT_FINOPS_TOKEN\" \
             -H \"x-b: Bearer ${COVENANT_FINOPS_TOKEN}covenant\" \
             -H \"x-c: it's $COVENANT_FINOPS_TOKEN\" -H 'x-d: ***' -H 'x-e: Bearer ***' \
             -H 'x-f: $HOME '\"${COVENANT_FINOPS_TOKEN}\""
        );
    }

    #[test]
    fn every_spelling_of_an_authorization_shows_in_its_curl() {
        let redactor = Redactor::new(&["tok".into()]);
        let curl = |value: &str| {
            let headers = [("authorization".to_owned(), value.to_owned())];
            vars().curl("GET", "http://h/p", &headers, &[], None, &redactor)
        };
        for (sent, shown) in [
            (
                "Basic tok",
                "\"authorization: Basic $COVENANT_FINOPS_TOKEN\"",
            ),
            ("tok", "\"authorization: $COVENANT_FINOPS_TOKEN\""),
            (
                "BEARER tok",
                "\"authorization: BEARER $COVENANT_FINOPS_TOKEN\"",
            ),
            ("Bearer", "'authorization: Bearer'"),
            ("Bearer ", "'authorization: Bearer '"),
            ("", "'authorization: '"),
        ] {
            let curl = curl(sent);
            assert!(curl.ends_with(&format!("-H {shown}")), "{sent:?}: {curl}");
        }
    }

    #[test]
    fn a_form_built_from_a_named_secret_is_spelled_as_its_shell_text() {
        let redactor = Redactor::new(&["tok".into(), "tokX".into(), "to".into()]);
        let vars = vars().with_built([
            ("tokX".to_owned(), "${COVENANT_FINOPS_TOKEN}X".to_owned()),
            ("to".to_owned(), "${COVENANT_FINOPS_TOKEN%?}".to_owned()),
        ]);
        let curl = |value: &str| {
            let headers = [("authorization".to_owned(), value.to_owned())];
            vars.curl("GET", "http://h/p", &headers, &[], None, &redactor)
        };
        assert!(
            curl("Bearer tokX").ends_with("-H \"authorization: Bearer ${COVENANT_FINOPS_TOKEN}X\"")
        );
        assert!(
            curl("Bearer to").ends_with("-H \"authorization: Bearer ${COVENANT_FINOPS_TOKEN%?}\"")
        );
        assert!(curl("Bearer tok").ends_with("-H \"authorization: Bearer $COVENANT_FINOPS_TOKEN\""));
        assert_eq!(
            vars.vars().collect::<Vec<_>>(),
            ["MY_VAR", "COVENANT_FINOPS_TOKEN"]
        );
    }

    #[test]
    fn a_body_too_long_for_one_argument_is_piped_in_by_printf() {
        let body = format!("{{\"name\":\"{}\"}}", "a".repeat(100_000));
        let curl = curl_command("POST", "http://h/p", &[], &[], Some(&body));
        assert!(
            curl.starts_with("printf '%s' '{\"name\":\"aaa"),
            "{}",
            &curl[..40]
        );
        assert!(curl.ends_with("| curl -sS -i -X POST 'http://h/p' --data-binary @-"));
        let short = curl_command("POST", "http://h/p", &[], &[], Some("{}"));
        assert!(short.ends_with("--data-raw '{}'"), "{short}");
    }

    #[test]
    fn an_authorization_without_a_known_secret_is_masked_whole() {
        let redactor = Redactor::new(&["tokX".into()]);
        let c = vars().curl(
            "GET",
            "http://h/p",
            &[("Authorization".into(), "Bearer tokX".into())],
            &[],
            Some("a tokX b"),
            &redactor,
        );
        assert_eq!(
            c,
            "curl -sS -i 'http://h/p' -H 'Authorization: Bearer ***' --data-raw 'a *** b'"
        );
    }
}
