//! The JUnit XML report, for CI: one testsuite per `CaseResult::suite`, one testcase per case.
//!
//! A failure carries the first broken `must` rule and its message as the message, and every
//! finding with its request (as curl), response and diff as the body. Warnings pass, and show
//! in the testcase's system-out. A client's slips seen in real traffic are skipped (type
//! `client`), their findings in system-out: never a failure of the target. The output validates against Jenkins' `junit-10.xsd`
//! (`tests/data/junit.xsd`).

use super::view::shown_exchange;
use super::view::{
    case_rules, inconclusive_sentence, lead_rule, request_of, spec_citation, BrokenRule, RunView,
    MORE_NAMED,
};
use super::{plural, ReportError, Reporter};
use crate::verdict::{CaseResult, Exchange, Finding, RunRecord, Verdict};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, Writer};
use std::fmt::Write;
use std::time::Duration;

/// `junit.xml`.
pub struct Junit;

impl Reporter for Junit {
    fn file_name(&self) -> &'static str {
        "junit.xml"
    }

    fn render(&self, view: &RunView<'_>) -> Result<String, ReportError> {
        let run = view.record;
        let mut report = Report::new("covenant");
        report.set_time(duration(run.meta.duration_ms));
        report.add_test_suites(suites(view));
        report.add_test_suites(verdict_suite(view));
        let xml = report.to_string().map_err(|e| ReportError::Render {
            format: "junit.xml",
            message: e.to_string(),
        })?;
        without_root_skipped(&xml)
    }
}

/// One testsuite per suite name, in the order suites first appear in the run.
fn suites(view: &RunView<'_>) -> Vec<TestSuite> {
    let (run, broken) = (view.record, view.broken.as_slice());
    let exports = &view.curl_exports;
    let mut names: Vec<&str> = Vec::new();
    for case in &run.cases {
        if !names.contains(&case.suite.as_str()) {
            names.push(&case.suite);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let cases: Vec<&CaseResult> = run.cases.iter().filter(|c| c.suite == name).collect();
            let mut suite = TestSuite::new(name);
            suite.set_time(duration(cases.iter().map(|c| c.duration_ms).sum()));
            suite.add_properties([
                Property::new("seed", run.meta.seed.to_string()),
                Property::new("target", &run.meta.target),
                Property::new("covenant_version", &run.meta.covenant_version),
            ]);
            if let Some(name) = run.meta.name() {
                suite.add_property(Property::new("name", name));
            }
            if let Some(exports) = &exports {
                suite.add_property(Property::new("curl_exports", exports));
            }
            suite.add_test_cases(cases.into_iter().map(|case| test_case(case, broken, run)));
            suite
        })
        .collect()
}

/// A `covenant` suite with one `run.verdict` testcase when the run's verdict is not what its
/// cases' statuses say (an incomplete run, a profile problem, an unreachable target, coverage
/// short; under `--strict` a warned case is itself a `<failure>`, as the settled run has it),
/// so that
/// a CI tool reading only this file shows red exactly when covenant's exit code does.
fn verdict_suite(view: &RunView<'_>) -> Option<TestSuite> {
    let (run, verdict) = (view.record, view.verdict);
    let why = view.reason.as_deref()?;
    // A run stopped before its first case tested nothing: an error of covenant's setup, not
    // a failure of the target.
    let kind = match run.stopped_before_cases() {
        true => NonSuccessKind::Error,
        false => NonSuccessKind::Failure,
    };
    let mut status = TestCaseStatus::non_success(kind);
    status.set_type(verdict.as_str());
    status.set_message(xml_safe(&format!(
        "{}: {why}",
        super::view::headline(verdict)
    )));
    let mut case = TestCase::new("run.verdict", status);
    case.set_classname("covenant");
    let mut suite = TestSuite::new("covenant");
    suite.add_test_case(case);
    Some(suite)
}

