//! The words of what the contract keeps as data: a run's verdict, how rate limits paced it, the
//! variants a refused baseline blocked. The contract holds the enums and numbers; what every
//! format says of them is here, once, and [`view`](super::view) gives it to the formats (a file
//! of its own, so that the coverage, which the views read, can say a blocked case too).

use crate::verdict::{Inconclusive, Pace, RunVerdict};

/// The word every surface uses for a verdict.
pub fn headline(verdict: RunVerdict) -> &'static str {
    match verdict {
        RunVerdict::Pass => "PASS",
        RunVerdict::PassWithWarnings => "PASS with warnings",
        RunVerdict::Fail => "FAILED",
        RunVerdict::Error => "ERROR",
        RunVerdict::Incomplete => "INCOMPLETE",
        RunVerdict::ProfileProblem => "PROFILE PROBLEM",
        RunVerdict::Unreachable => "UNREACHABLE",
        RunVerdict::CoverageShort => "COVERAGE SHORT",
        RunVerdict::StaleBaseline => "STALE BASELINE",
    }
}

/// The verdict in a sentence, for the head of a report.
pub fn verdict_sentence(verdict: RunVerdict) -> &'static str {
    match verdict {
        RunVerdict::Pass => "PASS: no rule of the contract is broken",
        RunVerdict::PassWithWarnings => {
            "PASS with warnings: no rule of the contract is broken; some conventions the spec \
             does not state are not kept"
        }
        RunVerdict::Fail => "FAILED: the target breaks the contract",
        RunVerdict::Error => "ERROR: some cases could not reach a verdict",
        RunVerdict::Incomplete => "INCOMPLETE: the run did not test all it planned",
        RunVerdict::ProfileProblem => {
            "PROFILE PROBLEM: the profile does not fit the target; fix it and run again"
        }
        RunVerdict::Unreachable => {
            "UNREACHABLE: the target did not answer before the first case; nothing was judged"
        }
        RunVerdict::CoverageShort => {
            "COVERAGE SHORT: no rule of the contract is broken, but the run judged less of it \
             than --require-coverage asks"
        }
        RunVerdict::StaleBaseline => {
            "STALE BASELINE: nothing new is broken, but the baseline of known failures holds \
             rules the target no longer breaks; remove those entries"
        }
    }
}

/// The verdict as the head of a report says it, `short` as a word (the console's and JUnit's
/// verdict line) or else as a sentence (summary.md's and summary.html's heading): an incomplete
/// run gives its word and why (`INCOMPLETE: the file holds no body …`) either way, so that its
/// verdict line alone says what is missing.
pub fn verdict_line(verdict: RunVerdict, incomplete: Option<&str>, short: bool) -> String {
    match (verdict, incomplete) {
        (RunVerdict::Incomplete, Some(why)) => format!("{}: {why}", headline(verdict)),
        _ if short => headline(verdict).to_owned(),
        _ => verdict_sentence(verdict).to_owned(),
    }
}

/// How rate limits paced the run, in one line for the summary and the reports.
pub fn pace_sentence(pace: &Pace) -> String {
    let answers = match (pace.answers_429, pace.answers_503) {
        (n, 0) => format!("{n} answer(s) 429"),
        (0, m) => format!("{m} answer(s) 503 with Retry-After"),
        (n, m) => format!("{n} answer(s) 429 and {m} 503 with Retry-After"),
    };
    format!(
        "the target rate-limited the run: {answers}, {} pause(s) of every request, {:.1} s \
         paused in all; the refused requests were sent again and none was judged; the pace \
         that worked: {} requests/s (--rate {} next time)",
        pace.pauses,
        pace.paused_ms / 1000.0,
        pace.suggested_rate(),
        pace.suggested_rate()
    )
}

/// One line naming the endpoints that never answered and how long they were tried; `None`
/// when every refused request came through in the end.
pub fn unanswered_sentence(pace: &Pace) -> Option<String> {
    let names: Vec<String> = pace
        .unanswered
        .iter()
        .map(|u| {
            format!(
                "{} ({} request(s) refused every try for up to {:.0} s, {} refusal(s))",
                u.endpoint, u.requests, u.seconds, u.refusals
            )
        })
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "never answered, rate-limited and not judged (errors of their cases; \
             --max-refusal): {}",
            names.join("; ")
        )
    })
}

/// The variants a refused baseline blocked, in one line for consoles and reports.
pub fn inconclusive_sentence(blocked: &Inconclusive) -> String {
    format!(
        "{} variant(s) of {} blocked by their baseline ({}), refused with {}: {}",
        blocked.count,
        blocked.rule,
        blocked.baseline,
        blocked.answer,
        blocked.named()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pace_names_its_refusals_and_the_rate_to_use_next_time() {
        let pace = Pace {
            answers_429: 3,
            answers_503: 0,
            pauses: 2,
            paused_ms: 2000.0,
            rate: 93.7,
            unanswered: Vec::new(),
        };
        let sentence = pace_sentence(&pace);
        assert!(sentence.contains("3 answer(s) 429"), "{sentence}");
        assert!(sentence.contains("--rate 93 next time"), "{sentence}");
        assert_eq!(unanswered_sentence(&pace), None);
        let mut refused = pace;
        refused.unanswered.push(crate::verdict::Unanswered {
            endpoint: "GET /finops/v1/tags/{tag_id}".into(),
            refusals: 12,
            requests: 3,
            seconds: 3.2,
        });
        let sentence = unanswered_sentence(&refused).expect("one endpoint");
        assert!(
            sentence.contains(
                "GET /finops/v1/tags/{tag_id} (3 request(s) refused every try for up to 3 s, \
                 12 refusal(s))"
            ),
            "{sentence}"
        );
    }
}
