//! Reports: plain data in, files and console text out. Three products: a finished run
//! ([`RunRecord`]), the comparison of two runs ([`Comparison`], `covenant compare`) and the
//! behaviour diff of two targets ([`BehaviourDiff`]); plus `covenant merge`, which works on JSON
//! reports alone.
//!
//! What a product holds is worked out once, by a module that renders nothing ([`compare()`],
//! [`behaviour_diff`], the coverage, the gap observations, the latency), and what it says, once,
//! by its [`view`] (the counts sentence, the broken rules, the skipped cases by reason, the two
//! runs side by side, the diff's English). Each output format is one module that lays out every
//! view it has a file or a text for, with one signature per product: the run through
//! [`Reporter`], `compare(&Comparison) -> String` and `diff(&BehaviourDiff) -> String`.
//!
//! | format | run | compare | diff |
//! |---|---|---|---|
//! | [`console`] | `summary` | `compare` | `diff` |
//! | [`junit`] | `junit.xml` | | |
//! | [`json`] | `report.json` | `compare.json` | `diff.json` |
//! | [`html`] | `summary.html` | | `diff.html` |
//! | [`markdown`] | `summary.md` | `compare.md` | `diff.md` |
//! | [`github`] | workflow commands, the step summary | | |
//!
//! A reporter reads plain data and never sends a request; the runner hands it a finished
//! record. Everything a reporter writes passes through [`redact`] first, so a secret that
//! slipped into a body or header never reaches a file, whatever the format escapes.

#[cfg(test)]
mod agreement;
mod bodies;
mod compare;
mod coverage;
mod diff;
mod gaps;
mod latency;
mod merge;
mod redact;
mod traffic_diff;
mod words;

pub mod trace;

pub mod view;

pub mod console;
pub mod github;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;

use crate::style::plural;
pub use compare::{compare, two_targets, CaseChange, Comparison, RuleChange};
pub use coverage::{
    judge_requirements, measure, rule_coverage, status_coverage, Measured, OperationStatuses,
    RuleCoverage, RuleStatus,
};
pub use diff::{
    behaviour_diff, Alike, Aspect, BehaviourDiff, Difference, GapDifference, NotCompared,
    OperationDifferences, Side,
};
pub use gaps::{
    field_list, fill_under, gap_observations, merged_types, stated_limit, Example, GapObservations,
    Observation, Subject,
};
pub use html::Html;
pub use json::Json;
pub use junit::Junit;
pub use latency::{latency_by_operation, Latency};
pub use markdown::Markdown;
pub use merge::merge;
pub use traffic_diff::traffic_diff;
pub use view::{
    broken_rules, case_rules, count_sentence, errors_apart, lead_rule, BrokenRule, CaseRule,
    RunView,
};

use crate::catalogue::Catalogue;
use crate::verdict::RunRecord;
use std::path::{Path, PathBuf};

/// One report format: a finished run's view in, the text of one file out.
///
/// Reporters lay out the whole view at once: it is built once per publish from the settled
/// record ([`RunView::new`]), and a format decides nothing of what it says (which cases failed,
/// the counts, the coverage, the broken rules).
pub trait Reporter {
    /// The file this format is written to inside the report directory.
    fn file_name(&self) -> &'static str;
    /// The file's text.
    fn render(&self, view: &RunView<'_>) -> Result<String, ReportError>;
}

/// Covenant could not read, render, merge or write a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot create the report directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: not a covenant JSON report ({message}); pass a report.json written by `covenant run` or `covenant merge`")]
    Malformed {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("cannot render {format}: {message}")]
    Render {
        format: &'static str,
        message: String,
    },
    #[error("cannot merge: no reports given")]
    NothingToMerge,
    #[error("cannot merge: report #{index} has {what} {found}, but report #1 has {expected}; only shards of one run (same seed, same target) can be merged")]
    Mismatch {
        /// 1-based position of the offending report in the input.
        index: usize,
        what: &'static str,
        expected: String,
        found: String,
    },
    #[error("cannot merge: report #{index} has meta.shard = {value:?}, which is not K/N with 1 <= K <= N")]
    BadShard { index: usize, value: String },
    #[error("cannot merge: report #{sharded} is shard {shard} of a run, but report #{unsharded} is a whole run (no shard); merge the shards of one run alone")]
    ShardMixedWithWhole {
        sharded: usize,
        shard: String,
        unsharded: usize,
    },
    #[error("cannot merge: report #{index} is shard {found}, but report #{first} is shard {expected}; the shards of one run are all K/N with the same N")]
    ShardCounts {
        index: usize,
        found: String,
        first: usize,
        expected: String,
    },
    #[error("cannot merge: reports #{first} and #{second} are both shard {shard}; pass each shard's report once")]
    DuplicateShard {
        shard: String,
        first: usize,
        second: usize,
    },
    #[error("cannot merge: missing {missing} ({given} of {count} shards given); pass the report of every shard of the run, each run with the same --seed")]
    MissingShards {
        /// `shard 2/2`, or `shards 2/3, 3/3`.
        missing: String,
        given: usize,
        count: u32,
    },
    #[error("cannot merge: case {id} appears in reports #{first} and #{second}; shards of one run never share a case")]
    DuplicateCase {
        id: String,
        first: usize,
        second: usize,
    },
    #[error("cannot merge: report #{index} has meta.{field} = {value:?}, which is not an RFC 3339 timestamp")]
    BadTimestamp {
        index: usize,
        field: &'static str,
        value: String,
    },
}

