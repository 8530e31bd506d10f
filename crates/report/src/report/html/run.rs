//! `summary.html`: one self-contained page (no external asset, no network) for spec owners
//! and engineers.
//!
//! Order: verdict and counts, the broken rules (each once: statement, counts, the first
//! example, the other cases folded), the failures by case (each rule of a case once, its other
//! responses folded to one line each), warnings, rule coverage, spec gaps, what the target
//! chose where the spec is silent, latency, skipped cases, all cases. Every failure, error and
//! warning is a `<details id="case-…">`; the inline script opens the one named by the URL
//! fragment, so a link such as `summary.html#case-x` lands on it open. Every piece of text from the record or the catalogue is escaped.

use super::{case_anchor, diff_html, escape, fill};
use crate::catalogue::Level;
use crate::report::coverage::{RuleCoverage, RuleEvidence};
use crate::report::latency::latency_by_operation;
use crate::report::view::shown_exchange;
use crate::report::view::{blocked_variants, case_rules, count_sentence, known_tally, request_of};
use crate::report::view::{BrokenRule, RunView, MORE_NAMED};
use crate::report::words::{capitalised, KNOWN_TITLE};
use crate::report::{plural, ReportError, Reporter};
use crate::verdict::{
    CaseResult, CoverageMeasure, Exchange, Finding, Inconclusive, RunRecord, RunVerdict, Verdict,
    CLIENT_TITLE,
};

/// `summary.html`.
pub struct Html;

impl Reporter for Html {
    fn file_name(&self) -> &'static str {
        "summary.html"
    }

    fn render(&self, view: &RunView<'_>) -> Result<String, ReportError> {
        let run = view.record;
        let has = |verdict: Verdict| run.cases.iter().any(|c| c.verdict == verdict);
        // A run stopped before its first case judged nothing: no coverage, gaps or choices.
        let judged = |section: String| match run.stopped_before_cases() {
            true => String::new(),
            false => section,
        };
        let slots: [(&str, String); 17] = [
            ("style", STYLE.to_owned()),
            ("script", SCRIPT.to_owned()),
            ("banner", slot(|page| page.banner(view))),
            ("broken", slot(|page| page.broken(view))),
            (
                "failures",
                slot(|page| {
                    page.cases_section(run, "failures", "Failures and errors by case", |v| {
                        matches!(v, Verdict::Fail | Verdict::Error)
                    })
                }),
            ),
            (
                "warnings",
                slot(|page| {
                    page.cases_section(run, "warnings", "Warnings", |v| v == Verdict::Warn)
                }),
            ),
            (
                "known",
                slot(|page| {
                    if has(Verdict::Known) {
                        page.cases_section(run, "known", KNOWN_TITLE, |v| v == Verdict::Known);
                    }
                }),
            ),
            (
                "client",
                slot(|page| {
                    if has(Verdict::Client) {
                        page.cases_section(run, "client", CLIENT_TITLE, |v| v == Verdict::Client);
                    }
                }),
            ),
            ("coverage", judged(slot(|page| page.coverage(view)))),
            ("constraints", judged(super::constraints::section(run))),
            ("gaps", judged(slot(|page| page.gaps(view)))),
            ("silent", judged(slot(|page| page.silent(view)))),
            ("latency", slot(|page| page.latency(run))),
            ("pace", slot(|page| page.pace(run))),
            ("skipped", slot(|page| page.skipped(view))),
            ("inconclusive", slot(|page| page.inconclusive(run))),
            ("all_cases", slot(|page| page.all_cases(run))),
        ];
        Ok(fill(PAGE, &slots))
    }
}

/// The page's skeleton: its head, the order of its sections, its script.
const PAGE: &str = include_str!("run.html");

/// The page's style sheet.
const STYLE: &str = include_str!("run.css");

/// Opens the `<details>` named by the URL fragment, on load and on every fragment change.
const SCRIPT: &str = include_str!("open.js");

#[derive(Default)]
struct Page {
    out: String,
}

/// What `write` puts on a page of its own: one slot of the skeleton.
fn slot(write: impl FnOnce(&mut Page)) -> String {
    let mut page = Page::default();
    write(&mut page);
    page.out
}

