//! Strings: plain text of a given length, strings matching a pattern, the four formats, and the
//! near-miss strings that break a pattern or a format.

use super::pattern::PatternGen;
use super::tree::{Format, StringSpec};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Random plain strings draw from these; shrinking goes toward the first (`a`).
const CHARS: &[char] = &[
    'a', 'b', 'c', 'x', 'y', 'z', 'A', 'M', 'Z', '0', '1', '9', ' ', '-', '_', '.', ',', 'é', 'ß',
    'ø',
];

/// Random lengths of unbounded strings stop this far above the minimum.
pub(crate) const SPREAD: usize = 40;

/// A plain string of exactly `len` characters.
pub fn plain(len: usize) -> String {
    "covenant ".chars().cycle().take(len).collect()
}

/// Random plain strings with a length in `lo..=hi`, shrinking toward `lo` characters of `a`.
///
/// Drawn as a length and a seed, not as a shrinkable tree per character (which made a long
/// string cost a tree node, and an allocation, per character): shrinking takes the length
/// toward `lo` and the seed toward 0, whose string is all `a`.
pub(crate) fn plain_strategy(lo: usize, hi: usize) -> SBoxedStrategy<String> {
    (lo..=hi.max(lo), any::<u64>())
        .prop_map(|(len, seed)| drawn(CHARS, seed, len))
        .sboxed()
}

/// Random property names of open objects: 1 to 8 lower-case letters.
pub(crate) fn key_strategy() -> SBoxedStrategy<String> {
    const LOWER: &[char] = &[
        'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r',
        's', 't', 'u', 'v', 'w', 'x', 'y', 'z',
    ];
    (1..=8usize, any::<u64>())
        .prop_map(|(len, seed)| drawn(LOWER, seed, len))
        .sboxed()
}

/// `len` characters of `chars` drawn from `seed`; all the first character for seed 0.
fn drawn(chars: &[char], seed: u64, len: usize) -> String {
    if seed == 0 {
        return chars[0].to_string().repeat(len);
    }
    let mut stream = super::seed::Stream::new(seed);
    (0..len)
        .map(|_| chars[stream.below(chars.len() as u64) as usize])
        .collect()
}

/// A string of exactly `len` characters that matches `pattern`, built from letters and dots.
pub(crate) fn pattern_fill(pattern: &regex::Regex, len: usize) -> Option<String> {
    let mut candidates: Vec<String> = ['a', 'A', '1']
        .iter()
        .map(|c| c.to_string().repeat(len))
        .collect();
    for segment in [1usize, 10, 30, 60] {
        candidates.push(segmented(len, segment));
    }
    candidates
        .into_iter()
        .find(|candidate| pattern.is_match(candidate))
}

/// `aaaa.aaaa.aa` of exactly `len` characters, never ending in a dot.
fn segmented(len: usize, segment: usize) -> String {
    let mut out = String::with_capacity(len);
    while out.len() < len {
        if out.len() % (segment + 1) == segment {
            out.push('.');
        } else {
            out.push('a');
        }
    }
    if out.ends_with('.') {
        out.pop();
        out.push('a');
    }
    out
}

/// A valid string of exactly `len` characters for a spec, if one can be built.
pub(crate) fn of_length(
    spec: &StringSpec,
    pattern: Option<&regex::Regex>,
    len: usize,
) -> Option<String> {
    match (spec.format, pattern) {
        (Some(Format::Uri), _) => uri_of_length(len),
        (Some(format), _) => {
            let value = format_example(format);
            (value.chars().count() == len).then_some(value)
        }
        (None, Some(pattern)) => pattern_fill(pattern, len),
        (None, None) => Some(plain(len)),
    }
}

fn uri_of_length(len: usize) -> Option<String> {
    const BASE: &str = "https://example.com/";
    (len >= BASE.len()).then(|| format!("{BASE}{}", "a".repeat(len - BASE.len())))
}

