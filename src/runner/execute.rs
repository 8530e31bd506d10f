//! Running the plan: libtest-mimic drives the cases (filtering, `--list` and the familiar
//! pass/fail lines), each case runs on the shared tokio runtime, and every outcome is collected
//! into a [`RunRecord`], also when the run is interrupted or its deadline or budget is reached.

use super::phase::{Early, EarlyTicket, Phase, Phases};
use super::progress::{Progress, Size};
use super::setup::Prepared;
use crate::case::{Abort, Case, CaseCx, RunCx};
use crate::console::note;
use crate::settings::RunSettings;
use crate::verdict::{
    CaseResult, Counts, CoverageMeasure, RunMeta, RunRecord, RunVerdict, Verdict,
};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long requests in flight may finish after an interrupt or the deadline, before they are
/// abandoned.
pub const GRACE: Duration = Duration::from_secs(2);

/// Runs the plan and returns the record of the run.
pub fn run_plan(
    runtime: &tokio::runtime::Runtime,
    prepared: &Prepared,
    plan: Vec<Case>,
    settings: &RunSettings,
) -> RunRecord {
    run_each(runtime, prepared, plan, None, settings).0
}

/// Runs one plan against two targets at once (a differential run): the first through
/// libtest-mimic, its lines on the console, the second quietly beside it on the same runtime,
/// each with its own lanes, phases and late start. One interrupt or deadline stops both.
pub fn run_beside(
    runtime: &tokio::runtime::Runtime,
    first: (&Prepared, Vec<Case>),
    second: (&Prepared, Vec<Case>),
    settings: &RunSettings,
) -> (RunRecord, RunRecord) {
    // One plan, one set of payloads: the second generates what the first does.
    let _ = second.0.run.leader.set(first.0.run.clone());
    let (a, b) = run_each(runtime, first.0, first.1, Some(second), settings);
    (a, b.expect("a second target was given"))
}

/// [`run_plan`], with a second target run quietly beside the first when one is given.
fn run_each(
    runtime: &tokio::runtime::Runtime,
    prepared: &Prepared,
    plan: Vec<Case>,
    beside: Option<(&Prepared, Vec<Case>)>,
    settings: &RunSettings,
) -> (RunRecord, Option<RunRecord>) {
    let started_at = now_rfc3339();
    let start = Instant::now();
    let run = prepared.run.clone();
    let mut runs = vec![run.clone()];
    runs.extend(beside.iter().map(|(p, _)| p.run.clone()));
    let watchers = spawn_watchers(runtime, runs, settings.deadline);
    let quiet = beside.map(|(other, plan)| {
        let (run, concurrency) = (other.run.clone(), settings.concurrency);
        let task = runtime.spawn(async move {
            let cases = run_quiet(run, plan, concurrency).await;
            (cases, start.elapsed(), now_rfc3339())
        });
        (other, task)
    });
    let results = Arc::new(Mutex::new(HashMap::<String, CaseResult>::new()));
    let phases = Arc::new(Phases::default());
    let late = LateStart::new(true);
    let order: Vec<String> = plan.iter().map(|c| c.id.clone()).collect();
    let plan_len = plan.len();
    // Every early case takes its ticket here, before any case starts.
    let trials = super::plan::execution_order(&plan)
        .into_iter()
        .map(|i| {
            let handles = Handles {
                runtime: runtime.handle().clone(),
                run: run.clone(),
                phases: phases.clone(),
                late: late.clone(),
                results: results.clone(),
                strict: settings.strict,
            };
            let unmet = super::plan::unmet(&plan[i], &plan, &run);
            trial(plan[i].clone(), unmet, late.ticket(&plan[i]), handles)
        })
        .collect();
    let progress = start_progress(settings, Size::of(&plan, &run), &run, &results);
    let (logfile, color) = progress
        .as_ref()
        .and_then(Progress::stdout_file)
        .map_or((None, None), |(path, color)| (Some(path), Some(color)));
    let args = libtest_mimic::Arguments {
        test_threads: Some(settings.concurrency.clamp(1, plan_len.max(1))),
        quiet: settings.quiet,
        logfile,
        color,
        ..libtest_mimic::Arguments::default()
    };
    // libtest-mimic unwraps its writes to stdout: a closed pipe would panic. The results are
    // collected apart from its output, so such a panic costs the terminal lines, not the run.
    let _conclusion = quietly_on_broken_pipe(|| libtest_mimic::run(&args, trials));
    if let Some(progress) = progress {
        progress.finish();
    }
    let finished = (start.elapsed(), now_rfc3339());
    let second = quiet.map(|(other, task)| {
        let (cases, elapsed, finished_at) = runtime.block_on(task).unwrap_or_else(|e| {
            let cases = order.iter().map(|id| panicked_run(id, &e)).collect();
            (cases, start.elapsed(), now_rfc3339())
        });
        let timing = Timing {
            started_at: started_at.clone(),
            finished_at,
            elapsed,
        };
        record(other, settings, cases, timing, None)
    });
    watchers.abort();
    let mut results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let cases: Vec<CaseResult> = order
        .iter()
        .map(|id| results.remove(id).unwrap_or_else(|| unreported(id)))
        .collect();
    let output_closed =
        results_missing(&cases).then(|| "the run's output closed before every case ran".to_owned());
    let timing = Timing {
        started_at,
        finished_at: finished.1,
        elapsed: finished.0,
    };
    (
        record(prepared, settings, cases, timing, output_closed),
        second,
    )
}

