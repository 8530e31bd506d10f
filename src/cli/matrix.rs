//! `covenant matrix`: the conformance matrix of several implementations, from their reports
//! alone (no target).

use clap::Args;
use covenant::catalogue::Catalogue;
use covenant::exit::Fatal;
use covenant::matrix::{self, MatrixError, MatrixView};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct MatrixArgs {
    /// The report.json of a run of each implementation (`covenant run`, `merge`, `proxy`,
    /// `check`); each is a column, named by its profile's `name`, else its target's host and
    /// port.
    #[arg(value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// A report and the name of its column (repeatable); a report also given alone takes the
    /// name where it stands.
    #[arg(long = "name", value_name = "LABEL=REPORT.json")]
    pub names: Vec<String>,
    /// Where matrix.json, matrix.md and matrix.html are written.
    #[arg(long, value_name = "DIR", default_value = covenant::settings::DEFAULT_REPORT_DIR)]
    pub report_dir: PathBuf,
}

/// `covenant matrix REPORT.json... [--name LABEL=REPORT.json]... [--report-dir DIR]`: the
/// matrix's view built once and published as every command publishes its product (one line per
/// implementation, then the files written). Exit 0: the matrix states verdicts, it is none.
pub fn matrix_command(args: MatrixArgs) -> Result<u8, Fatal> {
    let inputs = inputs(&args).map_err(|e| Fatal::Usage(e.to_string()))?;
    let runs = matrix::read_all(&inputs).map_err(files)?;
    let built = matrix::build(&runs, Catalogue::embedded(), &args.report_dir);
    super::publish::publish_matrix(&MatrixView::new(&built), &args.report_dir)
}

fn files(e: MatrixError) -> Fatal {
    Fatal::Files(e.to_string())
}

/// The reports in order, each with the name `--name` gives it: those given alone first, then
/// those given with `--name` alone.
fn inputs(args: &MatrixArgs) -> Result<Vec<(Option<String>, PathBuf)>, MatrixError> {
    let mut named = Vec::new();
    for text in &args.names {
        match text.split_once('=') {
            Some((label, path)) if !label.is_empty() && !path.is_empty() => {
                named.push((label.to_owned(), PathBuf::from(path)));
            }
            _ => return Err(MatrixError::Label(text.clone())),
        }
    }
    let mut inputs: Vec<(Option<String>, PathBuf)> = args
        .reports
        .iter()
        .map(|path| {
            let label = named
                .iter()
                .find(|(_, p)| p == path)
                .map(|(l, _)| l.clone());
            (label, path.clone())
        })
        .collect();
    for (label, path) in named {
        if !args.reports.contains(&path) {
            inputs.push((Some(label), path));
        }
    }
    if inputs.is_empty() {
        return Err(MatrixError::Nothing);
    }
    Ok(inputs)
}