impl Page {
    fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    fn banner(&mut self, view: &RunView<'_>) {
        let run = view.record;
        let verdict = view.verdict;
        let class = match verdict {
            RunVerdict::Pass => "pass",
            RunVerdict::PassWithWarnings
            | RunVerdict::Incomplete
            | RunVerdict::CoverageShort
            | RunVerdict::StaleBaseline => "warn",
            RunVerdict::Fail => "fail",
            RunVerdict::Error | RunVerdict::ProfileProblem | RunVerdict::Unreachable => "error",
        };
        self.line("<h1>Covenant conformance report</h1>");
        self.line(format!(
            "<div class=\"banner {class}\" id=\"verdict\" data-verdict=\"{}\">{}</div>",
            verdict.as_str(),
            escape(&view.sentence)
        ));
        if view.failed_by_strict() {
            self.line(
                "<p class=\"warn\">Run with <code>--strict</code>: warned cases are failing cases, under their rules.</p>",
            );
        }
        if let Some(baseline) = &run.meta.baseline {
            self.line("<ul id=\"baseline\">");
            for line in crate::report::view::baseline_lines(baseline) {
                self.line(format!("<li>{}</li>", escape(&line)));
            }
            for k in run.known_by_rule() {
                self.line(format!(
                    "<li>known: <code>{}</code> in {}: {}</li>",
                    escape(&k.rule),
                    plural(k.cases.len(), "case"),
                    escape(&k.reason)
                ));
            }
            self.line("</ul>");
        }
        if let Some(why) = view.incomplete_apart() {
            self.line(format!(
                "<p class=\"warn\"><strong>Incomplete:</strong> {}</p>",
                escape(why)
            ));
        }
        if let Some(exports) = &view.curl_exports {
            self.line(format!("<p id=\"curl-exports\">{}.</p>", escape(exports)));
        }
        let setup = super::counts::setup(view);
        if !setup.is_empty() {
            self.line(setup);
        }
        self.line(super::counts::table(run));
        self.meta(run);
    }

    fn meta(&mut self, run: &RunRecord) {
        let m = &run.meta;
        let mut rows = vec![
            ("name", m.name().unwrap_or_default().to_owned()),
            ("target", m.target.clone()),
            ("seed", m.seed.to_string()),
            ("started", m.started_at.clone()),
            ("finished", m.finished_at.clone()),
            ("duration", format!("{:.1} s", m.duration_ms / 1000.0)),
            ("cases per operation", m.cases_per_operation.to_string()),
            ("covenant", m.covenant_version.clone()),
        ];
        rows.retain(|(_, value)| !value.is_empty());
        if let Some(traffic) = &m.traffic {
            // A run's seed and cases per operation mean nothing for real traffic.
            rows.retain(|(name, _)| !matches!(*name, "seed" | "cases per operation"));
            rows.insert(1, ("traffic", crate::report::view::traffic_seen(traffic)));
        }
        if let Some(shard) = &m.shard {
            rows.push(("shard", shard.clone()));
        }
        if !m.faults.is_empty() {
            rows.push(("faults", m.faults.join(", ")));
        }
        self.line("<table id=\"meta\">");
        for (name, value) in rows {
            self.line(format!(
                "<tr><th>{name}</th><td><code>{}</code></td></tr>",
                escape(&value)
            ));
        }
        self.line("</table>");
    }

    fn cases_section(
        &mut self,
        run: &RunRecord,
        id: &str,
        title: &str,
        wanted: impl Fn(Verdict) -> bool,
    ) {
        let cases: Vec<&CaseResult> = run.cases.iter().filter(|c| wanted(c.verdict)).collect();
        self.line(format!(
            "<h2 id=\"{id}\">{} ({})</h2>",
            escape(title),
            cases.len()
        ));
        if cases.is_empty() {
            self.line("<p>None.</p>");
        }
        for case in cases {
            self.case_details(case);
        }
    }

