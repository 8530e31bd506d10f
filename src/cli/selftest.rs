//! `covenant selftest`: its flags, and the command that runs the self-test and writes
//! `selftest.json`.

use clap::Args;
use covenant::exit::{self, Fatal};
use covenant::reference::Fault;
use covenant::selftest::{self, render, SelftestSettings};
use covenant::terminal::{note, out};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct SelftestArgs {
    /// Faults run at once, each on its own server.
    #[arg(long, default_value_t = selftest::DEFAULT_JOBS)]
    pub jobs: usize,
    /// Generated cases per operation in each run.
    #[arg(long, default_value_t = selftest::DEFAULT_CASES)]
    pub cases: u32,
    /// Only these faults (repeatable).
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Where the self-test report is written.
    #[arg(long, value_name = "DIR", default_value = covenant::settings::DEFAULT_REPORT_DIR)]
    pub report_dir: PathBuf,
}

/// `covenant selftest`.
pub fn selftest_command(args: SelftestArgs) -> Result<u8, Fatal> {
    let settings = SelftestSettings {
        faults: chosen_faults(&args.faults)?,
        cases: args.cases,
        jobs: args.jobs,
        partial: !args.faults.is_empty(),
    };
    let runtime = super::runtime(Some(2))?;
    let record = runtime.block_on(selftest::selftest(&settings))?;
    out(&render(&record));
    let path = args.report_dir.join("selftest.json");
    std::fs::create_dir_all(&args.report_dir)
        .and_then(|()| {
            let json = serde_json::to_string_pretty(&record).unwrap_or_default();
            std::fs::write(&path, json)
        })
        .map_err(|e| Fatal::Files(format!("cannot write {}: {e}", path.display())))?;
    note(&format!("report: {}", path.display()));
    Ok(if record.passed() {
        exit::SUCCESS
    } else {
        exit::FAILURES
    })
}

/// The faults named on the command line, or all of them.
fn chosen_faults(names: &[String]) -> Result<Vec<Fault>, Fatal> {
    if names.is_empty() {
        return Ok(Fault::all().to_vec());
    }
    names
        .iter()
        .map(|n| {
            Fault::from_name(n).ok_or_else(|| {
                Fatal::Usage(format!(
                    "unknown fault `{n}`; `covenant list faults` prints the valid names"
                ))
            })
        })
        .collect()
}
