//! Running the plan: libtest-mimic drives the cases (filtering, `--list` and the familiar
//! pass/fail lines), each case runs on the shared tokio runtime, and every outcome is collected
//! into a [`RunRecord`], also when the run is interrupted or its deadline or budget is reached.

use super::case::Case;
use super::context::{Abort, CaseCx};
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
        if !(args.timeout.is_finite() && args.timeout > 0.0) {
            return Err(Fatal::usage(
                "--timeout must be a positive number of seconds",
            ));
        }
        if args.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return Err(Fatal::usage(
                "--rate must be a positive number of requests per second",
            ));
        }
        let deadline = match args.deadline {
            Some(d) if !(d.is_finite() && d > 0.0) => {
                return Err(Fatal::usage(
                    "--deadline must be a positive number of seconds",
                ))
            }
            Some(d) => Some(Duration::from_secs_f64(d)),
            None => None,
        };
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
    let stop_reason = Arc::new(Mutex::new(None::<String>));
    let watchers = spawn_watchers(runtime, &run, settings.deadline, stop_reason.clone());
    let results = Arc::new(Mutex::new(HashMap::<String, CaseResult>::new()));
    let order: Vec<String> = plan.iter().map(|c| c.id.clone()).collect();
    let trials = plan
        .into_iter()
        .map(|case| trial(case, runtime.handle().clone(), &run, results.clone()))
        .collect();
    let args = libtest_mimic::Arguments {
        test_threads: Some(settings.concurrency),
        quiet: settings.quiet,
        ..libtest_mimic::Arguments::default()
    };
    let _conclusion = libtest_mimic::run(&args, trials);
    watchers.abort();
    let mut results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let cases: Vec<CaseResult> = order.iter().filter_map(|id| results.remove(id)).collect();
    let interrupted = stop_reason
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
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

/// Stops the target on SIGINT, SIGTERM or the deadline, noting why.
fn spawn_watchers(
    runtime: &tokio::runtime::Runtime,
    run: &Arc<super::RunCx>,
    deadline: Option<Duration>,
    reason: Arc<Mutex<Option<String>>>,
) -> tokio::task::JoinHandle<()> {
    let run = run.clone();
    runtime.spawn(async move {
        let deadline = async {
            match deadline {
                Some(d) => {
                    tokio::time::sleep(d).await;
                    format!("deadline of {:.0} s reached", d.as_secs_f64())
                }
                None => std::future::pending().await,
            }
        };
        let why = tokio::select! {
            why = deadline => why,
            why = signals() => why,
        };
        eprintln!("\ncovenant: {why}: stopping; cases not run are marked skipped");
        *reason.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
        run.target.stop();
    })
}

async fn signals() -> String {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = int.recv() => "interrupted (SIGINT)".to_owned(),
            _ = term.recv() => "terminated (SIGTERM)".to_owned(),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "interrupted".to_owned()
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
        return skipped(case, "the run stopped before this case started".into());
    }
    let start = Instant::now();
    let quiet = run.clone();
    let _shared = if case.writes {
        Some(quiet.quiet.read().await)
    } else {
        None
    };
    let _exclusive = if case.still {
        Some(quiet.quiet.write().await)
    } else {
        None
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
