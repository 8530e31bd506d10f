//! Defence in depth against secrets in reports.
//!
//! The target client already redacts what it records; this is the second line. The record is
//! redacted field by field first (so `report.json` stays valid JSON), then each rendered file is
//! scanned again for the secret in every escaped form a format could give it (JSON, HTML, XML).

use crate::verdict::RunRecord;
use serde_json::Value;

/// What a secret is replaced with.
pub const MASK: &str = "***";

/// A copy of `run` with every occurrence of each secret in any string replaced by [`MASK`].
pub fn record(run: &RunRecord, secrets: &[String]) -> RunRecord {
    let mut secrets = non_empty(secrets);
    if secrets.is_empty() {
        return run.clone();
    }
    // Longest first, so that a secret containing another is masked whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let Ok(mut value) = serde_json::to_value(run) else {
        return run.clone();
    };
    redact_value(&mut value, &secrets);
    // Replacing text inside strings cannot change the shape, so the record reads back.
    serde_json::from_value(value).unwrap_or_else(|_| run.clone())
}

fn redact_value(value: &mut Value, secrets: &[&str]) {
    match value {
        Value::String(s) => *s = replace_all(s, secrets),
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, secrets)),
        _ => {}
    }
}

/// `text` with each secret, raw or in any escaped form, replaced by [`MASK`].
pub fn text(text: &str, secrets: &[String]) -> String {
    let forms: Vec<String> = non_empty(secrets)
        .into_iter()
        .flat_map(escaped_forms)
        .collect();
    let mut forms: Vec<&str> = forms.iter().map(String::as_str).collect();
    // Longest first, so that a secret containing another is masked whole.
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    replace_all(text, &forms)
}

fn replace_all(text: &str, secrets: &[&str]) -> String {
    // Most strings hold no secret: look before copying, so that they are copied once, not once
    // per secret.
    let mut out = std::borrow::Cow::Borrowed(text);
    for secret in secrets {
        if out.contains(secret) {
            out = std::borrow::Cow::Owned(out.replace(secret, MASK));
        }
    }
    out.into_owned()
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
    fn empty_secret_masks_nothing() {
        assert_eq!(text("abc", &[String::new()]), "abc");
    }
}
