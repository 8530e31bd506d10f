//! The runner: resolve the target, plan the cases, run them concurrently, write reports.
//!
//! `covenant run` with neither `--target` nor `--profile` starts the embedded reference
//! in-process and tests it over HTTP, exactly as it would test a stranger's server: the runner
//! knows nothing of the reference but its profile.

mod case;
mod context;
mod execute;
mod phase;
mod plan;
mod setup;

pub use case::{case_fn, Case, CaseFn, Need};
pub use context::{snippet, Abort, BoxFuture, CaseCx, Dispatched, Outcome, RunCx};
pub use execute::{run_plan, run_quiet, RunSettings};
pub use plan::{build_plan, Shard};
pub use setup::{prepare, Prepared};

use crate::cli::RunArgs;
use crate::exit::{self, Fatal};
use crate::verdict::RunRecord;
use std::io::Write;

/// `covenant run`.
pub fn command(args: RunArgs) -> Result<u8, Fatal> {
    let settings = RunSettings::from_args(&args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Fatal::usage(format!("cannot start the async runtime: {e}")))?;
    let prepared = runtime.block_on(prepare(&args, settings.seed))?;
    let plan = build_plan(&prepared.run, &settings);
    if args.list {
        let list: String = plan.iter().map(|c| format!("{}: test\n", c.id)).collect();
        out(&list);
        return Ok(exit::SUCCESS);
    }
    if args.dry_run {
        out(&plan::describe(&plan, &prepared.run));
        return Ok(exit::SUCCESS);
    }
    note(&format!(
        "covenant {}: {} cases against {} at {} (seed {}, {} generated per operation)",
        env!("CARGO_PKG_VERSION"),
        plan.len(),
        prepared.target_label,
        prepared.run.target.base_url(),
        settings.seed,
        settings.cases
    ));
    let record = run_plan(&runtime, &prepared, plan, &settings);
    let secrets = prepared.run.target.secrets().to_vec();
    runtime.block_on(prepared.shutdown());
    finish(&record, &args, &secrets)
}

/// Writes the reports, prints the summary, and maps the record to an exit code.
fn finish(record: &RunRecord, args: &RunArgs, secrets: &[String]) -> Result<u8, Fatal> {
    let written = crate::report::write_all(record, &args.report_dir, secrets)
        .map_err(|e| Fatal::usage(format!("cannot write reports: {e}")))?;
    out(&execute::summary(record));
    for path in written {
        note(&format!("report: {}", path.display()));
    }
    let c = &record.counts;
    let failed = c.fail + c.error > 0 || (args.strict && c.warn > 0);
    Ok(if failed {
        exit::FAILURES
    } else {
        exit::SUCCESS
    })
}

/// Writes to stdout; a closed pipe (`covenant run | head`) is not an error, and never a panic.
fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Writes a line to stderr, ignoring a closed pipe.
pub(crate) fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