/// The heading of the cases whose every failure the baseline holds.
const KNOWN_TITLE: &str = "Known: held by the baseline (they do not fail the run)";

/// The four formats `covenant run` writes, in the order they are written.
pub fn reporters() -> [&'static dyn Reporter; 4] {
    [&Junit, &Json, &Html, &Markdown]
}

/// Writes `junit.xml`, `report.json`, `summary.html` and `summary.md` into `dir` (created if
/// missing), with every occurrence of each secret replaced by `***`. Returns the paths written.
pub fn write_all(
    run: &RunRecord,
    dir: &Path,
    secrets: &[String],
) -> Result<Vec<PathBuf>, ReportError> {
    write_all_with(run, dir, secrets, Catalogue::embedded())
}

/// [`write_all`] against a given catalogue (tests use a small, fixed one).
pub fn write_all_with(
    run: &RunRecord,
    dir: &Path,
    secrets: &[String],
    catalogue: &Catalogue,
) -> Result<Vec<PathBuf>, ReportError> {
    let run = redact::record(run, secrets);
    let run = bodies::fold(&run, dir)?;
    write_view(&RunView::new(&run, catalogue), dir, secrets)
}

/// Writes the view of a run shown as its reports show it ([`as_shown`]) in every format of
/// [`reporters`] into `dir`, secrets replaced. Returns the paths written.
pub fn write_view(
    view: &RunView<'_>,
    dir: &Path,
    secrets: &[String],
) -> Result<Vec<PathBuf>, ReportError> {
    reporters()
        .iter()
        .map(|reporter| {
            let text = reporter.render(view)?;
            write_file(dir, reporter.file_name(), &text, secrets)
        })
        .collect()
}

/// The record as the reports written into `dir` show it, for the console to show it the same
/// way: secrets replaced, and each body too long to show inline written beside the reports and
/// shown by reference (`bodies/<hash>`). Made once, in place (a record holds every case of the
/// run): [`write_all`] then finds nothing left to replace or fold, and copies nothing.
pub fn as_shown(run: RunRecord, dir: &Path, secrets: &[String]) -> Result<RunRecord, ReportError> {
    let redacted = match redact::record(&run, secrets) {
        std::borrow::Cow::Borrowed(_) => None,
        std::borrow::Cow::Owned(redacted) => Some(redacted),
    };
    let mut run = redacted.unwrap_or(run);
    bodies::fold_in_place(&mut run, dir)?;
    Ok(run)
}

