//! Running a plan, for one target or two side by side: the one way `covenant run`, the
//! differential run, the self-test and the tests run the suite.
//!
//! [`plan`] checks that the reports can be written, prepares each target (the preflight
//! included) and selects the cases; [`Planned::run`] runs them through the scheduler and gives
//! each target's record. The command line builds the settings and prints; it decides nothing of
//! how a plan runs.

use super::execute::{show, Line};
use super::progress::{Progress, Size};
use super::record::{record, Timing};
use super::results::output_closed;
use super::schedule::{schedule, Observer};
use super::select::{describe, execution_order, select};
pub use super::setup::Sites;
use super::setup::{prepare, Prepared};
use crate::baseline::{Baseline, Gate};
use crate::case::Case;
use crate::exit::Fatal;
use crate::settings::RunSettings;
use crate::verdict::{CaseResult, RunRecord};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Who watches a run as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// A person at a terminal: the first target's per-case lines and progress line, and SIGINT
    /// or SIGTERM stop the run.
    Console,
    /// A program that runs many plans at once (the self-test): nothing shown, signals left to
    /// the process.
    Program,
}

/// The targets of a run, prepared, and the cases they will be given.
pub struct Planned {
    targets: Vec<Prepared>,
    /// The settings of each target (`RunSettings::per_target`).
    sides: Vec<RunSettings>,
    /// The cases of the run, in the suite's order; every target gets them all.
    pub cases: Vec<Case>,
    /// The baseline of known failures, when the run has one (`--baseline`).
    gate: Option<Arc<Gate>>,
}

/// What a run gave.
pub struct Ran {
    /// One record per target, in the order of the settings' targets.
    pub records: Vec<RunRecord>,
    /// Every target's secrets, to keep out of every report and line.
    pub secrets: Vec<String>,
    /// The embedded reference's faults, each with the routes of the requests during which it
    /// was asked about (the first target's; none for a target of the user's): the self-test's
    /// coverage.
    pub sites: Sites,
}

/// Checks that the reports can be written, prepares the target (both targets of a differential
/// run, at once) and selects the suite's cases.
pub async fn plan(settings: &RunSettings) -> Result<Planned, Fatal> {
    if let (true, Some(dir)) = (settings.mode.sends(), &settings.report_dir) {
        super::preflight::report_dir(dir)?;
    }
    let sides = settings.per_target();
    let targets = prepare_all(&sides).await?;
    let first = &targets[0];
    let generated_only = settings.selection.generated_only;
    let cases = crate::suite::cases(&first.run, generated_only, first.user_cases.clone());
    let gate = match gate(settings, &cases) {
        Ok(gate) => gate,
        Err(fatal) => {
            for target in targets {
                target.shutdown().await;
            }
            return Err(fatal);
        }
    };
    let cases = select(cases, &settings.selection);
    if settings.mode.sends() {
        let missing = targets
            .iter()
            .find_map(|t| super::preflight::required_keys(&t.run, &cases).err());
        if let Some(fatal) = missing {
            for target in targets {
                target.shutdown().await;
            }
            return Err(fatal);
        }
    }
    Ok(Planned {
        targets,
        sides,
        cases,
        gate,
    })
}

/// The baseline of known failures the run is judged with, read and checked against the
/// catalogue and every case of the suite (a misspelt id is the user's mistake, before anything
/// is sent).
fn gate(settings: &RunSettings, cases: &[Case]) -> Result<Option<Arc<Gate>>, Fatal> {
    let Some(path) = &settings.baseline else {
        return Ok(None);
    };
    let usage = |e: crate::baseline::BaselineError| Fatal::Usage(e.to_string());
    let baseline = Baseline::read(path, crate::catalogue::Catalogue::embedded()).map_err(usage)?;
    baseline
        .check_cases(cases.iter().map(|c| c.id.as_str()))
        .map_err(usage)?;
    let today = time::OffsetDateTime::now_utc().date();
    Ok(Some(Arc::new(baseline.gate(today, settings.accept_stale))))
}

/// Each target of the run, prepared; two targets at one URL are refused.
async fn prepare_all(sides: &[RunSettings]) -> Result<Vec<Prepared>, Fatal> {
    let [a, b] = sides else {
        return Ok(vec![prepare(&sides[0]).await?]);
    };
    let (a, b) = tokio::try_join!(prepare(a), prepare(b))?;
    if a.run.target.base_url() == b.run.target.base_url() {
        let url = a.run.target.base_url().to_string();
        a.shutdown().await;
        b.shutdown().await;
        return Err(Fatal::Usage(format!(
            "both profiles name the target {url}: a differential run compares two targets; give \
             each profile the base_url of its own"
        )));
    }
    Ok(vec![a, b])
}

impl Planned {
    /// What `--list` prints: each case's id.
    pub fn list(&self) -> String {
        self.cases.iter().map(|c| format!("{}\n", c.id)).collect()
    }

    /// What `--dry-run` prints: the plan as each target would run it.
    pub fn describe(&self) -> String {
        if let [target] = self.targets.as_slice() {
            return describe(&self.cases, &target.run);
        }
        let mut text = String::new();
        for (name, target) in ["A", "B"].iter().zip(&self.targets) {
            text.push_str(&format!("{name}: {}\n", target.target_label));
            text.push_str(&describe(&self.cases, &target.run));
        }
        text
    }

