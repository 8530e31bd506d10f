//! Staging safety: a request budget for all workers, and the stop flag of an interrupt, a
//! deadline, a spent budget or a target that only refuses. (The pace is `target::pace`.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tokio::sync::watch;

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

    /// Requests in flight are abandoned (they end with [`crate::client::SendError::Stopped`]).
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
        tokio::time::timeout(std::time::Duration::from_secs(1), waiter)
            .await
            .expect("the waiter wakes on cancel")
            .expect("the waiter does not panic");
    }
}
