//! The results of cases that did not run to the end of their body: skipped before they started,
//! panicked, or never reached because the run's output closed.

use crate::case::Case;
use crate::verdict::{CaseResult, Verdict};

/// A case skipped for `why`, before it sent anything; also the empty result a case that runs
/// fills in.
pub(super) fn skipped(case: &Case, why: String) -> CaseResult {
    CaseResult {
        suite: case.suite.clone(),
        operation: case.operation.map(|op| op.as_str().to_owned()),
        rules: case.rules.iter().map(|r| (*r).to_owned()).collect(),
        ..blank(&case.id, why)
    }
}

/// A skipped result of case `id` that says nothing else of the case.
fn blank(id: &str, why: String) -> CaseResult {
    CaseResult {
        id: id.to_owned(),
        suite: id.split('.').next().unwrap_or(id).to_owned(),
        operation: None,
        rules: Vec::new(),
        verdict: Verdict::Skip,
        findings: Vec::new(),
        exchanges: Vec::new(),
        skip_reason: Some(why),
        error: None,
        payload: None,
        inconclusive: Vec::new(),
        requests: 0,
        evidence: Vec::new(),
        statuses: Vec::new(),
        expected_statuses: Vec::new(),
        shapes: Vec::new(),
        duration_ms: 0.0,
    }
}

/// A panic inside a case is a defect of covenant: it is reported as an error of that case
/// rather than taking the run down.
pub(super) fn panicked(case: &Case, error: &tokio::task::JoinError) -> CaseResult {
    let mut result = skipped(case, String::new());
    result.skip_reason = None;
    result.verdict = Verdict::Error;
    result.error = Some(format!(
        "covenant defect: the case panicked ({error}); please report it"
    ));
    result
}

/// The skip reason of a case that left no result.
const UNREPORTED: &str = "not run: the run's output closed before this case ran";

/// A case of the plan not run because the console's output closed before it started.
pub(super) fn unreported(id: &str) -> CaseResult {
    blank(id, UNREPORTED.into())
}

/// Why the run is incomplete when some case left no result (see [`unreported`]).
pub(super) fn output_closed(cases: &[CaseResult]) -> Option<String> {
    cases
        .iter()
        .any(|c| c.skip_reason.as_deref() == Some(UNREPORTED))
        .then(|| "the run's output closed before every case ran".to_owned())
}
