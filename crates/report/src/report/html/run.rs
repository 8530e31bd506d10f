//! `summary.html`: one self-contained page (no external asset, no network) for spec owners
//! and engineers, laid out by the template `templates/summary.html` (its pieces in
//! `templates/summary/`) from the run's view.
//!
//! Order: verdict and counts, the broken rules (each once: statement, counts, the first
//! example, the other cases folded), the failures by case (each rule of a case once, its other
//! responses folded to one line each), warnings, rule coverage, spec gaps, what the target
//! chose where the spec is silent, latency, skipped cases, all cases. Every failure, error and
//! warning is a `<details id="case-…">`; the inline script opens the one named by the URL
//! fragment, so a link such as `summary.html#case-x` lands on it open. This module hands the
//! template the view's lists as it lays them out and writes no markup: the template engine
//! escapes every piece of text from the record or the catalogue.

use super::case_anchor;
use crate::catalogue::Level;
use crate::report::coverage::RuleEvidence;
use crate::report::gaps::{Example, GapObservations, Observation};
use crate::report::latency::latency_by_operation;
use crate::report::view::{
    baseline_lines, blocked_variants, case_rules, count_sentence, known_tally, pace_sentence,
    request_of, shown_exchange, BrokenRule, RunView, MORE_NAMED,
};
use crate::report::words::{capitalised, KNOWN_TITLE};
use crate::report::{plural, Measured, ReportError, Reporter};
use crate::verdict::{
    CaseResult, ConstraintCoverage, CoverageMeasure, Exchange, Inconclusive, RunRecord, RunVerdict,
    Verdict, CLIENT_TITLE,
};
use askama::Template;

/// `summary.html`.
pub struct Html;

impl Reporter for Html {
    fn file_name(&self) -> &'static str {
        "summary.html"
    }

    fn render(&self, view: &RunView<'_>) -> Result<String, ReportError> {
        let page = RunPage {
            view,
            run: view.record,
            style: STYLE,
            script: SCRIPT,
        };
        page.render().map_err(|e| ReportError::Render {
            format: "summary.html",
            message: e.to_string(),
        })
    }
}

/// The page's style sheet.
const STYLE: &str = include_str!("run.css");

/// Opens the `<details>` named by the URL fragment, on load and on every fragment change.
const SCRIPT: &str = include_str!("open.js");

#[derive(Template)]
#[template(path = "summary.html")]
struct RunPage<'v, 'a> {
    view: &'v RunView<'a>,
    run: &'a RunRecord,
    style: &'static str,
    script: &'static str,
}

