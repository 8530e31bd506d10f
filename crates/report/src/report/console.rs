//! The console format: what covenant prints on the terminal. For a run, each failed case's
//! message under libtest-mimic's "failures:" and the closing summary; for `covenant compare`,
//! what changed; for two targets, the behaviour diff. It lays out the views of
//! [`super::view`] and never prints: the command line decides where the text goes.

use super::compare::Comparison;
use super::diff::BehaviourDiff;
use super::view::BrokenRule;
use super::view::{
    baseline_lines, count_sentence, gap_line, inconclusive_sentence, known_tally, pace_sentence,
    provenance, unanswered_sentence, what, CompareView, DiffView, RunView,
};
use super::words::case_list;
use crate::style::{paint, Tone};
use crate::verdict::{CaseResult, CoverageMeasure, RunRecord, RunVerdict, CLIENT_TITLE};
use std::fmt::Write;

/// One line of what the run gave evidence on: rules by level, and the stated statuses seen.
fn coverage_line(view: &RunView<'_>) -> String {
    let constraints = match view.share(CoverageMeasure::Constraints) {
        share if share.is_empty() => String::new(),
        share => format!("; {share} request constraints broken and held"),
    };
    let statements = match view.share(CoverageMeasure::Statements) {
        share if share.is_empty() => String::new(),
        share => format!("; {share} stated statements judged"),
    };
    format!(
        "coverage: {} must and {} should rules with evidence; {} stated statuses seen{constraints}{statements} \
         (summary.html has the matrix)",
        view.share(CoverageMeasure::Must),
        view.share(CoverageMeasure::Should),
        view.share(CoverageMeasure::Status)
    )
}

/// The colour of a run's headline: green for a pass, red for a failure or an error, yellow for
/// the rest (incomplete, short, stale, a profile problem).
pub fn verdict_tone(verdict: RunVerdict) -> Tone {
    match verdict {
        RunVerdict::Pass => Tone::Pass,
        RunVerdict::Fail | RunVerdict::Error => Tone::Fail,
        _ => Tone::Warn,
    }
}

