//! Why a body that almost is JSON is not: what RFC 8259 forbids that a serialiser commonly
//! writes, so that a finding names the breach (a byte order mark, RFC 8259 §8.1; NaN or an
//! Infinity, RFC 8259 §6) under its own rule instead of "not JSON". Judged on the raw bytes as
//! they came: the client never strips a byte order mark before parsing.

/// A byte order mark at the start of a JSON text (RFC 8259 §8.1: implementations "MUST NOT add"
/// one).
pub const NO_BOM: &str = "JSON-NO-BOM";
/// NaN and the infinities, which JSON numbers cannot be (RFC 8259 §6).
pub const NO_NAN: &str = "JSON-NO-NAN";

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The rule a body that does not parse as JSON breaks, with why, when it is JSON but for a
/// byte order mark in front or NaN or an Infinity as a value; `None` when it is not JSON for
/// another reason (or is JSON).
pub fn near_miss(body: &[u8]) -> Option<(&'static str, String)> {
    if let Some(rest) = body.strip_prefix(BOM) {
        let parses = serde_json::from_slice::<serde_json::Value>(rest).is_ok();
        let rest_near = near_miss(rest).is_some();
        if parses || rest_near {
            let message = "the JSON body begins with a byte order mark (EF BB BF; RFC 8259 §8.1: implementations MUST NOT add one)";
            return Some((NO_BOM, message.to_owned()));
        }
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    let (nulled, found) = non_numbers_nulled(text);
    if found.is_empty() || serde_json::from_str::<serde_json::Value>(&nulled).is_err() {
        return None;
    }
    let message = format!(
        "the JSON body holds {} as a number, which JSON has no notation for (RFC 8259 §6: NaN and Infinity are not permitted)",
        found.join(", ")
    );
    Some((NO_NAN, message))
}

/// `text` with every `NaN`, `Infinity` and `-Infinity` outside strings replaced by `null`, and
/// the tokens replaced.
fn non_numbers_nulled(text: &str) -> (String, Vec<&'static str>) {
    const TOKENS: [&str; 3] = ["-Infinity", "Infinity", "NaN"];
    let mut out = String::with_capacity(text.len());
    let mut found = Vec::new();
    let (mut quoted, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !quoted {
            if let Some(token) = TOKENS.iter().find(|t| rest.starts_with(**t)) {
                out.push_str("null");
                if !found.contains(token) {
                    found.push(*token);
                }
                rest = &rest[token.len()..];
                continue;
            }
        }
        match (quoted, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (_, false, '"') => quoted = !quoted,
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    (out, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_before_json_is_named() {
        let body = b"\xEF\xBB\xBF{\"id\":1}";
        assert_eq!(near_miss(body).map(|(r, _)| r), Some(NO_BOM));
        assert_eq!(near_miss(b"\xEF\xBB\xBF<html>"), None);
        assert_eq!(near_miss(b"{\"id\":1}"), None);
    }

    #[test]
    fn nan_and_infinities_as_values_are_named_and_in_strings_they_are_text() {
        let (rule, message) = near_miss(br#"{"a":NaN,"b":[-Infinity, Infinity]}"#).expect("named");
        assert_eq!(rule, NO_NAN);
        assert!(
            message.contains("NaN") && message.contains("-Infinity"),
            "{message}"
        );
        assert_eq!(near_miss(br#"{"a":"NaN","b":"\"Infinity"}"#), None);
        assert_eq!(
            near_miss(br#"{"a":NaN,"#),
            None,
            "broken for another reason"
        );
        assert_eq!(near_miss(b"not json"), None);
    }
}
