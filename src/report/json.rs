//! The JSON report: the [`RunRecord`] itself, pretty-printed. Its schema is
//! `schemas/run-report.json`; `covenant compare` and `covenant merge` read it back.

use super::{ReportError, Reporter};
use crate::catalogue::Catalogue;
use crate::verdict::RunRecord;

/// `report.json`.
pub struct Json;

impl Reporter for Json {
    fn file_name(&self) -> &'static str {
        "report.json"
    }

    fn render(&self, run: &RunRecord, _catalogue: &Catalogue) -> Result<String, ReportError> {
        let mut text = serde_json::to_string_pretty(run).map_err(|e| ReportError::Render {
            format: "report.json",
            message: e.to_string(),
        })?;
        text.push('\n');
        Ok(text)
    }
}
