//! Writing cases and cases that need the data to stand still never overlap; late cases start
//! after all the others.
//!
//! A pagination comparison reads the same list twice and needs nothing to change in between;
//! a case that creates or deletes changes lists. Cases of one kind may run together (several
//! writers at once, several comparisons at once), which a read-write lock could not give the
//! comparisons: they would run one at a time. A waiting `still` case holds back writers that
//! arrive after it, so that it cannot starve.
//!
//! A late case (stored tokens used again as the last requests of the run) waits on [`Pending`]
//! until every early case of the plan has finished, whether it ran, was skipped or never
//! started: each holds a [`PendingTicket`] that counts it finished when dropped. A case that
//! waits part way through for every other case (the explorer's shrink) waits on another count,
//! of the cases that do not.

use std::sync::{Arc, Mutex};
use tokio::sync::{watch, Notify};

/// What a case does to the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Creates, updates or deletes.
    Writing,
    /// Needs no writer to run meanwhile.
    Still,
}

/// The gate all cases of a run pass.
#[derive(Debug, Default)]
pub struct Phases {
    state: Mutex<PhaseCounts>,
    changed: Notify,
}

/// The cases of each phase running now, and the still cases waiting to (writers wait for them).
#[derive(Debug, Default)]
struct PhaseCounts {
    writing: usize,
    still: usize,
    still_waiting: usize,
}

impl PhaseCounts {
    fn admits(&self, phase: Phase) -> bool {
        match phase {
            Phase::Writing => self.still == 0 && self.still_waiting == 0,
            Phase::Still => self.writing == 0,
        }
    }

    fn count(&mut self, phase: Phase) -> &mut usize {
        match phase {
            Phase::Writing => &mut self.writing,
            Phase::Still => &mut self.still,
        }
    }
}

/// Held while a case of a phase runs (a case that waits for the others gives it up meanwhile).
#[derive(Debug)]
pub struct PhaseGuard {
    phases: Arc<Phases>,
    phase: Phase,
}

impl Phases {
    /// Waits until `phase` may run, and holds it until the guard drops.
    pub async fn enter(self: &Arc<Self>, phase: Phase) -> PhaseGuard {
        let mut ticket: Option<Ticket<'_>> = None;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            // Registered before the state is read, so that no release is missed.
            notified.as_mut().enable();
            {
                let mut state = self.lock();
                if state.admits(phase) {
                    if let Some(mut ticket) = ticket.take() {
                        ticket.armed = false;
                        state.still_waiting -= 1;
                    }
                    *state.count(phase) += 1;
                    return PhaseGuard {
                        phases: self.clone(),
                        phase,
                    };
                }
                if phase == Phase::Still && ticket.is_none() {
                    state.still_waiting += 1;
                    ticket = Some(Ticket {
                        phases: self,
                        armed: true,
                    });
                }
            }
            notified.await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PhaseCounts> {
        // Every update is a single counter step: a poisoned state is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A still case's place in the queue; given back if its wait is abandoned (the run stops), so
/// that writers are not held back by a case that will never run.
struct Ticket<'a> {
    phases: &'a Phases,
    armed: bool,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.phases.lock().still_waiting -= 1;
            self.phases.changed.notify_waiters();
        }
    }
}

impl Drop for PhaseGuard {
    fn drop(&mut self) {
        let mut state = self.phases.lock();
        let count = state.count(self.phase);
        *count -= 1;
        if *count == 0 {
            self.phases.changed.notify_waiters();
        }
    }
}

/// Cases of a run still to finish (the early ones, which late cases wait for; or all those a
/// case waiting for the others waits for): a wait until none remains.
#[derive(Debug)]
pub struct Pending {
    remaining: watch::Sender<usize>,
}

/// One case counted, counted finished when the ticket drops (after its result is recorded, or
/// when the case is dropped unrun).
#[derive(Debug)]
pub struct PendingTicket(Arc<Pending>);

impl Pending {
    pub fn new() -> Arc<Pending> {
        Arc::new(Pending {
            remaining: watch::Sender::new(0),
        })
    }

    /// A ticket for one more case; take them all before any case starts.
    pub fn ticket(self: &Arc<Pending>) -> PendingTicket {
        self.remaining.send_modify(|n| *n += 1);
        PendingTicket(self.clone())
    }

