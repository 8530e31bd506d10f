//! `summary.md`: a run's verdict and counts, each broken rule once (statement, counts, the first
//! example), errors, warnings, rule coverage counts, spec gaps, and what the target chose where
//! the spec is silent, laid out from the run's view.

use super::{cut_lines, fence_for, inline_code, text};
use crate::catalogue::Level;
use crate::report::coverage::{OperationStatuses, RuleCoverage, RuleStatus};
use crate::report::gaps::choices;
use crate::report::view::{count_sentence, known_tally, request_of, RunView};
use crate::report::words::case_list;
use crate::report::{plural, ReportError, Reporter};
use crate::verdict::{CaseResult, Exchange, Finding, RunRecord, RunVerdict, Verdict, CLIENT_TITLE};
use std::fmt::Write;

/// `summary.md`.
pub struct Markdown;

/// Cases listed in full before the rest are only counted.
const CASES_SHOWN: usize = 25;
/// Lines of a diff shown before it is cut.
const DIFF_LINES: usize = 40;

impl Reporter for Markdown {
    fn file_name(&self) -> &'static str {
        "summary.md"
    }

    fn render(&self, view: &RunView<'_>) -> Result<String, ReportError> {
        let run = view.record;
        let section = |write: &dyn Fn(&mut String)| {
            let mut out = String::new();
            write(&mut out);
            vec![out]
        };
        if run.stopped_before_cases() {
            // Nothing was judged: the verdict and why are the whole summary.
            return Ok(fit(vec![section(&|out| verdict(out, view))], LIMIT));
        }
        let sections: Vec<Vec<String>> = vec![
            section(&|out| {
                verdict(out, view);
                pace(out, run);
            }),
            broken(view),
            section(&|out| known_failures(out, run)),
            section(&|out| cases(out, run, "Errors", |c| view.errors.contains(&c))),
            // Under --strict a warned case failed when the run was settled: its rule is under
            // the broken ones.
            section(&|out| cases(out, run, "Warnings", |c| c.verdict == Verdict::Warn)),
            section(&|out| skipped(out, view)),
            section(&|out| {
                cases(
                    out,
                    run,
                    "Inconclusive: blocked by a refused baseline",
                    |c| c.verdict == Verdict::Inconclusive,
                )
            }),
            section(&|out| cases(out, run, CLIENT_TITLE, |c| c.verdict == Verdict::Client)),
            section(&|out| coverage(out, view)),
            section(&|out| gaps(out, view)),
            section(&|out| silent(out, view)),
        ];
        Ok(fit(sections, LIMIT))
    }
}

/// What a GitHub pull-request comment holds.
pub const LIMIT: usize = 65_536;
/// Room kept for the closing note of what was left out.
const RESERVE: usize = 2_048;

/// The sections, most important first, each a list of parts a reader can do without one at a
/// time: every part that fits in `limit` bytes, in order, then one note saying what was left out
/// and where it is.
fn fit(sections: Vec<Vec<String>>, limit: usize) -> String {
    let budget = limit.saturating_sub(RESERVE);
    let mut out = String::new();
    let mut left_out = 0;
    for parts in sections {
        for part in parts {
            if out.len() + part.len() <= budget {
                out.push_str(&part);
            } else {
                left_out += 1;
            }
        }
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "\n---\n\n{} left out to keep this under {limit} bytes (a pull-request comment): \
             `summary.html` and `report.json` have everything.",
            plural(left_out, "part")
        );
    }
    out
}