/// A fixed valid value of a format.
pub(crate) fn format_example(format: Format) -> String {
    match format {
        Format::Uuid => "3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b".to_string(),
        Format::Date => "2026-01-15".to_string(),
        Format::DateTime => "2026-01-15T10:30:00Z".to_string(),
        Format::Uri => "https://example.com/covenant".to_string(),
    }
}

/// The year near dates are in: the year after next (UTC), so that they are always in the future
/// (a field may refuse past dates where the spec does not say it may be past) and never far off.
/// The payloads with dates change once a year, on the first run of a new year.
pub(crate) fn near_year() -> i32 {
    time::OffsetDateTime::now_utc().year() + 2
}

/// The first leap year from `year` on.
fn leap_year_from(year: i32) -> i32 {
    (year..)
        .find(|y| time::util::is_leap_year(*y))
        .unwrap_or(year)
}

/// A value of a format from no class of its own, that the values of [`format_classes`] are
/// judged beside: a target refusing it refuses the field, not the class. A date in the near
/// future (and mid-month), which a field that refuses past dates (a quote's expiry) still takes.
pub(crate) fn format_ordinary(format: Format) -> Option<String> {
    let year = near_year();
    match format {
        Format::Date => Some(format!("{year}-06-15")),
        Format::DateTime => Some(format!("{year}-06-15T10:30:00Z")),
        Format::Uuid => Some("3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b".to_owned()),
        Format::Uri => None,
    }
}

/// Valid values of a format, one per class a parser may get wrong, with what each is. Dates are
/// all in the near future ([`near_year`]), since a field may refuse past dates where the spec
/// does not say it may be past; `any_date` (the spec says the field's dates may be past, present
/// or future) adds a far past and a far future one.
pub(crate) fn format_classes(format: Format, any_date: bool) -> Vec<(String, &'static str)> {
    let (year, leap) = (near_year(), leap_year_from(near_year()));
    match format {
        Format::Date => {
            let mut out = vec![
                (format!("{leap}-02-29"), "a real leap day"),
                (format!("{year}-04-30"), "the last day of a 30-day month"),
                (format!("{year}-12-31"), "the last day of a year"),
            ];
            if any_date {
                out.push(("1900-01-01".to_owned(), "a far past date"));
                out.push(("2999-12-31".to_owned(), "a far future date"));
            }
            out
        }
        Format::DateTime => vec![
            (
                format!("{year}-06-15T10:30:00+05:30"),
                "an offset of +05:30",
            ),
            (format!("{year}-06-15T10:30:00-08:00"), "a negative offset"),
            (
                format!("{year}-06-15T10:30:00.123456Z"),
                "a fraction of a second",
            ),
            (
                format!("{leap}-02-29T23:59:59Z"),
                "the last second of a leap day",
            ),
        ],
        // RFC 4122: the hexadecimal digits are case insensitive on input.
        Format::Uuid => vec![(
            "3F1C2B4A-5D6E-4F70-8A9B-0C1D2E3F4A5B".to_owned(),
            "a uuid in upper case",
        )],
        Format::Uri => Vec::new(),
    }
}

/// A value a pattern admits from no class of its own, for [`pattern_classes`] to be judged
/// beside (when the pattern admits it).
pub(crate) const PATTERN_ORDINARY: &str = "mail.example.com";

/// Strings a pattern admits, one per class a hand-written check may get wrong, with what each
/// is: the pattern (and the length bounds) keep those of its classes; the validator has the last
/// word on each.
pub(crate) fn pattern_classes(
    pattern: &regex::Regex,
    spec: &StringSpec,
) -> Vec<(String, &'static str)> {
    let fits = |s: &String| {
        let len = s.chars().count();
        len >= spec.min_len && spec.max_len.is_none_or(|max| len <= max)
    };
    [
        ("123.example.com".to_owned(), "an all-digit segment"),
        (
            "xn--bcher-kva.example".to_owned(),
            "an inner double hyphen (a punycode segment)",
        ),
        (
            format!("{}.example.com", "a".repeat(63)),
            "a segment of 63 characters",
        ),
        ("a.b.c.d.e.f.g.h.example.com".to_owned(), "ten segments"),
        ("a.example.com".to_owned(), "a one-character segment"),
        ("Mail.EXAMPLE.com".to_owned(), "upper-case letters"),
    ]
    .into_iter()
    .filter(|(s, _)| pattern.is_match(s) && fits(s))
    .collect()
}