    fn case_details(&mut self, case: &CaseResult) {
        let verdict = case.verdict.as_str();
        self.line(format!(
            "<details id=\"{}\" class=\"case\" data-verdict=\"{verdict}\">",
            escape(&case_anchor(&case.id))
        ));
        self.line(format!(
            "<summary><span class=\"badge {verdict}\">{verdict}</span> <code>{}</code> — {}</summary>",
            escape(&case.id),
            escape(&headline(case))
        ));
        self.line(format!(
            "<p>suite <code>{}</code>{} · {:.1} ms · rules {}</p>",
            escape(&case.suite),
            case.operation
                .as_deref()
                .map(|op| format!(" · operation <code>{}</code>", escape(op)))
                .unwrap_or_default(),
            case.duration_ms,
            code_list(case.rules.iter().map(String::as_str)),
        ));
        if let Some(error) = &case.error {
            self.line(format!("<p class=\"error\">error: {}</p>", escape(error)));
        }
        for rule in case_rules(case) {
            self.finding(case, rule.first);
            self.more_findings(case, rule.first, &rule.more);
        }
        if case.findings.is_empty() {
            for exchange in &case.exchanges {
                self.exchange(exchange);
            }
        }
        if let Some(payload) = &case.payload {
            let pretty = serde_json::to_string_pretty(payload).unwrap_or_default();
            self.line(format!("<p>payload:</p><pre>{}</pre>", escape(&pretty)));
        }
        self.line("</details>");
    }

    /// Each broken rule once: statement, counts, the first example, the other cases folded.
    fn broken(&mut self, view: &RunView<'_>) {
        let groups = &view.broken;
        let new = groups.iter().filter(|g| g.known.is_none()).count();
        self.line(format!("<h2 id=\"broken\">Broken rules ({new})</h2>"));
        if new == 0 {
            self.line("<p>None.</p>");
        }
        let mut ids: Vec<String> = Vec::new();
        let mut known_heading = false;
        for group in groups {
            if group.known.is_some() && !known_heading {
                known_heading = true;
                self.line(format!("<h3 id=\"known-failures\">{KNOWN_TITLE}</h3>"));
                let tally = capitalised(&known_tally(view.record));
                self.line(format!("<p>{}.</p>", escape(&tally)));
            }
            let mut id = format!("broken-{}", group.rule);
            if ids.contains(&id) {
                id = format!("{id}-{}", ids.len() + 1);
            }
            ids.push(id.clone());
            self.broken_rule(&id, group);
        }
    }

    fn broken_rule(&mut self, id: &str, group: &BrokenRule<'_>) {
        let class = if group.known.is_some() {
            "known"
        } else {
            "fail"
        };
        self.line(format!(
            "<section class=\"broken\" id=\"{}\"><h3><span class=\"badge {class}\">{}</span> <code>{}</code> {}</h3>",
            escape(id),
            group.level,
            escape(&group.rule),
            escape(&group.statement)
        ));
        if !group.spec.is_empty() {
            self.line(format!(
                "<p class=\"spec\">Spec: {}.</p>",
                escape(&group.spec)
            ));
        }
        if let Some(reason) = &group.known {
            self.line(format!("<p>Known failure: {}.</p>", escape(reason)));
        }
        self.line(format!(
            "<p>{}.</p>",
            escape(&capitalised(&count_sentence(group)))
        ));
        let (case, finding, exchange) = group.example;
        self.line(format!(
            "<p>First, {}: {}</p>",
            case_link(&case.id, case.verdict),
            escape(&finding.message)
        ));
        if let Some(diff) = &finding.diff {
            self.line(format!("<pre class=\"diff\">{}</pre>", diff_html(diff)));
        }
        if let Some(exchange) = exchange {
            self.exchange(exchange);
        }
        if group.cases.len() > 1 {
            let others: Vec<String> = group.cases[1..]
                .iter()
                .map(|id| {
                    let verdict = if group.known.is_some() {
                        Verdict::Known
                    } else {
                        Verdict::Fail
                    };
                    case_link(id, verdict)
                })
                .collect();
            self.line(format!(
                "<details class=\"also\"><summary>Also in {}</summary><p>{}</p></details>",
                plural(others.len(), "other case"),
                others.join(", ")
            ));
        }
        self.line("</section>");
    }

    /// The case's other findings of a rule whose first one is shown: one line each, folded,
    /// the first [`MORE_NAMED`] of them (`report.json` has every one).
    fn more_findings(&mut self, case: &CaseResult, first: &Finding, more: &[&Finding]) {
        if more.is_empty() {
            return;
        }
        self.line(format!(
            "<details class=\"more\"><summary><code>{}</code> also broken by {} of this case</summary><ul>",
            escape(&first.rule),
            plural(more.len(), "other response")
        ));
        for finding in more.iter().take(MORE_NAMED) {
            let request = request_of(case, finding)
                .map(|r| format!(" <code>{}</code>", escape(&r)))
                .unwrap_or_default();
            self.line(format!("<li>{}{request}</li>", escape(&finding.message)));
        }
        if more.len() > MORE_NAMED {
            self.line(format!(
                "<li>and {} more (<code>report.json</code> has every one)</li>",
                more.len() - MORE_NAMED
            ));
        }
        self.line("</ul></details>");
    }

