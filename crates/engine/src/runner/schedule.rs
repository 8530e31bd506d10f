//! The scheduler: every plan runs here, whoever watches it (the console of `covenant run`, the
//! self-test running many plans at once, the second target of a differential run).
//!
//! Each case is a task on the shared tokio runtime, spawned in the plan's execution order
//! (`select::execution_order`: still cases, readers, writers, then the late cases, long chains
//! first in each group); at most `concurrency` of them run at once, and the semaphore is fair, so
//! they start in that order too. A late case waits for its start ([`LateStart`]) before it takes
//! a place, so that it never holds one an early case needs; a case that waits part way through
//! for the others gives up its place and its phase while it waits ([`Held`]). Writers and cases
//! that need the data to stand still never overlap ([`Phases`]). A stopped run (an interrupt, the
//! deadline, the request budget) skips every case not started, saying why.

use super::late::LateStart;
use super::phase::{Pending, Phase, PhaseGuard, Phases};
use super::results::{panicked, skipped, unreported};
use super::select::{execution_order, unmet};
use super::stop::budget_note;
use crate::baseline::Gate;
use crate::case::{Abort, BoxFuture, Case, CaseCx, RunCx, Seat};
use crate::verdict::{CaseResult, Verdict};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{oneshot, OwnedSemaphorePermit};

/// What a console sees of a plan as it runs.
pub(super) struct Observer {
    /// Where each case's result goes once recorded, by the case's place in the plan.
    pub tell: Vec<oneshot::Sender<CaseResult>>,
    /// Set once the console has ended early (its output closed): a case not started by then is
    /// not run.
    pub halted: Arc<AtomicBool>,
}

/// Runs `plan` against `run`, `concurrency` cases at a time, and returns the results in plan
/// order; `finished` counts the cases done so far (the progress line reads it); `gate` marks
/// each result's known failures. A passing case keeps only the exchanges its shapes show as
/// examples, from the moment it ends, unless the run keeps every exchange (`keep_exchanges`):
/// a run held every exchange of its passing cases until its end (the explorer's sequences alone
/// hundreds, and a body of 1 MiB).
pub(super) async fn schedule(
    run: Arc<RunCx>,
    plan: Vec<Case>,
    concurrency: usize,
    finished: Arc<AtomicUsize>,
    observer: Option<Observer>,
    gate: Option<Arc<Gate>>,
    keep_exchanges: bool,
) -> Vec<CaseResult> {
    let phases = Arc::new(Phases::default());
    // Only a run someone watches says on stderr that it waits for its tokens to age.
    let late = LateStart::new(observer.is_some());
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    let (mut tell, halted) = match observer {
        Some(o) => (o.tell.into_iter().map(Some).collect(), o.halted),
        None => (Vec::new(), Arc::default()),
    };
    // Every case takes its tickets here, before any case starts.
    let order = execution_order(&plan);
    let tickets: Vec<_> = order.iter().map(|&i| late.tickets(&plan[i])).collect();
    let mut tasks: Vec<(usize, tokio::task::JoinHandle<CaseResult>)> = order
        .into_iter()
        .zip(tickets)
        .map(|(i, tickets)| {
            let case = plan[i].clone();
            let unmet = unmet(&case, &plan, &run);
            let tell = tell.get_mut(i).and_then(Option::take);
            let (run, permits, phases, late) =
                (run.clone(), permits.clone(), phases.clone(), late.clone());
            let (halted, finished, gate) = (halted.clone(), finished.clone(), gate.clone());
            let task = tokio::spawn(async move {
                let _tickets = tickets;
                if case.late && unmet.is_none() {
                    late.wait(&run).await;
                }
                let permit = permits.acquire_owned().await;
                let mut result = match unmet {
                    _ if halted.load(Ordering::SeqCst) => unreported(&case.id),
                    Some(why) => skipped(&case, why),
                    None => {
                        let (owned, run) = (case.clone(), run.clone());
                        let task = tokio::spawn(async move {
                            run_case(&owned, run, &phases, &late, permit.ok()).await
                        });
                        task.await.unwrap_or_else(|e| panicked(&case, &e))
                    }
                };
                if !keep_exchanges && result.verdict == Verdict::Pass {
                    result.keep_referenced_exchanges();
                }
                // Known failures are known before anyone sees the result.
                if let Some(gate) = &gate {
                    gate.mark(&mut result);
                }
                finished.fetch_add(1, Ordering::SeqCst);
                if run.until.as_ref().is_some_and(|until| (until.0)(&result)) {
                    run.target
                        .stop_because("the run has shown what it was run for");
                }
                if let Some(tell) = tell {
                    let _ = tell.send(result.clone());
                }
                result
            });
            (i, task)
        })
        .collect();
    tasks.sort_by_key(|(i, _)| *i);
    let mut results = Vec::with_capacity(plan.len());
    for (case, (_, task)) in plan.iter().zip(tasks) {
        results.push(task.await.unwrap_or_else(|e| panicked(case, &e)));
    }
    results
}

