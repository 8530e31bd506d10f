//! Reports written to files: each format's text with every secret masked, in every escaped
//! form a format gives it; a JSON report read back.

use super::{bodies, html, markdown, redact};
use super::{json, RunView};
use super::{BehaviourDiff, Comparison, Html, Json, Junit, Markdown, ReportError, Reporter};
use crate::catalogue::Catalogue;
use crate::verdict::RunRecord;
use std::path::{Path, PathBuf};

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
pub(crate) fn masked(text: &str, secrets: &[String]) -> String {
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

/// The secret as it may appear in each format: raw, JSON-escaped, HTML-escaped as the templates
/// write it, XML-escaped as quick-junit writes it in attributes (all five entities) and in text
/// (`&`, `<`, `>` only), and Markdown-escaped.
fn escaped_forms(secret: &str) -> Vec<String> {
    let json = serde_json::to_string(secret).unwrap_or_default();
    let json = json
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(secret)
        .to_owned();
    let html = html::escaped(secret);
    let xml_attribute = quick_xml::escape::escape(secret).into_owned();
    let xml_text = quick_xml::escape::partial_escape(secret).into_owned();
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

#[cfg(test)]
mod tests {
    use super::masked;

    #[test]
    fn escaped_forms_of_a_secret_are_masked() {
        let secrets = vec!["a<b\"c".to_owned()];
        let out = masked(
            r#"raw a<b"c json a<b\"c html a&#60;b&#34;c xml a&lt;b&quot;c text a&lt;b"c"#,
            &secrets,
        );
        assert_eq!(out, "raw *** json *** html *** xml *** text ***");
    }

    #[test]
    fn empty_secret_masks_nothing() {
        assert_eq!(masked("abc", &[String::new()]), "abc");
    }
}
