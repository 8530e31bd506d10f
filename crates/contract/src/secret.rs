//! Secrets kept out of everything covenant writes: the one place that finds and masks them.
//!
//! The target client redacts each request and answer it records; the reports redact the record
//! again, and each rendered file in every escaped form a format could give a secret. Both mask
//! with [`Redactor`]. This module knows nothing of requests or formats: texts in, texts out.

/// What a secret is replaced with.
pub const MASK: &str = "***";

/// Finds any of a few secrets in a text: a searcher built once per secret, for the thousands of
/// texts a run records and the few MiB of its reports (prebuilt, each is several times faster
/// there than `str::contains` or one Aho-Corasick automaton for all).
#[derive(Debug, Clone, Default)]
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

/// Some secrets, with their finder, masking each occurrence with [`MASK`], the longest secret
/// first: one that holds or overlaps another (a token and its tampered forms) is masked whole,
/// leaving no tail behind. Almost no text holds a secret, and those are not copied.
#[derive(Debug)]
pub struct Redactor {
    /// Non-empty (an empty secret would mask every position of every text), longest first.
    secrets: Vec<String>,
    finder: SecretFinder,
}

impl Redactor {
    pub fn new(secrets: &[String]) -> Redactor {
        let mut secrets: Vec<String> = secrets.iter().filter(|s| !s.is_empty()).cloned().collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Redactor {
            finder: SecretFinder::new(&secrets),
            secrets,
        }
    }

    /// The secrets masked, longest first.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// Whether `text` holds any of the secrets.
    pub fn is_match(&self, text: &[u8]) -> bool {
        self.finder.is_match(text)
    }

    /// `text` masked, or `None` when it holds no secret (most texts: they are not copied).
    pub fn mask(&self, text: &str) -> Option<String> {
        if !self.finder.is_match(text.as_bytes()) {
            return None;
        }
        let mut out = std::borrow::Cow::Borrowed(text);
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = std::borrow::Cow::Owned(out.replace(secret.as_str(), MASK));
            }
        }
        match out {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(masked) => Some(masked),
        }
    }

    /// `text` with every secret masked.
    pub fn redact(&self, text: &str) -> String {
        self.mask(text).unwrap_or_else(|| text.to_owned())
    }
}

/// `text` with every occurrence of each secret replaced by [`MASK`], as [`Redactor::redact`]
/// (for a text or two; build one [`Redactor`] for many).
pub fn redact(text: &str, secrets: &[String]) -> String {
    Redactor::new(secrets).redact(text)
}

/// Authentication schemes a value may name with no credentials after it (`Bearer` alone).
const SCHEMES: [&str; 5] = ["basic", "bearer", "digest", "negotiate", "token"];

/// An `Authorization` value as a record or a curl shows it when it names no known secret: the
/// scheme kept and the credentials masked (`Basic ***`, `bearer ***`), so that the spelling
/// sent shows and the secret does not. A value with no credentials (empty, blank, a scheme
/// alone or followed by spaces) holds nothing secret and is kept as it is; a single word that
/// is no scheme (a bare token) is masked whole.
pub fn mask_authorization(value: &str) -> String {
    let (scheme, credentials) = value.split_once(' ').unwrap_or((value, ""));
    let known = scheme.is_empty() || SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s));
    match (known, credentials.trim().is_empty()) {
        (true, true) => value.to_owned(),
        (false, true) => MASK.to_owned(),
        (_, false) => format!("{scheme} {MASK}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_authorization_shows_its_spelling_and_never_its_credentials() {
        for (sent, shown) in [
            ("Bearer tok", "Bearer ***"),
            ("Basic tok", "Basic ***"),
            ("bearer tok", "bearer ***"),
            ("tok", "***"),
            ("tok ", "***"),
            ("Bearer", "Bearer"),
            ("Bearer ", "Bearer "),
            ("", ""),
            ("  ", "  "),
        ] {
            assert_eq!(mask_authorization(sent), shown, "{sent:?}");
        }
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

    #[test]
    fn overlapping_secrets_are_both_masked_whole() {
        let secrets = vec!["xab".to_owned(), "abcdef".to_owned()];
        assert_eq!(redact("-xabcdef-", &secrets), "-x***-");
        assert_eq!(redact("-xab-abcdef-", &secrets), "-***-***-");
    }
}