/// A broken rule's id in red; a known failure's, in yellow.
fn tone_of(group: &BrokenRule<'_>) -> Tone {
    match group.known {
        Some(_) => Tone::Warn,
        None => Tone::Fail,
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Case ids named on the folded line of a broken rule.
const NAMED: usize = 6;

/// Each broken rule once: id, level, statement, counts, the first example (message, diff,
/// request, response) and the other cases on one folded line.
fn broken(view: &RunView<'_>) -> String {
    let mut out = String::new();
    // Known failures are said once each, under their own heading (`known`), after these.
    let groups: Vec<&BrokenRule<'_>> = view.broken.iter().filter(|g| g.known.is_none()).collect();
    let errors = &view.errors;
    // A section with nothing in it is not printed (a traffic run with only errors).
    if !groups.is_empty() {
        let _ = writeln!(out, "\nbroken rules ({}):", groups.len());
        if let Some(exports) = &view.curl_exports {
            let _ = writeln!(out, "{exports}.");
        }
    }
    for group in groups {
        let _ = writeln!(
            out,
            "\n[{}] ({}) {}",
            paint(tone_of(group), &group.rule),
            group.level,
            group.statement
        );
        if !group.spec.is_empty() {
            let _ = writeln!(out, "  spec: {}", group.spec);
        }
        if let Some(reason) = &group.known {
            let _ = writeln!(out, "  known: {reason}");
        }
        let _ = writeln!(out, "  {}", count_sentence(group));
        let (case, finding, exchange) = group.example;
        let _ = writeln!(out, "  first: {}: {}", case.id, finding.message);
        if let Some(diff) = &finding.diff {
            let _ = writeln!(out, "{}", indent(&cut(diff, DIFF_LINES)));
        }
        if let Some(ex) = exchange {
            let _ = writeln!(out, "  request:  {}", ex.request.curl);
            if let Some(resp) = &ex.response {
                let body: String = resp.body.chars().take(300).collect();
                let _ = writeln!(
                    out,
                    "  response: {} {}",
                    resp.status,
                    body.replace('\n', " ")
                );
            }
        }
        if group.cases.len() > 1 {
            let _ = writeln!(out, "  also in: {}", case_list(&group.cases[1..], NAMED));
        }
    }
    if !errors.is_empty() {
        let _ = writeln!(out, "\nerrors ({}):", errors.len());
        for case in errors {
            let why = case
                .error
                .clone()
                .or_else(|| {
                    case.findings
                        .first()
                        .map(|f| format!("[{}] {}", f.rule, f.message))
                })
                .unwrap_or_default();
            let _ = writeln!(out, "  {:<45} {}", case.id, why);
        }
    }
    out
}

/// The client's slips seen in real traffic, under their own heading: each rule once, with how
/// many requests broke it, the cases and the first message. They never fail the target.
fn client_slips(out: &mut String, record: &RunRecord) {
    let slips = record.client_slips();
    if slips.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{}:", lower_first(CLIENT_TITLE));
    for slip in slips {
        let _ = writeln!(
            out,
            "  [{}] {} in {}: {}",
            slip.rule,
            super::plural(slip.requests, "request"),
            case_list(&slip.cases, NAMED),
            slip.first.1.message
        );
    }
}

/// `text` with its first letter in lower case, for a console heading.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Lines of a diff the console shows.
const DIFF_LINES: usize = 8;

fn cut(text: &str, max: usize) -> String {
    let total = text.lines().count();
    let mut shown = text.lines().take(max).collect::<Vec<_>>().join("\n");
    if total > max {
        let _ = write!(
            shown,
            "\n… {} more lines (report.json has them)",
            total - max
        );
    }
    shown
}

/// The closing summary: the broken rules, each warning, the skipped cases, the counts.
pub fn summary(view: &RunView<'_>) -> String {
    let record = view.record;
    let mut out = broken(view);
    warnings(&mut out, view);
    client_slips(&mut out, record);
    skipped(&mut out, view);
    inconclusive(&mut out, record);
    known(&mut out, record);
    closing(&mut out, view);
    out
}

fn warnings(out: &mut String, view: &RunView<'_>) {
    if view.warned.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nwarnings (rules the spec does not state; they do not fail the run):"
    );
    for warned in &view.warned {
        let _ = writeln!(
            out,
            "  [{}] in {}: {}: {}",
            paint(Tone::Warn, warned.rule),
            super::plural(warned.cases.len(), "case"),
            warned.first.0,
            warned.first.1
        );
        if let Some(request) = &warned.request {
            let _ = writeln!(out, "    request: {request}");
        }
        if warned.cases.len() > 1 {
            let _ = writeln!(out, "    also in: {}", case_list(&warned.cases[1..], NAMED));
        }
    }
}

fn skipped(out: &mut String, view: &RunView<'_>) {
    if view.skipped.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nskipped:");
    for skipped in &view.skipped {
        let reason = skipped.reason;
        match skipped.cases.as_slice() {
            [one] => {
                let _ = writeln!(out, "  {one:<45} {reason}");
            }
            many => {
                let _ = writeln!(out, "  {} cases: {reason}", many.len());
                let _ = writeln!(out, "    {}", case_list(many, NAMED));
            }
        }
    }
}

fn inconclusive(out: &mut String, record: &RunRecord) {
    let blocked: Vec<&CaseResult> = record
        .cases
        .iter()
        .filter(|c| !c.inconclusive.is_empty())
        .collect();
    if blocked.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nvariants not judged, the baseline they are judged beside refused (a case that also \
         failed or warned is counted as such, not as inconclusive):"
    );
    for case in blocked {
        for i in &case.inconclusive {
            let _ = writeln!(out, "  {:<45} {}", case.id, inconclusive_sentence(i));
        }
    }
}

fn known(out: &mut String, record: &RunRecord) {
    let known = record.known_by_rule();
    let Some(baseline) = record.meta.baseline.as_ref().filter(|_| !known.is_empty()) else {
        return;
    };
    let _ = writeln!(
        out,
        "\nknown failures (held by the baseline {}; they do not fail the run):\n  {}",
        baseline.file,
        known_tally(record)
    );
    for k in known {
        let _ = writeln!(
            out,
            "  [{}] known failure in {} ({}): {}",
            paint(Tone::Warn, &k.rule),
            super::plural(k.cases.len(), "case"),
            k.reason,
            case_list(&k.cases, NAMED)
        );
    }
}

