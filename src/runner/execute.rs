//! Running the plan: libtest-mimic drives the cases (filtering, `--list` and the familiar
//! pass/fail lines), each case runs on the shared tokio runtime, and every outcome is collected
//! into a [`RunRecord`], also when the run is interrupted or its deadline or budget is reached.

use super::case::Case;
use super::context::{Abort, CaseCx};
use super::phase::Phase;
use super::plan::Shard;
use super::setup::Prepared;
use crate::cli::RunArgs;
use crate::exit::Fatal;
use crate::verdict::{CaseResult, Counts, RunMeta, RunRecord, Verdict};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The settings of a run that shape the plan and its execution.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub seed: u64,
    pub cases: u32,
    pub concurrency: usize,
    pub filter: Vec<String>,
    pub skip: Vec<String>,
    pub read_only: bool,
    pub generated_only: bool,
    pub shard: Option<Shard>,
    pub deadline: Option<Duration>,
    pub quiet: bool,
    pub faults: Vec<String>,
}

impl RunSettings {
    pub fn from_args(args: &RunArgs) -> Result<RunSettings, Fatal> {
        if args.concurrency == 0 {
            return Err(Fatal::usage("--concurrency must be at least 1"));
        }
        if args.concurrency > MAX_CONCURRENCY {
            return Err(Fatal::usage(format!(
                "--concurrency {}: at most {MAX_CONCURRENCY}",
                args.concurrency
            )));
        }
        super::setup::seconds("--timeout", args.timeout)?;
        if let Some(rate) = args.rate {
            if !(rate.is_finite() && (MIN_RATE..=MAX_RATE).contains(&rate)) {
                return Err(Fatal::usage(format!(
                    "--rate {rate}: expected requests per second between {MIN_RATE} and {MAX_RATE}"
                )));
            }
        }
        let deadline = args
            .deadline
            .map(|d| super::setup::seconds("--deadline", d))
            .transpose()?;
        let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
        Ok(RunSettings {
            seed: args.seed.unwrap_or_else(random_seed),
            cases: args.cases,
            concurrency: args.concurrency,
            filter: args.filter.clone(),
            skip: args.skip.clone(),
            read_only: args.read_only,
            generated_only: args.generated_only,
            shard,
            deadline,
            quiet: args.quiet,
            faults: args.faults.clone(),
        })
    }
}

/// Cases run at once, at most (each holds a thread).
const MAX_CONCURRENCY: usize = 1024;
/// `--rate` bounds: one request in 1000 s, a million a second.
const MIN_RATE: f64 = 0.001;
const MAX_RATE: f64 = 1e6;
/// How long requests in flight may finish after an interrupt or the deadline, before they are
/// abandoned.
pub const GRACE: Duration = Duration::from_secs(2);

fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    (nanos ^ u64::from(std::process::id()).rotate_left(32)) % 1_000_000_000
}

