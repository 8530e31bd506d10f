//! The progress line of a slow run (a rate limit, a remote target): requests sent against the
//! plan's estimate, cases finished, the time elapsed and the time left, on stderr.
//!
//! It appears only once a run has taken [`SHOW_AFTER`], so that a fast run prints what it always
//! did, and only when stderr is a terminal (or `--progress always`); it never writes to stdout.
//! On a terminal it is redrawn in place at most ten times a second; when stdout is that terminal
//! too, the per-case lines (`runner::execute`) go through a pipe ([`Relay`]) that erases the progress
//! line before each of them, and with no such pipe (a platform without one) no line is shown
//! rather than a broken one. Off a terminal (`--progress always` in a CI log) it is a plain line
//! every [`PLAIN_EVERY`].

use crate::case::{Case, RunCx};
use crate::settings::ShowProgress;
use crate::terminal::{self, Relay};
use std::fmt::Write;
use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a run goes before its progress line appears.
pub const SHOW_AFTER: Duration = Duration::from_secs(2);
/// How often the line is redrawn on a terminal.
const TICK: Duration = Duration::from_millis(100);
/// How often a plain line is printed off a terminal.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// How big a run is: its cases, and the requests the plan expects of those that can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub cases: usize,
    pub requests: usize,
}

impl Size {
    /// The size of `plan`: the requests `--dry-run` counts, those of cases that will run.
    pub fn of(plan: &[Case], run: &RunCx) -> Size {
        let requests = plan
            .iter()
            .filter(|c| super::select::unmet(c, plan, run).is_none())
            .map(|c| c.requests)
            .sum();
        Size {
            cases: plan.len(),
            requests,
        }
    }
}

/// The progress line of a run, while it runs.
pub struct Progress {
    stop: mpsc::Sender<()>,
    ticker: std::thread::JoinHandle<()>,
    relay: Option<Relay>,
}

impl Progress {
    /// Starts the line, when `show` and stderr ask for it; `counts` gives the requests sent so
    /// far (taken from the budget, which a request is before it waits for `--rate`) and the
    /// cases finished.
    pub fn start(
        show: ShowProgress,
        size: Size,
        counts: impl Fn() -> (u64, usize) + Send + 'static,
    ) -> Option<Progress> {
        let in_place = std::io::stderr().is_terminal();
        let wanted = match show {
            ShowProgress::Auto => in_place,
            ShowProgress::Always => true,
            ShowProgress::Never => false,
        };
        if !wanted {
            return None;
        }
        let relay = match in_place && std::io::stdout().is_terminal() {
            true => Some(Relay::start()?),
            false => None,
        };
        let (stop, stopped) = mpsc::channel();
        let start = Instant::now();
        let ticker = std::thread::Builder::new()
            .name("covenant-progress".into())
            .spawn(move || tick(&stopped, start, in_place, size, counts));
        match ticker {
            Ok(ticker) => Some(Progress {
                stop,
                ticker,
                relay,
            }),
            Err(_) => {
                if let Some(relay) = relay {
                    relay.finish();
                }
                None
            }
        }
    }

    /// Where the per-case lines must be written for the line to stay apart from them, when
    /// stdout shares its terminal.
    pub fn stdout_file(&self) -> Option<String> {
        Some(self.relay.as_ref()?.path().to_owned())
    }

    /// Once every per-case line is written and their writer closed: relays what is left, then
    /// erases the line for good.
    pub fn finish(self) {
        if let Some(relay) = self.relay {
            relay.finish();
        }
        let _ = self.stop.send(());
        let _ = self.ticker.join();
    }
}

/// Redraws the line until told to stop, then erases it.
fn tick(
    stopped: &mpsc::Receiver<()>,
    start: Instant,
    in_place: bool,
    size: Size,
    counts: impl Fn() -> (u64, usize),
) {
    let mut next = SHOW_AFTER;
    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
        let elapsed = start.elapsed();
        if elapsed < next {
            continue;
        }
        if !in_place {
            next = elapsed + PLAIN_EVERY;
        }
        let (requests, cases) = counts();
        terminal::show_status(&line(size, requests, cases, elapsed));
    }
    terminal::clear_status();
}

/// `covenant: 312/~1565 requests, 45/142 cases, 12 s elapsed, ~33 s left`.
fn line(size: Size, requests: u64, cases: usize, elapsed: Duration) -> String {
    let mut line = format!(
        "covenant: {requests}/~{} requests, {cases}/{} cases, {} elapsed",
        size.requests,
        size.cases,
        clock(elapsed)
    );
    if let Some(left) = time_left(size, requests, cases, elapsed) {
        let _ = write!(line, ", ~{} left", clock(left));
    }
    line
}

/// The time left at the pace so far, in whole seconds rounded up: by the requests sent against
/// the plan's estimate, or by the cases finished once the requests have gone past the estimate.
/// None before anything is done, and once everything is.
fn time_left(size: Size, requests: u64, cases: usize, elapsed: Duration) -> Option<Duration> {
    let share = |done: f64, of: usize| (of > 0).then(|| done / of as f64);
    let by_cases = share(cases as f64, size.cases)?;
    let done = match share(requests as f64, size.requests) {
        Some(by_requests) if by_requests < 1.0 => by_requests,
        _ => by_cases,
    };
    (done > 0.0 && done < 1.0).then(|| {
        let left = elapsed.as_secs_f64() * (1.0 - done) / done;
        Duration::from_secs(left.ceil() as u64)
    })
}

/// `42 s`, `3 min 05 s`, `1 h 02 min`.
fn clock(duration: Duration) -> String {
    let secs = duration.as_secs();
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: Size = Size {
        cases: 100,
        requests: 1000,
    };

    #[test]
    fn the_line_counts_requests_against_the_estimate_and_cases_and_gives_the_time_left() {
        assert_eq!(
            line(SIZE, 250, 10, Duration::from_secs(10)),
            "covenant: 250/~1000 requests, 10/100 cases, 10 s elapsed, ~30 s left"
        );
    }

    #[test]
    fn past_the_estimate_the_time_left_follows_the_cases_finished() {
        let left = time_left(SIZE, 1200, 80, Duration::from_secs(80));
        assert_eq!(left, Some(Duration::from_secs(20)));
    }

    #[test]
    fn nothing_done_or_everything_done_gives_no_time_left() {
        assert_eq!(time_left(SIZE, 0, 0, Duration::from_secs(3)), None);
        assert_eq!(time_left(SIZE, 1200, 100, Duration::from_secs(3)), None);
        let empty = Size {
            cases: 0,
            requests: 0,
        };
        assert_eq!(time_left(empty, 5, 0, Duration::from_secs(3)), None);
    }

    #[test]
    fn clocks_read_in_seconds_minutes_or_hours() {
        assert_eq!(clock(Duration::from_millis(42_900)), "42 s");
        assert_eq!(clock(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(clock(Duration::from_secs(3720)), "1 h 02 min");
    }
}
