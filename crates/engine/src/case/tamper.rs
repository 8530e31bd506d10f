//! Tampered credentials: a real token with characters appended, with its last character
//! changed, truncated by one, with a character in its middle changed, or with the case of its
//! letters swapped. A target must refuse the first four as it refuses any invalid token; one
//! that compares tokens by prefix, over the shorter length, or by their ends accepts some of
//! them. The case-swapped token may be accepted: a token format may ignore case.
//!
//! Each form must differ from the real token in what the target can read, not only in its
//! spelling. Many tokens are base64 or base64url (a JWT's signature, most opaque tokens), and
//! lenient decoders ignore the low bits of a last character that carries fewer than six (the
//! 43rd character of a 32-byte signature carries four), ignore what follows the padding, and
//! drop a group of one character or half-filled bits. So the forms act on the data before
//! any `=` padding: the last character changes in the high bit of its base64 index, which is
//! significant whatever the length; eight characters are appended (six whole bytes); and the
//! truncated form loses a whole byte. The middle character carries six significant bits
//! wherever it is, and changes the same way. A token that is not base64 gets a plain change.
//!
//! The forms are secrets as much as the token: two of them hold all of it but one character.
//! The runner registers them for redaction ([`Tamper::forms`]); they never appear in a report.

/// What is appended: eight base64 characters, six whole bytes to any decoder.
const SUFFIX: &str = "covenant";

/// A way of tampering with a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tamper {
    /// Characters appended (a target that matches by prefix accepts it).
    Appended,
    /// The last character changed.
    LastChanged,
    /// The last character removed (a target that compares over the shorter length accepts it).
    Truncated,
    /// The character in the middle changed (a target that compares only a token's ends, or its
    /// length and a checksum, accepts it).
    MiddleChanged,
    /// Every ASCII letter in the other case: no tampering where the token has no letters, and
    /// a token format may ignore case, so a target may accept it.
    CaseSwapped,
}

impl Tamper {
    /// Every form, each redacted wherever the token is.
    pub const ALL: [Tamper; 5] = [
        Tamper::Appended,
        Tamper::LastChanged,
        Tamper::Truncated,
        Tamper::MiddleChanged,
        Tamper::CaseSwapped,
    ];

    /// The forms sent on every operation (the others are sent on a read and a write of each
    /// area, among the spellings of the Authorization header).
    pub const EVERY_OPERATION: [Tamper; 3] =
        [Tamper::Appended, Tamper::LastChanged, Tamper::Truncated];

    /// The tampered form of `token`; never equal to it (tokens are never empty), except the
    /// case-swapped form of a token without letters.
    pub fn apply(self, token: &str) -> String {
        let (data, padding) = split_padding(token);
        match self {
            Tamper::Appended => format!("{data}{SUFFIX}{padding}"),
            Tamper::LastChanged => {
                let Some(last) = data.chars().next_back() else {
                    return format!("A{token}");
                };
                let kept = &data[..data.len() - last.len_utf8()];
                format!("{kept}{}{padding}", changed(last, token))
            }
            Tamper::Truncated => {
                let kept = data
                    .char_indices()
                    .next_back()
                    .map_or("", |(i, _)| &data[..i]);
                format!("{kept}{padding}")
            }
            Tamper::MiddleChanged => {
                let Some((at, middle)) = data.char_indices().nth(data.chars().count() / 2) else {
                    return format!("A{token}");
                };
                let (before, after) = (&data[..at], &data[at + middle.len_utf8()..]);
                format!("{before}{}{after}{padding}", changed(middle, token))
            }
            Tamper::CaseSwapped => token
                .chars()
                .map(|c| match c {
                    'a'..='z' => c.to_ascii_uppercase(),
                    'A'..='Z' => c.to_ascii_lowercase(),
                    _ => c,
                })
                .collect(),
        }
    }

    /// Every tampered form of `token`, to be redacted wherever the token is.
    pub fn forms(token: &str) -> Vec<String> {
        Tamper::ALL.iter().map(|t| t.apply(token)).collect()
    }

