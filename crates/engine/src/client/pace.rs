//! The run's pace: when the next request may start, for every lane at once.
//!
//! The spec states no rate limit, so a target may refuse a request with 429 (or 503 with
//! `Retry-After`) at any time and break no rule. Covenant then slows down rather than failing
//! the target or itself: the refusal pauses every lane until the time `Retry-After` names (not
//! only the refused request, whose lane alone waiting would let the others keep the bucket
//! empty), and the run's rate drops to a fraction of what came through in the second before
//! (multiplicative decrease). While answers come through it climbs back slowly (additive
//! increase), never above `--rate`. Before the first refusal there is no pace but `--rate`;
//! after a refusal of a run without one, what came through says little more than the size of
//! the target's burst, so the rate climbs fast (slow start, as TCP's) until the next refusal.
//!
//! Refusals of requests sent before the last decrease do not decrease it again: they are the
//! requests that were in flight when the first of them came back. The refused request is sent
//! again by the caller once the pause is over (see [`super::Target::send`]).
//!
//! A limit over the whole target and one endpoint refusing alone (a used-up quota, a gateway or
//! WAF rule) look alike at first. An endpoint refused [`ALONE_AFTER`] times more in a row while
//! other endpoints answered in between refuses alone: its refusals then hold only its own
//! requests, pause no other lane and leave the rate alone, and the decreases its first refusals
//! made are undone when no other refusal decreased the rate since. A request refused for longer
//! than `--max-refusal` ends as an error of its case (the caller's bound), and the endpoint is
//! named in the report; when nothing at all came through for that long, covenant gives up on
//! the target and the run stops, incomplete.
//!
//! It never decides a verdict; it only says when to send and keeps the numbers a report gives
//! ([`crate::verdict::Pace`]). Times are tokio's, so that tests can run it on a paused clock.

use crate::verdict::{Pace, Unanswered};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// The fraction of the rate that came through that a refusal leaves (multiplicative decrease).
/// What came through is already less than the rate that overshot, so a mild fraction does:
/// every refusal costs a pause of `Retry-After`, and a deeper cut costs a longer climb back.
const DECREASE: f64 = 0.95;
/// The fraction a refusal ending a slow start leaves: the rate grew fast past the target's
/// limit, and what came through in the second before held its burst as well.
const SLOW_START_DECREASE: f64 = 0.88;
/// What the rate climbs per second of answers, as a fraction of the rate the last decrease
/// left (additive increase): slow, so that it stays long below the target's limit. Against a
/// token bucket of 100 and of 150 requests per second, runs of 6,861 requests kept 92% and 90%
/// of the limit with these two constants, 91% and 89% with 90% and 1% a second.
const CLIMB: f64 = 0.005;
/// What the rate climbs per answer in slow start: with answers coming at the rate, it grows
/// e-fold per second.
const SLOW_START_STEP: f64 = 1.0;
/// The pause after a 429 without `Retry-After`.
const DEFAULT_PAUSE: Duration = Duration::from_secs(1);
/// The longest pause covenant takes: a target asking for longer ends the run, incomplete.
pub const MAX_PAUSE: Duration = Duration::from_secs(600);
/// How long one request may be refused before it ends as an error of its case, and covenant
/// keeps trying while nothing but refusals comes back (`--max-refusal`). A healthy rate-limited
/// target refuses a request for a second or two (a token bucket of 150 requests per second
/// refused none for more than 1 s in the pace tests); a quota of a minute asks for a minute.
pub const DEFAULT_MAX_REFUSAL: Duration = Duration::from_secs(60);
/// Refusals in a row of one endpoint, after its first, with answers of other endpoints between
/// each, after which it refuses alone.
const ALONE_AFTER: u32 = 2;
/// The slowest pace: one request in 1000 s, as `--rate` allows.
const MIN_RATE: f64 = 0.001;
/// The least a first refusal assumes came through, requests per second.
const FIRST_FLOOR: f64 = 1.0;
/// What came through is counted in buckets of this length, over the last second.
const BUCKET: Duration = Duration::from_millis(50);
const BUCKETS: usize = 20;
/// The shortest span what came through is measured over (a rate over a few milliseconds after
/// a pause would be noise).
const MIN_SPAN: Duration = Duration::from_millis(500);

