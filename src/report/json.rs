//! The JSON report: the [`RunRecord`] itself, pretty-printed, headed by the run's verdict (and
//! why it is incomplete, when it is) so that a reader need not work it out. Its schema is
//! `schemas/run-report.json`; `covenant compare` and `covenant merge` read it back, working the
//! verdict out again from the record.

use super::{ReportError, Reporter};
use crate::catalogue::Catalogue;
use crate::verdict::{RunRecord, RunVerdict};
use serde::Serialize;

/// What `report.json` holds.
#[derive(Serialize)]
struct Document<'a> {
    verdict: RunVerdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    incomplete: Option<String>,
    #[serde(flatten)]
    record: &'a RunRecord,
}

/// `report.json`.
pub struct Json;

impl Reporter for Json {
    fn file_name(&self) -> &'static str {
        "report.json"
    }

    fn render(&self, run: &RunRecord, _catalogue: &Catalogue) -> Result<String, ReportError> {
        let document = Document {
            verdict: run.verdict(),
            incomplete: run.incomplete(),
            record: run,
        };
        let mut text =
            serde_json::to_string_pretty(&document).map_err(|e| ReportError::Render {
                format: "report.json",
                message: e.to_string(),
            })?;
        text.push('\n');
        Ok(text)
    }
}
