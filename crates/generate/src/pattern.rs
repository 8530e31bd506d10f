//! Strings that match a pattern, drawn straight from the pattern's syntax tree.
//!
//! proptest's `string_regex` builds a shrinkable tree for every character and repeats a `*` up
//! to 32 times, so for an unbounded pattern such as a mailbox domain most of its strings were
//! longer than the length bounds and thrown away: about 170 µs per domain, the largest single
//! cost of a run. This walks the [`regex_syntax`] tree once per string with a seeded stream.
//! Its strategy shrinks through its *size* (the most times a `*`, `+` or `{n,}` repeats beyond
//! its minimum), toward the shortest strings the pattern allows.

use super::seed::Stream;
use proptest::prelude::*;
use regex_syntax::hir::{Class, Hir, HirKind, Look};
use std::sync::Arc;

/// The most times an unbounded repetition repeats beyond its minimum.
pub(crate) const MAX_SIZE: u32 = 12;

/// A pattern compiled for drawing.
#[derive(Debug)]
pub(crate) struct PatternGen {
    hir: Hir,
}

impl PatternGen {
    /// `None` when the pattern does not parse or uses what drawing cannot honour (look-around
    /// other than the anchors at its ends, which the caller strips).
    pub(crate) fn new(source: &str) -> Option<PatternGen> {
        let hir = regex_syntax::parse(source).ok()?;
        supported(&hir).then_some(PatternGen { hir })
    }

    /// The string drawn from `seed` with repetitions bounded by `size`.
    pub(crate) fn draw(&self, seed: u64, size: u32) -> String {
        let mut out = String::new();
        let mut stream = Stream::new(seed);
        walk(&self.hir, &mut stream, size, &mut out);
        out
    }

    /// A shrinkable strategy: the size shrinks toward 0, the seed toward 0.
    pub(crate) fn strategy(self: Arc<Self>) -> impl Strategy<Value = String> {
        (0..=MAX_SIZE, any::<u64>()).prop_map(move |(size, seed)| self.draw(seed, size))
    }
}

fn supported(hir: &Hir) -> bool {
    match hir.kind() {
        // Byte classes come only with `(?-u)`; schema patterns are Unicode.
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(Class::Unicode(_)) => true,
        HirKind::Class(Class::Bytes(_)) => false,
        HirKind::Look(look) => matches!(look, Look::Start | Look::End),
        HirKind::Repetition(rep) => supported(&rep.sub),
        HirKind::Capture(capture) => supported(&capture.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().all(supported),
    }
}

fn walk(hir: &Hir, stream: &mut Stream, size: u32, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            let total: u64 = ranges
                .iter()
                .map(|r| u64::from(r.end()) - u64::from(r.start()) + 1)
                .sum();
            if total == 0 {
                return;
            }
            let mut pick = stream.below(total);
            for range in ranges {
                let width = u64::from(range.end()) - u64::from(range.start()) + 1;
                if pick < width {
                    // In range and never a surrogate: regex-syntax's classes skip them.
                    let code = u32::from(range.start()) + pick as u32;
                    out.push(char::from_u32(code).unwrap_or(range.start()));
                    return;
                }
                pick -= width;
            }
        }
        // Refused by `supported`.
        HirKind::Class(Class::Bytes(_)) => {}
        HirKind::Repetition(rep) => {
            let extra = rep.max.map_or(size, |max| (max - rep.min).min(size));
            let times = rep.min + stream.below(u64::from(extra) + 1) as u32;
            for _ in 0..times {
                walk(&rep.sub, stream, size, out);
            }
        }
        HirKind::Capture(capture) => walk(&capture.sub, stream, size, out),
        HirKind::Concat(subs) => subs.iter().for_each(|sub| walk(sub, stream, size, out)),
        HirKind::Alternation(subs) => {
            let pick = stream.below(subs.len() as u64) as usize;
            walk(&subs[pick], stream, size, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOMAIN: &str =
        "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*";

    #[test]
    fn drawn_strings_match_their_pattern() {
        for source in [
            DOMAIN,
            "[A-Z]{3}",
            "[A-Z0-9]+(-[A-Z0-9]+)*",
            "[0-9]+/[0-9]+",
            "a|bc|d{2,4}",
        ] {
            let gen = PatternGen::new(source).expect("supported");
            let anchored = regex::Regex::new(&format!("^(?:{source})$")).unwrap();
            for seed in 0..500 {
                for size in [0, 3, MAX_SIZE] {
                    let s = gen.draw(seed, size);
                    assert!(anchored.is_match(&s), "{s:?} does not match {source}");
                }
            }
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_string_and_size_bounds_length() {
        let gen = PatternGen::new(DOMAIN).unwrap();
        assert_eq!(gen.draw(42, 5), gen.draw(42, 5));
        let distinct: std::collections::BTreeSet<String> =
            (0..200).map(|seed| gen.draw(seed, 5)).collect();
        assert!(
            distinct.len() > 150,
            "only {} distinct domains",
            distinct.len()
        );
        // Size 0: no optional part repeats, so every segment and the domain are one character.
        assert!((0..100).all(|seed| gen.draw(seed, 0).chars().count() == 1));
        let longest = (0..500).map(|seed| gen.draw(seed, 4).len()).max().unwrap();
        // At most 1 + 4 segments, each of at most 1 + 4 + 1 characters, and 4 dots.
        assert!(longest <= 5 * 6 + 4, "{longest}");
    }

    #[test]
    fn look_around_inside_a_pattern_is_left_to_the_fallback() {
        assert!(PatternGen::new("a\\bb").is_none());
        assert!(PatternGen::new("(unclosed").is_none());
        assert!(PatternGen::new("(?-u)[\\x00-\\xff]").is_none());
        assert!(PatternGen::new("^[a-z]+$").is_some());
    }
}