    fn finding(&mut self, case: &CaseResult, finding: &Finding) {
        let level = match finding.level {
            Level::Must => "fail",
            Level::Should => "warn",
        };
        self.line(format!(
            "<h4><span class=\"badge {level}\">{}</span> <code>{}</code> {}</h4>",
            finding.level,
            escape(&finding.rule),
            escape(&finding.message)
        ));
        if let Some(exchange) = shown_exchange(case, finding) {
            self.exchange(exchange);
        }
        if let Some(diff) = &finding.diff {
            self.line(format!(
                "<p>diff:</p><pre class=\"diff\">{}</pre>",
                diff_html(diff)
            ));
        }
    }

    fn exchange(&mut self, exchange: &Exchange) {
        self.line(format!(
            "<p>request:</p><pre class=\"curl\">{}</pre>",
            escape(&exchange.request.curl)
        ));
        if let Some(response) = &exchange.response {
            let cut = if response.truncated {
                " (truncated)"
            } else {
                ""
            };
            self.line(format!(
                "<p>response: <strong>{}</strong> in {:.1} ms{cut}</p><pre>{}</pre>",
                response.status,
                exchange.duration_ms,
                escape(&response.body)
            ));
        }
        if let Some(error) = &exchange.error {
            self.line(format!(
                "<p class=\"error\">transport error after {:.1} ms: {}</p>",
                exchange.duration_ms,
                escape(error)
            ));
        }
    }

    fn coverage(&mut self, view: &RunView<'_>) {
        self.line(format!(
            "<h2 id=\"coverage\">Rule coverage ({} rules)</h2>",
            view.coverage.len()
        ));
        let summary: Vec<String> = view
            .rule_counts
            .iter()
            .map(|(s, n)| format!("{n} {}", s.as_str()))
            .collect();
        self.line(format!("<p>{}</p>", summary.join(" · ")));
        self.measures(view);
        self.line("<p>Evidence: the responses judged against a rule, and the cases that judged them (passed / warned / failed). Not run: no response was judged against the rule in this run.</p>");
        self.line("<table id=\"coverage-matrix\"><tr><th>rule</th><th>level</th><th>status</th><th>statement</th><th>evidence</th><th>cases</th></tr>");
        for row in &view.coverage {
            self.coverage_row(row);
        }
        self.line("</table>");
        self.statuses(view);
    }

    /// The share of rules and statuses with evidence, beside what `--require-coverage` asked.
    fn measures(&mut self, view: &RunView<'_>) {
        let run = view.record;
        let required = &run.meta.coverage_required;
        self.line("<table id=\"coverage-measures\"><tr><th>measure</th><th>with evidence</th><th>required</th></tr>");
        for m in &view.measures {
            let asked = required.iter().find(|r| r.measure == m.measure);
            let (class, asked) = match asked {
                Some(r) if m.reaches(r.percent) => ("pass", format!("{}% (met)", r.percent)),
                Some(r) => ("fail", format!("{}% (short)", r.percent)),
                None => ("", "none".to_owned()),
            };
            self.line(format!(
                "<tr><td>{}</td><td>{} of {} ({:.0}%)</td><td class=\"{class}\">{asked}</td></tr>",
                measure_name(m.measure),
                m.got,
                m.of,
                m.percent()
            ));
        }
        self.line("</table>");
        self.out
            .push_str(&super::constraints::unjudged_statements(&view.measures));
        if !run.meta.coverage_short.is_empty() {
            self.line("<ul id=\"coverage-short\">");
            for short in &run.meta.coverage_short {
                self.line(format!("<li class=\"fail\">{}</li>", escape(short)));
            }
            self.line("</ul>");
        }
    }

