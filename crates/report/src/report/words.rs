//! The words of what the contract keeps as data: a run's verdict and why, how rate limits
//! paced it, the variants a refused baseline blocked, the baseline's outcome, the traffic a
//! record judged, the variables its curls name, the contract it was judged against. The contract
//! holds the enums and numbers; what every format says of them is here, once, and
//! [`view`](super::view) gives it to the formats (a file of its own, so that the coverage, which
//! the views read, can say a blocked case too).

use crate::schema::JudgedAgainst;
use crate::verdict::{
    BaselineOutcome, CurlVar, Incomplete, Inconclusive, Pace, RunMeta, RunRecord, RunVerdict,
    TrafficMeta,
};

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

/// Why the run is incomplete, if it is: it stopped early, or it planned or ran no case.
pub fn incomplete(record: &RunRecord) -> Option<String> {
    let why = match record.incomplete()? {
        Incomplete::Stopped(why) => format!("the run stopped early: {why}"),
        Incomplete::Traffic(why) => why,
        Incomplete::NothingPlanned => {
            "no case was planned: check --filter, --skip, --shard and --read-only".to_owned()
        }
        Incomplete::NothingRan => {
            "no case ran: every planned case was skipped (see the reasons)".to_owned()
        }
        Incomplete::NothingJudged => {
            "nothing was judged: every case was skipped or blocked by its baseline".to_owned()
        }
    };
    Some(why)
}

/// Why the verdict is what it is, where the cases' statuses alone do not say it: an incomplete
/// run, the profile's problems, an unreachable target, coverage short of what was required.
pub fn verdict_reason(record: &RunRecord) -> Option<String> {
    let meta = &record.meta;
    match record.verdict() {
        RunVerdict::Incomplete => incomplete(record),
        RunVerdict::ProfileProblem => Some(meta.profile_problems.join("; ")),
        RunVerdict::Unreachable => meta.unreachable.clone(),
        RunVerdict::CoverageShort => Some(meta.coverage_short.join("; ")),
        _ => None,
    }
}

/// What produced the record, in words: `seed 7` for a run; for real traffic, what the traffic
/// was (a run's seed and cases per operation mean nothing there).
pub fn provenance(meta: &RunMeta) -> String {
    match &meta.traffic {
        Some(traffic) => traffic_seen(traffic),
        None => format!("seed {}", meta.seed),
    }
}

/// What real traffic a record judges: `traffic seen by covenant proxy on ADDR, from A to B`.
pub fn traffic_seen(traffic: &TrafficMeta) -> String {
    let what = match traffic.source.as_str() {
        "proxy" => format!("traffic seen by covenant proxy on {}", traffic.name),
        _ => format!("traffic recorded in {}", traffic.name),
    };
    match (&traffic.from, &traffic.to) {
        (Some(from), Some(to)) if from != to => format!("{what}, from {from} to {to}"),
        (Some(at), _) | (None, Some(at)) => format!("{what}, at {at}"),
        (None, None) => what,
    }
}

/// `spec 2026-09-24, 212 rules, catalogue 0123456789ab`: what `--version` and the reports say.
pub fn judged_against_sentence(judged: &JudgedAgainst) -> String {
    format!(
        "spec {}, {} rules, catalogue {}",
        judged.spec_version, judged.rules, judged.catalogue_hash
    )
}

/// The one line each report gives before its curls: the shell variables they name in place of
/// secrets, each with the profile key whose value it must hold, each variable and key rendered
/// by `code` (as a Markdown code span, say); `None` when no curl of the run names one.
pub fn curl_exports(record: &RunRecord, code: &dyn Fn(&str) -> String) -> Option<String> {
    let named: Vec<String> = record
        .curl_vars()
        .into_iter()
        .map(|var| match var {
            CurlVar::Profile { var, key } => {
                format!("{} (the profile's {})", code(&var), code(key))
            }
            CurlVar::Fetched { var } => format!(
                "{} (a banking access token {} gives)",
                code(&var),
                code("[banking.oauth]")
            ),
            CurlVar::Client { var, nth } => format!(
                "{} (the {} credential the clients sent)",
                code(&var),
                ordinal(nth)
            ),
        })
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "To run a curl as printed, export {} first; covenant never writes a secret",
            named.join(", ")
        )
    })
}

