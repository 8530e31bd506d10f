//! When late cases may start: every other case of the plan has finished, and the stored
//! pagination tokens are as old as `--token-age` asks (one wait for all late cases of the run).

use super::phase::{Early, EarlyTicket};
use crate::case::{Case, RunCx};
use crate::terminal::note;
use std::sync::Arc;
use std::time::Duration;

/// The late start of one run.
pub(super) struct LateStart {
    early: Arc<Early>,
    aged: tokio::sync::OnceCell<()>,
    /// Say on stderr that the run waits, when it waits more than a second.
    announce: bool,
}

impl LateStart {
    pub(super) fn new(announce: bool) -> Arc<LateStart> {
        Arc::new(LateStart {
            early: Early::new(),
            aged: tokio::sync::OnceCell::new(),
            announce,
        })
    }

    /// The ticket of a case that is not late; take them all before any case starts.
    pub(super) fn ticket(&self, case: &Case) -> Option<EarlyTicket> {
        (!case.late).then(|| self.early.ticket())
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
