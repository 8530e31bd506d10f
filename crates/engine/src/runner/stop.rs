//! Why a run stops short: SIGINT or SIGTERM, its deadline, or its request budget. Cases not
//! started by then are skipped saying why; requests still in flight are abandoned after a grace.

use crate::case::RunCx;
use crate::terminal::note;
use std::sync::Arc;
use std::time::Duration;

/// How long requests in flight may finish after an interrupt or the deadline, before they are
/// abandoned.
const GRACE: Duration = Duration::from_secs(2);

/// Why the run stopped short because of `--max-requests`, if it did.
pub(super) fn budget_note(run: &RunCx) -> Option<String> {
    let limit = run.target.budget_limit()?;
    run.target
        .budget_exhausted()
        .then(|| format!("request budget of {limit} reached (--max-requests)"))
}

/// Stops the targets on the deadline and, when `signals`, on SIGINT or SIGTERM, noting why;
/// abandons the requests in flight after [`GRACE`], or at once on a second signal. None when
/// there is nothing to watch for (a program's run without a deadline leaves signals alone).
pub(super) fn watch(
    runs: Vec<Arc<RunCx>>,
    deadline: Option<Duration>,
    signals: bool,
) -> Option<tokio::task::JoinHandle<()>> {
    if deadline.is_none() && !signals {
        return None;
    }
    Some(tokio::spawn(async move {
        let mut signals = signals.then(crate::interrupt::Signals::new);
        let deadline = async {
            match deadline {
                Some(d) => {
                    tokio::time::sleep(d).await;
                    format!("deadline of {} s reached (--deadline)", d.as_secs_f64())
                }
                None => std::future::pending().await,
            }
        };
        let why = tokio::select! {
            why = deadline => why,
            why = next(&mut signals) => why,
        };
        note(&format!(
            "\ncovenant: {why}: stopping; cases not run are marked skipped"
        ));
        for run in &runs {
            run.target.stop_because(&why);
        }
        tokio::select! {
            _ = tokio::time::sleep(GRACE) => {}
            _ = next(&mut signals) => {}
        }
        note("covenant: abandoning the requests still in flight");
        for run in &runs {
            run.target.cancel_in_flight();
        }
    }))
}

/// The next signal, if signals are watched.
async fn next(signals: &mut Option<crate::interrupt::Signals>) -> String {
    match signals {
        Some(signals) => signals.next().await,
        None => std::future::pending().await,
    }
}