/// `1` as "first", `2` as "2nd", `3` as "3rd", `11` as "11th".
fn ordinal(n: usize) -> String {
    if n == 1 {
        return "first".to_owned();
    }
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The stale entries of a baseline in one sentence each, saying what to do.
pub fn stale_sentences(baseline: &BaselineOutcome) -> Vec<String> {
    baseline
        .stale
        .iter()
        .map(|s| {
            let what = if s.whole {
                format!("remove the entry {} from {}", s.rule, baseline.file)
            } else {
                format!(
                    "remove these cases from the entry {} of {}",
                    s.rule, baseline.file
                )
            };
            format!(
                "{} ran without breaking {}: {what}",
                s.cases.join(", "),
                s.rule
            )
        })
        .collect()
}

/// The baseline in a few lines, after the verdict line: what it held, what went stale, what
/// expired.
pub fn baseline_lines(baseline: &BaselineOutcome) -> Vec<String> {
    let mut lines = vec![format!(
        "baseline {}: the known failures it holds do not fail the run",
        baseline.file
    )];
    let stale = if baseline.accept_stale {
        "stale (accepted by --accept-stale)"
    } else {
        "stale"
    };
    lines.extend(
        stale_sentences(baseline)
            .into_iter()
            .map(|s| format!("{stale}: {s}")),
    );
    lines.extend(baseline.expired.iter().map(|e| format!("expired: {e}")));
    lines
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
        blocked_variants(blocked)
    )
}

/// The variants a refused baseline blocked that it names, and how many more: `a; b; and 3
/// more`.
pub fn blocked_variants(blocked: &Inconclusive) -> String {
    let mut named = blocked.variants.join("; ");
    let more = blocked.unnamed();
    if more > 0 {
        named.push_str(&format!("; and {more} more"));
    }
    named
}

/// The heading of the cases whose every failure the baseline holds.
pub(crate) const KNOWN_TITLE: &str = "Known: held by the baseline (they do not fail the run)";

/// `a, b, c and 4 more`.
pub(crate) fn case_list(cases: &[String], named: usize) -> String {
    let mut text = cases
        .iter()
        .take(named)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if cases.len() > named {
        text.push_str(&format!(" and {} more", cases.len() - named));
    }
    text
}

/// The text with its first letter in upper case.
pub(crate) fn capitalised(title: &str) -> String {
    let mut chars = title.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_read_as_words_say_them() {
        assert_eq!(
            [1, 2, 3, 4, 11, 12, 13, 21, 22, 103].map(ordinal),
            ["first", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "103rd"]
        );
    }

    #[test]
    fn the_contract_judged_against_names_its_spec_rules_and_catalogue_hash() {
        let judged = crate::schema::judged_against();
        let said = judged_against_sentence(&judged);
        assert!(
            said.contains(&judged.catalogue_hash) && said.contains(&judged.spec_version),
            "{said}"
        );
    }

    #[test]
    fn a_stale_entry_says_whether_the_entry_or_some_of_its_cases_go() {
        let mut baseline = BaselineOutcome {
            file: "baseline.toml".into(),
            known: 0,
            stale: vec![crate::verdict::StaleEntry {
                rule: "RCV-CREATE-201".into(),
                cases: vec!["a.one".into()],
                whole: false,
            }],
            expired: Vec::new(),
            accept_stale: false,
        };
        let lines = baseline_lines(&baseline);
        assert_eq!(
            lines[1],
            "stale: a.one ran without breaking RCV-CREATE-201: remove these cases from the \
             entry RCV-CREATE-201 of baseline.toml"
        );
        baseline.stale[0].whole = true;
        baseline.accept_stale = true;
        assert!(baseline_lines(&baseline)[1].starts_with("stale (accepted by --accept-stale): "));
        assert!(stale_sentences(&baseline)[0]
            .ends_with("remove the entry RCV-CREATE-201 from baseline.toml"));
    }

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