/// Each broken rule once: its statement, counts, the first example, the other cases.
fn broken(view: &RunView<'_>) -> Vec<String> {
    // Known failures are said once each, under their own heading at the top.
    let groups: Vec<_> = view.broken.iter().filter(|g| g.known.is_none()).collect();
    if groups.is_empty() {
        return Vec::new();
    }
    let mut head = format!("\n### Broken rules ({})\n", groups.len());
    if let Some(exports) = crate::report::view::curl_exports(view.record, &inline_code) {
        let _ = writeln!(head, "\n{exports}.");
    }
    let mut parts = vec![head];
    for group in groups {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n#### {} ({}): {}\n",
            inline_code(&group.rule),
            group.level,
            text(&group.statement)
        );
        if !group.spec.is_empty() {
            let _ = writeln!(out, "Spec: {}.\n", text(&group.spec));
        }
        if let Some(reason) = &group.known {
            let _ = writeln!(out, "Known failure: {}.\n", text(reason));
        }
        let _ = writeln!(out, "{}.\n", text(&count_sentence(group)));
        let (case, finding, exchange) = group.example;
        let _ = writeln!(
            out,
            "First, {}: {}",
            inline_code(&case.id),
            text(&finding.message)
        );
        if let Some(diff) = &finding.diff {
            let shown = cut_lines(diff, DIFF_LINES);
            let fence = fence_for(&shown);
            let _ = writeln!(out, "\n{fence}diff\n{shown}\n{fence}");
        }
        if let Some(exchange) = exchange {
            example(&mut out, &case.id, exchange);
        }
        if group.cases.len() > 1 {
            let _ = writeln!(
                out,
                "\nAlso in {}.",
                text(&case_list(&group.cases[1..], NAMED))
            );
        }
        parts.push(out);
    }
    parts
}

/// Case ids named on the line of the other cases of a broken rule.
const NAMED: usize = 8;

fn verdict(out: &mut String, view: &RunView<'_>) {
    let run = view.record;
    let verdict = view.verdict;
    let mark = match verdict {
        RunVerdict::Pass | RunVerdict::PassWithWarnings => "✅",
        RunVerdict::Fail => "❌",
        RunVerdict::Error | RunVerdict::ProfileProblem | RunVerdict::Unreachable => "⚠️",
        RunVerdict::Incomplete | RunVerdict::CoverageShort | RunVerdict::StaleBaseline => "⚪",
    };
    let _ = writeln!(out, "## Covenant: {mark} {}\n", view.sentence);
    if view.failed_by_strict() {
        let _ = writeln!(
            out,
            "Run with `--strict`: warned cases are failing cases, under their rules.\n"
        );
    }
    if let Some(why) = view.incomplete_apart() {
        let _ = writeln!(out, "**Incomplete:** {why}.\n");
    }
    if let Some(why) = &run.meta.unreachable {
        let _ = writeln!(out, "**Unreachable:** {why}.\n");
    }
    if !run.meta.profile_problems.is_empty() {
        let _ = writeln!(
            out,
            "**The profile does not fit the target** ({}):\n",
            view.profile_problems_held()
        );
        for problem in &run.meta.profile_problems {
            let _ = writeln!(out, "- {}", problem.replace(['\n', '\r'], " "));
        }
        let _ = writeln!(out);
    }
    let tally = &view.tally;
    let _ = writeln!(
        out,
        "**{}**, {}: {}, {}.\n",
        tally.parts[0],
        tally.parts[1..].join(", "),
        tally.cases,
        tally.requests,
    );
    let m = &run.meta;
    let _ = writeln!(
        out,
        "Target {}{}, {}, covenant {}, {:.1} s{}.",
        inline_code(&m.target),
        m.name()
            .map(|name| format!(" ({})", text(name)))
            .unwrap_or_default(),
        match &m.traffic {
            Some(traffic) => text(&crate::report::view::traffic_seen(traffic)),
            None => format!("seed `{}`", m.seed),
        },
        inline_code(&m.covenant_version),
        m.duration_ms / 1000.0,
        m.shard
            .as_deref()
            .map(|s| format!(", shard {}", inline_code(s)))
            .unwrap_or_default()
    );
    if let Some(why) = &m.interrupted {
        let _ = writeln!(out, "\n> **The run stopped early:** {}", text(why));
    }
    known(out, run);
}

/// The baseline of known failures: what it held, per rule, and its stale and expired entries.
fn known(out: &mut String, run: &RunRecord) {
    let Some(baseline) = &run.meta.baseline else {
        return;
    };
    let _ = writeln!(out);
    for line in crate::report::view::baseline_lines(baseline) {
        let _ = writeln!(out, "- {}", text(&line));
    }
}

