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
//! It never decides a verdict; it only says when to send and keeps the numbers a report gives
//! ([`crate::verdict::Pace`]). Times are tokio's, so that tests can run it on a paused clock.

use crate::verdict::Pace;
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
/// How long covenant keeps trying while nothing but refusals comes back.
pub const MAX_REFUSED: Duration = Duration::from_secs(600);
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
    /// Covenant gives up on the target: the run stops, incomplete, for this reason.
    GiveUp(String),
}

/// The pace shared by every request of a run.
#[derive(Debug)]
pub struct Pacer {
    /// `--rate`: the pace never goes above it.
    ceiling: Option<f64>,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
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
}

impl Pacer {
    /// A pacer starting at `ceiling` (`--rate`), or unpaced without one.
    pub fn new(ceiling: Option<f64>) -> Pacer {
        let ceiling = ceiling
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(|r| r.max(MIN_RATE));
        let now = Instant::now();
        Pacer {
            ceiling,
            state: Mutex::new(State {
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
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
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

    /// An answer that came through (anything but a rate limit): the rate climbs.
    pub fn came_through(&self) {
        let mut s = self.lock();
        let now = Instant::now();
        s.came_through.add(now);
        s.refused_since = None;
        if let Some(rate) = s.rate {
            let step = if s.slow_start {
                SLOW_START_STEP
            } else {
                s.climb / rate
            };
            s.rate = Some(self.capped(rate + step));
        }
    }

    /// A rate-limit answer (`status` 429, or 503 with `Retry-After`) to a request let through
    /// by `admission`: every lane pauses for `retry_after`, and the rate drops unless it
    /// already dropped since that request was sent.
    pub fn refused(
        &self,
        admission: Admission,
        status: u16,
        retry_after: Option<Duration>,
    ) -> Refusal {
        let mut s = self.lock();
        let now = Instant::now();
        match status {
            503 => s.answers_503 += 1,
            _ => s.answers_429 += 1,
        }
        let since = *s.refused_since.get_or_insert(now);
        let wait = retry_after.unwrap_or(DEFAULT_PAUSE);
        if wait > MAX_PAUSE {
            return Refusal::GiveUp(format!(
                "the target answered {status} asking covenant to wait {} s (Retry-After), longer \
                 than the {} s it waits; run again later, or with a lower --rate",
                wait.as_secs(),
                MAX_PAUSE.as_secs()
            ));
        }
        if now.duration_since(since) > MAX_REFUSED {
            return Refusal::GiveUp(format!(
                "for {} s the target answered nothing but rate limits (429, or 503 with \
                 Retry-After); run again later, or with a lower --rate",
                MAX_REFUSED.as_secs()
            ));
        }
        if admission.epoch == s.epoch {
            s.epoch += 1;
            self.decrease(&mut s, now);
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
    fn decrease(&self, s: &mut State, now: Instant) {
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

    /// How the target's rate limits paced the run; `None` when it never refused a request.
    pub fn report(&self) -> Option<Pace> {
        let s = self.lock();
        let rate = s.settled?;
        Some(Pace {
            answers_429: s.answers_429,
            answers_503: s.answers_503,
            pauses: s.pauses,
            paused_ms: s.paused.as_secs_f64() * 1000.0,
            rate,
        })
    }
}

impl State {
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
        pacer.came_through();
        for _ in 1..n {
            last = pacer.admit().await;
            pacer.came_through();
        }
        last
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn without_a_rate_requests_go_at_once_until_a_refusal_pauses_every_lane() {
        let pacer = Pacer::new(None);
        let start = Instant::now();
        let admission = answered(&pacer, 30).await;
        assert_eq!(start.elapsed(), Duration::ZERO, "no pace before a refusal");
        let refusal = pacer.refused(admission, 429, Some(Duration::from_secs(2)));
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
        let pacer = Pacer::new(Some(100.0));
        let admission = answered(&pacer, 200).await;
        let start = Instant::now();
        pacer.refused(admission, 429, Some(Duration::from_secs(1)));
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
        let pacer = Pacer::new(None);
        answered(&pacer, 40).await;
        let in_flight: Vec<Admission> =
            futures_util::future::join_all((0..8).map(|_| pacer.admit())).await;
        for admission in &in_flight {
            pacer.refused(*admission, 429, Some(Duration::from_secs(1)));
        }
        let state = pacer.lock();
        assert_eq!(state.epoch, 1, "one decrease for eight refusals in flight");
        assert_eq!(state.answers_429, 8);
        assert_eq!(state.pauses, 1, "the pauses overlap: one pause");
        assert_eq!(state.paused, Duration::from_secs(1));
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn after_a_refusal_without_a_rate_the_pace_climbs_fast_until_the_next_refusal() {
        let pacer = Pacer::new(None);
        let admission = answered(&pacer, 10).await;
        pacer.refused(admission, 429, Some(Duration::from_secs(1)));
        let low = pacer.lock().rate.expect("paced");
        answered(&pacer, 100).await;
        let high = pacer.lock().rate.expect("paced");
        assert!(high >= low + 100.0, "slow start: {low} -> {high}");
        let admission = pacer.admit().await;
        let came_through = {
            let s = pacer.lock();
            s.came_through.rate(Instant::now(), s.span(Instant::now()))
        };
        pacer.refused(admission, 503, Some(Duration::from_secs(1)));
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
        let pacer = Pacer::new(Some(10.0));
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
        let pacer = Pacer::new(None);
        let admission = pacer.admit().await;
        let refusal = pacer.refused(admission, 429, Some(Duration::from_secs(3600)));
        assert!(
            matches!(&refusal, Refusal::GiveUp(why) if why.contains("3600 s")),
            "{refusal:?}"
        );
        let pacer = Pacer::new(None);
        let mut refusal = Refusal::Paused;
        for _ in 0..700 {
            let admission = pacer.admit().await;
            refusal = pacer.refused(admission, 429, Some(Duration::from_secs(1)));
            if refusal != Refusal::Paused {
                break;
            }
        }
        assert!(
            matches!(&refusal, Refusal::GiveUp(why) if why.contains("nothing but rate limits")),
            "{refusal:?}"
        );
    }

    #[test]
    fn absurd_rates_are_clamped_rather_than_panicking() {
        for rate in [0.0, -1.0, 1e-300, f64::NAN, f64::INFINITY, 1e300] {
            assert!(interval(rate) <= Duration::from_secs(1000), "{rate}");
            let _ = Pacer::new(Some(rate));
        }
    }
}
