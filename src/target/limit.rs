//! Staging safety: a shared rate limit and a request budget for all workers, and the stop flag
//! of an interrupt, a deadline or a spent budget.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The longest spacing a rate limit may ask for; slower rates are clamped to it.
const MAX_INTERVAL: Duration = Duration::from_secs(3600);

/// Spaces requests evenly so that no more than `rate` start per second, across all workers.
pub struct RateLimiter {
    interval: Duration,
    next: tokio::sync::Mutex<Instant>,
}

impl RateLimiter {
    /// A limiter of `rate` requests per second; a rate that is not a positive number, or slower
    /// than one request an hour, is clamped to one request an hour.
    pub fn new(rate: f64) -> RateLimiter {
        let interval = Duration::try_from_secs_f64(1.0 / rate)
            .unwrap_or(MAX_INTERVAL)
            .min(MAX_INTERVAL);
        RateLimiter {
            interval,
            next: tokio::sync::Mutex::new(Instant::now()),
        }
    }

    /// Waits for this request's slot.
    pub async fn acquire(&self) {
        let slot = {
            let mut next = self.next.lock().await;
            let now = Instant::now();
            let slot = (*next).max(now);
            *next = slot + self.interval;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

/// How far a run has gone towards stopping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Halt {
    Running,
    /// No new request may start; requests in flight may finish.
    Stopped,
    /// Requests in flight are abandoned too.
    Cancelled,
}

/// Counts requests against `--max-requests`, and carries the stop flag of an interrupt.
pub struct Budget {
    limit: Option<u64>,
    used: AtomicU64,
    halt: watch::Sender<Halt>,
    reason: Mutex<Option<String>>,
}

impl Budget {
    pub fn new(limit: Option<u64>) -> Budget {
        Budget {
            limit,
            used: AtomicU64::new(0),
            halt: watch::Sender::new(Halt::Running),
            reason: Mutex::new(None),
        }
    }

    /// Takes one request from the budget; false when it is spent or the run is stopping.
    pub fn take(&self) -> bool {
        if self.is_stopped() {
            return false;
        }
        let before = self.used.fetch_add(1, Ordering::SeqCst);
        match self.limit {
            Some(limit) if before >= limit => {
                self.used.fetch_sub(1, Ordering::SeqCst);
                false
            }
            _ => true,
        }
    }

    pub fn used(&self) -> u64 {
        self.used.load(Ordering::SeqCst)
    }

    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    pub fn is_exhausted(&self) -> bool {
        self.limit.is_some_and(|l| self.used() >= l)
    }

    /// No new request starts after this; the first reason given is kept.
    pub fn stop(&self, reason: &str) {
        {
            let mut slot = self.reason.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(reason.to_owned());
            }
        }
        self.halt.send_if_modified(|h| raise(h, Halt::Stopped));
    }

    /// Requests in flight are abandoned (they end with [`crate::target::SendError::Stopped`]).
    pub fn cancel(&self) {
        self.stop("the run was cancelled");
        self.halt.send_if_modified(|h| raise(h, Halt::Cancelled));
    }

    /// Why the run stopped, once it did.
    pub fn reason(&self) -> Option<String> {
        self.reason
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn is_stopped(&self) -> bool {
        *self.halt.borrow() >= Halt::Stopped
    }

    /// Resolves once the run has reached `halt` (at once if it already has).
    pub async fn reached(&self, halt: Halt) {
        let mut rx = self.halt.subscribe();
        // The sender lives in `self`, so the channel cannot close while we wait.
        let _ = rx.wait_for(|h| *h >= halt).await;
    }
}

fn raise(current: &mut Halt, to: Halt) -> bool {
    let raised = *current < to;
    if raised {
        *current = to;
    }
    raised
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_refuses_past_its_limit_and_after_stop() {
        let b = Budget::new(Some(2));
        assert!(b.take() && b.take());
        assert!(!b.take());
        assert_eq!(b.used(), 2);
        assert!(b.is_exhausted());
        let c = Budget::new(None);
        c.stop("interrupted (SIGINT)");
        assert!(!c.take());
    }

    #[test]
    fn the_first_stop_reason_is_kept_and_cancel_implies_stop() {
        let b = Budget::new(None);
        b.stop("deadline of 5 s reached");
        b.stop("interrupted (SIGINT)");
        assert_eq!(b.reason().as_deref(), Some("deadline of 5 s reached"));
        let c = Budget::new(None);
        c.cancel();
        assert!(c.is_stopped());
        assert_eq!(*c.halt.borrow(), Halt::Cancelled);
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn waiting_for_a_stop_resolves_when_it_comes() {
        let b = std::sync::Arc::new(Budget::new(None));
        let waiter = tokio::spawn({
            let b = b.clone();
            async move { b.reached(Halt::Cancelled).await }
        });
        b.stop("x");
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        b.cancel();
        tokio::time::timeout(Duration::from_secs(1), waiter)
            .await
            .expect("the waiter wakes on cancel")
            .expect("the waiter does not panic");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn rate_limiter_spaces_requests() {
        let limiter = RateLimiter::new(10.0);
        let start = tokio::time::Instant::now();
        for _ in 0..5 {
            limiter.acquire().await;
        }
        assert!(
            start.elapsed() >= Duration::from_millis(390),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn absurd_rates_are_clamped_rather_than_panicking() {
        for rate in [0.0, -1.0, 1e-300, f64::NAN, f64::INFINITY, 1e300] {
            let l = RateLimiter::new(rate);
            assert!(l.interval <= MAX_INTERVAL, "{rate}");
        }
    }
}