/// The known failures, after the new ones, under their own heading: each rule once.
fn known_failures(out: &mut String, run: &RunRecord) {
    if run.meta.baseline.is_none() {
        return;
    }
    let known = run.known_by_rule();
    if known.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n### Known failures (held by the baseline)\n\n{}.\n",
        text(&known_tally(run))
    );
    let _ = writeln!(out, "| rule | cases | reason |\n|---|---:|---|");
    for k in known {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            k.rule,
            k.cases.len(),
            text(&k.reason).replace('|', "\\|")
        );
    }
}

/// How the target's rate limits paced the run, when they did.
fn pace(out: &mut String, run: &RunRecord) {
    if let Some(pace) = &run.meta.pace {
        let _ = writeln!(
            out,
            "\n**Pace:** {}.",
            text(&crate::report::view::pace_sentence(pace))
        );
    }
}

fn cases(out: &mut String, run: &RunRecord, title: &str, wanted: impl Fn(&CaseResult) -> bool) {
    let cases: Vec<&CaseResult> = run.cases.iter().filter(|c| wanted(c)).collect();
    if cases.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### {title} ({})\n", cases.len());
    for case in cases.iter().take(CASES_SHOWN) {
        case_entry(out, case);
    }
    if cases.len() > CASES_SHOWN {
        let _ = writeln!(
            out,
            "\n…and {} more; see `summary.html`.",
            cases.len() - CASES_SHOWN
        );
    }
}

/// The skipped cases, each reason once: a case skipped alone is named with its reason, the
/// cases of one reason are counted and named after it.
fn skipped(out: &mut String, view: &RunView<'_>) {
    if view.skipped.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### Skipped ({})\n", view.skipped_count());
    for skipped in &view.skipped {
        match skipped.cases.as_slice() {
            [one] => {
                let _ = writeln!(out, "- **{}**: {}", inline_code(one), text(skipped.reason));
            }
            many => {
                let named: Vec<String> = many.iter().map(|c| inline_code(c)).collect();
                let _ = writeln!(
                    out,
                    "- **{} cases**: {}\n  - {}",
                    many.len(),
                    text(skipped.reason),
                    case_list(&named, CASES_SHOWN)
                );
            }
        }
    }
}

fn case_entry(out: &mut String, case: &CaseResult) {
    let _ = writeln!(
        out,
        "- **{}** ({})",
        inline_code(&case.id),
        case.verdict.as_str()
    );
    if let Some(error) = &case.error {
        let _ = writeln!(out, "  - error: {}", text(error));
    }
    if let Some(reason) = &case.skip_reason {
        let _ = writeln!(out, "  - skipped: {}", text(reason));
    }
    for blocked in &case.inconclusive {
        let _ = writeln!(
            out,
            "  - inconclusive: {}",
            text(&crate::report::view::inconclusive_sentence(blocked))
        );
    }
    // A known finding is said once, under the known failures' heading, never per case.
    let mut findings: Vec<&Finding> = case.findings.iter().filter(|f| f.known.is_none()).collect();
    findings.sort_by_key(|f| f.level);
    for finding in findings {
        finding_entry(out, case, finding);
    }
}

fn finding_entry(out: &mut String, case: &CaseResult, finding: &Finding) {
    let level = match finding.level {
        Level::Must => "must",
        Level::Should => "should",
    };
    let _ = writeln!(
        out,
        "  - {} ({level}): {}",
        inline_code(&finding.rule),
        text(&finding.message)
    );
    if let Some(request) = request_of(case, finding) {
        let _ = writeln!(out, "    - {}", text(&request));
    }
    if let Some(why) = &finding.known {
        let _ = writeln!(out, "    - known: {}", text(why));
    }
    if let Some(diff) = &finding.diff {
        let shown = cut_lines(diff, DIFF_LINES);
        let fence = fence_for(&shown);
        let _ = writeln!(out, "\n    {fence}diff");
        for line in shown.lines() {
            let _ = writeln!(out, "    {line}");
        }
        let _ = writeln!(out, "    {fence}\n");
    }
}