impl<'v, 'a> RunPage<'v, 'a> {
    fn banner_class(&self) -> &'static str {
        match self.view.verdict {
            RunVerdict::Pass => "pass",
            RunVerdict::PassWithWarnings
            | RunVerdict::Incomplete
            | RunVerdict::CoverageShort
            | RunVerdict::StaleBaseline => "warn",
            RunVerdict::Fail => "fail",
            RunVerdict::Error | RunVerdict::ProfileProblem | RunVerdict::Unreachable => "error",
        }
    }

    /// The settled counts every surface says, one column each (class, name, count): under
    /// `--strict` a warned case is counted under fail; the known cases of a baseline and the
    /// client's slips of real traffic get a column only where there are some.
    fn counts(&self) -> Vec<(&'static str, &'static str, usize)> {
        let c = &self.run.counts;
        let mut columns = vec![
            ("", "cases", c.total()),
            ("pass", "pass", c.pass),
            ("warn", "warn", c.warn),
            ("fail", "fail", c.fail),
            ("error", "error", c.error),
            ("skip", "skip", c.skip),
            ("skip", "inconclusive", c.inconclusive),
        ];
        if c.known > 0 {
            columns.push(("known", "known", c.known));
        }
        if c.client > 0 {
            columns.push(("client", "client's slips", c.client));
        }
        columns.push(("", "requests", c.requests));
        columns
    }

    /// The run's facts, each with a value.
    fn meta(&self) -> Vec<(&'static str, String)> {
        let m = &self.run.meta;
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
        rows
    }

    /// Broken rules no baseline knows.
    fn new_broken(&self) -> usize {
        self.view
            .broken
            .iter()
            .filter(|g| g.known.is_none())
            .count()
    }

    /// Each broken rule once, with its section's id and whether the known failures start at
    /// it.
    fn broken(&self) -> Vec<(String, bool, &'v BrokenRule<'a>)> {
        let mut ids: Vec<String> = Vec::new();
        let mut known_heading = false;
        let mut sections = Vec::new();
        for group in &self.view.broken {
            let first_known = group.known.is_some() && !known_heading;
            known_heading |= first_known;
            let mut id = format!("broken-{}", group.rule);
            if ids.contains(&id) {
                id = format!("{id}-{}", ids.len() + 1);
            }
            ids.push(id.clone());
            sections.push((id, first_known, group));
        }
        sections
    }

    /// The verdict of a broken rule's other cases.
    fn others(&self, group: &BrokenRule<'_>) -> Verdict {
        if group.known.is_some() {
            Verdict::Known
        } else {
            Verdict::Fail
        }
    }

    /// The cases of one of `verdicts`, in run order.
    fn cases(&self, verdicts: impl AsRef<[Verdict]>) -> Vec<&'a CaseResult> {
        let run = self.run;
        run.cases
            .iter()
            .filter(|c| verdicts.as_ref().contains(&c.verdict))
            .collect()
    }

    /// What `--require-coverage` asked of a measure, and its class: met, short or not asked.
    fn required(&self, m: &Measured) -> (&'static str, String) {
        let asked = self.run.meta.coverage_required.iter();
        match asked.into_iter().find(|r| r.measure == m.measure) {
            Some(r) if m.reaches(r.percent) => ("pass", format!("{}% (met)", r.percent)),
            Some(r) => ("fail", format!("{}% (short)", r.percent)),
            None => ("", "none".to_owned()),
        }
    }

    fn constraints_covered(&self) -> usize {
        let all = &self.run.meta.constraints;
        all.iter().filter(|c| c.covered()).count()
    }

    fn not_covered(&self, rows: &[&ConstraintCoverage]) -> usize {
        rows.iter().filter(|c| !c.covered()).count()
    }

    /// The first observation of a gap with an example exchange the record still holds.
    fn shown_choice(
        &self,
        gap: &'v GapObservations,
    ) -> Option<(&'v Observation, &'v Example, &'a Exchange)> {
        gap.observations.iter().find_map(|o| {
            let e = o.example.as_ref()?;
            let case = self.run.cases.iter().find(|c| c.id == e.case)?;
            Some((o, e, case.exchanges.get(e.exchange)?))
        })
    }

    /// Variants not judged because the baseline beside them was refused. Variants, not cases:
    /// a case that also failed or warned counts as that.
    fn inconclusive(&self) -> Vec<(&'a CaseResult, &'a Inconclusive)> {
        let run = self.run;
        run.cases
            .iter()
            .flat_map(|c| c.inconclusive.iter().map(move |i| (c, i)))
            .collect()
    }
}

