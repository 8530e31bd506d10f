//! How a target's rate limits paced a run, as data (the reports' view says it).

use serde::{Deserialize, Serialize};

/// How a target's rate limits paced a run. The spec states no rate limit, so none of this is a
/// finding: a refused request was sent again once the pause was over, and only its answer was
/// judged; one refused for longer than `--max-refusal` ended as an error of its case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pace {
    /// Answers 429 Too Many Requests.
    pub answers_429: u64,
    /// Answers 503 Service Unavailable with `Retry-After`.
    pub answers_503: u64,
    /// Times every lane paused for a `Retry-After`, and how long in all (overlapping pauses
    /// counted once).
    pub pauses: u64,
    pub paused_ms: f64,
    /// The pace that worked, requests per second: the rate covenant settled at after the last
    /// refusal, a `--rate` for the next run against this target.
    pub rate: f64,
    /// Endpoints whose requests were refused every try for `--max-refusal`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<Unanswered>,
}

/// An endpoint whose requests were refused every try for `--max-refusal`: they ended as errors
/// of their cases, unjudged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unanswered {
    /// Method and path template, e.g. `GET /finops/v1/tags/{tag_id}`.
    pub endpoint: String,
    /// Its answers 429, or 503 with `Retry-After`.
    pub refusals: u64,
    /// Its requests that ended refused.
    pub requests: u64,
    /// The longest one request of it was tried, seconds.
    pub seconds: f64,
}

impl Pace {
    /// The `--rate` value to suggest: the pace that worked, rounded down to what a person would
    /// type.
    pub fn suggested_rate(&self) -> String {
        let places = match self.rate {
            r if r >= 10.0 => 0,
            r if r >= 0.1 => 2,
            _ => 3,
        };
        let scale = 10f64.powi(places);
        let rate = ((self.rate * scale).floor() / scale).max(0.001);
        let text = format!("{rate:.*}", places as usize);
        match places {
            0 => text,
            _ => text.trim_end_matches('0').trim_end_matches('.').to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suggested_rate_is_the_pace_rounded_down() {
        let pace = |rate| Pace {
            answers_429: 3,
            answers_503: 0,
            pauses: 2,
            paused_ms: 2000.0,
            rate,
            unanswered: Vec::new(),
        };
        assert_eq!(pace(93.7).suggested_rate(), "93");
        assert_eq!(pace(4.567).suggested_rate(), "4.56");
        assert_eq!(pace(0.5).suggested_rate(), "0.5");
        assert_eq!(
            pace(0.0001).suggested_rate(),
            "0.001",
            "never below what --rate takes"
        );
    }
}