    fn coverage_row(&mut self, row: &RuleCoverage<'_>) {
        let status = row.status.as_str();
        let e = &row.evidence;
        let evidence = if e.cases == 0 {
            "none".to_owned()
        } else {
            format!(
                "{} in {} ({} / {} / {})",
                plural(e.responses as usize, "response"),
                plural(e.cases, "case"),
                e.passed,
                e.warned,
                e.failed
            )
        };
        let cases = match &row.reason {
            Some(why) => escape(why),
            None => evidence_links(&row.evidence, &row.cases),
        };
        self.line(format!(
            "<tr id=\"rule-{id}\"><td><code>{id}</code></td><td>{}</td><td class=\"{}\">{status}</td><td>{}</td><td>{evidence}</td><td>{cases}</td></tr>",
            row.rule.level,
            status.replace(' ', "-"),
            escape(&row.rule.text),
            id = escape(&row.rule.id),
        ));
    }

    /// Per operation, the statuses the spec states against those the run saw.
    fn statuses(&mut self, view: &RunView<'_>) {
        self.line("<h2 id=\"statuses\">Status coverage</h2>");
        self.line("<p>Per operation: the statuses the spec states (2xx: a success whose status is not shown), those the run set out to provoke, those it saw (with their responses), and the stated ones no response showed.</p>");
        self.line("<table id=\"status-coverage\"><tr><th>operation</th><th>stated</th><th>provoked</th><th>seen</th><th>stated, never seen</th></tr>");
        for op in &view.statuses {
            let seen: Vec<String> = op
                .observed
                .iter()
                .map(|(status, n)| format!("{status} ×{n}"))
                .collect();
            let missing = if op.missing.is_empty() {
                "<td class=\"pass\">none</td>".to_owned()
            } else {
                format!("<td class=\"warn\">{}</td>", escape(&op.missing.join(", ")))
            };
            self.line(format!(
                "<tr id=\"statuses-{op}\"><td><code>{op}</code></td><td>{}</td><td>{}</td><td>{}</td>{missing}</tr>",
                escape(&op.stated.join(", ")),
                escape(&op.expected.join(", ")),
                escape(&seen.join(", ")),
                op = escape(op.operation),
            ));
        }
        self.line("</table>");
    }

    fn gaps(&mut self, view: &RunView<'_>) {
        self.line(format!(
            "<h2 id=\"gaps\">What the spec leaves open ({})</h2>",
            plural(view.gaps.len(), "gap")
        ));
        self.line("<p>The specification says these are not shown; covenant never fails a target on them.</p>\n<ul>");
        for gap in view.gaps {
            self.line(format!(
                "<li><code>{}</code> ({}) {}</li>",
                escape(&gap.id),
                escape(&gap.section),
                escape(&gap.text)
            ));
        }
        self.line("</ul>");
    }

    /// For spec owners: per gap, what the target chose there, with one exchange that shows it.
    fn silent(&mut self, view: &RunView<'_>) {
        let (run, gaps) = (view.record, &view.silent);
        self.line(format!(
            "<h2 id=\"silent\">What this target chose where the spec is silent ({})</h2>",
            plural(gaps.len(), "gap")
        ));
        if gaps.is_empty() {
            self.line("<p>The run saw nothing of the gaps.</p>");
            return;
        }
        let seen = if run.is_traffic() {
            "as the traffic showed it"
        } else {
            "as the run saw it"
        };
        self.line(format!("<p>For spec owners deciding what to specify next: what this target did in each area the spec leaves open, {seen} (statuses, field names and types, page sizes, error codes; never a value of a body). Covenant judges none of it.</p>"));
        for gap in gaps {
            self.line(format!(
                "<section id=\"silent-{id}\"><h3><code>{id}</code> {}</h3>",
                escape(&gap.text),
                id = escape(&gap.gap)
            ));
            self.line("<table><tr><th>about</th><th>what</th><th>chose</th><th>responses</th><th>example</th></tr>");
            for o in &gap.observations {
                let example = o
                    .example
                    .as_ref()
                    .map(|e| format!("<code>{}</code>", escape(&e.case)))
                    .unwrap_or_default();
                self.line(format!(
                    "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td class=\"num\">{}</td><td>{example}</td></tr>",
                    escape(&o.subject.to_string()),
                    escape(&o.what),
                    escape(&o.value),
                    o.responses
                ));
            }
            self.line("</table>");
            let shown = gap.observations.iter().find_map(|o| {
                let e = o.example.as_ref()?;
                let case = run.cases.iter().find(|c| c.id == e.case)?;
                Some((o, e, case.exchanges.get(e.exchange)?))
            });
            if let Some((o, e, exchange)) = shown {
                self.line(format!(
                    "<details><summary>Example: {} ({}), from <code>{}</code></summary>",
                    escape(&o.subject.to_string()),
                    escape(&o.value),
                    escape(&e.case)
                ));
                self.exchange(exchange);
                self.line("</details>");
            }
            self.line("</section>");
        }
    }