/// When a run started and ended.
struct Timing {
    started_at: String,
    finished_at: String,
    elapsed: Duration,
}

/// The record of a run of `prepared`'s target that gave `cases`.
fn record(
    prepared: &Prepared,
    settings: &RunSettings,
    cases: Vec<CaseResult>,
    timing: Timing,
    output_closed: Option<String>,
) -> RunRecord {
    let run = &prepared.run;
    let interrupted = run
        .target
        .stop_reason()
        .or_else(|| budget_note(run))
        .or(output_closed);
    let meta = RunMeta {
        covenant_version: env!("CARGO_PKG_VERSION").to_owned(),
        seed: run.generation.seed,
        target: prepared.target_label.clone(),
        profile: serde_json::to_value(run.profile.redacted()).unwrap_or_default(),
        started_at: timing.started_at,
        finished_at: timing.finished_at,
        duration_ms: timing.elapsed.as_secs_f64() * 1000.0,
        cases_per_operation: run.generation.cases_per_operation,
        shard: settings.selection.shard.map(|s| s.to_string()),
        interrupted,
        faults: settings.faults(),
        strict: settings.strict,
        profile_problems: run.watch.problems(),
        coverage_required: settings.coverage_required.clone(),
        coverage_short: Vec::new(),
        pace: run.target.pace(),
    };
    let mut record = RunRecord {
        counts: Counts::of(&cases),
        meta,
        cases,
    };
    crate::report::judge_requirements(&mut record, run.catalogue);
    record
}

/// A case of the quiet run beside, when that run itself panicked: a defect of covenant, an error
/// of every case rather than the end of both runs.
fn panicked_run(id: &str, error: &tokio::task::JoinError) -> CaseResult {
    let mut result = unreported(id);
    result.skip_reason = None;
    result.verdict = Verdict::Error;
    result.error = Some(format!(
        "covenant defect: the run beside panicked ({error}); please report it"
    ));
    result
}

/// The progress line of the run, counting the requests the target sent and the cases recorded.
fn start_progress(
    settings: &RunSettings,
    size: Size,
    run: &Arc<RunCx>,
    results: &Arc<Mutex<HashMap<String, CaseResult>>>,
) -> Option<Progress> {
    let (target, results) = (run.target.clone(), results.clone());
    Progress::start(settings.progress, size, move || {
        let cases = results.lock().unwrap_or_else(|e| e.into_inner()).len();
        (target.requests_sent(), cases)
    })
}

/// Why the run stopped short because of `--max-requests`, if it did.
fn budget_note(run: &RunCx) -> Option<String> {
    let limit = run.target.budget_limit()?;
    run.target
        .budget_exhausted()
        .then(|| format!("request budget of {limit} reached (--max-requests)"))
}

/// Stops the targets on SIGINT, SIGTERM or the deadline, noting why; abandons the requests in
/// flight after [`GRACE`], or at once on a second signal.
fn spawn_watchers(
    runtime: &tokio::runtime::Runtime,
    runs: Vec<Arc<RunCx>>,
    deadline: Option<Duration>,
) -> tokio::task::JoinHandle<()> {
    runtime.spawn(async move {
        let mut signals = crate::interrupt::Signals::new();
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
            why = signals.next() => why,
        };
        note(&format!(
            "\ncovenant: {why}: stopping; cases not run are marked skipped"
        ));
        for run in &runs {
            run.target.stop_because(&why);
        }
        tokio::select! {
            _ = tokio::time::sleep(GRACE) => {}
            _ = signals.next() => {}
        }
        note("covenant: abandoning the requests still in flight");
        for run in &runs {
            run.target.cancel_in_flight();
        }
    })
}

