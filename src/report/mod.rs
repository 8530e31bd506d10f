//! Reports: JUnit XML, JSON, HTML and Markdown, plus compare and merge. (Being built in issue 8.)

use crate::cli::{CompareArgs, MergeArgs};
use crate::exit::Fatal;

/// `covenant compare`.
pub fn compare_command(_args: CompareArgs) -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant compare` is not built yet"))
}

/// `covenant merge`.
pub fn merge_command(_args: MergeArgs) -> Result<u8, Fatal> {
    Err(Fatal::usage("`covenant merge` is not built yet"))
}

/// Temporary stand-in until the reports land (issue 8).
pub fn write_all(
    _run: &crate::verdict::RunRecord,
    _dir: &std::path::Path,
    _secrets: &[String],
) -> Result<Vec<std::path::PathBuf>, std::io::Error> {
    Ok(Vec::new())
}