/// The verdict and the counts sentence, then what stands beside them: the profile's problems,
/// the baseline, the coverage, the pace.
fn closing(out: &mut String, view: &RunView<'_>) {
    let record = view.record;
    let tally = &view.tally;
    let _ = writeln!(
        out,
        "\ncovenant: {}. {}; {}, {} in {:.2} s ({})",
        paint(verdict_tone(view.verdict), &view.headline),
        tally.parts.join(", "),
        tally.cases,
        tally.requests,
        record.meta.duration_ms / 1000.0,
        provenance(&record.meta)
    );
    if !record.meta.profile_problems.is_empty() {
        let beside = match view.verdict {
            RunVerdict::Fail => "; the failures above stand apart from it",
            _ => "",
        };
        let _ = writeln!(
            out,
            "the profile does not fit the target ({}{beside}):",
            view.profile_problems_held()
        );
        for problem in &record.meta.profile_problems {
            let _ = writeln!(out, "  - {problem}");
        }
    }
    if view.failed_by_strict() {
        let _ = writeln!(
            out,
            "--strict: warned cases are failing cases, under their rules above"
        );
    }
    if let Some(baseline) = &record.meta.baseline {
        for line in baseline_lines(baseline) {
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = writeln!(out, "{}", coverage_line(view));
    for short in &record.meta.coverage_short {
        let _ = writeln!(out, "coverage short of --require-coverage: {short}");
    }
    if let Some(why) = view.incomplete_apart() {
        let _ = writeln!(out, "the run is incomplete: {why}");
    }
    if let Some(pace) = &record.meta.pace {
        let _ = writeln!(out, "pace: {}", pace_sentence(pace));
        let _ = unanswered_sentence(pace).map(|s| writeln!(out, "pace: {s}"));
    }
}

/// What `covenant compare` prints.
pub fn compare(comparison: &Comparison) -> String {
    let view = CompareView::new(comparison);
    let mut out = String::new();
    for side in &view.sides.rows {
        let _ = writeln!(
            out,
            "{}: {} (seed {}, {})",
            side.name, side.verdict, side.seed, side.target
        );
    }
    for note in view.notes {
        let _ = writeln!(out, "note: {note}");
    }
    // A section with nothing in it says nothing: left out.
    for (title, cases) in view.cases.iter().filter(|(_, cases)| !cases.is_empty()) {
        let title = match *title {
            "newly failing" | "still failing" if !cases.is_empty() => paint(Tone::Fail, title),
            "fixed" if !cases.is_empty() => paint(Tone::Pass, title),
            _ => title.to_string(),
        };
        let _ = writeln!(out, "\n{title} ({}):", cases.len());
        for case in cases {
            let _ = writeln!(out, "  {case}");
        }
    }
    for (title, rules) in view.rules.iter().filter(|(_, rules)| !rules.is_empty()) {
        let _ = writeln!(out, "\n{title} ({}):", rules.len());
        for rule in *rules {
            let _ = writeln!(
                out,
                "  {}: {} -> {}",
                rule.rule,
                rule.old.as_str(),
                rule.new.as_str()
            );
        }
    }
    // The exit decision last, in compare.md's words: what newly fails, what coverage was lost.
    let _ = writeln!(out, "\ncovenant compare: {}", view.headline);
    out
}

/// Characters of a value (a list of fields) the console shows; diff.md has it whole.
const VALUE_CHARS: usize = 160;

/// A value cut to [`VALUE_CHARS`], saying so.
fn cut_value(value: &str) -> String {
    if value.chars().count() <= VALUE_CHARS {
        return value.to_owned();
    }
    let shown: String = value.chars().take(VALUE_CHARS).collect();
    format!("{shown}… (diff.md has it whole)")
}

/// Differences the console lists before it points at the files of the diff.
const SHOWN: usize = 40;

/// What the console prints of a behaviour diff: the headline, then the differences by
/// operation (the first [`SHOWN`] of them).
pub fn diff(diff: &BehaviourDiff) -> String {
    let view = DiffView::new(diff);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "behaviour diff (seed {}): A = {}, B = {}: {}",
        diff.a.seed, diff.a.target, diff.b.target, view.headline
    );
    for note in view.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let mut shown = 0;
    for operation in &view.operations {
        let _ = writeln!(out, "{}:", operation.operation);
        for fact in &operation.facts {
            shown += 1;
            if shown > SHOWN {
                break;
            }
            let d = &fact.difference;
            let _ = writeln!(
                out,
                "  {}: A {}; B {} ({})",
                what(fact),
                cut_value(&d.a),
                cut_value(&d.b),
                case_list(&fact.cases, 3)
            );
        }
    }
    if shown > SHOWN {
        let _ = writeln!(out, "  … and more: see diff.md or diff.json");
    }
    if !view.gaps.is_empty() {
        let _ = writeln!(out, "where the spec is silent, the two chose differently:");
        for gap in &view.gaps {
            let _ = writeln!(out, "  {}", cut_value(&gap_line(gap)));
        }
    }
    if !view.not_compared.is_empty() {
        let cases: Vec<String> = view.not_compared.iter().map(|n| n.case.clone()).collect();
        let _ = writeln!(
            out,
            "not compared: {} cases ({})",
            view.not_compared.len(),
            case_list(&cases, 3)
        );
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::skipped;

    #[test]
    fn skipped_cases_of_one_cause_are_said_once_with_their_count() {
        let key = "blocked by the profile: finops.counterpart_id answered 404";
        let record = RunRecord::of_cases(vec![
            skipped("a", key),
            skipped("b", "needs finops.quote_id"),
            skipped("c", key),
            skipped("d", key),
        ]);
        let text = summary(&RunView::new(
            &record,
            crate::catalogue::Catalogue::embedded(),
        ));
        assert_eq!(text.matches(key).count(), 1, "{text}");
        assert!(
            text.contains(&format!("  3 cases: {key}\n    a, c, d\n")),
            "{text}"
        );
        assert!(
            text.contains(&format!("  {:<45} needs finops.quote_id\n", "b")),
            "{text}"
        );
    }
}
