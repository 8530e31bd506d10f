//! Defence in depth against secrets in reports.
//!
//! The target client already redacts what it records; this is the second line. The record is
//! redacted field by field first (so `report.json` stays valid JSON), then each rendered file is
//! scanned again for the secret in every escaped form a format could give it (the report module
//! asks each format for its forms). Finding and masking is [`crate::secret`]'s.

use crate::secret::Redactor;
use crate::verdict::RunRecord;
use serde_json::Value;
use std::borrow::Cow;

/// `run` with every occurrence of each secret in any string masked: itself when
/// it holds none (the target client redacts what it records, so it almost never does), else a
/// copy.
pub fn record<'a>(run: &'a RunRecord, secrets: &[String]) -> Cow<'a, RunRecord> {
    let masker = Redactor::new(secrets);
    if masker.secrets().is_empty() {
        return Cow::Borrowed(run);
    }
    // One look at the whole record as it is serialised, before copying it string by string:
    // serde_json writes each run of a string without escapes in one piece, so a secret with
    // nothing to escape is seen whole. One that JSON escapes is looked for string by string.
    let escapes = masker.secrets().iter().any(|s| s.chars().any(needs_escape));
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
struct Scan<'a> {
    masker: &'a Redactor,
    found: bool,
}

impl std::io::Write for Scan<'_> {
    fn write(&mut self, piece: &[u8]) -> std::io::Result<usize> {
        if !self.found {
            self.found = self.masker.is_match(piece);
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

fn redact_value(value: &mut Value, masker: &Redactor) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
