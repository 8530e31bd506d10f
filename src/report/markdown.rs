//! The Markdown format, sized for a pull-request comment. `summary.md` of a run: verdict and
//! counts, each broken rule once (statement, counts, the first example), errors, warnings, rule coverage counts,
//! spec gaps, and what the target chose where the spec is silent. `compare.md` of two runs, and
//! `diff.md` of two targets.
//!
//! Text from the record is escaped so that a hostile body cannot restructure the comment, and
//! long lists are cut; past 65 536 bytes (GitHub refuses longer comments) the least important
//! parts are left out, with a note saying so; the HTML and the JSON have the rest.

use super::broken::{broken_rules, count_sentence, errors_apart};
use super::compare::Comparison;
use super::coverage::{
    measure, rule_coverage, status_counts, status_coverage, OperationStatuses, RuleCoverage,
    RuleStatus,
};
use super::diff::{BehaviourDiff, COMPARED};
use super::gaps::gap_observations;
use super::{capitalised, case_list, plural, ReportError, Reporter};
use crate::catalogue::{Catalogue, Level};
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

    fn render(&self, run: &RunRecord, catalogue: &Catalogue) -> Result<String, ReportError> {
        let section = |write: &dyn Fn(&mut String)| {
            let mut out = String::new();
            write(&mut out);
            vec![out]
        };
        let sections: Vec<Vec<String>> = vec![
            section(&|out| {
                verdict(out, run);
                pace(out, run);
            }),
            broken(run, catalogue),
            section(&|out| cases(out, run, "Errors", |c| errors_apart(run).contains(&c))),
            section(&|out| cases(out, run, "Warnings", |c| c.verdict == Verdict::Warn)),
            section(&|out| skipped(out, run)),
            section(&|out| {
                cases(
                    out,
                    run,
                    "Inconclusive: blocked by a refused baseline",
                    |c| c.verdict == Verdict::Inconclusive,
                )
            }),
            section(&|out| {
                cases(out, run, super::KNOWN_TITLE, |c| {
                    c.verdict == Verdict::Known
                })
            }),
            section(&|out| cases(out, run, CLIENT_TITLE, |c| c.verdict == Verdict::Client)),
            section(&|out| coverage(out, run, catalogue)),
            section(&|out| gaps(out, catalogue)),
            section(&|out| silent(out, run, catalogue)),
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
fn broken(run: &RunRecord, catalogue: &Catalogue) -> Vec<String> {
    let groups = broken_rules(run, catalogue);
    if groups.is_empty() {
        return Vec::new();
    }
    let mut head = format!("\n### Broken rules ({})\n", groups.len());
    if let Some(exports) = run.curl_exports_with(&inline_code) {
        let _ = writeln!(head, "\n{exports}.");
    }
    let mut parts = vec![head];
    for group in &groups {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n#### {} ({}): {}\n",
            inline_code(&group.rule),
            group.level,
            text(&group.statement)
        );
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

fn verdict(out: &mut String, run: &RunRecord) {
    let c = &run.counts;
    let verdict = run.verdict();
    let mark = match verdict {
        RunVerdict::Pass | RunVerdict::PassWithWarnings => "✅",
        RunVerdict::Fail => "❌",
        RunVerdict::Error | RunVerdict::ProfileProblem => "⚠️",
        RunVerdict::Incomplete | RunVerdict::CoverageShort | RunVerdict::StaleBaseline => "⚪",
    };
    let _ = writeln!(out, "## Covenant: {mark} {}\n", verdict.sentence());
    if run.meta.strict && c.fail == 0 && verdict == RunVerdict::Fail {
        let _ = writeln!(out, "Run with `--strict`: warnings count as failures.\n");
    }
    if let Some(why) = run.incomplete() {
        let _ = writeln!(out, "**Incomplete:** {why}.\n");
    }
    if !run.meta.profile_problems.is_empty() {
        let _ = writeln!(
            out,
            "**The profile does not fit the target** (the cases that needed these were blocked, not judged):\n"
        );
        for problem in &run.meta.profile_problems {
            let _ = writeln!(out, "- {}", problem.replace(['\n', '\r'], " "));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "**{} failed**, {}, {}, {} passed, {} skipped, {} inconclusive{}{}: {}, {}.\n",
        c.fail,
        plural(c.error, "error"),
        plural(c.warn, "warning"),
        c.pass,
        c.skip,
        c.inconclusive,
        match c.known {
            0 => String::new(),
            n => format!(", {n} known"),
        },
        match c.client {
            0 => String::new(),
            n => format!(", {n} with the client's slips"),
        },
        plural(c.total(), "case"),
        plural(c.requests, "request"),
    );
    let m = &run.meta;
    let _ = writeln!(
        out,
        "Target {}, seed `{}`, covenant {}, {:.1} s{}.",
        inline_code(&m.target),
        m.seed,
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
    for line in baseline.lines() {
        let _ = writeln!(out, "- {}", text(&line));
    }
    let known = run.known_by_rule();
    if known.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### Known failures (held by the baseline)\n");
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
        let _ = writeln!(out, "\n**Pace:** {}.", text(&pace.sentence()));
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
fn skipped(out: &mut String, run: &RunRecord) {
    let reasons = super::skipped_by_reason(run);
    if reasons.is_empty() {
        return;
    }
    let count: usize = reasons.iter().map(|(_, cases)| cases.len()).sum();
    let _ = writeln!(out, "\n### Skipped ({count})\n");
    for (reason, cases) in reasons {
        match cases.as_slice() {
            [one] => {
                let _ = writeln!(out, "- **{}**: {}", inline_code(one), text(reason));
            }
            many => {
                let named: Vec<String> = many.iter().map(|c| inline_code(c)).collect();
                let _ = writeln!(
                    out,
                    "- **{} cases**: {}\n  - {}",
                    many.len(),
                    text(reason),
                    super::case_list(&named, CASES_SHOWN)
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
        let _ = writeln!(out, "  - inconclusive: {}", text(&blocked.sentence()));
    }
    let mut findings: Vec<&Finding> = case.findings.iter().collect();
    findings.sort_by_key(|f| f.level);
    for finding in findings {
        finding_entry(out, finding);
    }
}

fn finding_entry(out: &mut String, finding: &Finding) {
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

fn coverage(out: &mut String, run: &RunRecord, catalogue: &Catalogue) {
    let coverage = rule_coverage(run, catalogue);
    let counts = status_counts(&coverage);
    let _ = writeln!(out, "\n### Rule coverage ({} rules)\n", coverage.len());
    let _ = writeln!(out, "| status | rules |\n|---|---:|");
    for status in RuleStatus::ALL {
        if let Some(n) = counts.get(&status) {
            let _ = writeln!(out, "| {} | {n} |", status.as_str());
        }
    }
    let broken: Vec<String> = coverage
        .iter()
        .filter(|r| matches!(r.status, RuleStatus::Fail | RuleStatus::Warn))
        .map(|r| format!("{} ({})", inline_code(&r.rule.id), r.status.as_str()))
        .collect();
    if !broken.is_empty() {
        let _ = writeln!(out, "\nRules broken: {}.", broken.join(", "));
    }
    measures(out, run, catalogue);
    unproven(out, &coverage);
    statuses(out, run);
}

/// The share of rules and statuses with evidence, and each `--require-coverage` shortfall.
fn measures(out: &mut String, run: &RunRecord, catalogue: &Catalogue) {
    let shares: Vec<String> = measure(run, catalogue)
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
fn statuses(out: &mut String, run: &RunRecord) {
    let ops: Vec<OperationStatuses> = status_coverage(run)
        .into_iter()
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

fn gaps(out: &mut String, catalogue: &Catalogue) {
    if catalogue.gaps.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n<details><summary>What the spec leaves open ({}; never failed on)</summary>\n",
        plural(catalogue.gaps.len(), "gap")
    );
    for gap in &catalogue.gaps {
        let _ = writeln!(out, "- {}: {}", inline_code(&gap.id), text(&gap.text));
    }
    let _ = writeln!(out, "\n</details>");
}

/// For spec owners: per gap, what the target chose there, and one exchange that shows it.
fn silent(out: &mut String, run: &RunRecord, catalogue: &Catalogue) {
    /// Observations listed per gap before the rest are counted.
    const SHOWN: usize = 12;
    let gaps = gap_observations(run, catalogue);
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
         failed on).\n",
        if run.is_traffic() {
            "the traffic showed"
        } else {
            "the run saw"
        }
    );
    for gap in &gaps {
        let _ = writeln!(out, "- {}: {}", inline_code(&gap.gap), text(&gap.text));
        for o in gap.observations.iter().take(SHOWN) {
            let _ = writeln!(
                out,
                "  - {}: {} {} ({})",
                text(&o.subject.to_string()),
                text(&o.what),
                inline_code(&o.value),
                plural(o.responses as usize, "response")
            );
        }
        if gap.observations.len() > SHOWN {
            let _ = writeln!(
                out,
                "  - and {} more (see summary.html)",
                gap.observations.len() - SHOWN
            );
        }
        if let Some((case, exchange)) = gap.observations.iter().find_map(|o| {
            let e = o.example.as_ref()?;
            let case = run.cases.iter().find(|c| c.id == e.case)?;
            Some((&case.id, case.exchanges.get(e.exchange)?))
        }) {
            example(out, case, exchange);
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

/// Text safe in a Markdown paragraph or list item: one line, Markdown and HTML characters
/// escaped.
pub(super) fn text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '!' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span that holds any text: the fence is longer than any run of backticks inside.
fn inline_code(raw: &str) -> String {
    let one_line = raw.replace(['\n', '\r'], " ");
    let ticks = "`".repeat(longest_backtick_run(&one_line) + 1);
    if one_line.starts_with('`') || one_line.ends_with('`') {
        format!("{ticks} {one_line} {ticks}")
    } else {
        format!("{ticks}{one_line}{ticks}")
    }
}

/// A code fence longer than any run of backticks in `body`, at least three.
fn fence_for(body: &str) -> String {
    "`".repeat((longest_backtick_run(body) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn cut_lines(text: &str, max: usize) -> String {
    let total = text.lines().count();
    let mut shown: String = text.lines().take(max).collect::<Vec<_>>().join("\n");
    if total > max {
        let _ = write!(shown, "\n… {} more lines", total - max);
    }
    shown
}

/// `compare.md`, for a pull-request comment.
pub fn compare(comparison: &Comparison) -> String {
    let mut out = String::new();
    let mut headline = if comparison.regressed() {
        format!("❌ {} newly failing", comparison.newly_failing.len())
    } else {
        "✅ nothing newly fails".to_owned()
    };
    if !comparison.newly_skipped.is_empty() || !comparison.newly_not_run.is_empty() {
        let _ = write!(
            headline,
            "; coverage lost: {} cases newly skipped, {} rules newly not run",
            comparison.newly_skipped.len(),
            comparison.newly_not_run.len()
        );
    }
    let _ = writeln!(out, "## Covenant compare: {headline}\n");
    let _ = writeln!(
        out,
        "| | verdict | seed | pass | warn | fail | error | skip | inconclusive |\n|---|---|---|---:|---:|---:|---:|---:|---:|"
    );
    for (name, run) in [("old", &comparison.old), ("new", &comparison.new)] {
        let c = &run.counts;
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} |",
            run.verdict.as_str(),
            run.seed,
            c.pass,
            c.warn,
            c.fail,
            c.error,
            c.skip,
            c.inconclusive
        );
    }
    for note in &comparison.notes {
        let _ = writeln!(out, "\n> {note}");
    }
    for (title, cases) in comparison.case_lists() {
        if cases.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {title} ({})\n", cases.len());
        for case in cases {
            let _ = writeln!(out, "- {}", case.to_string().replace('|', "\\|"));
        }
    }
    for (title, rules) in comparison.rule_lists() {
        if rules.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n### {} ({})\n\n| rule | old | new |\n|---|---|---|",
            capitalised(title),
            rules.len()
        );
        for rule in rules {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                rule.rule,
                rule.old.as_str(),
                rule.new.as_str()
            );
        }
    }
    out
}

/// `diff.md`: both verdicts, then the differences by operation, the gaps chosen differently
/// and the cases not compared.
pub fn diff(diff: &BehaviourDiff) -> String {
    let mut out = String::new();
    let mark = if diff.is_empty() { "✅" } else { "🔀" };
    let _ = writeln!(
        out,
        "## Covenant behaviour diff: {mark} {}\n",
        diff.headline()
    );
    let _ = writeln!(
        out,
        "| | target | verdict | pass | warn | fail | error | skip |\n|---|---|---|---:|---:|---:|---:|---:|"
    );
    for side in [&diff.a, &diff.b] {
        let c = &side.counts;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            side.name,
            inline_code(&side.target),
            side.verdict.as_str(),
            c.pass,
            c.warn,
            c.fail,
            c.error,
            c.skip
        );
    }
    let _ = writeln!(out, "\nSeed `{}`. {COMPARED}", diff.a.seed);
    for note in &diff.notes {
        let _ = writeln!(out, "\n> {}", text(note));
    }
    for group in diff.grouped() {
        let _ = writeln!(out, "\n### {}\n", inline_code(&group.operation));
        for alike in group.alike {
            let _ = writeln!(
                out,
                "- {}, in {}",
                text(&alike.to_string()),
                text(&case_list(&alike.cases, 5))
            );
        }
    }
    let gaps = diff.gaps_apart();
    if !gaps.is_empty() {
        let _ = writeln!(
            out,
            "\n### Where the spec is silent, the two chose differently\n"
        );
        for gap in gaps {
            let _ = writeln!(out, "- {}", text(&gap.to_string()));
        }
    }
    if !diff.not_compared.is_empty() {
        let _ = writeln!(
            out,
            "\n<details><summary>Not compared ({})</summary>\n",
            diff.not_compared.len()
        );
        for n in &diff.not_compared {
            let _ = writeln!(out, "- {}: {}", inline_code(&n.case), text(&n.why));
        }
        let _ = writeln!(out, "\n</details>");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
            .render(&run, Catalogue::embedded())
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
            .render(&many_broken(2), Catalogue::embedded())
            .expect("rendered");
        assert!(text.contains("`RULE-1` (must)"));
        assert!(!text.contains("left out to keep this under"));
    }

    #[test]
    fn inline_code_survives_backticks() {
        assert_eq!(inline_code("a`b"), "``a`b``");
        assert_eq!(inline_code("`x"), "`` `x ``");
    }

    #[test]
    fn fence_outgrows_backticks_in_the_body() {
        assert_eq!(fence_for("no ticks"), "```");
        assert_eq!(fence_for("has ```` four"), "`````");
    }

    #[test]
    fn text_cannot_open_a_link_or_a_heading() {
        assert_eq!(text("# [x](y)\n<b>"), "\\# \\[x\\](y) \\<b\\>");
    }
}
