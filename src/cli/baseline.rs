//! `covenant baseline REPORT.json`: the failures of a run written as a baseline of known
//! failures, for a team to check in and gate on (`covenant run --baseline FILE`).

use clap::Args;
use covenant::baseline::Baseline;
use covenant::catalogue::Catalogue;
use covenant::exit::{self, Fatal};
use covenant::report::load;
use covenant::terminal::{note, out};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct BaselineArgs {
    /// The report.json of the run whose failures the baseline holds.
    pub report: PathBuf,
    /// Write the baseline to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Hold the run's warnings too (for runs gated with --strict).
    #[arg(long)]
    pub warnings: bool,
}

/// Prints (or writes) the baseline of the report's failures: one entry per broken rule.
pub fn baseline_command(args: BaselineArgs) -> Result<u8, Fatal> {
    let record = load(&args.report).map_err(|e| Fatal::Files(e.to_string()))?;
    let text = Baseline::from_record(&record, Catalogue::embedded(), args.warnings);
    match &args.output {
        None => out(&format!("{}\n", text.trim_end())),
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| {
                Fatal::Files(format!("cannot write the baseline {}: {e}", path.display()))
            })?;
            let entries = text.matches("\n[[known]]").count();
            note(&format!(
                "wrote {} ({entries} entr{}): fill in each reason, commit it, and gate with \
                 `covenant run --baseline {}`",
                path.display(),
                if entries == 1 { "y" } else { "ies" },
                path.display()
            ));
        }
    }
    Ok(exit::SUCCESS)
}