/// Writes one file into `dir` (created if missing), secrets replaced.
pub fn write_file(
    dir: &Path,
    name: &str,
    text: &str,
    secrets: &[String],
) -> Result<PathBuf, ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::CreateDir {
        path: dir.to_owned(),
        source,
    })?;
    let path = dir.join(name);
    let masked = mask(text, secrets);
    let text = masked.as_deref().unwrap_or(text);
    std::fs::write(&path, text).map_err(|source| ReportError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// `text` with each secret, raw or in any escaped form a format gives it, replaced by `***`.
fn masked(text: &str, secrets: &[String]) -> String {
    mask(text, secrets).unwrap_or_else(|| text.to_owned())
}

/// [`masked`], or `None` when `text` holds no secret (a report is not copied to be written).
fn mask(text: &str, secrets: &[String]) -> Option<String> {
    let forms: Vec<String> = secrets
        .iter()
        .filter(|s| !s.is_empty())
        .flat_map(|s| escaped_forms(s))
        .collect();
    crate::secret::Redactor::new(&forms).mask(text)
}

/// The secret as it may appear in each format: raw, JSON-escaped, HTML-escaped,
/// XML-escaped in attributes (all five entities) and in text (`&`, `<`, `>` only), and
/// Markdown-escaped.
fn escaped_forms(secret: &str) -> Vec<String> {
    let json = serde_json::to_string(secret).unwrap_or_default();
    let json = json
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(secret)
        .to_owned();
    let html = html::escape(secret);
    let xml_attribute = html.replace("&#39;", "&apos;");
    let xml_text = secret
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let markdown = markdown::text(secret);
    let mut forms = vec![
        secret.to_owned(),
        json,
        html,
        xml_attribute,
        xml_text,
        markdown,
    ];
    forms.sort();
    forms.dedup();
    forms
}

/// Writes the behaviour diff as `diff.json`, `diff.md` and `diff.html` into `dir` (created if
/// missing), secrets replaced. Returns the paths written.
pub fn write_diff(
    diff: &BehaviourDiff,
    dir: &Path,
    secrets: &[String],
) -> Result<Vec<PathBuf>, ReportError> {
    [
        ("diff.json", json::diff(diff)),
        ("diff.md", markdown::diff(diff)),
        ("diff.html", html::diff(diff)),
    ]
    .into_iter()
    .map(|(name, text)| write_file(dir, name, &text, secrets))
    .collect()
}

/// Writes the comparison as `compare.md` and `compare.json` into `dir` (created if missing).
/// Returns the paths written.
pub fn write_compare(comparison: &Comparison, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    [
        ("compare.md", markdown::compare(comparison)),
        ("compare.json", json::compare(comparison)),
    ]
    .into_iter()
    .map(|(name, text)| write_file(dir, name, &text, &[]))
    .collect()
}

/// Reads a JSON report written by `covenant run` or `covenant merge`.
pub fn load(path: &Path) -> Result<RunRecord, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut record: RunRecord =
        serde_json::from_str(&text).map_err(|e| ReportError::Malformed {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
    record.settle();
    Ok(record)
}

/// Fails unless reports can be written in `dir` (created if missing): checked before a run sends
/// anything, so that an unwritable directory is found before fixtures are deleted, not after.
pub fn writable(dir: &Path) -> std::io::Result<()> {
    static CHECKS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let probe = dir.join(format!(".covenant-write-check-{}-{n}", std::process::id()));
    std::fs::create_dir_all(dir)?;
    std::fs::write(&probe, b"")?;
    std::fs::remove_file(&probe)
}

/// The exchange that shows a finding: the one it points at, or the case's only exchange.
fn shown_exchange<'a>(
    case: &'a crate::verdict::CaseResult,
    finding: &crate::verdict::Finding,
) -> Option<&'a crate::verdict::Exchange> {
    match finding.exchange {
        Some(index) => case.exchanges.get(index),
        None if case.exchanges.len() == 1 => case.exchanges.first(),
        None => None,
    }
}

/// `a, b, c and 4 more`.
fn case_list(cases: &[String], named: usize) -> String {
    let mut text = cases
        .iter()
        .take(named)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if cases.len() > named {
        text.push_str(&format!(" and {} more", cases.len() - named));
    }
    text
}

/// The text with its first letter in upper case.
fn capitalised(title: &str) -> String {
    let mut chars = title.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::view::failed_case as case;
    use crate::verdict::{CaseResult, Verdict};

    /// A case skipped for `reason`.
    pub(crate) fn skipped(id: &str, reason: &str) -> CaseResult {
        let mut case = case(id, &[]);
        case.verdict = Verdict::Skip;
        case.skip_reason = Some(reason.to_owned());
        case
    }

    #[test]
    fn every_format_says_each_skip_reason_once_with_its_cases() {
        let key = "the profile does not give finops.other_organization_id (tenancy)";
        let run = RunRecord::of_cases(vec![
            skipped("tenant.a", key),
            skipped("velocity.card-scoped", "the profile has no card_id fixture"),
            skipped("tenant.b", key),
            skipped("tenant.c", key),
        ]);
        let catalogue = Catalogue::embedded();
        let view = RunView::new(&run, catalogue);
        let md = Markdown.render(&view).expect("summary.md");
        let html = Html.render(&view).expect("summary.html");
        let console = console::summary(&view);
        for (name, text) in [("md", &md), ("html", &html), ("console", &console)] {
            assert_eq!(text.matches("(tenancy)").count(), 1, "{name}: {text}");
            assert!(text.contains("tenant.c"), "{name}: {text}");
        }
        assert!(md.contains("### Skipped (4)"), "{md}");
        assert!(
            md.contains("- **3 cases**: the profile does not give"),
            "{md}"
        );
        assert!(
            md.contains("  - `tenant.a`, `tenant.b`, `tenant.c`\n"),
            "{md}"
        );
        assert!(
            md.contains("- **`velocity.card-scoped`**: the profile has no card\\_id fixture"),
            "{md}"
        );
        assert!(
            html.contains("<details><summary>3 cases</summary>"),
            "{html}"
        );
    }
}
