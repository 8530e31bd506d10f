//! The suite as a libtest harness: a crate that implements the API runs covenant where its other
//! tests live (`cargo test`, `cargo nextest run`), each case a trial it can list, filter and
//! retry, from a `tests/conformance.rs` with `harness = false` that starts its server and calls
//! [`main`].
//!
//! The plan is the one `covenant run` builds from the same settings (user cases included); a
//! trial is named `SUITE::ID`. libtest's own arguments choose the trials (`--list`, a name
//! filter, `--exact`, `--skip`, `--ignored`), and only the chosen cases are sent, in one run of
//! the plan that the first trial to start carries out for all. A case's verdict is its trial's:
//! pass, warn and known pass, fail and error fail with their findings, a skipped or inconclusive
//! case is ignored with the reason. Exit codes are libtest's (101 when a trial failed). It writes no report: the test
//! runner reports.

use crate::exit::Fatal;
use crate::runner::{plan, Audience};
use crate::settings::{Mode, RunSettings};
use crate::verdict::{CaseResult, Verdict};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

/// Runs the plan of `settings` as libtest trials under the process's arguments, and gives
/// libtest's exit code; a plan that cannot be built (a bad case file, a bad profile) prints why
/// and gives covenant's code for it.
pub fn main(settings: RunSettings) -> ExitCode {
    let args = Arguments::from_args();
    match trials(settings, &args) {
        Ok(trials) => libtest_mimic::run(&args, trials).exit_code(),
        Err(fatal) => {
            eprintln!("error: {fatal}");
            fatal.exit_code()
        }
    }
}

/// One trial per case of the plan of `settings`, named `SUITE::ID`; running any of them runs,
/// once, every case `args` chooses.
pub fn trials(settings: RunSettings, args: &Arguments) -> Result<Vec<Trial>, Fatal> {
    let cases = listed(&settings)?;
    let chosen: BTreeSet<String> = cases
        .iter()
        .filter(|(name, _)| {
            let trial = Trial::test(name.clone(), || Ok(()));
            !args.is_filtered_out(&trial) && !args.is_ignored(&trial)
        })
        .map(|(_, id)| id.clone())
        .collect();
    let shared = Arc::new(SharedRun {
        settings,
        chosen,
        results: OnceLock::new(),
    });
    Ok(cases
        .into_iter()
        .map(|(name, id)| {
            let shared = shared.clone();
            Trial::ignorable_test(name, move || shared.outcome(&id))
        })
        .collect())
}

/// The names and ids of the plan's cases, from a plan that sends nothing.
fn listed(settings: &RunSettings) -> Result<Vec<(String, String)>, Fatal> {
    let mut listing = settings.clone();
    listing.mode = Mode::List;
    listing.report_dir = None;
    let planned = runtime()?.block_on(plan(&listing))?;
    Ok(planned
        .cases
        .iter()
        .map(|c| (format!("{}::{}", c.suite, c.id), c.id.clone()))
        .collect())
}

fn runtime() -> Result<tokio::runtime::Runtime, Fatal> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Fatal::Startup(format!("cannot start the async runtime: {e}")))
}

/// The run of the chosen cases, carried out once by the first trial that starts.
struct SharedRun {
    settings: RunSettings,
    chosen: BTreeSet<String>,
    results: OnceLock<Result<BTreeMap<String, CaseResult>, String>>,
}

impl SharedRun {
    fn outcome(&self, id: &str) -> Result<Completion, Failed> {
        let results = self.results.get_or_init(|| self.run()).as_ref()?;
        let Some(result) = results.get(id) else {
            return Ok(Completion::ignored_with("not in this run's plan"));
        };
        match result.verdict {
            Verdict::Pass | Verdict::Warn | Verdict::Known | Verdict::Client => {
                Ok(Completion::Completed)
            }
            Verdict::Skip => Ok(Completion::ignored_with(
                result.skip_reason.as_deref().unwrap_or("skipped"),
            )),
            Verdict::Inconclusive => Ok(Completion::ignored_with(
                "inconclusive: the baseline its variants are judged against was refused",
            )),
            Verdict::Fail | Verdict::Error => Err(Failed::from(failure(result))),
        }
    }

    fn run(&self) -> Result<BTreeMap<String, CaseResult>, String> {
        let mut settings = self.settings.clone();
        settings.mode = Mode::Run;
        settings.report_dir = None;
        settings.selection.ids = Some(self.chosen.clone());
        let runtime = runtime().map_err(|e| e.to_string())?;
        let ran = runtime.block_on(async {
            let planned = plan(&settings).await.map_err(|e| e.to_string())?;
            Ok::<_, String>(planned.run(Audience::Program).await)
        })?;
        let record = ran
            .records
            .into_iter()
            .next()
            .ok_or("the run gave no record")?;
        Ok(record
            .cases
            .into_iter()
            .map(|case| (case.id.clone(), case))
            .collect())
    }
}

/// What a failed trial prints: each finding under its rule, with the request that showed it.
fn failure(result: &CaseResult) -> String {
    let mut lines = Vec::new();
    if let Some(error) = &result.error {
        lines.push(format!("error: {error}"));
    }
    for finding in &result.findings {
        lines.push(format!("{}: {}", finding.rule, finding.message));
        let exchange = finding.exchange.and_then(|i| result.exchanges.get(i));
        if let Some(exchange) = exchange {
            lines.push(format!("  request:  {}", exchange.request.curl));
            if let Some(response) = &exchange.response {
                lines.push(format!("  response: {} {}", response.status, response.body));
            }
        }
    }
    lines.join("\n")
}