fn coverage(out: &mut String, view: &RunView<'_>) {
    let _ = writeln!(out, "\n### Rule coverage ({} rules)\n", view.coverage.len());
    let _ = writeln!(out, "| status | rules |\n|---|---:|");
    for (status, n) in &view.rule_counts {
        let _ = writeln!(out, "| {} | {n} |", status.as_str());
    }
    let broken: Vec<String> = view
        .coverage
        .iter()
        .filter(|r| matches!(r.status, RuleStatus::Fail | RuleStatus::Warn))
        .map(|r| format!("{} ({})", inline_code(&r.rule.id), r.status.as_str()))
        .collect();
    if !broken.is_empty() {
        let _ = writeln!(out, "\nRules broken: {}.", broken.join(", "));
    }
    measures(out, view);
    unproven(out, &view.coverage);
    unexercised(out, &view.record.meta.constraints);
    statuses(out, &view.statuses);
}

/// The share of rules and statuses with evidence, and each `--require-coverage` shortfall.
fn measures(out: &mut String, view: &RunView<'_>) {
    let run = view.record;
    let shares: Vec<String> = view
        .measures
        .iter()
        .map(|m| {
            let asked = run
                .meta
                .coverage_required
                .iter()
                .find(|r| r.measure == m.measure);
            let asked = asked.map_or(String::new(), |r| format!(", {}% required", r.percent));
            format!(
                "{} {} of {} ({:.0}%{asked})",
                m.measure.as_str(),
                m.got,
                m.of,
                m.percent()
            )
        })
        .collect();
    let _ = writeln!(out, "\nWith evidence: {}.", shares.join("; "));
    for short in &run.meta.coverage_short {
        let _ = writeln!(
            out,
            "\n**Coverage short of `--require-coverage`:** {}.",
            text(short)
        );
    }
}

/// Inventoried constraints not broken and held, with why (summary.html lists them all).
fn unexercised(out: &mut String, constraints: &[crate::verdict::ConstraintCoverage]) {
    const SHOWN: usize = 10;
    let rows: Vec<_> = constraints.iter().filter(|c| !c.covered()).collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n<details><summary>Constraints not broken and held ({})</summary>\n",
        rows.len()
    );
    for c in rows.iter().take(SHOWN) {
        let why = c.why_not.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "- {} ({}): {}",
            inline_code(&c.id),
            c.operation,
            text(why)
        );
    }
    if rows.len() > SHOWN {
        let _ = writeln!(
            out,
            "- and {} more (summary.html lists every one)",
            rows.len() - SHOWN
        );
    }
    let _ = writeln!(out, "\n</details>");
}

/// Observable rules no response was judged against, with why.
fn unproven(out: &mut String, coverage: &[RuleCoverage<'_>]) {
    const SHOWN: usize = 20;
    let rows: Vec<&RuleCoverage<'_>> = coverage
        .iter()
        .filter(|r| r.rule.observable && !r.status.has_evidence())
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n<details><summary>Rules without evidence ({})</summary>\n",
        rows.len()
    );
    for row in rows.iter().take(SHOWN) {
        let why = row.reason.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "- {} ({}, {}): {}",
            inline_code(&row.rule.id),
            row.rule.level,
            row.status.as_str(),
            text(why)
        );
    }
    if rows.len() > SHOWN {
        let _ = writeln!(out, "- and {} more (see summary.html)", rows.len() - SHOWN);
    }
    let _ = writeln!(out, "\n</details>");
}

/// Per operation, stated statuses against those seen; only operations with a stated status
/// never seen get a row.
fn statuses(out: &mut String, statuses: &[OperationStatuses]) {
    let ops: Vec<&OperationStatuses> = statuses
        .iter()
        .filter(|op| !op.missing.is_empty())
        .collect();
    if ops.is_empty() {
        let _ = writeln!(out, "\nEvery status the spec states was seen.");
        return;
    }
    let _ = writeln!(
        out,
        "\nStatuses the spec states that no response showed:\n\n\
         | operation | stated, never seen | seen |\n|---|---|---|"
    );
    for op in ops {
        let seen: Vec<String> = op.observed.keys().map(u16::to_string).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            inline_code(op.operation),
            op.missing.join(", "),
            seen.join(", ")
        );
    }
}

fn gaps(out: &mut String, view: &RunView<'_>) {
    if view.gaps.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n<details><summary>What the spec leaves open ({}; never failed on)</summary>\n",
        plural(view.gaps.len(), "gap")
    );
    for gap in view.gaps {
        let _ = writeln!(out, "- {}: {}", inline_code(&gap.id), text(&gap.text));
    }
    let _ = writeln!(out, "\n</details>");
}

