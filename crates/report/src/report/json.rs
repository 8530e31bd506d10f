//! The JSON report: the settled [`RunRecord`] itself, serialised, headed by the run's verdict
//! (and why it is incomplete, when it is) so that a reader need not work it out. Its schema is
//! `schemas/run-report.json`; `covenant compare` and `covenant merge` read it back, working the
//! verdict out again from the record. Beside the record it holds the sections the run's view
//! computed from it: the coverage (rules with their evidence, statuses per operation, the
//! measures `--require-coverage` reads), for readers that do not run covenant, and what the
//! target chose where the spec is silent (`silent`, per gap id); `compare` and `merge` ignore
//! both and work them out again.
//! `compare.json` and `diff.json` are the comparison and the behaviour diff, as they are.

use super::compare::Comparison;
use super::coverage::{Measured, OperationStatuses, RuleCoverage, RuleEvidence, RuleStatus};
use super::diff::BehaviourDiff;
use super::gaps::Observation;
use super::view::RunView;
use super::{ReportError, Reporter};
use crate::catalogue::Level;
use crate::verdict::{CaseResult, Counts, RunMeta, RunRecord, RunVerdict, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

/// What `report.json` holds.
#[derive(Serialize)]
struct Document<'a> {
    verdict: RunVerdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    incomplete: Option<String>,
    #[serde(flatten)]
    record: Reported<'a>,
    coverage: Coverage<'a>,
    /// What the target chose where the spec is silent, per gap id.
    silent: BTreeMap<&'a str, Silent<'a>>,
}

/// What the target chose in one gap.
#[derive(Serialize)]
struct Silent<'a> {
    text: &'a str,
    observations: &'a [Observation],
}

/// The coverage of the run, worked out from its record.
#[derive(Serialize)]
struct Coverage<'a> {
    rules: Vec<CoverageRow<'a>>,
    statuses: &'a [OperationStatuses],
    measures: &'a [Measured],
}

/// One rule of the coverage matrix.
#[derive(Serialize)]
struct CoverageRow<'a> {
    id: &'a str,
    level: Level,
    status: RuleStatus,
    #[serde(flatten)]
    evidence: &'a RuleEvidence<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    /// The statement of the spec the rule rests on (the trace's citation).
    #[serde(skip_serializing_if = "String::is_empty")]
    spec: String,
}

impl<'a> From<&'a RuleCoverage<'a>> for CoverageRow<'a> {
    fn from(row: &'a RuleCoverage<'a>) -> CoverageRow<'a> {
        CoverageRow {
            id: &row.rule.id,
            level: row.rule.level,
            status: row.status,
            evidence: &row.evidence,
            reason: row.reason.as_deref(),
            spec: super::view::spec_citation(&row.rule.id),
        }
    }
}

/// `report.json`.
pub struct Json;

impl Reporter for Json {
    fn file_name(&self) -> &'static str {
        "report.json"
    }

    fn render(&self, view: &RunView<'_>) -> Result<String, ReportError> {
        let run = view.record;
        let coverage = Coverage {
            rules: view.coverage.iter().map(CoverageRow::from).collect(),
            statuses: &view.statuses,
            measures: &view.measures,
        };
        let silent = view
            .silent
            .iter()
            .map(|g| {
                let silent = Silent {
                    text: &g.text,
                    observations: &g.observations,
                };
                (g.gap.as_str(), silent)
            })
            .collect();
        let document = Document {
            verdict: view.verdict,
            incomplete: view.incomplete.clone(),
            record: Reported::of(run),
            coverage,
            silent,
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

/// The record as report.json holds it, each case written as it is read (the record is not
/// copied: it holds every case of the run).
///
/// Without the exchanges of passing cases, unless the run was asked to keep them
/// (`--keep-exchanges`): a passing case is evidence in its counts, statuses, shapes and rules,
/// which stay, and a clean run's report.json stays small (a sequence of the explorer alone
/// sends a body of 1 MiB). A case that did not pass keeps every exchange, so that each finding
/// can still be replayed from the report.
///
/// As the run was settled ([`RunRecord::settle`]): under `--strict` a warned case is a failing
/// case, its verdict `fail`, counted among the failures (its findings keep their rule and
/// level).
#[derive(Serialize)]
struct Reported<'a> {
    meta: &'a RunMeta,
    counts: &'a Counts,
    cases: Cases<'a>,
}

impl<'a> Reported<'a> {
    fn of(run: &'a RunRecord) -> Reported<'a> {
        // Every field of the record, so that one added to it cannot be left out here.
        let RunRecord {
            meta,
            counts,
            cases,
        } = run;
        Reported {
            meta,
            counts,
            cases: Cases {
                cases,
                keep_exchanges: meta.keep_exchanges,
            },
        }
    }
}

/// The cases of [`Reported`].
struct Cases<'a> {
    cases: &'a [CaseResult],
    keep_exchanges: bool,
}

impl Serialize for Cases<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.cases.len()))?;
        for case in self.cases {
            let lean = !self.keep_exchanges && case.verdict == Verdict::Pass;
            match lean && !case.exchanges.is_empty() {
                true => seq.serialize_element(&case.without_exchanges())?,
                false => seq.serialize_element(case)?,
            }
        }
        seq.end()
    }
}

/// `compare.json`.
pub fn compare(comparison: &Comparison) -> String {
    pretty(comparison)
}

/// `diff.json`.
pub fn diff(diff: &BehaviourDiff) -> String {
    pretty(diff)
}

/// Pretty JSON with a final newline; `{}` for what cannot be written (plain data always can).
fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}