/// One line saying why a case did not pass.
fn case_headline(case: &CaseResult) -> String {
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

/// A rule's evidence in words: `3 responses in 2 cases (1 / 0 / 1)` (passed / warned /
/// failed), or `none`.
fn evidence_words(e: &RuleEvidence<'_>) -> String {
    if e.cases == 0 {
        return "none".to_owned();
    }
    format!(
        "{} in {} ({} / {} / {})",
        plural(e.responses as usize, "response"),
        plural(e.cases, "case"),
        e.passed,
        e.warned,
        e.failed
    )
}

/// Whether the page has the details of a case of this verdict, for a link to land on.
fn linked(verdict: &Verdict) -> bool {
    matches!(
        verdict,
        Verdict::Fail | Verdict::Error | Verdict::Warn | Verdict::Client
    )
}

/// The verdict of the case `id` among a rule's cases.
fn verdict_in(cases: &[(&str, Verdict)], id: &str) -> Verdict {
    cases
        .iter()
        .find(|(c, _)| *c == id)
        .map_or(Verdict::Pass, |(_, v)| *v)
}

/// A unified diff's lines, each with its class for colour: added, removed, hunk, or none.
fn diff_lines(diff: &str) -> Vec<(&'static str, &str)> {
    diff.lines()
        .map(|line| {
            let class = if line.starts_with("+++") || line.starts_with("---") {
                ""
            } else if line.starts_with('+') {
                "add"
            } else if line.starts_with('-') {
                "del"
            } else if line.starts_with("@@") {
                "hunk"
            } else {
                ""
            };
            (class, line)
        })
        .collect()
}

fn pretty(payload: &serde_json::Value) -> String {
    serde_json::to_string_pretty(payload).unwrap_or_default()
}

/// What a measure counts, for a reader: markup of this module's own, no text of a record.
fn measure_name(measure: &CoverageMeasure) -> &'static str {
    match measure {
        CoverageMeasure::Must => "observable <code>must</code> rules",
        CoverageMeasure::Should => "observable <code>should</code> rules",
        CoverageMeasure::Status => "stated statuses, 5xx aside",
        CoverageMeasure::Constraints => "inventoried constraints, broken and held",
        CoverageMeasure::Statements => "stated statements of the spec, judged",
    }
}

/// The stated statements of the spec a client could observe that no response of the run
/// judged (`covenant trace ID` says what would judge each); none when every one was judged or
/// the record has no inventory.
fn unjudged_statements(measures: &[Measured]) -> Option<&Measured> {
    measures
        .iter()
        .find(|m| m.measure == CoverageMeasure::Statements)
        .filter(|m| !m.lacking.is_empty())
}

/// The inventoried constraints by operation, operations in the order first named.
fn constraints_by_operation(all: &[ConstraintCoverage]) -> Vec<(&str, Vec<&ConstraintCoverage>)> {
    let mut operations: Vec<(&str, Vec<&ConstraintCoverage>)> = Vec::new();
    for c in all {
        match operations.iter_mut().find(|(op, _)| *op == c.operation) {
            Some((_, rows)) => rows.push(c),
            None => operations.push((&c.operation, vec![c])),
        }
    }
    operations
}

/// What a constraint's held side kept: its edge, and how many such requests were refused.
fn held_edge(c: &ConstraintCoverage) -> String {
    match c.refused {
        0 => c.edge.clone(),
        n => format!("{}; refused {n}", c.edge),
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

    #[test]
    fn hostile_text_of_a_record_or_the_catalogue_comes_out_escaped() {
        let hostile = "<script>alert(\"x\")</script> & 'y'";
        let mut failed = case("create", &["HOSTILE"]);
        failed.findings[0].message = hostile.to_owned();
        failed.error = Some(hostile.to_owned());
        failed.suite = hostile.to_owned();
        let run = RunRecord::of_cases(vec![failed]);
        let catalogue = Catalogue::parse(&format!(
            "[[rule]]\nid = \"HOSTILE\"\nsection = \"s\"\ntext = '''{hostile}'''\nlevel = \"must\"\nobservable = false\nwhy_not = \"n\"\n"
        ))
        .expect("a catalogue");
        let page = Html
            .render(&RunView::new(&run, &catalogue))
            .expect("rendered");
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(!page.contains("& '"), "{page}");
        let escaped = "&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;y&#39;";
        // The rule's statement (broken rules, coverage), the finding's message (the first
        // example, the case's headline and heading), the error and the suite (case, all cases).
        assert!(page.matches(escaped).count() >= 7, "{page}");
    }
}