    fn latency(&mut self, run: &RunRecord) {
        self.line("<h2 id=\"latency\">Latency per operation</h2>");
        self.line("<table><tr><th>operation</th><th>requests</th><th>p50 ms</th><th>p95 ms</th><th>max ms</th></tr>");
        for row in latency_by_operation(run) {
            self.line(format!(
                "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td><td class=\"num\">{:.1}</td><td class=\"num\">{:.1}</td></tr>",
                escape(&row.operation), row.count, row.p50_ms, row.p95_ms, row.max_ms
            ));
        }
        self.line("</table>");
    }

    /// How the target's rate limits paced the run, when they did.
    fn pace(&mut self, run: &RunRecord) {
        let Some(pace) = &run.meta.pace else {
            return;
        };
        self.line("<h2 id=\"pace\">Pace: the target rate-limited the run</h2>");
        self.line(format!(
            "<p>{}.</p>",
            escape(&crate::report::view::pace_sentence(pace))
        ));
        self.line(format!(
            "<table><tr><th>429 answers</th><th>503 answers</th><th>pauses</th><th>paused s</th><th>pace that worked, req/s</th><th>next time</th></tr>\n<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td><td class=\"num\">{:.1}</td><td><code>--rate {}</code></td></tr></table>",
            pace.answers_429,
            pace.answers_503,
            pace.pauses,
            pace.paused_ms / 1000.0,
            pace.rate,
            escape(&pace.suggested_rate())
        ));
    }

    /// The skipped cases, each reason once with the cases it held back (folded when many).
    fn skipped(&mut self, view: &RunView<'_>) {
        let count = view.skipped_count();
        self.line(format!("<h2 id=\"skipped\">Skipped ({count})</h2>"));
        if view.skipped.is_empty() {
            self.line("<p>None.</p>");
            return;
        }
        self.line("<table><tr><th>reason</th><th>cases</th></tr>");
        for skipped in &view.skipped {
            let named: Vec<String> = skipped
                .cases
                .iter()
                .map(|c| format!("<code>{}</code>", escape(c)))
                .collect();
            let cell = match named.as_slice() {
                [one] => one.clone(),
                many => format!(
                    "<details><summary>{} cases</summary>{}</details>",
                    many.len(),
                    many.join(", ")
                ),
            };
            self.line(format!(
                "<tr><td>{}</td><td>{cell}</td></tr>",
                escape(skipped.reason)
            ));
        }
        self.line("</table>");
    }

    /// Variants not judged because the baseline beside them was refused, with that answer.
    fn inconclusive(&mut self, run: &RunRecord) {
        let blocked: Vec<(&CaseResult, &Inconclusive)> = run
            .cases
            .iter()
            .flat_map(|c| c.inconclusive.iter().map(move |i| (c, i)))
            .collect();
        // Variants, not cases: a case that also failed or warned counts as that, so this
        // number is not the count of inconclusive cases.
        self.line(format!(
            "<h2 id=\"inconclusive\">Variants not judged: their baseline was refused ({})</h2>",
            blocked.len()
        ));
        if blocked.is_empty() {
            self.line("<p>None.</p>");
            return;
        }
        self.line("<p>A variant is judged beside a baseline that differs from it only in the part under test; when the target refused the baseline, the variants say nothing about the target and are neither passed nor failed. The baseline's answer is the diagnosis.</p>");
        self.line("<table><tr><th>case</th><th>rule</th><th>baseline</th><th>its answer</th><th>variants blocked</th></tr>");
        for (case, i) in blocked {
            self.line(format!(
                "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{} ({})</td></tr>",
                escape(&case.id),
                escape(&i.rule),
                escape(&i.baseline),
                escape(&i.answer),
                i.count,
                escape(&blocked_variants(i))
            ));
        }
        self.line("</table>");
    }