/// The trial of a case; `early` is its ticket when it is not late, dropped once its result is
/// recorded (or with the trial, if it never runs).
fn trial(
    case: Case,
    unmet: Option<String>,
    early: Option<EarlyTicket>,
    h: Handles,
) -> libtest_mimic::Trial {
    let kind = case.suite.clone();
    let id = case.id.clone();
    // Every case runs its trial, also one whose needs are unmet, so that its result (and the
    // reason it was skipped) is recorded; a skip prints as `ignored (reason)`.
    libtest_mimic::Trial::ignorable_test(id, move || {
        let _early = early;
        let result = match unmet {
            Some(why) => skipped(&case, why),
            None => {
                let (owned, run) = (case.clone(), h.run.clone());
                let (phases, late) = (h.phases.clone(), h.late.clone());
                let task = h
                    .runtime
                    .spawn(async move { run_case(&owned, run, &phases, &late).await });
                h.runtime
                    .block_on(task)
                    .unwrap_or_else(|e| panicked(&case, &e))
            }
        };
        let (verdict, mut reason) = (result.verdict, result.skip_reason.clone());
        if verdict == Verdict::Inconclusive {
            reason = result.inconclusive.first().map(|i| {
                format!(
                    "inconclusive: blocked by its baseline ({}), refused with {}",
                    i.baseline, i.answer
                )
            });
        }
        let message = failure_message(&result);
        h.results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(case.id.clone(), result);
        match verdict {
            Verdict::Fail | Verdict::Error => Err(message.into()),
            Verdict::Warn if h.strict => {
                Err(format!("warnings fail under --strict\n{message}").into())
            }
            Verdict::Skip | Verdict::Inconclusive => {
                Ok(libtest_mimic::Completion::Ignored { reason })
            }
            _ => Ok(libtest_mimic::Completion::Completed),
        }
    })
    .with_kind(kind)
}

/// What every trial of a run shares.
struct Handles {
    runtime: tokio::runtime::Handle,
    run: Arc<RunCx>,
    phases: Arc<Phases>,
    late: Arc<LateStart>,
    results: Arc<Mutex<HashMap<String, CaseResult>>>,
    /// `--strict`: a warned case fails its trial.
    strict: bool,
}

/// Runs `f`, turning a panic caused by a closed stdout into `None` without printing it; any
/// other panic is reported as usual and also ends as `None`.
fn quietly_on_broken_pipe<T>(f: impl FnOnce() -> T) -> Option<T> {
    let hook = Arc::new(std::panic::take_hook());
    let previous = hook.clone();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if !(message.contains("Broken pipe") || message.contains("BrokenPipe")) {
            previous(info);
        }
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    let _ = std::panic::take_hook();
    if let Ok(hook) = Arc::try_unwrap(hook) {
        std::panic::set_hook(hook);
    }
    outcome
}

/// Whether some case left no result (see [`unreported`]).
fn results_missing(cases: &[CaseResult]) -> bool {
    cases
        .iter()
        .any(|c| c.skip_reason.as_deref() == Some(UNREPORTED))
}

/// The skip reason of a case that left no result.
const UNREPORTED: &str = "not run: the run's output closed before this case ran";

/// A case of the plan that left no result (its runner thread ended early).
fn unreported(id: &str) -> CaseResult {
    CaseResult {
        id: id.to_owned(),
        suite: id.split('.').next().unwrap_or(id).to_owned(),
        operation: None,
        rules: Vec::new(),
        verdict: Verdict::Skip,
        findings: Vec::new(),
        exchanges: Vec::new(),
        skip_reason: Some(UNREPORTED.into()),
        error: None,
        payload: None,
        inconclusive: Vec::new(),
        requests: 0,
        evidence: Vec::new(),
        statuses: Vec::new(),
        expected_statuses: Vec::new(),
        shapes: Vec::new(),
        duration_ms: 0.0,
    }
}

fn skipped(case: &Case, why: String) -> CaseResult {
    CaseResult {
        id: case.id.clone(),
        suite: case.suite.clone(),
        operation: case.operation.map(|op| op.as_str().to_owned()),
        rules: case.rules.iter().map(|r| (*r).to_owned()).collect(),
        verdict: Verdict::Skip,
        findings: Vec::new(),
        exchanges: Vec::new(),
        skip_reason: Some(why),
        error: None,
        payload: None,
        inconclusive: Vec::new(),
        requests: 0,
        evidence: Vec::new(),
        statuses: Vec::new(),
        expected_statuses: Vec::new(),
        shapes: Vec::new(),
        duration_ms: 0.0,
    }
}

