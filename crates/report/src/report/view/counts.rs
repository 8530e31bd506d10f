//! A run's counts, as every report says them: the counts sentence of a run's summary, and the
//! table of two runs side by side that a compare and a diff open with.

use crate::report::plural;
use crate::verdict::{Counts, RunVerdict};

/// A run's counts as one sentence: what failed first, then errors, warnings, passes, skips and
/// the cases not judged; then how many cases and requests in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountWords {
    /// `1 failed`, `2 errors`, `1 warning`, `3 passed`, …: the counts, each said once.
    pub parts: Vec<String>,
    /// `6 cases`.
    pub cases: String,
    /// `12 requests`.
    pub requests: String,
}

impl CountWords {
    /// The counts of a settled run; under `--strict` its warned cases are among the failures (a
    /// run never reads FAILED with 0 failed), and the sentence says how many.
    pub fn of(c: &Counts) -> CountWords {
        let warned = c.warnings_failed;
        let mut parts = vec![match warned {
            0 => format!("{} failed", c.fail),
            _ => format!(
                "{} failed ({warned} of them warnings under --strict)",
                c.fail
            ),
        }];
        parts.push(plural(c.error, "error"));
        if warned == 0 {
            parts.push(plural(c.warn, "warning"));
        }
        parts.push(format!("{} passed", c.pass));
        parts.push(format!("{} skipped", c.skip));
        parts.push(format!("{} inconclusive", c.inconclusive));
        if c.known > 0 {
            parts.push(format!("{} known", c.known));
        }
        if c.client > 0 {
            parts.push(format!("{} with the client's slips", c.client));
        }
        CountWords {
            parts,
            cases: plural(c.total(), "case"),
            requests: plural(c.requests, "request"),
        }
    }
}

/// The columns of [`Sides`], after the name of each side.
pub const SIDE_COLUMNS: [&str; 9] = [
    "target",
    "verdict",
    "seed",
    "pass",
    "warn",
    "fail",
    "error",
    "skip",
    "inconclusive",
];

/// Two runs side by side (old and new of a compare, A and B of a diff): one row each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    pub rows: Vec<SideRow>,
}

/// One run of [`Sides`]: its name, then a value per column of [`SIDE_COLUMNS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideRow {
    pub name: String,
    pub target: String,
    pub verdict: &'static str,
    pub seed: u64,
    /// pass, warn, fail, error, skip, inconclusive.
    pub counts: [usize; 6],
}

impl Sides {
    /// One row per run: its name, target, seed, verdict and counts.
    pub fn of<'a>(
        runs: impl IntoIterator<Item = (&'a str, &'a str, u64, RunVerdict, &'a Counts)>,
    ) -> Sides {
        let rows = runs
            .into_iter()
            .map(|(name, target, seed, verdict, c)| SideRow {
                name: name.to_owned(),
                target: target.to_owned(),
                verdict: verdict.as_str(),
                seed,
                counts: [c.pass, c.warn, c.fail, c.error, c.skip, c.inconclusive],
            })
            .collect();
        Sides { rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(fail: usize, warn: usize) -> Counts {
        Counts {
            pass: 2,
            fail,
            warn,
            requests: 9,
            ..Counts::default()
        }
    }

    #[test]
    fn the_counts_sentence_says_failures_first_and_errors_in_the_plural() {
        let tally = CountWords::of(&counts(1, 1));
        assert_eq!(
            tally.parts.join(", "),
            "1 failed, 0 errors, 1 warning, 2 passed, 0 skipped, 0 inconclusive"
        );
        assert_eq!(
            (tally.cases.as_str(), tally.requests.as_str()),
            ("4 cases", "9 requests")
        );
    }

    #[test]
    fn under_strict_the_warnings_are_said_among_the_failures() {
        let tally = CountWords::of(&Counts {
            warnings_failed: 2,
            ..counts(2, 0)
        });
        assert_eq!(
            tally.parts[0],
            "2 failed (2 of them warnings under --strict)"
        );
        assert!(!tally
            .parts
            .iter()
            .any(|p| p.contains("warning") && !p.contains("failed")));
    }
}
