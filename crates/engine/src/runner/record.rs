//! The record of a run: its cases' results, counts and meta (seed, target, times, why it stopped
//! short, the pace that worked), with the coverage it was asked for judged.

use super::setup::Prepared;
use super::stop::budget_note;
use crate::case::RunCx;
use crate::settings::RunSettings;
use crate::verdict::{CaseResult, ConstraintCoverage, Counts, RunMeta, RunRecord};
use std::time::{Duration, Instant};

/// When a run started and ended.
pub(super) struct Timing {
    pub started_at: String,
    pub start: Instant,
}

impl Timing {
    pub(super) fn now() -> Timing {
        Timing {
            started_at: now_rfc3339(),
            start: Instant::now(),
        }
    }
}

/// The record of a run of `prepared`'s target that gave `cases`, ended now; `output_closed`
/// says why it is incomplete when the console closed before every case ran.
pub(super) fn record(
    prepared: &Prepared,
    settings: &RunSettings,
    cases: Vec<CaseResult>,
    timing: &Timing,
    output_closed: Option<String>,
) -> RunRecord {
    let elapsed: Duration = timing.start.elapsed();
    let run = &prepared.run;
    let interrupted = run
        .target
        .stop_reason()
        .or_else(|| budget_note(run))
        .or(output_closed);
    let profile = serde_json::to_value(run.profile.redacted()).unwrap_or_default();
    let meta = RunMeta {
        started_at: timing.started_at.clone(),
        finished_at: now_rfc3339(),
        duration_ms: elapsed.as_secs_f64() * 1000.0,
        cases_per_operation: run.generation.cases_per_operation,
        shard: settings.selection.shard.map(|s| s.to_string()),
        interrupted,
        faults: settings.faults(),
        strict: settings.strict,
        keep_exchanges: settings.keep_exchanges,
        profile_problems: run.watch.problems(),
        coverage_required: settings.coverage_required.clone(),
        coverage_short: Vec::new(),
        pace: run.target.pace(),
        constraints: constraints(run, &cases),
        judged_against: Some(crate::schema::judged_against()),
        ..RunMeta::bare(&prepared.target_label, profile, run.generation.seed)
    };
    let mut record = RunRecord {
        counts: Counts::of(&cases),
        meta,
        cases,
    };
    record.settle();
    crate::report::judge_requirements(&mut record, run.catalogue);
    record
}

/// How the run exercised each inventoried constraint, and why a side was not exercised: the
/// case that breaks or holds it was skipped or not run, every request holding it was refused,
/// or nothing reached it.
fn constraints(run: &RunCx, cases: &[CaseResult]) -> Vec<ConstraintCoverage> {
    let case = |id: &str| cases.iter().find(|c| c.id == id);
    let unrun = |id: &str| match case(id) {
        None => Some(format!("{id} was not run")),
        Some(c) => c
            .skip_reason
            .as_ref()
            .map(|why| format!("{id} was skipped: {why}")),
    };
    run.exercise.coverage(|constraint, lacking| {
        let op = constraint.operation;
        let mut why = Vec::new();
        if lacking.broken {
            let accepted = lacking.breaches_accepted;
            why.push(match unrun(&format!("generated.{op}.invalid")) {
                Some(why) => why,
                None if accepted > 0 => {
                    format!("the target accepted {accepted} of the requests that broke it alone")
                }
                None => "no answered request broke it alone".to_owned(),
            });
        }
        if lacking.held {
            let refused = lacking.refused;
            // A case the profile blocked or the run skipped says so before the refusals it met.
            why.push(match unrun(&format!("accept.{op}")) {
                Some(why) => why,
                None if refused > 0 => {
                    format!("the target refused each of the {refused} valid bodies that held it")
                }
                None => "no accepted request held it at its edge".to_owned(),
            });
        }
        why.join("; ")
    })
}

/// Now, in RFC 3339, as records give their times.
pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}