/// Runs the plan and returns the record of the run.
pub fn run_plan(
    runtime: &tokio::runtime::Runtime,
    prepared: &Prepared,
    plan: Vec<Case>,
    settings: &RunSettings,
) -> RunRecord {
    let started_at = now_rfc3339();
    let start = Instant::now();
    let run = prepared.run.clone();
    let watchers = spawn_watchers(runtime, &run, settings.deadline);
    let results = Arc::new(Mutex::new(HashMap::<String, CaseResult>::new()));
    let order: Vec<String> = plan.iter().map(|c| c.id.clone()).collect();
    let plan_len = plan.len();
    let trials = super::plan::execution_order(&plan)
        .into_iter()
        .map(|i| {
            let case = plan[i].clone();
            trial(case, runtime.handle().clone(), &run, results.clone())
        })
        .collect();
    let args = libtest_mimic::Arguments {
        test_threads: Some(settings.concurrency.clamp(1, plan_len.max(1))),
        quiet: settings.quiet,
        ..libtest_mimic::Arguments::default()
    };
    // libtest-mimic unwraps its writes to stdout: a closed pipe would panic. The results are
    // collected apart from its output, so such a panic costs the terminal lines, not the run.
    let _conclusion = quietly_on_broken_pipe(|| libtest_mimic::run(&args, trials));
    watchers.abort();
    let mut results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let cases: Vec<CaseResult> = order
        .iter()
        .map(|id| results.remove(id).unwrap_or_else(|| unreported(id)))
        .collect();
    let interrupted = run.target.stop_reason().or_else(|| budget_note(&run));
    let meta = RunMeta {
        covenant_version: env!("CARGO_PKG_VERSION").to_owned(),
        seed: settings.seed,
        target: prepared.target_label.clone(),
        profile: serde_json::to_value(run.profile.redacted()).unwrap_or_default(),
        started_at,
        finished_at: now_rfc3339(),
        duration_ms: start.elapsed().as_secs_f64() * 1000.0,
        cases_per_operation: settings.cases,
        shard: settings.shard.map(|s| format!("{}/{}", s.index, s.count)),
        interrupted,
        faults: settings.faults.clone(),
    };
    RunRecord {
        counts: Counts::of(&cases),
        meta,
        cases,
    }
}

/// Why the run stopped short because of `--max-requests`, if it did.
fn budget_note(run: &super::RunCx) -> Option<String> {
    let limit = run.target.budget_limit()?;
    run.target
        .budget_exhausted()
        .then(|| format!("request budget of {limit} reached (--max-requests)"))
}

/// Stops the target on SIGINT, SIGTERM or the deadline, noting why; abandons the requests in
/// flight after [`GRACE`], or at once on a second signal.
fn spawn_watchers(
    runtime: &tokio::runtime::Runtime,
    run: &Arc<super::RunCx>,
    deadline: Option<Duration>,
) -> tokio::task::JoinHandle<()> {
    let run = run.clone();
    runtime.spawn(async move {
        let mut signals = Signals::new();
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
        super::note(&format!(
            "\ncovenant: {why}: stopping; cases not run are marked skipped"
        ));
        run.target.stop_because(&why);
        tokio::select! {
            _ = tokio::time::sleep(GRACE) => {}
            _ = signals.next() => {}
        }
        super::note("covenant: abandoning the requests still in flight");
        run.target.cancel_in_flight();
    })
}

/// SIGINT and SIGTERM (Ctrl-C elsewhere), as a stream of reasons.
struct Signals {
    #[cfg(unix)]
    handlers: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let handlers = match (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                (Ok(int), Ok(term)) => Some((int, term)),
                _ => None,
            };
            Signals { handlers }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal; never resolves when the handlers could not be installed.
    async fn next(&mut self) -> String {
        #[cfg(unix)]
        {
            let Some((int, term)) = self.handlers.as_mut() else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = int.recv() => "interrupted (SIGINT)".to_owned(),
                _ = term.recv() => "interrupted (SIGTERM)".to_owned(),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "interrupted".to_owned()
        }
    }
}

fn trial(
    case: Case,
    handle: tokio::runtime::Handle,
    run: &Arc<super::RunCx>,
    results: Arc<Mutex<HashMap<String, CaseResult>>>,
) -> libtest_mimic::Trial {
    let unmet = case.needs.iter().find_map(|n| n.unmet(run));
    let kind = case.suite.clone();
    let id = case.id.clone();
    let run = run.clone();
    let ignored = unmet.is_some();
    libtest_mimic::Trial::test(id, move || {
        let result = match unmet {
            Some(why) => skipped(&case, why),
            None => {
                let (owned, run) = (case.clone(), run.clone());
                let task = handle.spawn(async move { run_case(&owned, run).await });
                handle
                    .block_on(task)
                    .unwrap_or_else(|e| panicked(&case, &e))
            }
        };
        let verdict = result.verdict;
        let message = failure_message(&result);
        results
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(case.id.clone(), result);
        match verdict {
            Verdict::Fail | Verdict::Error => Err(message.into()),
            _ => Ok(()),
        }
    })
    .with_kind(kind)
    .with_ignored_flag(ignored)
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
        skip_reason: Some("not run: the run's output closed before this case ran".into()),
        error: None,
        payload: None,
        requests: 0,
        duration_ms: 0.0,
    }
}

