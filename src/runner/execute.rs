//! What a run shows on the console: libtest-mimic's per-case lines (`test id ... ok`, the
//! failures with their findings, the count line), fed with each result as the scheduler records
//! it. It runs no case: the scheduler does (`runner::schedule`).

use super::progress::Progress;
use crate::settings::RunSettings;
use crate::verdict::{CaseResult, Verdict};
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
        let message = crate::report::console::failure_message(&result);
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