    /// The POSIX shell text that builds this form of `token` from the variable `var` that holds
    /// it, inside double quotes (`${VAR}covenant`, `${VAR%?}`), so that a printed curl sends
    /// the very form that was sent; `None` for a token that is not ASCII (a shell counts its
    /// characters otherwise than this does).
    pub fn shell(self, token: &str, var: &str) -> Option<String> {
        if !token.is_ascii() {
            return None;
        }
        let (data, padding) = split_padding(token);
        // The data less its last character, padding kept out: `${VAR%?==}`.
        let but_last = format!("${{{var}%?{padding}}}");
        Some(match self {
            Tamper::Appended if padding.is_empty() => format!("${{{var}}}{SUFFIX}"),
            Tamper::Appended => format!("${{{var}%{padding}}}{SUFFIX}{padding}"),
            Tamper::Truncated => format!("{but_last}{padding}"),
            Tamper::LastChanged => {
                let last = data.chars().next_back()?;
                format!("{but_last}{}{padding}", changed(last, token))
            }
            Tamper::MiddleChanged => {
                let at = data.len() / 2;
                let middle = data.chars().nth(at)?;
                format!(
                    "$(printf %.{at}s \"${var}\"){}$(printf %s \"${var}\" | cut -c{}-)",
                    changed(middle, token),
                    at + 2
                )
            }
            Tamper::CaseSwapped => format!("$(printf %s \"${var}\" | tr a-zA-Z A-Za-z)"),
        })
    }

    /// What was sent, for findings: "the real token with characters appended".
    pub const fn describe(self) -> &'static str {
        match self {
            Tamper::Appended => "the real token with characters appended",
            Tamper::LastChanged => "the real token with its last character changed",
            Tamper::Truncated => "the real token truncated by one character",
            Tamper::MiddleChanged => "the real token with a character in its middle changed",
            Tamper::CaseSwapped => "the real token with the case of its letters swapped",
        }
    }
}

/// The token's data and its trailing `=` padding (none when the token is all `=`).
fn split_padding(token: &str) -> (&str, &str) {
    let data = token.trim_end_matches('=');
    if data.is_empty() {
        (token, "")
    } else {
        token.split_at(data.len())
    }
}

