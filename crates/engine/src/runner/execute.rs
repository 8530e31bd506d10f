//! What a run shows on the console while it runs: one line per case (`test id ... ok`), fed
//! with each result as the scheduler records it; the failures, grouped by rule, and the counts
//! come once, in the closing summary. It runs no case: the scheduler does (`runner::schedule`).

use super::progress::Progress;
use crate::catalogue::Level;
use crate::settings::RunSettings;
use crate::style::plural;
use crate::style::{paint, Tone};
use crate::verdict::{settled, CaseResult, Verdict};
use std::io::Write;
use tokio::sync::oneshot;

/// A case as the console shows it: its id, its kind, and where its result comes from.
pub(super) struct Line {
    pub id: String,
    pub kind: String,
    pub result: oneshot::Receiver<CaseResult>,
}

/// Shows each case's line as its result comes, in the order the cases start; ends the
/// progress line once the last line is written. What failed is said once, grouped by rule, in
/// the closing summary (`report::console::summary`), not here. False when the output closed
/// before every line was written.
pub(super) fn show(lines: Vec<Line>, settings: &RunSettings, progress: Option<Progress>) -> bool {
    let relayed = progress.as_ref().and_then(Progress::stdout_file);
    let mut sink: Box<dyn Write> =
        match relayed.and_then(|path| std::fs::OpenOptions::new().append(true).open(path).ok()) {
            Some(file) => Box::new(file),
            None => Box::new(std::io::stdout()),
        };
    let mut shown = true;
    if !settings.quiet {
        shown = writeln!(sink, "\nrunning {}", plural(lines.len(), "case")).is_ok();
    }
    for line in lines {
        let outcome = match line.result.blocking_recv() {
            Ok(result) => {
                let settled = settled(result.verdict, settings.strict);
                paint(tone(settled), &outcome(&result, settled))
            }
            Err(_) => "not run".to_owned(),
        };
        if shown && !settings.quiet {
            let kind = match line.kind.is_empty() {
                true => String::new(),
                false => format!("[{}] ", line.kind),
            };
            shown = writeln!(sink, "test {kind}{} ... {outcome}", line.id)
                .and_then(|()| sink.flush())
                .is_ok();
        }
    }
    drop(sink);
    if let Some(progress) = progress {
        progress.finish();
    }
    shown
}

/// The colour of a case's word, from its verdict as the run will be settled with it: green when
/// it held, red when it failed or errored (a warning under `--strict` too), yellow for the rest.
fn tone(settled: Verdict) -> Tone {
    match settled {
        Verdict::Pass => Tone::Pass,
        Verdict::Fail | Verdict::Error => Tone::Fail,
        _ => Tone::Warn,
    }
}

/// The word a case's line ends with: `ok`, `FAILED [rules]`, `skipped (reason)`, ...; a warned
/// case that `--strict` fails (`settled`, [`settled`]) says so.
fn outcome(result: &CaseResult, settled: Verdict) -> String {
    let rules = |level: Option<Level>| {
        let mut rules: Vec<&str> = result
            .findings
            .iter()
            .filter(|f| level.is_none_or(|l| f.level == l))
            .map(|f| f.rule.as_str())
            .collect();
        // Each rule once, in the order first broken.
        let mut seen = std::collections::HashSet::new();
        rules.retain(|rule| seen.insert(*rule));
        rules.join(", ")
    };
    match result.verdict {
        Verdict::Pass => "ok".to_owned(),
        Verdict::Warn if settled == Verdict::Fail => {
            format!("FAILED (warning under --strict: {})", rules(None))
        }
        Verdict::Warn => format!("ok, warned ({})", rules(None)),
        Verdict::Fail => format!("FAILED [{}]", rules(Some(Level::Must))),
        Verdict::Error => format!(
            "ERROR ({})",
            result
                .error
                .as_deref()
                .unwrap_or("see the summary")
                .replace('\n', " ")
        ),
        Verdict::Known => format!("known failure [{}]", rules(None)),
        Verdict::Client => format!("the client's slips, never the target's [{}]", rules(None)),
        Verdict::Skip => format!(
            "skipped ({})",
            result.skip_reason.as_deref().unwrap_or("no reason given")
        ),
        Verdict::Inconclusive => match result.inconclusive.first() {
            Some(i) => format!(
                "inconclusive (blocked by its baseline ({}), refused with {})",
                i.baseline, i.answer
            ),
            None => "inconclusive".to_owned(),
        },
    }
}