fn test_case(case: &CaseResult, broken: &[BrokenRule<'_>], run: &RunRecord) -> TestCase {
    let mut test_case = TestCase::new(&case.id, status(case, broken, run));
    test_case.set_classname(&case.suite);
    test_case.set_time(duration(case.duration_ms));
    let mut out = String::new();
    if matches!(case.verdict, Verdict::Client | Verdict::Warn) {
        out.push_str(&findings_text(case));
    }
    if !case.inconclusive.is_empty() {
        out.push_str(&inconclusive_text(case));
    }
    if !out.is_empty() {
        test_case.set_system_out(xml_safe(out.trim_end()));
    }
    test_case
}

/// A case's status as the settled run has it (under `--strict` a warned case failed, with its
/// rule).
fn status(case: &CaseResult, broken: &[BrokenRule<'_>], run: &RunRecord) -> TestCaseStatus {
    match case.verdict {
        Verdict::Pass | Verdict::Warn => TestCaseStatus::success(),
        Verdict::Fail => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let lead = lead_rule(broken, &case.id);
            let lead = lead.filter(|l| l.known.is_none());
            let unknown = || {
                case.findings
                    .iter()
                    .filter(|f| run.breaks(f.level) && f.known.is_none())
            };
            let first = unknown()
                .find(|f| lead.is_none_or(|l| l.rule == f.rule))
                .or_else(|| unknown().next());
            if let Some(first) = first {
                // A run gated on a baseline marks a failure new, or its entry expired.
                let gate = lead
                    .filter(|l| l.rule == first.rule)
                    .and_then(|l| l.gate)
                    .map_or(String::new(), |g| format!("{g}: "));
                status.set_message(xml_safe(&format!("{gate}{}", failure_message(case, first))));
                status.set_type(&first.rule);
            }
            status.set_description(xml_safe(&findings_text(case)));
            status
        }
        Verdict::Error => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(
                case.error
                    .as_deref()
                    .unwrap_or("the case ended in an error"),
            );
            status.set_type("error");
            status.set_description(error_text(case));
            status
        }
        Verdict::Skip => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(xml_safe(case.skip_reason.as_deref().unwrap_or("skipped")));
            status
        }
        Verdict::Known => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(xml_safe(&known_message(case)));
            status.set_type("known");
            status
        }
        // A client's slips are skipped, not failed nor passed: the case judged the client's
        // requests, not the target (its answers are judged in `traffic.<operation>`), so a pass
        // would claim something of the target and a failure would turn CI red for the client.
        // A skip's message is what CI tools list beside it; every slip, with its request as
        // curl, is in the testcase's system-out.
        Verdict::Client => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(xml_safe(&client_message(case)));
            status.set_type("client");
            status
        }
        Verdict::Inconclusive => {
            let mut status = TestCaseStatus::skipped();
            let first = case.inconclusive.first().map(inconclusive_sentence);
            let why = first.unwrap_or_default();
            status.set_message(xml_safe(&format!("inconclusive: {why}")));
            status
        }
    }
}

/// The heading of the client's slips and each rule the case's requests broke, once, with its
/// count.
fn client_message(case: &CaseResult) -> String {
    let rules: Vec<String> = case_rules(case)
        .iter()
        .map(|r| match r.more.len() {
            0 => format!("{}: {}", r.first.rule, r.first.message),
            more => format!(
                "{} in {}: {}",
                r.first.rule,
                plural(more + 1, "request"),
                r.first.message
            ),
        })
        .collect();
    format!("{}: {}", crate::verdict::CLIENT_TITLE, rules.join("; "))
}

/// Each group of variants a refused baseline blocked, with the baseline's exchange.
fn inconclusive_text(case: &CaseResult) -> String {
    let mut out = String::from("inconclusive:\n");
    for blocked in &case.inconclusive {
        let _ = writeln!(out, "{}", inconclusive_sentence(blocked));
        if let Some(exchange) = blocked.exchange.and_then(|i| case.exchanges.get(i)) {
            exchange_text(&mut out, exchange);
        }
        out.push('\n');
    }
    out
}