/// What a case that waits for the others holds of the run: given up when it waits.
struct Held {
    permit: Option<OwnedSemaphorePermit>,
    phase: Option<PhaseGuard>,
    others: Arc<Pending>,
}

impl Seat for Held {
    fn wait_for_others(&mut self) -> BoxFuture<'_, ()> {
        // The others may need this place and this phase to finish (a still case cannot start
        // beside a writer): kept, they would wait for this case as it waits for them.
        self.permit = None;
        self.phase = None;
        Box::pin(self.others.finished())
    }
}

/// Runs one case to its result, holding `permit` (its place among the cases at once).
async fn run_case(
    case: &Case,
    run: Arc<RunCx>,
    phases: &Arc<Phases>,
    late: &LateStart,
    permit: Option<OwnedSemaphorePermit>,
) -> CaseResult {
    if case.late {
        late.wait(&run).await;
    }
    if run.target.is_stopped() {
        return skipped(case, format!("{}: not run", run.stop_reason()));
    }
    if let Some(why) = budget_note(&run) {
        return skipped(case, format!("{why}: not run"));
    }
    let start = Instant::now();
    let phase = match (case.writes, case.still) {
        (true, _) => Some(Phase::Writing),
        (false, true) => Some(Phase::Still),
        (false, false) => None,
    };
    let phase = match phase {
        Some(phase) => Some(phases.enter(phase).await),
        None => None,
    };
    // A fixture may have proven wrong while the case waited for its phase.
    if let Some(why) = case.needs.iter().find_map(|n| run.unmet(*n)) {
        return skipped(case, why);
    }
    let mut cx = CaseCx::new(run);
    cx.declare(&case.id, case.declared());
    // Held by the case until it ends, or by its seat until it waits for the others.
    let held = Held {
        permit,
        phase,
        others: late.others(),
    };
    let _held = match case.waits_for_others {
        true => {
            cx.seat = Some(Box::new(held));
            None
        }
        false => Some(held),
    };
    let outcome = (case.run)(&mut cx).await;
    let blocked = cx.blocked.is_some();
    let (error, skip) = match (outcome, cx.blocked.take()) {
        (_, Some(problem)) => (None, Some(format!("blocked by the profile: {problem}"))),
        (Ok(()) | Err(Abort::Recorded), None) => (None, None),
        (Err(Abort::Transport(e) | Abort::Defect(e)), None) => (Some(e), None),
        (Err(Abort::Skip(why)), None) => (None, Some(why)),
    };
    let mut result = skipped(case, String::new());
    result.verdict = match &skip {
        Some(_) if cx.findings.is_empty() => Verdict::Skip,
        _ => CaseResult::judge(&cx.findings, error.as_deref(), !cx.inconclusive.is_empty()),
    };
    result.skip_reason = skip.filter(|_| result.verdict == Verdict::Skip);
    result.requests = cx.requests();
    result.findings = cx.findings;
    result.exchanges = cx.exchanges;
    result.error = error;
    result.payload = cx.payload;
    result.inconclusive = cx.inconclusive;
    let (evidence, statuses, expected) = cx.tally.into_parts();
    // A case blocked by the profile kept none of its findings: nor is it evidence of anything.
    if !blocked {
        result.evidence = evidence;
        result.expected_statuses = expected;
    }
    result.statuses = statuses;
    // Nor do its answers show the target's choices: they show the wrong fixture.
    let shapes = cx.shapes.into_shapes();
    if !blocked {
        result.shapes = shapes;
    }
    result.duration_ms = start.elapsed().as_secs_f64() * 1000.0;
    result
}