/// Random valid values of a format.
pub(crate) fn format_strategy(format: Format) -> SBoxedStrategy<String> {
    match format {
        Format::Uuid => any::<[u8; 16]>()
            .prop_map(|bytes| {
                uuid::Builder::from_random_bytes(bytes)
                    .into_uuid()
                    .to_string()
            })
            .sboxed(),
        Format::Date => date_strategy().sboxed(),
        Format::DateTime => (date_strategy(), 0u32..24, 0u32..60, 0u32..60)
            .prop_map(|(date, h, m, s)| format!("{date}T{h:02}:{m:02}:{s:02}Z"))
            .sboxed(),
        Format::Uri => (0..16usize, any::<u64>())
            .prop_map(|(len, seed)| {
                let path = drawn(&['a', 'b', 'z', '0', '9', '-'], seed, len);
                format!("https://example.com/{path}")
            })
            .sboxed(),
    }
}

fn date_strategy() -> impl Strategy<Value = String> {
    (2000u32..2100, 1u32..=12, 1u32..=28).prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

/// Strings that break a format (the validator has the last word on each).
pub(crate) fn bad_formats(format: Format) -> &'static [&'static str] {
    match format {
        // A word, one digit short, a letter no hexadecimal digit is, surrounding whitespace,
        // braces (Microsoft's registry form), nothing. The spec states no version, so a uuid
        // of any version (or none) is valid.
        Format::Uuid => &[
            "not-a-uuid",
            "",
            "3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5",
            "3f1c2b4a5d6e4f708a9b0c1d2e3f4a5bzz",
            "g f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b",
            " 3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b",
            "3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b ",
            "{3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b}",
        ],
        // A word, dates of the right shape that name no day (February 30, month 13), other
        // shapes, surrounding whitespace, nothing: a check of the shape alone lets some in.
        Format::Date => &[
            "not-a-date",
            "latest",
            "2026-13-45",
            "2026-13-01",
            "2026-02-30",
            "26-01-15",
            "2026-1-15",
            "2026-01-15T10:30:00Z",
            " 2026-01-15",
            "2026-01-15 ",
            "",
        ],
        Format::DateTime => &[
            "not-a-date-time",
            "2026-01-15",
            "2026-01-15T25:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-02-30T10:00:00Z",
            " 2026-01-15T10:30:00Z",
            "2026-01-15T10:30:00Z ",
            "",
        ],
        Format::Uri => &[
            "not a uri",
            "example.com/no-scheme",
            "://missing-scheme",
            "https://exa mple.com/",
            " https://example.com/",
            "https://example.com/ ",
            "",
        ],
    }
}

/// A number whose digits, read as text by a lax binder, are still no value of `format`.
pub(crate) fn format_number(format: Format) -> i64 {
    match format {
        // Read as text, `20260115` has a date's digits but not its shape.
        Format::Date | Format::DateTime => 20_260_115,
        Format::Uuid | Format::Uri => 12345,
    }
}