    fn all_cases(&mut self, run: &RunRecord) {
        self.line(format!(
            "<details id=\"all-cases\"><summary><strong>All cases ({})</strong></summary>",
            run.cases.len()
        ));
        self.line("<table><tr><th>case</th><th>suite</th><th>operation</th><th>verdict</th><th>requests</th><th>ms</th></tr>");
        for case in &run.cases {
            let verdict = case.verdict.as_str();
            self.line(format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{verdict}\">{verdict}</td><td class=\"num\">{}</td><td class=\"num\">{:.1}</td></tr>",
                case_link(&case.id, case.verdict),
                escape(&case.suite),
                escape(case.operation.as_deref().unwrap_or("")),
                case.exchanges.len(),
                case.duration_ms
            ));
        }
        self.line("</table></details>");
    }
}

/// One line saying why a case did not pass.
fn headline(case: &CaseResult) -> String {
    let first = case
        .findings
        .iter()
        .find(|f| f.level == Level::Must)
        .or_else(|| case.findings.first());
    match (first, &case.error) {
        (Some(f), _) => format!("{}: {}", f.rule, f.message),
        (None, Some(error)) => error.clone(),
        (None, None) => String::new(),
    }
}

fn code_list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<String> = items
        .map(|i| format!("<code>{}</code>", escape(i)))
        .collect();
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

/// The cases of a coverage cell: those the evidence names (failing first), and how many more.
fn evidence_links(evidence: &RuleEvidence<'_>, cases: &[(&str, Verdict)]) -> String {
    let verdict = |id: &str| {
        cases
            .iter()
            .find(|(c, _)| *c == id)
            .map_or(Verdict::Pass, |(_, v)| *v)
    };
    let mut links: Vec<String> = evidence
        .named
        .iter()
        .map(|id| case_link(id, verdict(id)))
        .collect();
    if evidence.cases > evidence.named.len() {
        links.push(format!(
            "and {} more",
            evidence.cases - evidence.named.len()
        ));
    }
    links.join(", ")
}

/// What a measure counts, for a reader.
fn measure_name(measure: CoverageMeasure) -> &'static str {
    match measure {
        CoverageMeasure::Must => "observable <code>must</code> rules",
        CoverageMeasure::Should => "observable <code>should</code> rules",
        CoverageMeasure::Status => "stated statuses, 5xx aside",
        CoverageMeasure::Constraints => "inventoried constraints, broken and held",
        CoverageMeasure::Statements => "stated statements of the spec, judged",
    }
}

/// A case id marked with its verdict; a link to its details where the page has them.
fn case_link(id: &str, verdict: Verdict) -> String {
    let v = verdict.as_str();
    match verdict {
        Verdict::Fail | Verdict::Error | Verdict::Warn | Verdict::Client => format!(
            "<a class=\"{v}\" href=\"#{}\"><code>{}</code></a>",
            escape(&case_anchor(id)),
            escape(id)
        ),
        _ => format!("<code class=\"{v}\">{}</code>", escape(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Catalogue;
    use crate::report::view::failed_case as case;

    #[test]
    fn each_broken_rule_is_a_section_and_a_case_says_each_rule_once() {
        let many: Vec<&str> = std::iter::repeat_n("WIDE", 30).collect();
        let mut cases = vec![case("create", &["WIDE", "NARROW"]), case("drawn", &many)];
        cases.extend((0..3).map(|i| case(&format!("more-{i}"), &["WIDE"])));
        let run = RunRecord::of_cases(cases);
        let page = Html
            .render(&RunView::new(&run, Catalogue::embedded()))
            .expect("rendered");
        assert!(
            page.contains("<h2 id=\"broken\">Broken rules (2)</h2>"),
            "{page}"
        );
        assert_eq!(page.matches("<section class=\"broken\"").count(), 2);
        assert!(page.contains("id=\"broken-NARROW\""));
        assert!(page.contains("the same responses also break WIDE"));
        assert!(
            page.contains("<summary>Also in 3 other cases</summary>"),
            "{page}"
        );
        // The case of 30 findings shows the first and folds the rest, ten of them named.
        assert!(page.contains("also broken by 29 other responses of this case"));
        assert!(page.contains("and 19 more (<code>report.json</code> has every one)"));
        assert_eq!(
            page.matches("<h4>").count(),
            6,
            "one heading per rule of a case"
        );
    }
}
