//! The one trait every run format implements.

use super::{ReportError, RunView};

/// One report format: a finished run's view in, the text of one file out.
///
/// Reporters lay out the whole view at once: it is built once per publish from the settled
/// record ([`RunView::new`]), and a format decides nothing of what it says (which cases failed,
/// the counts, the coverage, the broken rules).
pub trait Reporter {
    /// The file this format is written to inside the report directory.
    fn file_name(&self) -> &'static str;
    /// The file's text.
    fn render(&self, view: &RunView<'_>) -> Result<String, ReportError>;
}