/// A panic inside a case is a defect of covenant: it is reported as an error of that case
/// rather than taking the run down.
fn panicked(case: &Case, error: &tokio::task::JoinError) -> CaseResult {
    let mut result = skipped(case, String::new());
    result.skip_reason = None;
    result.verdict = Verdict::Error;
    result.error = Some(format!(
        "covenant defect: the case panicked ({error}); please report it"
    ));
    result
}

/// When late cases may start: every other case of the plan has finished, and the stored tokens
/// are as old as `--token-age` asks (one wait for all late cases of the run).
struct LateStart {
    early: Arc<Early>,
    aged: tokio::sync::OnceCell<()>,
    /// Say on stderr that the run waits, when it waits more than a second.
    announce: bool,
}

impl LateStart {
    fn new(announce: bool) -> Arc<LateStart> {
        Arc::new(LateStart {
            early: Early::new(),
            aged: tokio::sync::OnceCell::new(),
            announce,
        })
    }

    /// The ticket of a case that is not late.
    fn ticket(&self, case: &Case) -> Option<EarlyTicket> {
        (!case.late).then(|| self.early.ticket())
    }

    /// Waits until late cases may start; an interrupt or the deadline ends the wait early
    /// (the case then finds the run stopped).
    async fn wait(&self, run: &RunCx) {
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

/// Runs one case to its result.
async fn run_case(case: &Case, run: Arc<RunCx>, phases: &Phases, late: &LateStart) -> CaseResult {
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
    let _phase = match phase {
        Some(phase) => Some(phases.enter(phase).await),
        None => None,
    };
    // A fixture may have proven wrong while the case waited for its phase.
    if let Some(why) = case.needs.iter().find_map(|n| n.unmet(&run)) {
        return skipped(case, why);
    }
    let mut cx = CaseCx::new(run);
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
    result.findings = cx.findings;
    result.exchanges = cx.exchanges;
    result.error = error;
    result.payload = cx.payload;
    result.inconclusive = cx.inconclusive;
    result.requests = cx.requests;
    let (evidence, statuses, expected) = cx.tally.into_parts();
    // A case blocked by the profile kept none of its findings: nor is it evidence of anything.
    if !blocked {
        result.evidence = evidence;
        result.expected_statuses = expected;
    }
    result.statuses = statuses;
    // Nor do its answers show the target's choices: they show the wrong fixture.
    let shapes = cx.behaviour.into_shapes();
    if !blocked {
        result.shapes = shapes;
    }
    result.duration_ms = start.elapsed().as_secs_f64() * 1000.0;
    result
}

/// One line of what the run gave evidence on: rules by level, and the stated statuses seen.
fn coverage_line(record: &RunRecord) -> String {
    let measured = crate::report::measure(record, crate::catalogue::Catalogue::embedded());
    let share = |measure: CoverageMeasure| {
        measured
            .iter()
            .find(|m| m.measure == measure)
            .map_or_else(String::new, |m| format!("{}/{}", m.got, m.of))
    };
    format!(
        "coverage: {} must and {} should rules with evidence; {} stated statuses seen \
         (summary.html has the matrix)",
        share(CoverageMeasure::Must),
        share(CoverageMeasure::Should),
        share(CoverageMeasure::Status)
    )
}

/// What libtest-mimic prints under "failures:" for a case.
fn failure_message(result: &CaseResult) -> String {
    let mut out = String::new();
    if let Some(e) = &result.error {
        let _ = writeln!(out, "error: {e}");
    }
    for f in &result.findings {
        let _ = writeln!(out, "[{}] ({}) {}", f.rule, f.level, f.message);
        if let Some(diff) = &f.diff {
            let _ = writeln!(out, "{}", indent(diff));
        }
        if let Some(ex) = f.exchange.and_then(|i| result.exchanges.get(i)) {
            let _ = writeln!(out, "  request:  {}", ex.request.curl);
            if let Some(resp) = &ex.response {
                let body: String = resp.body.chars().take(500).collect();
                let _ = writeln!(out, "  response: {} {}", resp.status, body);
            }
        }
    }
    if let Some(p) = &result.payload {
        let _ = writeln!(out, "  minimal payload: {p}");
    }
    let seen = result
        .exchanges
        .iter()
        .filter_map(|e| e.error.as_ref())
        .next();
    if let (Some(e), true) = (seen, result.findings.is_empty() && result.error.is_none()) {
        let _ = writeln!(out, "  transport: {e}");
    }
    out
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The closing summary: counts, requests, duration, and each warning.
pub fn summary(record: &RunRecord) -> String {
    let c = &record.counts;
    let mut out = String::new();
    let warned: Vec<&CaseResult> = record
        .cases
        .iter()
        .filter(|c| c.verdict == Verdict::Warn)
        .collect();
    if !warned.is_empty() {
        let _ = writeln!(
            out,
            "\nwarnings (rules the spec does not state; they do not fail the run):"
        );
        for case in warned {
            for f in &case.findings {
                let _ = writeln!(out, "  {:<45} [{}] {}", case.id, f.rule, f.message);
            }
        }
    }
    let skipped: Vec<&CaseResult> = record
        .cases
        .iter()
        .filter(|c| c.verdict == Verdict::Skip)
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(out, "\nskipped:");
        for case in skipped {
            let _ = writeln!(
                out,
                "  {:<45} {}",
                case.id,
                case.skip_reason.as_deref().unwrap_or("")
            );
        }
    }
    let blocked: Vec<&CaseResult> = record
        .cases
        .iter()
        .filter(|c| !c.inconclusive.is_empty())
        .collect();
    if !blocked.is_empty() {
        let _ = writeln!(
            out,
            "\ninconclusive (variants not judged: the baseline they are judged beside was refused):"
        );
        for case in blocked {
            for i in &case.inconclusive {
                let _ = writeln!(out, "  {:<45} {}", case.id, i.sentence());
            }
        }
    }
    let verdict = record.verdict();
    let _ = writeln!(
        out,
        "\ncovenant: {}. {} passed, {} failed, {} warned, {} errors, {} skipped, {} inconclusive; {} requests in {:.2} s (seed {})",
        verdict.headline(),
        c.pass,
        c.fail,
        c.warn,
        c.error,
        c.skip,
        c.inconclusive,
        c.requests,
        record.meta.duration_ms / 1000.0,
        record.meta.seed
    );
    match verdict {
        RunVerdict::ProfileProblem => {
            let _ = writeln!(
                out,
                "the profile does not fit the target (cases that needed these were blocked, not judged):"
            );
            for problem in &record.meta.profile_problems {
                let _ = writeln!(out, "  - {problem}");
            }
        }
        RunVerdict::Fail if c.fail == 0 => {
            let _ = writeln!(out, "--strict: the warnings above count as failures");
        }
        _ => {}
    }
    let _ = writeln!(out, "{}", coverage_line(record));
    for short in &record.meta.coverage_short {
        let _ = writeln!(out, "coverage short of --require-coverage: {short}");
    }
    if let Some(why) = record.incomplete() {
        let _ = writeln!(out, "the run is incomplete: {why}");
    }
    if let Some(pace) = &record.meta.pace {
        let _ = writeln!(out, "pace: {}", pace.sentence());
        let _ = pace
            .unanswered_sentence()
            .map(|s| writeln!(out, "pace: {s}"));
    }
    out
}

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Runs the plan without libtest-mimic's output, `concurrency` cases at a time, and returns the
/// results in plan order (the self-test runs many plans at once this way).
pub async fn run_quiet(run: Arc<RunCx>, plan: Vec<Case>, concurrency: usize) -> Vec<CaseResult> {
    let phases = Arc::new(Phases::default());
    let late = LateStart::new(false);
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    // Spawned in execution order; the semaphore is fair, so they start in that order too. A
    // late case waits for its start before it takes a permit, so that it never holds one an
    // early case needs.
    let mut tasks: Vec<(usize, tokio::task::JoinHandle<CaseResult>)> =
        super::plan::execution_order(&plan)
            .into_iter()
            .map(|i| {
                let (run, permits, owned) = (run.clone(), permits.clone(), plan[i].clone());
                let (phases, late) = (phases.clone(), late.clone());
                let unmet = super::plan::unmet(&owned, &plan, &run);
                let early = late.ticket(&owned);
                let task = tokio::spawn(async move {
                    let _early = early;
                    if owned.late && unmet.is_none() {
                        late.wait(&run).await;
                    }
                    let _permit = permits.acquire_owned().await;
                    match unmet {
                        Some(why) => skipped(&owned, why),
                        None => run_case(&owned, run, &phases, &late).await,
                    }
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