/// A request let through by [`Pacer::admit`]: the decrease it was sent after.
#[derive(Debug, Clone, Copy)]
pub struct Admission {
    epoch: u64,
}

/// What a refusal leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// Every lane waits until the pause is over; the request is then sent again.
    Paused,
    /// The endpoint refuses alone: only its requests wait (see [`Pacer::endpoint_pause`]).
    Alone,
    /// Covenant gives up on the target: the run stops, incomplete, for this reason.
    GiveUp(String),
}

/// The pace shared by every request of a run.
#[derive(Debug)]
pub struct Pacer {
    /// `--rate`: the pace never goes above it.
    ceiling: Option<f64>,
    /// `--max-refusal`.
    max_refusal: Duration,
    state: Mutex<PaceState>,
}

/// The pace as it stands: its rate, its pauses, and the answers and refusals it was set by.
#[derive(Debug)]
struct PaceState {
    /// Requests per second; `None`: as fast as the lanes go.
    rate: Option<f64>,
    /// The earliest start of the next request.
    next: Instant,
    /// Every lane waits until then.
    paused_until: Instant,
    /// When the last pause ended (or the pacer began): what came through is measured since.
    resumed: Instant,
    /// Decreases so far.
    epoch: u64,
    slow_start: bool,
    /// Additive increase, requests per second per second.
    climb: f64,
    came_through: Window,
    /// The first refusal since the last answer that came through.
    refused_since: Option<Instant>,
    answers_429: u64,
    answers_503: u64,
    pauses: u64,
    paused: Duration,
    /// The rate the last decrease left: the pace that worked.
    settled: Option<f64>,
    /// Answers that came through so far.
    answers: u64,
    /// The most that came through in a second, answers per second.
    peak: f64,
    /// Endpoints (method and path template) refused since their last answer, or given up on.
    endpoints: HashMap<String, Endpoint>,
}

/// An endpoint refused since its last answer.
#[derive(Debug)]
struct Endpoint {
    /// Refusals since its last answer.
    streak: u32,
    /// Refusals in a row, after the first, with answers of other endpoints between each.
    lonely: u32,
    /// `PaceState::answers` at its last refusal.
    answers_at: u64,
    /// It refuses while the others answer: its refusals hold only its own requests.
    alone: bool,
    /// Its own requests wait until then.
    paused_until: Instant,
    /// The pace before its first refusal decreased it, and the decreases it made since.
    undo: Option<(Undo, u64)>,
    /// Refusals in all, requests that ended refused, and the longest one was tried.
    refusals: u64,
    gave_up: u64,
    tried: Duration,
}

/// The pace as it was before a decrease.
#[derive(Debug, Clone, Copy)]
struct Undo {
    epoch: u64,
    rate: Option<f64>,
    settled: Option<f64>,
    slow_start: bool,
    climb: f64,
}