fn skipped(case: &Case, why: String) -> CaseResult {
    CaseResult {
        id: case.id.clone(),
        suite: case.suite.clone(),
        operation: case.operation.map(str::to_owned),
        rules: case.rules.iter().map(|r| (*r).to_owned()).collect(),
        verdict: Verdict::Skip,
        findings: Vec::new(),
        exchanges: Vec::new(),
        skip_reason: Some(why),
        error: None,
        payload: None,
        requests: 0,
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

/// Runs one case to its result.
async fn run_case(case: &Case, run: Arc<super::RunCx>) -> CaseResult {
    if run.target.is_stopped() {
        return skipped(case, format!("{}: not run", run.stop_reason()));
    }
    if let Some(why) = budget_note(&run) {
        return skipped(case, format!("{why}: not run"));
    }
    let start = Instant::now();
    let gate = run.clone();
    let phase = match (case.writes, case.still) {
        (true, _) => Some(Phase::Writing),
        (false, true) => Some(Phase::Still),
        (false, false) => None,
    };
    let _phase = match phase {
        Some(phase) => Some(gate.phases.enter(phase).await),
        None => None,
    };
    let mut cx = CaseCx::new(run);
    let outcome = (case.run)(&mut cx).await;
    let (error, skip) = match outcome {
        Ok(()) | Err(Abort::Recorded) => (None, None),
        Err(Abort::Transport(e)) => (Some(e), None),
        Err(Abort::Skip(why)) => (None, Some(why)),
    };
    let mut result = skipped(case, String::new());
    result.verdict = match &skip {
        Some(_) if cx.findings.is_empty() => Verdict::Skip,
        _ => CaseResult::judge(&cx.findings, error.as_deref()),
    };
    result.skip_reason = skip.filter(|_| result.verdict == Verdict::Skip);
    result.findings = cx.findings;
    result.exchanges = cx.exchanges;
    result.error = error;
    result.payload = cx.payload;
    result.requests = cx.requests;
    result.duration_ms = start.elapsed().as_secs_f64() * 1000.0;
    result
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
    let verdict = if c.fail + c.error > 0 { "FAILED" } else { "ok" };
    let _ = writeln!(
        out,
        "\ncovenant: {verdict}. {} passed, {} failed, {} warned, {} errors, {} skipped; {} requests in {:.2} s (seed {})",
        c.pass,
        c.fail,
        c.warn,
        c.error,
        c.skip,
        c.requests,
        record.meta.duration_ms / 1000.0,
        record.meta.seed
    );
    if let Some(why) = &record.meta.interrupted {
        let _ = writeln!(out, "the run stopped early: {why}");
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
pub async fn run_quiet(
    run: Arc<super::RunCx>,
    plan: Vec<Case>,
    concurrency: usize,
) -> Vec<CaseResult> {
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    // Spawned in execution order; the semaphore is fair, so they start in that order too.
    let mut tasks: Vec<(usize, tokio::task::JoinHandle<CaseResult>)> =
        super::plan::execution_order(&plan)
            .into_iter()
            .map(|i| {
                let (run, permits, owned) = (run.clone(), permits.clone(), plan[i].clone());
                let task = tokio::spawn(async move {
                    let _permit = permits.acquire_owned().await;
                    match owned.needs.iter().find_map(|n| n.unmet(&run)) {
                        Some(why) => skipped(&owned, why),
                        None => run_case(&owned, run).await,
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