    /// Waits until every case counted has finished.
    pub async fn finished(&self) {
        let mut remaining = self.remaining.subscribe();
        // The sender lives in `self`: the wait ends only when the count reaches zero.
        let _ = remaining.wait_for(|n| *n == 0).await;
    }
}

impl Drop for PendingTicket {
    fn drop(&mut self) {
        self.0.remaining.send_modify(|n| *n = n.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// Runs `phases` of cases at once, each holding its phase for a moment; returns the most
    /// writers and still cases seen at once, and whether the two ever overlapped.
    async fn overlap(kinds: &[Phase]) -> (usize, usize, bool) {
        let gate = Arc::new(Phases::default());
        let now = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let most = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let mixed = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = kinds
            .iter()
            .map(|&phase| {
                let (gate, now, most, mixed) =
                    (gate.clone(), now.clone(), most.clone(), mixed.clone());
                tokio::spawn(async move {
                    let _guard = gate.enter(phase).await;
                    let (me, other) = match phase {
                        Phase::Writing => (0, 1),
                        Phase::Still => (1, 0),
                    };
                    let n = now[me].fetch_add(1, Ordering::SeqCst) + 1;
                    most[me].fetch_max(n, Ordering::SeqCst);
                    if now[other].load(Ordering::SeqCst) > 0 {
                        mixed.fetch_add(1, Ordering::SeqCst);
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    now[me].fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("no panic");
        }
        (
            most[0].load(Ordering::SeqCst),
            most[1].load(Ordering::SeqCst),
            mixed.load(Ordering::SeqCst) > 0,
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writers_and_still_cases_never_overlap_but_each_kind_runs_together() {
        use Phase::{Still, Writing};
        let kinds = [
            Writing, Writing, Still, Still, Still, Writing, Still, Writing,
        ];
        let (writers, still, mixed) = overlap(&kinds).await;
        assert!(!mixed, "a writer ran beside a still case");
        assert!(writers >= 2, "writers ran one at a time ({writers})");
        assert!(still >= 2, "still cases ran one at a time ({still})");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiting_still_case_holds_back_later_writers() {
        let gate = Arc::new(Phases::default());
        let first = gate.enter(Phase::Writing).await;
        let still = tokio::spawn({
            let gate = gate.clone();
            async move {
                let _g = gate.enter(Phase::Still).await;
            }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        // A writer arriving now waits behind the still case, although a writer runs.
        let late = tokio::time::timeout(Duration::from_millis(30), gate.enter(Phase::Writing));
        assert!(
            late.await.is_err(),
            "a later writer overtook the still case"
        );
        drop(first);
        tokio::time::timeout(Duration::from_secs(2), still)
            .await
            .expect("the still case ran once the writer left")
            .expect("no panic");
        let _writer = tokio::time::timeout(Duration::from_secs(2), gate.enter(Phase::Writing))
            .await
            .expect("writers run again after the still case");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_abandoned_still_wait_does_not_block_writers() {
        let gate = Arc::new(Phases::default());
        let writer = gate.enter(Phase::Writing).await;
        let abandoned =
            tokio::time::timeout(Duration::from_millis(10), gate.enter(Phase::Still)).await;
        assert!(abandoned.is_err(), "a still case ran beside a writer");
        let second = tokio::time::timeout(Duration::from_secs(2), gate.enter(Phase::Writing)).await;
        assert!(
            second.is_ok(),
            "writers stay blocked by an abandoned still case"
        );
        drop(writer);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn late_cases_wait_until_every_early_ticket_is_dropped() {
        let early = Pending::new();
        let (a, b) = (early.ticket(), early.ticket());
        let waiting = tokio::spawn({
            let early = early.clone();
            async move { early.finished().await }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        drop(a);
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(
            !waiting.is_finished(),
            "a late case started before b finished"
        );
        drop(b);
        tokio::time::timeout(Duration::from_secs(2), waiting)
            .await
            .expect("the late case starts once all early cases finished")
            .expect("no panic");
        // No early case at all: nothing to wait for.
        tokio::time::timeout(Duration::from_secs(2), Pending::new().finished())
            .await
            .expect("an empty plan opens at once");
    }
}
