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

#[cfg(test)]
mod tests {
    use super::*;

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