    /// The line that opens a run: the cases, the targets, the seed.
    pub fn headline(&self) -> String {
        let generation = &self.sides[0].generation;
        let against = match self.targets.as_slice() {
            [a, b] => format!(
                "A at {} and B at {}, side by side",
                a.run.target.base_url(),
                b.run.target.base_url()
            ),
            // A profile's target is named by its URL: said once. The embedded reference's URL
            // is added.
            targets => {
                let url = targets[0].run.target.base_url().to_string();
                match &targets[0].target_label {
                    label if *label == url => url,
                    label => format!("{label} at {url}"),
                }
            }
        };
        format!(
            "covenant {}: {} cases against {against} (seed {}, {} generated per operation)",
            env!("CARGO_PKG_VERSION"),
            self.cases.len(),
            generation.seed,
            generation.cases_per_operation
        )
    }

    /// Runs the cases against every target at once, each target with its own scheduler (lanes,
    /// phases, late start) and one interrupt or deadline for all; the first target's lines go to
    /// the console when `audience` is one. Ends with the targets shut down.
    pub async fn run(self, audience: Audience) -> Ran {
        let Planned {
            targets,
            sides,
            cases,
            gate,
        } = self;
        if let [first, second] = targets.as_slice() {
            // One plan, one set of payloads: the second generates what the first does.
            let _ = second.run.leader.set(first.run.clone());
        }
        let settings = &sides[0];
        let concurrency = settings.concurrency;
        let timing = Timing::now();
        let runs = targets.iter().map(|t| t.run.clone()).collect();
        let watcher = super::stop::watch(runs, settings.deadline, audience == Audience::Console);
        let first = async {
            let results =
                run_first(&targets[0], cases.clone(), settings, audience, gate.clone()).await;
            let closed = output_closed(&results);
            record(&targets[0], settings, results, &timing, closed)
        };
        let second = async {
            match targets.get(1) {
                Some(target) => {
                    let (run, finished) = (target.run.clone(), Arc::default());
                    let results = schedule(
                        run,
                        cases.clone(),
                        concurrency,
                        finished,
                        None,
                        gate.clone(),
                        settings.keep_exchanges,
                    )
                    .await;
                    Some(record(target, settings, results, &timing, None))
                }
                None => None,
            }
        };
        let (first, second) = tokio::join!(first, second);
        let mut records = vec![first];
        records.extend(second);
        if let Some(gate) = &gate {
            records.iter_mut().for_each(|record| gate.judge(record));
        }
        if let Some(watcher) = watcher {
            watcher.abort();
        }
        let mut secrets: Vec<String> = targets
            .iter()
            .flat_map(|t| t.run.target.secrets().to_vec())
            .collect();
        // Two references of one seed share their secrets: each is looked for once.
        secrets.sort();
        secrets.dedup();
        let mut sites = Vec::new();
        for target in targets {
            sites.push(target.shutdown().await);
        }
        let sites = sites.into_iter().next().unwrap_or_default();
        Ran {
            records,
            secrets,
            sites,
        }
    }
}

/// The first target's run: on the console, its lines as its cases finish and its progress line,
/// when `audience` is one.
async fn run_first(
    target: &Prepared,
    cases: Vec<Case>,
    settings: &RunSettings,
    audience: Audience,
    gate: Option<Arc<Gate>>,
) -> Vec<CaseResult> {
    let (run, concurrency) = (target.run.clone(), settings.concurrency);
    let keep = settings.keep_exchanges;
    let finished = Arc::new(AtomicUsize::new(0));
    if audience == Audience::Program {
        return schedule(run, cases, concurrency, finished, None, gate, keep).await;
    }
    let progress = {
        let (target, finished) = (run.target.clone(), finished.clone());
        Progress::start(settings.progress, Size::of(&cases, &run), move || {
            (target.requests_sent(), finished.load(Ordering::SeqCst))
        })
    };
    let (tell, mut results): (Vec<_>, Vec<_>) = cases
        .iter()
        .map(|_| tokio::sync::oneshot::channel())
        .map(|(tx, rx)| (tx, Some(rx)))
        .unzip();
    let lines: Vec<Line> = execution_order(&cases)
        .into_iter()
        .map(|i| Line {
            id: cases[i].id.clone(),
            kind: cases[i].suite.clone(),
            result: results[i].take().expect("each case is started once"),
        })
        .collect();
    let halted = Arc::new(AtomicBool::new(false));
    let observer = Observer {
        tell,
        halted: halted.clone(),
    };
    let scheduled = schedule(
        run,
        cases,
        concurrency,
        finished,
        Some(observer),
        gate,
        keep,
    );
    let console = {
        let settings = settings.clone();
        tokio::task::spawn_blocking(move || {
            let shown = show(lines, &settings, progress);
            if !shown {
                halted.store(true, Ordering::SeqCst);
            }
        })
    };
    let (results, _) = tokio::join!(scheduled, console);
    results
}
