//! What a run shows on the console: libtest-mimic's per-case lines (`test id ... ok`, the
//! failures with their findings, the count line), fed with each result as the scheduler records
//! it, and the closing summary. It runs no case: the scheduler does (`runner::schedule`).

use super::progress::Progress;
use crate::settings::RunSettings;
use crate::verdict::{CaseResult, CoverageMeasure, RunRecord, RunVerdict, Verdict};
use std::fmt::Write;
use std::sync::Arc;
use tokio::sync::oneshot;

/// A case as the console shows it: its id, its kind, and where its result comes from.
pub(super) struct Line {
    pub id: String,
    pub kind: String,
    pub result: oneshot::Receiver<CaseResult>,
}

/// Shows each case's line as its result comes, in the order the cases start, then the
/// failures and the count line; ends the progress line once the last line is written. False
/// when the output closed (or the console failed) before every line was written.
pub(super) fn show(lines: Vec<Line>, settings: &RunSettings, progress: Option<Progress>) -> bool {
    let (logfile, color) = progress
        .as_ref()
        .and_then(Progress::stdout_file)
        .map_or((None, None), |(path, color)| (Some(path), Some(color)));
    let args = libtest_mimic::Arguments {
        test_threads: Some(settings.concurrency.clamp(1, lines.len().max(1))),
        quiet: settings.quiet,
        logfile,
        color,
        ..libtest_mimic::Arguments::default()
    };
    let strict = settings.strict;
    let trials = lines.into_iter().map(|line| trial(line, strict)).collect();
    // libtest-mimic unwraps its writes to stdout: a closed pipe would panic. The results are
    // collected apart from its output, so such a panic costs the terminal lines, not the run.
    let shown = quietly_on_broken_pipe(|| libtest_mimic::run(&args, trials)).is_some();
    if let Some(progress) = progress {
        progress.finish();
    }
    shown
}

/// The trial of a case: it waits for the case's result, and a skip prints as `ignored
/// (reason)`; `strict` (`--strict`) fails a warned case.
fn trial(line: Line, strict: bool) -> libtest_mimic::Trial {
    libtest_mimic::Trial::ignorable_test(line.id, move || {
        let Ok(result) = line.result.blocking_recv() else {
            return Err("covenant defect: the case left no result; please report it".into());
        };
        let (verdict, mut reason) = (result.verdict, result.skip_reason.clone());
        if verdict == Verdict::Inconclusive {
            reason = result.inconclusive.first().map(|i| {
                format!(
                    "inconclusive: blocked by its baseline ({}), refused with {}",
                    i.baseline, i.answer
                )
            });
        }
        let message = failure_message(&result);
        match verdict {
            Verdict::Fail | Verdict::Error => Err(message.into()),
            Verdict::Warn if strict => {
                Err(format!("warnings fail under --strict\n{message}").into())
            }
            Verdict::Skip | Verdict::Inconclusive => {
                Ok(libtest_mimic::Completion::Ignored { reason })
            }
            _ => Ok(libtest_mimic::Completion::Completed),
        }
    })
    .with_kind(line.kind)
}

/// Runs `f`, turning a panic caused by a closed stdout into `None` without printing it; any
/// other panic is reported as usual and also ends as `None`.
fn quietly_on_broken_pipe<T>(f: impl FnOnce() -> T) -> Option<T> {
    let hook = Arc::new(std::panic::take_hook());
    let previous = hook.clone();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if !(message.contains("Broken pipe") || message.contains("BrokenPipe")) {
            previous(info);
        }
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    let _ = std::panic::take_hook();
    if let Ok(hook) = Arc::try_unwrap(hook) {
        std::panic::set_hook(hook);
    }
    outcome
}

/// One line of what the run gave evidence on: rules by level, and the stated statuses seen.
fn coverage_line(record: &RunRecord) -> String {
    let measured = crate::report::measure(record, crate::catalogue::Catalogue::embedded());
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
fn failure_message(result: &CaseResult) -> String {
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
