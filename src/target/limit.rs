//! Staging safety: a shared rate limit and a request budget for all workers.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Spaces requests evenly so that no more than `rate` start per second, across all workers.
pub struct RateLimiter {
    interval: Duration,
    next: Mutex<Instant>,
}

impl RateLimiter {
    pub fn new(rate: f64) -> RateLimiter {
        RateLimiter {
            interval: Duration::from_secs_f64(1.0 / rate),
            next: Mutex::new(Instant::now()),
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

/// Counts requests against `--max-requests`, and carries the stop flag of an interrupt.
pub struct Budget {
    limit: Option<u64>,
    used: AtomicU64,
    stopped: AtomicBool,
}

impl Budget {
    pub fn new(limit: Option<u64>) -> Budget {
        Budget {
            limit,
            used: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
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

    pub fn is_exhausted(&self) -> bool {
        self.limit.is_some_and(|l| self.used() >= l)
    }

    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
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
        let c = Budget::new(None);
        c.stop();
        assert!(!c.take());
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
}
