//! Defence in depth against secrets in reports.
//!
//! The target client already redacts what it records; this is the second line. The record is
//! redacted field by field first (so `report.json` stays valid JSON), then each rendered file is
//! scanned again for the secret in every escaped form a format could give it (JSON, HTML, XML).

use crate::client::SecretFinder;
use crate::verdict::RunRecord;
use serde_json::Value;
use std::borrow::Cow;

/// What a secret is replaced with.
pub const MASK: &str = "***";

/// `run` with every occurrence of each secret in any string replaced by [`MASK`]: itself when
/// it holds none (the target client redacts what it records, so it almost never does), else a
/// copy.
pub fn record<'a>(run: &'a RunRecord, secrets: &[String]) -> Cow<'a, RunRecord> {
    let secrets = non_empty(secrets);
    if secrets.is_empty() {
        return Cow::Borrowed(run);
    }
    let masker = Masker::new(secrets);
    // One look at the whole record as it is serialised, before copying it string by string:
    // serde_json writes each run of a string without escapes in one piece, so a secret with
    // nothing to escape is seen whole. One that JSON escapes is looked for string by string.
    let escapes = masker.secrets.iter().any(|s| s.chars().any(needs_escape));
    if !escapes {
        let mut scan = Scan {
            masker: &masker,
            found: false,
        };
        if serde_json::to_writer(&mut scan, run).is_ok() && !scan.found {
            return Cow::Borrowed(run);
        }
    }
    let Ok(mut value) = serde_json::to_value(run) else {
        return Cow::Owned(run.clone());
    };
    redact_value(&mut value, &masker);
    // Replacing text inside strings cannot change the shape, so the record reads back.
    Cow::Owned(serde_json::from_value(value).unwrap_or_else(|_| run.clone()))
}

/// A writer that keeps nothing and notes whether a piece written held a secret.
struct Scan<'a, 'b> {
    masker: &'a Masker<'b>,
    found: bool,
}

impl std::io::Write for Scan<'_, '_> {
    fn write(&mut self, piece: &[u8]) -> std::io::Result<usize> {
        if !self.found {
            self.found = self.masker.finder.is_match(piece);
        }
        Ok(piece.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Whether JSON writes `c` otherwise than as itself.
fn needs_escape(c: char) -> bool {
    c == '"' || c == '\\' || c.is_control()
}

fn redact_value(value: &mut Value, masker: &Masker<'_>) {
    match value {
        Value::String(s) => {
            if let Some(masked) = masker.mask(s) {
                *s = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, masker)),
        Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, masker)),
        _ => {}
    }
}

/// `text` with each secret, raw or in any escaped form, replaced by [`MASK`].
pub fn text(text: &str, secrets: &[String]) -> String {
    let forms: Vec<String> = non_empty(secrets)
        .into_iter()
        .flat_map(escaped_forms)
        .collect();
    let masker = Masker::new(forms.iter().map(String::as_str).collect());
    masker.mask(text).unwrap_or_else(|| text.to_owned())
}

/// Finds secrets in strings with a searcher built once per secret and form, so that a report of
/// a few MiB is read quickly, and most strings are not copied.
struct Masker<'a> {
    /// Longest first, so that a secret containing another is masked whole.
    secrets: Vec<&'a str>,
    finder: SecretFinder,
}

impl<'a> Masker<'a> {
    fn new(mut secrets: Vec<&'a str>) -> Masker<'a> {
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Masker {
            finder: SecretFinder::new(&secrets),
            secrets,
        }
    }

    /// `text` masked, or `None` when it holds no secret (most strings: they are not copied).
    fn mask(&self, text: &str) -> Option<String> {
        if !self.finder.is_match(text.as_bytes()) {
            return None;
        }
        // Secret by secret, longest first: one secret overlapping another is masked whole too.
        let mut out = Cow::Borrowed(text);
        for secret in &self.secrets {
            if out.contains(secret) {
                out = Cow::Owned(out.replace(secret, MASK));
            }
        }
        match out {
            Cow::Borrowed(_) => None,
            Cow::Owned(masked) => Some(masked),
        }
    }
}

/// An empty secret would mask every position of every file: it is no secret.
fn non_empty(secrets: &[String]) -> Vec<&str> {
    secrets
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The secret as it may appear in each format: raw, JSON-escaped, HTML-escaped,
/// XML-escaped in attributes (all five entities) and in text (`&`, `<`, `>` only), and
/// Markdown-escaped.
fn escaped_forms(secret: &str) -> Vec<String> {
    let json = serde_json::to_string(secret).unwrap_or_default();
    let json = json
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(secret)
        .to_owned();
    let html = super::html::escape(secret);
    let xml_attribute = html.replace("&#39;", "&apos;");
    let xml_text = secret
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let markdown = super::markdown::text(secret);
    let mut forms = vec![
        secret.to_owned(),
        json,
        html,
        xml_attribute,
        xml_text,
        markdown,
    ];
    forms.sort();
    forms.dedup();
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_forms_of_a_secret_are_masked() {
        let secrets = vec!["a<b\"c".to_owned()];
        let out = text(r#"raw a<b"c json a<b\"c html a&lt;b&quot;c"#, &secrets);
        assert_eq!(out, "raw *** json *** html ***");
    }

    #[test]
    fn overlapping_secrets_are_both_masked_whole() {
        let secrets = vec!["xab".to_owned(), "abcdef".to_owned()];
        assert_eq!(text("-xabcdef-", &secrets), "-x***-");
        assert_eq!(text("-xab-abcdef-", &secrets), "-***-***-");
    }

    #[test]
    fn a_plain_secret_anywhere_in_a_record_is_found_and_a_clean_record_is_not_copied() {
        let run: RunRecord = serde_json::from_value(serde_json::json!({
            "meta": {
                "covenant_version": "0", "seed": 1, "target": "t", "profile": null,
                "started_at": "2026-01-01T00:00:00Z", "finished_at": "2026-01-01T00:00:01Z",
                "duration_ms": 1.0, "cases_per_operation": 1
            },
            "counts": {"pass": 0, "warn": 0, "fail": 0, "error": 1, "skip": 0, "requests": 1},
            "cases": [{
                "id": "c", "suite": "s", "rules": [], "verdict": "error", "findings": [],
                "exchanges": [], "duration_ms": 1.0,
                "error": "refused: Bearer plain-secret-123 is unknown"
            }]
        }))
        .expect("a record");
        let secrets = vec!["plain-secret-123".to_owned()];
        let masked = record(&run, &secrets);
        assert!(matches!(masked, Cow::Owned(_)));
        assert_eq!(
            masked.cases[0].error.as_deref(),
            Some("refused: Bearer *** is unknown")
        );
        assert!(matches!(record(&masked, &secrets), Cow::Borrowed(_)));
    }

    #[test]
    fn empty_secret_masks_nothing() {
        assert_eq!(text("abc", &[String::new()]), "abc");
    }
}
