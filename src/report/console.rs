//! The console format: what a run prints on the terminal (each failed case's message under
//! libtest-mimic's "failures:", and the closing summary). It renders from the record alone and
//! never prints: the command line decides where the text goes.

use super::coverage::measure;
use crate::catalogue::Catalogue;
use crate::verdict::{CaseResult, CoverageMeasure, RunRecord, RunVerdict, Verdict};
use std::fmt::Write;

/// One line of what the run gave evidence on: rules by level, and the stated statuses seen.
fn coverage_line(record: &RunRecord) -> String {
    let measured = measure(record, Catalogue::embedded());
    let share = |measure: CoverageMeasure| {
        measured
            .iter()
            .find(|m| m.measure == measure)
            .map_or_else(String::new, |m| format!("{}/{}", m.got, m.of))
    };
    format!(
        "coverage: {} must and {} should rules with evidence; {} stated statuses seen \
         (summary.html has the matrix)",
        share(CoverageMeasure::Must),
        share(CoverageMeasure::Should),
        share(CoverageMeasure::Status)
    )
}

/// What libtest-mimic prints under "failures:" for a case.
pub fn failure_message(result: &CaseResult) -> String {
    let mut out = String::new();
    if let Some(e) = &result.error {
        let _ = writeln!(out, "error: {e}");
    }
    for f in &result.findings {
        let _ = writeln!(out, "[{}] ({}) {}", f.rule, f.level, f.message);
        if let Some(diff) = &f.diff {
            let _ = writeln!(out, "{}", indent(diff));
        }
        if let Some(ex) = f.exchange.and_then(|i| result.exchanges.get(i)) {
            let _ = writeln!(out, "  request:  {}", ex.request.curl);
            if let Some(resp) = &ex.response {
                let body: String = resp.body.chars().take(500).collect();
                let _ = writeln!(out, "  response: {} {}", resp.status, body);
            }
        }
    }
    if let Some(p) = &result.payload {
        let _ = writeln!(out, "  minimal payload: {p}");
    }
    let seen = result
        .exchanges
        .iter()
        .filter_map(|e| e.error.as_ref())
        .next();
    if let (Some(e), true) = (seen, result.findings.is_empty() && result.error.is_none()) {
        let _ = writeln!(out, "  transport: {e}");
    }
    out
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The closing summary: counts, requests, duration, and each warning.
pub fn summary(record: &RunRecord) -> String {
    let c = &record.counts;
    let mut out = String::new();
    let warned: Vec<&CaseResult> = record
        .cases
        .iter()
        .filter(|c| c.verdict == Verdict::Warn)
        .collect();
    if !warned.is_empty() {
        let _ = writeln!(
            out,
            "\nwarnings (rules the spec does not state; they do not fail the run):"
        );
        for case in warned {
            for f in &case.findings {
                let _ = writeln!(out, "  {:<45} [{}] {}", case.id, f.rule, f.message);
            }
        }
    }
    let skipped: Vec<&CaseResult> = record
        .cases
        .iter()
        .filter(|c| c.verdict == Verdict::Skip)
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(out, "\nskipped:");
        for case in skipped {
            let _ = writeln!(
                out,
                "  {:<45} {}",
                case.id,
                case.skip_reason.as_deref().unwrap_or("")
            );
        }
    }
    let blocked: Vec<&CaseResult> = record
        .cases
        .iter()
        .filter(|c| !c.inconclusive.is_empty())
        .collect();
    if !blocked.is_empty() {
        let _ = writeln!(
            out,
            "\ninconclusive (variants not judged: the baseline they are judged beside was refused):"
        );
        for case in blocked {
            for i in &case.inconclusive {
                let _ = writeln!(out, "  {:<45} {}", case.id, i.sentence());
            }
        }
    }
    let verdict = record.verdict();
    let _ = writeln!(
        out,
        "\ncovenant: {}. {} passed, {} failed, {} warned, {} errors, {} skipped, {} inconclusive; {} requests in {:.2} s (seed {})",
        verdict.headline(),
        c.pass,
        c.fail,
        c.warn,
        c.error,
        c.skip,
        c.inconclusive,
        c.requests,
        record.meta.duration_ms / 1000.0,
        record.meta.seed
    );
    match verdict {
        RunVerdict::ProfileProblem => {
            let _ = writeln!(
                out,
                "the profile does not fit the target (cases that needed these were blocked, not judged):"
            );
            for problem in &record.meta.profile_problems {
                let _ = writeln!(out, "  - {problem}");
            }
        }
        RunVerdict::Fail if c.fail == 0 => {
            let _ = writeln!(out, "--strict: the warnings above count as failures");
        }
        _ => {}
    }
    let _ = writeln!(out, "{}", coverage_line(record));
    for short in &record.meta.coverage_short {
        let _ = writeln!(out, "coverage short of --require-coverage: {short}");
    }
    if let Some(why) = record.incomplete() {
        let _ = writeln!(out, "the run is incomplete: {why}");
    }
    if let Some(pace) = &record.meta.pace {
        let _ = writeln!(out, "pace: {}", pace.sentence());
    }
    out
}