/// For spec owners: per gap, what the target chose there, once per operation and choice (the
/// kinds of request, the conditions and the types of fields merged); `summary.html` and
/// `report.json` keep every observation with an exchange that shows it.
fn silent(out: &mut String, view: &RunView<'_>) {
    /// Choices listed per gap before the rest are counted.
    const SHOWN: usize = 12;
    let gaps = &view.silent;
    if gaps.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n### What this target chose where the spec is silent ({})\n",
        plural(gaps.len(), "gap")
    );
    let _ = writeln!(
        out,
        "For spec owners: what {} the target do where the spec leaves it open (never \
         failed on), once per operation and choice; `summary.html` has an example of each.\n",
        view.seen_by()
    );
    for gap in gaps {
        let _ = writeln!(out, "- {}: {}", inline_code(&gap.gap), text(&gap.text));
        let choices = choices(&gap.observations);
        for c in choices.iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  - {}: {} {} ({})",
                text(&c.to_string()),
                text(&c.what),
                inline_code(&c.value),
                plural(c.responses as usize, "response")
            );
        }
        if choices.len() > SHOWN {
            let _ = writeln!(
                out,
                "  - and {} more (see summary.html)",
                choices.len() - SHOWN
            );
        }
    }
}

/// An exchange, folded: the request as curl, the status and the start of the body.
fn example(out: &mut String, case: &str, exchange: &Exchange) {
    const LINES: usize = 15;
    let mut shown = exchange.request.curl.clone();
    if let Some(response) = &exchange.response {
        let body = serde_json::from_str::<serde_json::Value>(&response.body)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| response.body.clone());
        let body: String = body.chars().take(1500).collect();
        let _ = write!(
            shown,
            "\n\n{}\n{}",
            response.status,
            cut_lines(&body, LINES)
        );
    }
    let fence = fence_for(&shown);
    let _ = writeln!(
        out,
        "\n  <details><summary>Example, from {}</summary>\n\n  {fence}\n{}\n  {fence}\n\n  </details>\n",
        text(case),
        shown
            .lines()
            .map(|l| if l.is_empty() { String::new() } else { format!("  {l}") })
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Catalogue;

    /// A run in which each of `n` cases breaks a rule of its own, with a long diff and body.
    fn many_broken(n: usize) -> RunRecord {
        let cases: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                serde_json::json!({
                    "id": format!("case-{i}"), "suite": "s", "rules": [], "verdict": "fail",
                    "findings": [{"rule": format!("RULE-{i}"), "level": "must",
                        "message": "broken", "diff": "-a\n+b\n".repeat(200), "exchange": 0}],
                    "exchanges": [{"request": {"method": "GET", "url": "http://t/x",
                        "headers": [], "curl": "curl -i http://t/x"},
                        "response": {"status": 500, "headers": [], "body": "x".repeat(3000)},
                        "duration_ms": 1.0}],
                    "requests": 1, "duration_ms": 1.0
                })
            })
            .collect();
        let cases: Vec<CaseResult> = serde_json::from_value(cases.into()).expect("cases");
        RunRecord::of_cases(cases)
    }

    #[test]
    fn a_run_that_breaks_many_rules_still_fits_a_pull_request_comment() {
        let run = many_broken(300);
        let text = Markdown
            .render(&RunView::new(&run, Catalogue::embedded()))
            .expect("rendered");
        assert!(text.len() < LIMIT, "{} bytes", text.len());
        assert!(text.starts_with("## Covenant: ❌"), "{text}");
        let head: String = text.lines().take(40).collect::<Vec<_>>().join("\n");
        assert!(head.contains("`RULE-0` (must)"), "{head}");
        assert!(text.contains("left out to keep this under 65536 bytes"));
        assert!(text.contains("`summary.html` and `report.json` have everything"));
    }

    #[test]
    fn a_small_run_is_not_cut() {
        let text = Markdown
            .render(&RunView::new(&many_broken(2), Catalogue::embedded()))
            .expect("rendered");
        assert!(text.contains("`RULE-1` (must)"));
        assert!(!text.contains("left out to keep this under"));
    }
}
