//! Which answers are rate limits, and the pause their `Retry-After` asks for.

use super::Response;
use std::time::Duration;

/// Whether an answer is a rate limit, and the pause it asks for: a 429, or a 503 with
/// `Retry-After` (a 503 without one is an error of the target, judged like any 5xx).
pub(super) fn rate_limit(response: &Response) -> Option<Option<Duration>> {
    rate_limit_of(response.status, response.header("retry-after"))
}

pub(super) fn rate_limit_of(status: u16, retry_after: Option<&str>) -> Option<Option<Duration>> {
    match (status, retry_after) {
        (429, value) => Some(value.and_then(parse_retry_after)),
        (503, Some(value)) => Some(parse_retry_after(value)),
        _ => None,
    }
}

/// A `Retry-After` value: seconds, or an HTTP date (RFC 9110, section 10.2.3); a date in the
/// past asks for no wait.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let at =
        time::OffsetDateTime::parse(value, &time::format_description::well_known::Rfc2822).ok()?;
    let wait = at - time::OffsetDateTime::now_utc();
    Some(Duration::try_from(wait).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_429_or_a_503_with_retry_after_is_a_rate_limit_in_seconds_or_as_a_date() {
        let answer = |status, retry_after: Option<&str>| Response {
            status,
            headers: retry_after
                .map(|v| ("Retry-After".to_owned(), v.to_owned()))
                .into_iter()
                .collect(),
            body: vec![],
            json: None,
        };
        assert_eq!(
            rate_limit(&answer(429, Some("2"))),
            Some(Some(Duration::from_secs(2)))
        );
        assert_eq!(rate_limit(&answer(429, None)), Some(None));
        assert_eq!(
            rate_limit(&answer(503, Some("1"))),
            Some(Some(Duration::from_secs(1)))
        );
        assert_eq!(rate_limit(&answer(503, None)), None, "a 503 alone is a 5xx");
        assert_eq!(rate_limit(&answer(500, Some("1"))), None);
        let past = rate_limit(&answer(429, Some("Sun, 06 Nov 1994 08:49:37 GMT")));
        assert_eq!(past, Some(Some(Duration::ZERO)), "an HTTP date in the past");
        let soon = time::OffsetDateTime::now_utc() + time::Duration::seconds(30);
        let date = soon
            .format(&time::format_description::well_known::Rfc2822)
            .expect("a date");
        let wait = parse_retry_after(&date).expect("an HTTP date is read");
        assert!(
            wait > Duration::from_secs(25) && wait <= Duration::from_secs(30),
            "{date}: {wait:?}"
        );
    }
}
