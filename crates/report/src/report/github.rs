//! GitHub Actions: a run's broken rules as workflow commands (`::error`, `::warning`,
//! `::notice`), which GitHub shows on the pull request and the run's checks page, and
//! `summary.md` appended to the job's step summary. It lays out the run's view: one line per
//! rule the console groups its failures under, never one per case, and it never prints (the
//! command line decides where the text goes and whether GitHub is there).
//!
//! What goes into a command passes through the same redaction as every report, before it is
//! escaped, so that no secret reaches the job's log.

use super::view::{count_sentence, RunView};
use super::write::masked;
use super::ReportError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Commands printed at most for one run: GitHub shows no more than 50 annotations of a job.
/// Past it, the last line counts the rest.
pub const MAX_ANNOTATIONS: usize = 50;

/// The GitHub Actions job a command runs in, where annotations are wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The file `GITHUB_STEP_SUMMARY` names, which `summary.md` is appended to.
    pub step_summary: Option<PathBuf>,
}

/// The workflow commands of a run: for each broken rule, an `::error` (a known failure under
/// `--baseline`: a `::notice`) titled with the rule and its level, whose message gives the
/// rule's statement, the counts and the first case; for each rule warned of, a `::warning`;
/// one `::error` for the cases that errored without breaking a rule. Secrets are masked.
pub fn annotations(view: &RunView<'_>, secrets: &[String]) -> String {
    let mut commands: Vec<(&str, String, String)> = Vec::new();
    for group in &view.broken {
        let (case, finding, _) = group.example;
        let command = match group.known {
            Some(_) => "notice",
            None => "error",
        };
        let mut message = statement_first(&group.statement, &group.rule);
        if !group.spec.is_empty() {
            message.push_str(&format!("\nspec: {}", group.spec));
        }
        message.push_str(&format!("\n{}", count_sentence(group)));
        if let Some(reason) = &group.known {
            message.push_str(&format!(" (known: {reason})"));
        }
        message.push_str(&format!("\nfirst: {}: {}", case.id, finding.message));
        commands.push((
            command,
            format!("{} ({})", group.rule, group.level),
            message,
        ));
    }
    for warned in &view.warned {
        let mut message = statement_first(&warned.statement, warned.rule);
        if !warned.spec.is_empty() {
            message.push_str(&format!("\nspec: {}", warned.spec));
        }
        message.push_str(&format!(
            "\nwarned in {}\nfirst: {}: {}",
            super::plural(warned.cases.len(), "case"),
            warned.first.0,
            warned.first.1
        ));
        commands.push(("warning", format!("{} (should)", warned.rule), message));
    }
    if !view.errors.is_empty() {
        let ids: Vec<String> = view.errors.iter().map(|c| c.id.clone()).collect();
        let first = view.errors[0];
        commands.push((
            "error",
            format!(
                "covenant: {} without a verdict",
                super::plural(ids.len(), "case")
            ),
            format!(
                "{}\nfirst: {}: {}",
                super::words::case_list(&ids, 6),
                first.id,
                first.error.as_deref().unwrap_or("see summary.md")
            ),
        ));
    }
    if let Some(why) = view.reason.clone() {
        // What makes the verdict that no rule above says: the job's red needs its reason.
        commands.push((
            "error",
            format!("covenant: {}", super::view::headline(view.verdict)),
            why,
        ));
    }
    let mut text = String::new();
    let shown = if commands.len() > MAX_ANNOTATIONS {
        MAX_ANNOTATIONS - 1
    } else {
        commands.len()
    };
    for (command, title, message) in &commands[..shown] {
        text.push_str(&command_line(command, title, message, secrets));
    }
    if commands.len() > shown {
        let rest = commands.len() - shown;
        text.push_str(&command_line(
            "notice",
            "covenant",
            &format!(
                "{} more {} not annotated: summary.md and the JUnit report have them all",
                rest,
                if rest == 1 { "rule" } else { "rules" }
            ),
            secrets,
        ));
    }
    text
}

/// The rule's statement, or its id where the catalogue lacks it.
fn statement_first(statement: &str, rule: &str) -> String {
    match statement {
        "" => rule.to_owned(),
        s => s.to_owned(),
    }
}

