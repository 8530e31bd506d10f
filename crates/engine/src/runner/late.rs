//! When late cases may start: every other case of the plan has finished, and the stored
//! pagination tokens are as old as `--token-age` asks (one wait for all late cases of the run);
//! and when a case that waits part way through for the others may go on (the explorer's shrink):
//! every case of the plan that does not wait so has finished, late ones included.

use super::phase::{Pending, PendingTicket};
use crate::case::{Case, RunCx};
use crate::terminal::note;
use std::sync::Arc;
use std::time::Duration;

/// The late start of one run.
pub(super) struct LateStart {
    /// The cases neither late nor waiting for the others.
    early: Arc<Pending>,
    /// The cases that do not wait for the others (a case waiting for itself would never go on).
    others: Arc<Pending>,
    aged: tokio::sync::OnceCell<()>,
    /// Say on stderr that the run waits, when it waits more than a second.
    announce: bool,
}

impl LateStart {
    pub(super) fn new(announce: bool) -> Arc<LateStart> {
        Arc::new(LateStart {
            early: Pending::new(),
            others: Pending::new(),
            aged: tokio::sync::OnceCell::new(),
            announce,
        })
    }

    /// The tickets of a case: as an early case, and as one the cases that wait for the others
    /// wait for; take them all before any case starts.
    pub(super) fn tickets(&self, case: &Case) -> [Option<PendingTicket>; 2] {
        let waits = case.waits_for_others;
        [
            (!case.late && !waits).then(|| self.early.ticket()),
            (!waits).then(|| self.others.ticket()),
        ]
    }

    /// What a case that waits for the others waits on.
    pub(super) fn others(&self) -> Arc<Pending> {
        self.others.clone()
    }

    /// Waits until late cases may start; an interrupt or the deadline ends the wait early
    /// (the case then finds the run stopped).
    pub(super) async fn wait(&self, run: &RunCx) {
        self.early.finished().await;
        self.aged
            .get_or_init(|| age_tokens(run, self.announce))
            .await;
    }
}

/// Waits until the youngest stored token is `--token-age` old, unless the run stops first.
async fn age_tokens(run: &RunCx, announce: bool) {
    let (Some(age), Some(youngest)) = (run.token_age, run.stash.youngest()) else {
        return;
    };
    let wait = age.saturating_sub(youngest.elapsed());
    if wait.is_zero() || run.target.is_stopped() {
        return;
    }
    if announce && wait > Duration::from_secs(1) {
        note(&format!(
            "covenant: waiting {:.1} s, until the stored pagination tokens are {} s old \
             (--token-age), before the last cases use them again",
            wait.as_secs_f64(),
            age.as_secs_f64()
        ));
    }
    run.target.pause(wait).await;
}