/// The base64 index of a character of either alphabet (standard or URL-safe).
fn index(c: char) -> Option<u8> {
    let b = u8::try_from(c).ok()?;
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// `last` with the high bit of its base64 index flipped (in the token's own alphabet), or,
/// when it is no base64 character, another character.
fn changed(last: char, token: &str) -> char {
    let Some(i) = index(last) else {
        return 'A';
    };
    let standard = token.contains(['+', '/']);
    let j = i ^ 0b10_0000;
    let c = match j {
        0..=25 => b'A' + j,
        26..=51 => b'a' + j - 26,
        52..=61 => b'0' + j - 52,
        62 if standard => b'+',
        62 => b'-',
        _ if standard => b'/',
        _ => b'_',
    };
    char::from(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes base64 as lenient decoders do: either alphabet, stops at padding, drops the
    /// bits that do not fill a byte.
    fn lenient(text: &str) -> Vec<u8> {
        let (mut bits, mut n, mut out) = (0u32, 0, Vec::new());
        for c in text.chars().take_while(|c| *c != '=') {
            let Some(i) = index(c) else { continue };
            bits = (bits << 6) | u32::from(i);
            n += 6;
            if n >= 8 {
                n -= 8;
                out.push((bits >> n) as u8);
                bits &= (1 << n) - 1;
            }
        }
        out
    }

    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    #[test]
    fn a_neighbouring_last_character_can_decode_to_the_same_signature() {
        // Why the change flips the high bit: `A` and `B` differ in a low bit the decoder drops.
        let signature = "x".repeat(42);
        assert_eq!(
            lenient(&format!("{signature}A")),
            lenient(&format!("{signature}B"))
        );
    }

    #[test]
    fn every_form_decodes_to_other_bytes_whatever_the_length_and_last_character() {
        // No encoder ends a token with a lone character in its last group (a length of 4k+1):
        // such a token is not base64, and a decoder would drop that character altogether.
        for len in (2..=46).filter(|n| n % 4 != 1) {
            for last in ALPHABET.chars().chain("+/".chars()) {
                let token = format!("{}{last}", "Qk".repeat(len).get(..len - 1).unwrap());
                for tamper in Tamper::ALL
                    .into_iter()
                    .filter(|t| *t != Tamper::CaseSwapped)
                {
                    let form = tamper.apply(&token);
                    assert_ne!(form, token, "{tamper:?} of {token}");
                    assert_ne!(lenient(&form), lenient(&token), "{tamper:?} of {token}");
                }
            }
        }
    }

    #[test]
    fn padding_is_kept_after_the_tampered_data() {
        let token = "eHh4eA==";
        assert_eq!(Tamper::Appended.apply(token), "eHh4eAcovenant==");
        assert_eq!(Tamper::Truncated.apply(token), "eHh4e==");
        assert_eq!(Tamper::LastChanged.apply(token), "eHh4eg==");
        assert_eq!(Tamper::MiddleChanged.apply(token), "eHhYeA==");
        assert_eq!(Tamper::CaseSwapped.apply(token), "EhH4Ea==");
        for tamper in Tamper::ALL {
            assert_ne!(lenient(&tamper.apply(token)), lenient(token), "{tamper:?}");
        }
    }

    #[test]
    fn each_forms_shell_text_builds_the_form_from_the_tokens_variable() {
        let tokens = [
            "eHh4eA==",
            "at_0001_0123456789abcdefFEDCBA9876543210",
            "a-b_c/d+eZ",
            "tok~",
            "Qk",
        ];
        for token in tokens {
            for tamper in Tamper::ALL {
                let expr = tamper.shell(token, "TOK").expect("an ASCII token");
                let built = std::process::Command::new("sh")
                    .arg("-c")
                    .arg(format!("printf %s \"{expr}\""))
                    .env("TOK", token)
                    .output()
                    .expect("sh runs");
                let built = String::from_utf8_lossy(&built.stdout);
                assert_eq!(built, tamper.apply(token), "{tamper:?} of {token}: {expr}");
            }
        }
        assert_eq!(Tamper::Appended.shell("tokü", "TOK"), None);
    }

    #[test]
    fn the_change_stays_in_the_tokens_alphabet() {
        assert_eq!(Tamper::LastChanged.apply("ab_e"), "ab_-");
        assert_eq!(Tamper::LastChanged.apply("ab/e"), "ab/+");
        assert_eq!(Tamper::LastChanged.apply("abc0"), "abcU");
        assert_eq!(Tamper::LastChanged.apply("abc_"), "abcf");
    }

    #[test]
    fn a_token_that_is_not_base64_gets_another_last_character() {
        assert_eq!(Tamper::LastChanged.apply("tok~"), "tokA");
        assert_eq!(Tamper::LastChanged.apply("tokü"), "tokA");
        assert_eq!(Tamper::Truncated.apply("tokü"), "tok");
        assert_eq!(Tamper::Appended.apply("a.b."), "a.b.covenant");
    }

    #[test]
    fn a_suffixed_form_holds_the_token_and_the_others_do_not() {
        let token = "fin_0123456789abcdef";
        let forms = Tamper::forms(token);
        assert_eq!(forms.len(), 5);
        assert!(forms[0].starts_with(token));
        assert!(forms[1..].iter().all(|f| !f.contains(token)));
        assert!(forms[..3]
            .iter()
            .all(|f| f.starts_with("fin_0123456789abcde")));
        assert_eq!(forms[3], "fin_012345a789abcdef");
        assert_eq!(forms[4], "FIN_0123456789ABCDEF");
    }

    #[test]
    fn the_middle_change_keeps_both_ends_and_the_length() {
        let token = "fin_0123456789abcdef";
        let form = Tamper::MiddleChanged.apply(token);
        assert_eq!(form.len(), token.len());
        assert_eq!((&form[..10], &form[11..]), (&token[..10], &token[11..]));
        assert_ne!(lenient(&form), lenient(token));
    }

    #[test]
    fn a_token_without_letters_keeps_its_case_swapped_form() {
        assert_eq!(Tamper::CaseSwapped.apply("0123-4567"), "0123-4567");
        assert_eq!(Tamper::CaseSwapped.apply("aB3ü"), "Ab3ü");
    }

    #[test]
    fn degenerate_tokens_never_panic_and_still_change() {
        for token in ["=", "==", "x", "ü", "x="] {
            for tamper in Tamper::ALL
                .into_iter()
                .filter(|t| *t != Tamper::CaseSwapped)
            {
                assert_ne!(tamper.apply(token), token, "{tamper:?} of {token:?}");
            }
        }
    }
}