/// `::command title=TITLE::MESSAGE` and a new line, each part masked, then escaped.
fn command_line(command: &str, title: &str, message: &str, secrets: &[String]) -> String {
    format!(
        "::{command} title={}::{}\n",
        escape_property(&masked(title, secrets)),
        escape_data(&masked(message, secrets))
    )
}

/// A command's message escaped as GitHub's runner reads it: `%`, CR and LF as `%25`, `%0D`
/// and `%0A` (a new line stays a new line in the annotation).
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property's value (`title=`) escaped: as a message, and `:` and `,`, which end a value, as
/// `%3A` and `%2C`.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Appends `summary.md` (as the run wrote it: fitted, secrets masked) to the job's step summary,
/// where GitHub shows it on the run's page; a job without one is left as it is.
pub fn append_step_summary(job: &Job, summary_md: &Path) -> Result<(), ReportError> {
    let Some(target) = &job.step_summary else {
        return Ok(());
    };
    let text = std::fs::read_to_string(summary_md).map_err(|source| ReportError::Read {
        path: summary_md.to_owned(),
        source,
    })?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(target)
        .and_then(|mut file| file.write_all(format!("{}\n", text.trim_end()).as_bytes()))
        .map_err(|source| ReportError::Write {
            path: target.clone(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{Catalogue, Level};
    use crate::report::tests::skipped;
    use crate::report::view::failed_case as case;
    use crate::verdict::RunRecord;
    use crate::verdict::{Finding, Verdict};

    #[test]
    fn messages_and_properties_are_escaped_as_the_runner_reads_them() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("50% a\nb: c, d"), "50%25 a%0Ab%3A c%2C d");
    }

    #[test]
    fn one_error_per_broken_rule_and_never_more_than_fifty_lines() {
        let cases: Vec<_> = (0..60)
            .map(|i| case(&format!("case.{i}"), &[&format!("RULE-{i}")]))
            .chain([case("case.again", &["RULE-0"]), skipped("s", "why")])
            .collect();
        let run = RunRecord::of_cases(cases);
        let text = annotations(&RunView::new(&run, Catalogue::embedded()), &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), MAX_ANNOTATIONS, "{text}");
        assert!(
            lines[0].starts_with("::error title=RULE-0 (must)::"),
            "{text}"
        );
        assert!(lines[0].contains("broken in 2 cases"), "{text}");
        assert!(
            lines[49].starts_with("::notice title=covenant::11 more rules not annotated"),
            "{text}"
        );
    }

    #[test]
    fn a_secret_in_a_finding_is_masked_before_it_is_escaped() {
        let mut leaky = case("leaky", &["RULE-X"]);
        leaky.findings[0].message = "the body echoed sk-live-abc, 100%".to_owned();
        let run = RunRecord::of_cases(vec![leaky]);
        let text = annotations(
            &RunView::new(&run, Catalogue::embedded()),
            &["sk-live-abc".to_owned()],
        );
        assert!(!text.contains("sk-live-abc"), "{text}");
        assert!(
            text.contains("first: leaky: the body echoed ***, 100%25"),
            "{text}"
        );
    }

    #[test]
    fn a_known_failure_is_a_notice_and_a_warning_a_warning() {
        let mut known = case("known.case", &["RULE-K"]);
        known.verdict = Verdict::Known;
        known.findings[0].known = Some("tracked in #12".to_owned());
        let mut warned = case("warned.case", &[]);
        warned.verdict = Verdict::Warn;
        warned.findings = vec![Finding::new("GEN-X", Level::Should, "a header is missing")];
        let run = RunRecord::of_cases(vec![known, warned]);
        let text = annotations(&RunView::new(&run, Catalogue::embedded()), &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            lines[0].starts_with("::notice title=RULE-K (must)::"),
            "{text}"
        );
        assert!(lines[0].contains("known failure in 1 case"), "{text}");
        assert!(lines[0].contains("tracked in #12"), "{text}");
        assert_eq!(
            lines[1],
            "::warning title=GEN-X (should)::GEN-X%0Awarned in 1 case%0Afirst: warned.case: a header is missing"
        );
    }
}