impl Pacer {
    /// A pacer starting at `ceiling` (`--rate`), or unpaced without one, giving up on a target
    /// that answers nothing but refusals for `max_refusal`.
    pub fn new(ceiling: Option<f64>, max_refusal: Duration) -> Pacer {
        let ceiling = ceiling
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| r.max(MIN_RATE));
        let now = Instant::now();
        Pacer {
            ceiling,
            max_refusal,
            state: Mutex::new(PaceState {
                rate: ceiling,
                next: now,
                paused_until: now,
                resumed: now,
                epoch: 0,
                slow_start: false,
                climb: 0.0,
                came_through: Window::new(now),
                refused_since: None,
                answers_429: 0,
                answers_503: 0,
                pauses: 0,
                paused: Duration::ZERO,
                settled: None,
                answers: 0,
                peak: 0.0,
                endpoints: HashMap::new(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PaceState> {
        // Every update is a few assignments: a poisoned state is still a state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until a request may start: after any pause, at its slot of the rate.
    pub async fn admit(&self) -> Admission {
        loop {
            let slot = {
                let mut s = self.lock();
                let now = Instant::now();
                if s.paused_until > now {
                    Err(s.paused_until)
                } else {
                    match s.rate {
                        None => return Admission { epoch: s.epoch },
                        Some(rate) => {
                            let slot = s.next.max(now);
                            s.next = slot + interval(rate);
                            Ok(slot)
                        }
                    }
                }
            };
            match slot {
                Err(pause_end) => tokio::time::sleep_until(pause_end).await,
                Ok(slot) => {
                    tokio::time::sleep_until(slot).await;
                    // A pause that began meanwhile holds this request too.
                    let s = self.lock();
                    if s.paused_until <= Instant::now() {
                        return Admission { epoch: s.epoch };
                    }
                }
            }
        }
    }

    /// An answer of `endpoint` that came through (anything but a rate limit): the rate climbs.
    pub fn came_through(&self, endpoint: &str) {
        let mut s = self.lock();
        let now = Instant::now();
        s.came_through.add(now);
        s.refused_since = None;
        s.answers += 1;
        if !s.endpoints.is_empty() {
            let peak = s.came_through.rate(now, BUCKET * BUCKETS as u32);
            s.peak = s.peak.max(peak);
            if let Some(e) = s.endpoints.get_mut(endpoint) {
                (e.streak, e.lonely, e.alone, e.undo) = (0, 0, false, None);
            }
        }
        if let Some(rate) = s.rate {
            let step = if s.slow_start {
                SLOW_START_STEP
            } else {
                s.climb / rate
            };
            s.rate = Some(self.capped(rate + step));
        }
    }

    /// A rate-limit answer (`status` 429, or 503 with `Retry-After`) of `endpoint` to a
    /// request let through by `admission`: every lane pauses for `retry_after`, and the rate
    /// drops unless it already dropped since that request was sent; only the endpoint's own
    /// requests wait when it refuses alone.
    pub fn refused(
        &self,
        admission: Admission,
        endpoint: &str,
        status: u16,
        retry_after: Option<Duration>,
    ) -> Refusal {
        let mut guard = self.lock();
        let s = &mut *guard;
        let now = Instant::now();
        match status {
            503 => s.answers_503 += 1,
            _ => s.answers_429 += 1,
        }
        let wait = retry_after.unwrap_or(DEFAULT_PAUSE);
        let answers = s.answers;
        let e = s
            .endpoints
            .entry(endpoint.to_owned())
            .or_insert_with(|| Endpoint {
                streak: 0,
                lonely: 0,
                answers_at: answers,
                alone: false,
                paused_until: now,
                undo: None,
                refusals: 0,
                gave_up: 0,
                tried: Duration::ZERO,
            });
        e.refusals += 1;
        e.lonely = match e.streak > 0 && answers > e.answers_at {
            true => e.lonely + 1,
            false => 0,
        };
        e.streak += 1;
        e.answers_at = answers;
        if !e.alone && e.lonely >= ALONE_AFTER {
            e.alone = true;
            if let Some((undo, decreases)) = e.undo.take() {
                if s.epoch == undo.epoch + decreases {
                    s.rate = undo.rate;
                    s.settled = undo.settled;
                    s.slow_start = undo.slow_start;
                    s.climb = undo.climb;
                }
            }
        }
        let e = s.endpoints.get_mut(endpoint).expect("inserted above");
        if e.alone {
            if wait > MAX_PAUSE {
                return Refusal::GiveUp(too_long(status, wait));
            }
            e.paused_until = e.paused_until.max(now + wait);
            return Refusal::Alone;
        }
        let since = *s.refused_since.get_or_insert(now);
        if wait > MAX_PAUSE {
            return Refusal::GiveUp(too_long(status, wait));
        }
        if now.duration_since(since) > self.max_refusal {
            return Refusal::GiveUp(format!(
                "for {} s the target answered nothing but rate limits (429, or 503 with \
                 Retry-After); run again later, or with a lower --rate (--max-refusal)",
                self.max_refusal.as_secs_f64()
            ));
        }
        if admission.epoch == s.epoch {
            let before = Undo {
                epoch: s.epoch,
                rate: s.rate,
                settled: s.settled,
                slow_start: s.slow_start,
                climb: s.climb,
            };
            let e = s.endpoints.get_mut(endpoint).expect("inserted above");
            match &mut e.undo {
                Some((_, decreases)) => *decreases += 1,
                None => e.undo = Some((before, 1)),
            }
            s.epoch += 1;
            self.decrease(s, now);
        }
        let until = now + wait;
        if until > s.paused_until {
            if s.paused_until <= now {
                s.pauses += 1;
            }
            let from = s.paused_until.max(now);
            s.paused += until - from;
            s.paused_until = until;
            s.resumed = until;
        }
        s.next = s.next.max(s.paused_until);
        Refusal::Paused
    }

    /// The rate drops to a fraction of what came through lately, or of itself when that is
    /// less. A refusal soon after a pause has measured nothing: the rate drops from itself (the
    /// pause was short, the rate is not nil).
    fn decrease(&self, s: &mut PaceState, now: Instant) {
        let measured = now.saturating_duration_since(s.resumed) >= MIN_SPAN;
        let came_through = s.came_through.rate(now, s.span(now));
        let from = match s.rate {
            Some(rate) if measured => rate.min(came_through),
            Some(rate) => rate,
            None => came_through.max(FIRST_FLOOR),
        };
        // The end of a slow start overshot far: what came through held the target's burst too.
        let fraction = match s.slow_start {
            true => SLOW_START_DECREASE,
            false => DECREASE,
        };
        // Unpaced until now: what came through was the target's burst, not its rate.
        s.slow_start = s.rate.is_none();
        let rate = self.capped((fraction * from).max(MIN_RATE));
        s.rate = Some(rate);
        s.climb = CLIMB * rate;
        s.settled = Some(rate);
    }

    fn capped(&self, rate: f64) -> f64 {
        match self.ceiling {
            Some(ceiling) => rate.min(ceiling),
            None => rate,
        }
    }

    /// When the own pause of an endpoint refusing alone ends; `None` when it has none.
    pub fn endpoint_pause(&self, endpoint: &str) -> Option<Instant> {
        let s = self.lock();
        let until = s.endpoints.get(endpoint)?.paused_until;
        (until > Instant::now()).then_some(until)
    }

    /// Whether a request of `endpoint` already ended refused while the endpoint answered
    /// nothing since: a refusal then ends the next at once.
    pub fn given_up(&self, endpoint: &str) -> Option<Duration> {
        let s = self.lock();
        let e = s.endpoints.get(endpoint)?;
        (e.gave_up > 0 && e.streak > 0).then_some(e.tried)
    }

    /// A request of `endpoint` refused every try for `tried`: it ends unjudged.
    pub fn gave_up(&self, endpoint: &str, tried: Duration) {
        let mut s = self.lock();
        if let Some(e) = s.endpoints.get_mut(endpoint) {
            e.gave_up += 1;
            e.tried = e.tried.max(tried);
        }
    }

    /// How the target's rate limits paced the run; `None` when it never refused a request.
    pub fn report(&self) -> Option<Pace> {
        let s = self.lock();
        if s.answers_429 + s.answers_503 == 0 {
            return None;
        }
        // Without a decrease that stands (only endpoints refusing alone), the pace that worked
        // is the most that came through.
        let rate = s.settled.unwrap_or(s.peak).max(MIN_RATE);
        let mut unanswered: Vec<Unanswered> = s
            .endpoints
            .iter()
            .filter(|(_, e)| e.gave_up > 0)
            .map(|(name, e)| Unanswered {
                endpoint: name.clone(),
                refusals: e.refusals,
                requests: e.gave_up,
                seconds: e.tried.as_secs_f64(),
            })
            .collect();
        unanswered.sort_by(|a, b| a.endpoint.cmp(&b.endpoint));
        Some(Pace {
            answers_429: s.answers_429,
            answers_503: s.answers_503,
            pauses: s.pauses,
            paused_ms: s.paused.as_secs_f64() * 1000.0,
            rate,
            unanswered,
        })
    }
}

/// Why covenant gives up on a target asking for a longer wait than it takes.
fn too_long(status: u16, wait: Duration) -> String {
    format!(
        "the target answered {status} asking covenant to wait {} s (Retry-After), longer than \
         the {} s it waits; run again later, or with a lower --rate",
        wait.as_secs(),
        MAX_PAUSE.as_secs()
    )
}

impl PaceState {
    /// The span what came through is measured over: the last second, or since the last pause
    /// ended when that is shorter, but no shorter than [`MIN_SPAN`].
    fn span(&self, now: Instant) -> Duration {
        let since = now.saturating_duration_since(self.resumed);
        since.clamp(MIN_SPAN, BUCKET * BUCKETS as u32)
    }
}

/// The spacing of `rate` requests per second.
fn interval(rate: f64) -> Duration {
    Duration::try_from_secs_f64(1.0 / rate)
        .unwrap_or(Duration::from_secs(1000))
        .min(Duration::from_secs(1000))
}

/// Answers that came through in the last second, in buckets of [`BUCKET`].
#[derive(Debug)]
struct Window {
    origin: Instant,
    /// `(bucket number, answers)`; a slot holds the latest bucket of its number modulo
    /// [`BUCKETS`].
    slots: [(u64, u32); BUCKETS],
}

impl Window {
    fn new(origin: Instant) -> Window {
        Window {
            origin,
            slots: [(u64::MAX, 0); BUCKETS],
        }
    }

    fn bucket(&self, at: Instant) -> u64 {
        (at.saturating_duration_since(self.origin).as_nanos() / BUCKET.as_nanos()) as u64
    }

    fn add(&mut self, at: Instant) {
        let n = self.bucket(at);
        let slot = &mut self.slots[(n % BUCKETS as u64) as usize];
        if slot.0 == n {
            slot.1 += 1;
        } else {
            *slot = (n, 1);
        }
    }

    /// Answers per second over the last `span` (at most [`BUCKETS`] buckets).
    fn rate(&self, now: Instant, span: Duration) -> f64 {
        let last = self.bucket(now);
        let count = (span.as_nanos().div_ceil(BUCKET.as_nanos()) as u64).min(BUCKETS as u64);
        let first = last.saturating_sub(count.saturating_sub(1));
        let answers: u32 = self
            .slots
            .iter()
            .filter(|(n, _)| *n != u64::MAX && (first..=last).contains(n))
            .map(|(_, a)| a)
            .sum();
        f64::from(answers) / span.as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lets `n` requests through that come through, without waiting for the clock.
    async fn answered(pacer: &Pacer, n: usize) -> Admission {
        let mut last = pacer.admit().await;
        pacer.came_through("GET /a");
        for _ in 1..n {
            last = pacer.admit().await;
            pacer.came_through("GET /a");
        }
        last
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn without_a_rate_requests_go_at_once_until_a_refusal_pauses_every_lane() {
        let pacer = Pacer::new(None, DEFAULT_MAX_REFUSAL);
        let start = Instant::now();
        let admission = answered(&pacer, 30).await;
        assert_eq!(start.elapsed(), Duration::ZERO, "no pace before a refusal");
        let refusal = pacer.refused(admission, "GET /a", 429, Some(Duration::from_secs(2)));
        assert_eq!(refusal, Refusal::Paused);
        pacer.admit().await;
        assert!(
            start.elapsed() >= Duration::from_secs(2),
            "the next request waited for Retry-After: {:?}",
            start.elapsed()
        );
        let pace = pacer.report().expect("the run was rate-limited");
        assert_eq!((pace.answers_429, pace.pauses), (1, 1));
        assert_eq!(pace.paused_ms, 2000.0);
        // 30 answers came through in the first half second: 60 per second, 57 after the
        // decrease.
        assert!((pace.rate - 57.0).abs() < 1e-9, "{}", pace.rate);
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn the_rate_drops_on_a_refusal_and_climbs_back_slowly_never_above_the_ceiling() {
        let pacer = Pacer::new(Some(100.0), DEFAULT_MAX_REFUSAL);
        let admission = answered(&pacer, 200).await;
        let start = Instant::now();
        pacer.refused(admission, "GET /a", 429, Some(Duration::from_secs(1)));
        let after = pacer.lock().rate.expect("paced");
        assert!(
            (after - 95.0).abs() < 1e-9,
            "95% of the 100 per second that came through: {after}"
        );
        answered(&pacer, 95).await;
        let climbed = pacer.lock().rate.expect("paced");
        assert!(
            climbed > after && climbed < after + 2.0,
            "about 0.5% of the rate per second of answers: {after} -> {climbed}"
        );
        assert!(
            start.elapsed() >= Duration::from_millis(1_950),
            "the 1 s pause, then 95 requests 1/95 s apart: {:?}",
            start.elapsed()
        );
        answered(&pacer, 8000).await;
        assert_eq!(pacer.lock().rate, Some(100.0), "never above --rate");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn refusals_of_requests_in_flight_before_the_decrease_do_not_decrease_it_again() {
        let pacer = Pacer::new(None, DEFAULT_MAX_REFUSAL);
        answered(&pacer, 40).await;
        let in_flight: Vec<Admission> =
            futures_util::future::join_all((0..8).map(|_| pacer.admit())).await;
        for admission in &in_flight {
            pacer.refused(*admission, "GET /a", 429, Some(Duration::from_secs(1)));
        }
        let state = pacer.lock();
        assert_eq!(state.epoch, 1, "one decrease for eight refusals in flight");
        assert_eq!(state.answers_429, 8);
        assert_eq!(state.pauses, 1, "the pauses overlap: one pause");
        assert_eq!(state.paused, Duration::from_secs(1));
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn after_a_refusal_without_a_rate_the_pace_climbs_fast_until_the_next_refusal() {
        let pacer = Pacer::new(None, DEFAULT_MAX_REFUSAL);
        let admission = answered(&pacer, 10).await;
        pacer.refused(admission, "GET /a", 429, Some(Duration::from_secs(1)));
        let low = pacer.lock().rate.expect("paced");
        answered(&pacer, 100).await;
        let high = pacer.lock().rate.expect("paced");
        assert!(high >= low + 100.0, "slow start: {low} -> {high}");
        let admission = pacer.admit().await;
        let came_through = {
            let s = pacer.lock();
            s.came_through.rate(Instant::now(), s.span(Instant::now()))
        };
        pacer.refused(admission, "GET /a", 503, Some(Duration::from_secs(1)));
        let settled = pacer.lock().rate.expect("paced");
        assert!(
            (settled - SLOW_START_DECREASE * came_through).abs() < 1e-9,
            "the end of a slow start cuts deeper: {came_through} came through, {high} -> {settled}"
        );
        answered(&pacer, 100).await;
        let climbed = pacer.lock().rate.expect("paced");
        assert!(
            climbed - settled < 0.02 * settled,
            "additive increase after the second refusal: {settled} -> {climbed}"
        );
        assert_eq!(pacer.report().map(|p| p.answers_503), Some(1));
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn requests_are_spaced_at_the_ceiling() {
        let pacer = Pacer::new(Some(10.0), DEFAULT_MAX_REFUSAL);
        let start = Instant::now();
        answered(&pacer, 5).await;
        assert!(
            start.elapsed() >= Duration::from_millis(400),
            "{:?}",
            start.elapsed()
        );
        assert!(pacer.report().is_none(), "a ceiling alone is no rate limit");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_wait_longer_than_covenant_takes_or_endless_refusals_give_up() {
        let pacer = Pacer::new(None, DEFAULT_MAX_REFUSAL);
        let admission = pacer.admit().await;
        let refusal = pacer.refused(admission, "GET /a", 429, Some(Duration::from_secs(3600)));
        assert!(
            matches!(&refusal, Refusal::GiveUp(why) if why.contains("3600 s")),
            "{refusal:?}"
        );
        let pacer = Pacer::new(None, DEFAULT_MAX_REFUSAL);
        let mut refusal = Refusal::Paused;
        for _ in 0..70 {
            let admission = pacer.admit().await;
            refusal = pacer.refused(admission, "GET /a", 429, Some(Duration::from_secs(1)));
            if refusal != Refusal::Paused {
                break;
            }
        }
        assert!(
            matches!(&refusal, Refusal::GiveUp(why) if why.contains("nothing but rate limits")),
            "{refusal:?}"
        );
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn an_endpoint_refusing_while_the_others_answer_holds_only_its_own_requests() {
        let pacer = Pacer::new(None, DEFAULT_MAX_REFUSAL);
        answered(&pacer, 50).await;
        let mut refusal = Refusal::Paused;
        for _ in 0..=ALONE_AFTER + 3 {
            let admission = pacer.admit().await;
            refusal = pacer.refused(admission, "GET /tags", 429, Some(Duration::from_secs(1)));
            answered(&pacer, 20).await;
        }
        assert_eq!(refusal, Refusal::Alone);
        let s = pacer.lock();
        assert_eq!(
            s.pauses,
            u64::from(ALONE_AFTER),
            "every lane paused until the endpoint was seen refusing alone"
        );
        assert_eq!(s.rate, None, "its decreases undone: unpaced as before");
        assert!(s.endpoints["GET /tags"].paused_until > Instant::now());
        drop(s);
        assert!(pacer.endpoint_pause("GET /tags").is_some());
        assert!(pacer.endpoint_pause("GET /a").is_none());
        assert_eq!(pacer.given_up("GET /tags"), None);
        pacer.gave_up("GET /tags", Duration::from_secs(61));
        assert_eq!(pacer.given_up("GET /tags"), Some(Duration::from_secs(61)));
        let pace = pacer.report().expect("refusals are reported");
        assert!(
            pace.rate >= 20.0,
            "the most that came through: {}",
            pace.rate
        );
        assert_eq!(pace.unanswered.len(), 1);
        let tags = &pace.unanswered[0];
        assert_eq!(tags.endpoint, "GET /tags");
        assert_eq!(
            (tags.refusals, tags.requests),
            (u64::from(ALONE_AFTER) + 4, 1)
        );
        pacer.came_through("GET /tags");
        assert_eq!(pacer.given_up("GET /tags"), None, "it answered since");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_whole_target_refusing_keeps_pausing_every_lane_and_lowering_the_rate() {
        let pacer = Pacer::new(None, DEFAULT_MAX_REFUSAL);
        answered(&pacer, 50).await;
        for n in 0..6 {
            let endpoint = if n % 2 == 0 { "GET /tags" } else { "GET /a" };
            let admission = pacer.admit().await;
            let refusal = pacer.refused(admission, endpoint, 429, Some(Duration::from_secs(1)));
            assert_eq!(refusal, Refusal::Paused, "refusal {n}");
        }
        assert_eq!(pacer.lock().pauses, 6);
        let rate = pacer.lock().rate.expect("paced");
        assert!(rate < 80.0, "decreased again and again from 95: {rate}");
    }

    #[test]
    fn absurd_rates_are_clamped_rather_than_panicking() {
        for rate in [0.0, -1.0, 1e-300, f64::NAN, f64::INFINITY, 1e300] {
            assert!(interval(rate) <= Duration::from_secs(1000), "{rate}");
            let _ = Pacer::new(Some(rate), DEFAULT_MAX_REFUSAL);
        }
    }
}