/// The other spellings of a property name of several words (`trade_name`): camelCase,
/// PascalCase and kebab-case, each with its style's name. A name of one word has none.
pub(crate) fn spellings(name: &str) -> Vec<(String, &'static str)> {
    let words: Vec<&str> = name.split(['_', '-']).filter(|w| !w.is_empty()).collect();
    let capital = |w: &str| {
        let mut chars = w.chars();
        chars
            .next()
            .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
    };
    let pascal: String = words.iter().map(|w| capital(w)).collect();
    let camel = match words.split_first() {
        Some((first, rest)) => format!(
            "{first}{}",
            rest.iter().map(|w| capital(w)).collect::<String>()
        ),
        None => String::new(),
    };
    let mut out = Vec::new();
    for (spelling, style) in [
        (camel, "the camelCase"),
        (pascal, "the PascalCase"),
        (words.join("-"), "the kebab-case"),
    ] {
        if spelling != name && !out.iter().any(|(s, _)| *s == spelling) && words.len() > 1 {
            out.push((spelling, style));
        }
    }
    out
}

/// Strings that do not match a pattern but keep to the length bounds.
pub(crate) fn bad_patterns(pattern: &regex::Regex, spec: &StringSpec) -> Vec<String> {
    let fits = |s: &String| {
        let len = s.chars().count();
        len >= spec.min_len && spec.max_len.is_none_or(|max| len <= max)
    };
    [
        "-leading-hyphen",
        "trailing-hyphen-",
        "two..dots",
        "has space",
        "under_score",
        "bang!",
        "ümlaut",
        ".",
        "-",
        "!",
    ]
    .iter()
    .map(|s| s.to_string())
    .filter(|s| !pattern.is_match(s) && fits(s))
    .collect()
}

/// Random strings matching a schema's `pattern` within length bounds, shrinkable; plain strings
/// where the pattern is no regex. Each pattern is compiled once for the process: a body's
/// strategy is built for each site a schema breaks, and each compiled its patterns again.
pub(crate) fn pattern_strategy(pattern: &str, lo: usize, hi: usize) -> SBoxedStrategy<String> {
    type CompiledPattern = Option<(Arc<regex::Regex>, Option<Arc<PatternGen>>)>;
    static PATTERNS: OnceLock<Mutex<HashMap<String, CompiledPattern>>> = OnceLock::new();
    let patterns = PATTERNS.get_or_init(Mutex::default);
    let known = patterns
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(pattern)
        .cloned();
    let compiled = known.unwrap_or_else(|| {
        let compiled = regex::Regex::new(pattern).ok().map(|regex| {
            let generator = PatternGen::new(&generator_source(regex.as_str())).map(Arc::new);
            (Arc::new(regex), generator)
        });
        let mut patterns = patterns.lock().unwrap_or_else(|e| e.into_inner());
        patterns.insert(pattern.to_owned(), compiled.clone());
        compiled
    });
    match compiled {
        Some((regex, generator)) => pattern_strategy_of(regex, generator, lo, hi),
        None => plain_strategy(lo, hi),
    }
}

fn pattern_strategy_of(
    pattern: Arc<regex::Regex>,
    generator: Option<Arc<PatternGen>>,
    lo: usize,
    hi: usize,
) -> SBoxedStrategy<String> {
    let fits = move |s: &String| {
        let len = s.chars().count();
        len >= lo && len <= hi
    };
    match generator {
        Some(generator) => super::memo::Memo(generator.strategy())
            .prop_filter("pattern string out of length bounds", move |s| {
                fits(s) && pattern.is_match(s)
            })
            .sboxed(),
        // A pattern with look-around: strings of letters, digits and dots that match it.
        None => (lo..=hi)
            .prop_filter_map("no pattern string of this length", move |len| {
                pattern_fill(&pattern, len)
            })
            .sboxed(),
    }
}

/// A JSON Schema pattern rewritten for drawing: no anchors, ASCII classes.
fn generator_source(pattern: &str) -> String {
    let body = pattern.strip_prefix('^').unwrap_or(pattern);
    let body = match body.strip_suffix('$') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => body,
    };
    body.replace("\\d", "[0-9]").replace("\\w", "[A-Za-z0-9_]")
}

/// A JSON string value.
pub(crate) fn string(s: impl Into<String>) -> Value {
    Value::String(s.into())
}