/// `known: RULE (reason); ...`: each rule the baseline held in this case, once.
fn known_message(case: &CaseResult) -> String {
    let mut rules: Vec<String> = Vec::new();
    for f in &case.findings {
        if let Some(reason) = &f.known {
            let said = format!("{} ({reason})", f.rule);
            if !rules.contains(&said) {
                rules.push(said);
            }
        }
    }
    format!("known: {}", rules.join("; "))
}

/// `RULE-ID: message`, how many of the case's responses broke it, and the other rules the
/// case broke (each named once).
fn failure_message(case: &CaseResult, first: &Finding) -> String {
    let rules = case_rules(case);
    let mut text = format!("{}: {}", first.rule, first.message);
    if let Some(rule) = rules.iter().find(|r| r.first.rule == first.rule) {
        if !rule.more.is_empty() {
            text.push_str(&format!(
                " ({} in this case)",
                plural(rule.more.len() + 1, "response")
            ));
        }
    }
    let others: Vec<&str> = rules
        .iter()
        .map(|r| r.first.rule.as_str())
        .filter(|r| *r != first.rule)
        .collect();
    if !others.is_empty() {
        text.push_str(&format!("; also breaks {}", others.join(", ")));
    }
    text
}

/// Each rule the case's findings break, once, `must` first: its first finding with the exchange
/// that shows it and its diff, then the case's other findings of it one line each (the first
/// [`MORE_NAMED`]; `report.json` has every one).
fn findings_text(case: &CaseResult) -> String {
    let mut out = String::new();
    for rule in case_rules(case) {
        let finding = rule.first;
        let _ = writeln!(
            out,
            "{} ({}): {}",
            finding.rule, finding.level, finding.message
        );
        let spec = spec_citation(&finding.rule);
        if !spec.is_empty() {
            let _ = writeln!(out, "spec: {spec}");
        }
        if let Some(exchange) = shown_exchange(case, finding) {
            exchange_text(&mut out, exchange);
        }
        if let Some(diff) = &finding.diff {
            let _ = writeln!(out, "\ndiff:\n{diff}");
        }
        if !rule.more.is_empty() {
            let _ = writeln!(
                out,
                "\n{} of this case also broke {}:",
                plural(rule.more.len(), "other response"),
                finding.rule
            );
            for more in rule.more.iter().take(MORE_NAMED) {
                match request_of(case, more) {
                    Some(request) => writeln!(out, "- {} ({request})", more.message),
                    None => writeln!(out, "- {}", more.message),
                }
                .unwrap_or_default();
            }
            if rule.more.len() > MORE_NAMED {
                let _ = writeln!(
                    out,
                    "- and {} more (report.json has every one)",
                    rule.more.len() - MORE_NAMED
                );
            }
        }
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out
}

fn error_text(case: &CaseResult) -> String {
    let mut out = String::new();
    if let Some(error) = &case.error {
        let _ = writeln!(out, "{error}");
    }
    for exchange in &case.exchanges {
        exchange_text(&mut out, exchange);
    }
    out.truncate(out.trim_end().len());
    out
}

fn exchange_text(out: &mut String, exchange: &Exchange) {
    let _ = writeln!(out, "\nrequest:\n{}", exchange.request.curl);
    if let Some(response) = &exchange.response {
        let _ = writeln!(out, "\nresponse: {}\n{}", response.status, response.body);
    }
    if let Some(error) = &exchange.error {
        let _ = writeln!(out, "\ntransport error: {error}");
    }
}

/// Text without the noncharacters XML 1.0 forbids (quick-junit already strips C0 controls), so
/// that a hostile response body cannot make the file unreadable.
fn xml_safe(text: &str) -> String {
    text.replace(['\u{FFFE}', '\u{FFFF}'], "\u{FFFD}")
}

/// Milliseconds from a record (which may come from any file) as a duration, never panicking.
fn duration(ms: f64) -> Duration {
    Duration::try_from_secs_f64(ms / 1000.0).unwrap_or_default()
}

/// quick-junit writes `skipped` on the root `<testsuites>`, which neither Jenkins' junit-10.xsd
/// nor the Ant schema allows there; the per-suite `skipped` counts stay, and CI tools read those.
/// quick-junit's XML is read back as events and written again with that one attribute of the
/// root element left out: every other event passes through as it came, escaped as it was.
fn without_root_skipped(xml: &str) -> Result<String, ReportError> {
    let failed = |e: &dyn std::fmt::Display| ReportError::Render {
        format: "junit.xml",
        message: e.to_string(),
    };
    let mut reader = Reader::from_str(xml);
    let mut writer = Writer::new(Vec::with_capacity(xml.len()));
    let mut root_seen = false;
    loop {
        let event = match reader.read_event().map_err(|e| failed(&e))? {
            Event::Eof => break,
            Event::Start(element) if !root_seen => {
                root_seen = true;
                Event::Start(without_skipped(&element).map_err(|e| failed(&e))?)
            }
            Event::Empty(element) if !root_seen => {
                root_seen = true;
                Event::Empty(without_skipped(&element).map_err(|e| failed(&e))?)
            }
            event => event,
        };
        writer.write_event(event).map_err(|e| failed(&e))?;
    }
    String::from_utf8(writer.into_inner()).map_err(|e| failed(&e))
}

/// The element with its attributes but `skipped`, each as it was written.
fn without_skipped(element: &BytesStart<'_>) -> Result<BytesStart<'static>, AttrError> {
    let mut kept = element.to_owned();
    kept.clear_attributes();
    for attribute in element.attributes() {
        let attribute = attribute?;
        if attribute.key.as_ref() != b"skipped" {
            kept.push_attribute(attribute);
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{Catalogue, Level};
    use crate::report::view::failed_case as case;

    #[test]
    fn a_failure_message_leads_with_the_more_specific_rule_and_names_each_rule_once() {
        let many: Vec<&str> = std::iter::repeat_n("WIDE", 14).collect();
        let mut wide_and_narrow = case("create", &["WIDE", "NARROW"]);
        wide_and_narrow
            .findings
            .push(Finding::new("WIDE", Level::Must, "again"));
        let cases = vec![wide_and_narrow, case("drawn", &many)];
        let run = RunRecord::of_cases(cases);
        let xml = Junit
            .render(&RunView::new(&run, Catalogue::embedded()))
            .expect("rendered");
        assert!(
            xml.contains("message=\"NARROW: NARROW broken; also breaks WIDE\" type=\"NARROW\""),
            "{xml}"
        );
        assert!(xml.contains("message=\"WIDE: WIDE broken (14 responses in this case)\""));
        assert!(xml.contains("13 other responses of this case also broke WIDE:"));
        assert!(xml.contains("- and 3 more (report.json has every one)"));
        assert_eq!(xml.matches("WIDE (must): WIDE broken").count(), 2, "{xml}");
    }

    #[test]
    fn root_skipped_attribute_is_dropped_and_everything_else_kept_as_written() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"covenant\" tests=\"2\" skipped=\"1\" failures=\"0\">\n    <testsuite name=\"a &amp; b\" skipped=\"1\"/>\n    <testsuite skipped=\"0\"><system-out>x &lt; y<![CDATA[<z>]]></system-out></testsuite>\n</testsuites>\n";
        let out = without_root_skipped(xml).expect("well-formed");
        assert_eq!(out, xml.replacen(" skipped=\"1\" failures", " failures", 1));
    }

    #[test]
    fn a_root_without_children_loses_its_skipped_too() {
        let out =
            without_root_skipped("<testsuites skipped=\"0\" tests=\"0\"/>").expect("well-formed");
        assert_eq!(out, "<testsuites tests=\"0\"/>");
    }

    #[test]
    fn xml_that_is_not_well_formed_is_a_render_error() {
        let err = without_root_skipped("<testsuites skipped=\"1\"><a></b></testsuites>")
            .expect_err("mismatched end tag");
        assert!(
            matches!(
                err,
                ReportError::Render {
                    format: "junit.xml",
                    ..
                }
            ),
            "{err}"
        );
    }
}
