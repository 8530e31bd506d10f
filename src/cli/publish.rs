//! Publishing a finished record, once for every command that ends with one (`run`, a run stopped
//! before its first case, `proxy`, `check`, `merge`): its reports written, its summary printed,
//! its GitHub annotations and step summary where the job is on GitHub, the paths written named,
//! and the exit code of its verdict. Each record's view is built once here and laid out by every
//! format, so no command can print what another leaves out. The matrix, whose product is no
//! record, is published by [`publish_matrix`] through the same steps.

use covenant::catalogue::Catalogue;
use covenant::exit::Fatal;
use covenant::matrix::MatrixView;
use covenant::report::github::{self, Job};
use covenant::report::{BehaviourDiff, ReportError, RunView};
use covenant::terminal::{note, out};
use covenant::verdict::{RunRecord, RunVerdict};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::SystemTime;

/// When this process started (set by [`mark_start`]): bodies beside the reports written before
/// it are earlier runs', which [`sweep_bodies`] may remove.
static STARTED: LazyLock<SystemTime> = LazyLock::new(SystemTime::now);

/// Notes the start of this process's command, before it writes anything.
pub(super) fn mark_start() {
    LazyLock::force(&STARTED);
}

/// What a command publishes: its records (one; two for a differential run, each with the
/// directory its reports go to), and where its text goes.
pub(super) struct Publication<'a> {
    pub records: Vec<(RunRecord, Option<PathBuf>)>,
    /// Every secret to keep out of every file and line.
    pub secrets: &'a [String],
    /// The GitHub Actions job, where annotations are wanted.
    pub github: Option<Job>,
    /// Printed before the summaries: what the command judged (the traffic seen, the reports
    /// merged).
    pub preface: Option<String>,
    /// Whether the console summary is printed (a run stopped before its first case has its
    /// error said instead).
    pub summary: bool,
    /// The behaviour diff of a differential run, and the directory its files go to.
    pub diff: Option<(&'a BehaviourDiff, Option<&'a Path>)>,
}

/// Publishes every record and returns the exit code of the worse verdict (a differential run's
/// `--fail-on-difference` is the caller's).
pub(super) fn publish(publication: Publication<'_>) -> Result<u8, Fatal> {
    let Publication {
        records,
        secrets,
        github,
        preface,
        summary,
        diff,
    } = publication;
    let files = |e: ReportError| Fatal::Files(format!("cannot write reports: {e}"));
    // Each record as its reports and the console show it (the bodies the reports keep beside
    // them shown by reference), made once and in place.
    let (records, dirs): (Vec<RunRecord>, Vec<Option<PathBuf>>) = records
        .into_iter()
        .map(|(record, dir)| match &dir {
            Some(d) => covenant::report::as_shown(record, d, secrets).map(|r| (r, dir)),
            None => Ok((record, dir)),
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(files)?
        .into_iter()
        .unzip();
    let catalogue = Catalogue::embedded();
    let views: Vec<RunView<'_>> = records.iter().map(|r| RunView::new(r, catalogue)).collect();
    let mut written = write(&views, &dirs, diff, secrets).map_err(files)?;
    sweep_bodies(&dirs, &written);
    if let Some(preface) = preface {
        out(&preface);
    }
    let two = diff.is_some();
    if summary {
        for ((name, view), dir) in ["A", "B"].iter().zip(&views).zip(&dirs) {
            if let (true, Some(dir)) = (two, dir) {
                out(&format!(
                    "\n{name}: {} (reports in {})",
                    view.record.meta.target,
                    dir.display()
                ));
            }
            out(&covenant::secret::redact(
                &covenant::report::console::summary(view),
                secrets,
            ));
        }
    }
    if let Some((diff, _)) = diff {
        out(&format!(
            "\n{}",
            covenant::secret::redact(&covenant::report::console::diff(diff), secrets)
        ));
    }
    if let Some(job) = &github {
        for (view, dir) in views.iter().zip(&dirs) {
            out(&github::annotations(view, secrets));
            if let Some(dir) = dir {
                github::append_step_summary(job, &dir.join("summary.md"))
                    .map_err(|e| Fatal::Files(format!("cannot write the step summary: {e}")))?;
            }
        }
    }
    tell_written(std::mem::take(&mut written));
    let verdict = views
        .iter()
        .map(|v| v.verdict)
        .reduce(RunVerdict::worse)
        .unwrap_or(RunVerdict::Pass);
    Ok(verdict.exit_code())
}

/// Each view's reports on a thread of its own, the diff's on this one: rendering them is most
/// of what a run does after its last case.
fn write(
    views: &[RunView<'_>],
    dirs: &[Option<PathBuf>],
    diff: Option<(&BehaviourDiff, Option<&Path>)>,
    secrets: &[String],
) -> Result<Vec<PathBuf>, ReportError> {
    let reports: Vec<Result<Vec<PathBuf>, ReportError>> = std::thread::scope(|scope| {
        let writers: Vec<_> = views
            .iter()
            .zip(dirs)
            .filter_map(|(view, dir)| Some((view, dir.as_deref()?)))
            .map(|(view, dir)| {
                scope.spawn(move || covenant::report::write_view(view, dir, secrets))
            })
            .collect();
        let diff = match diff {
            Some((diff, Some(root))) => Some(covenant::report::write_diff(diff, root, secrets)),
            _ => None,
        };
        writers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .chain(diff)
            .collect()
    });
    let mut written = Vec::new();
    for paths in reports {
        written.extend(paths?);
    }
    Ok(written)
}

/// Removes from each report directory the long bodies earlier runs wrote there that none of the
/// reports just written names (see [`covenant::body_file::sweep`]). What cannot be removed is
/// said and left: the reports are written, and they are what the run is judged by.
fn sweep_bodies(dirs: &[Option<PathBuf>], written: &[PathBuf]) {
    for dir in dirs.iter().flatten() {
        if let Err(e) = covenant::body_file::sweep(dir, *STARTED, written) {
            note(&format!(
                "warning: cannot remove the bodies earlier runs left in {}: {e}",
                dir.join("bodies").display()
            ));
        }
    }
}

/// Publishes a matrix as a record is published: its files (`matrix.json`, `matrix.md`,
/// `matrix.html`) written into `dir` from its one view, its lines printed, the paths written
/// named; exit 0, since a matrix states the verdicts of its reports and is none itself.
pub(super) fn publish_matrix(view: &MatrixView<'_>, dir: &Path) -> Result<u8, Fatal> {
    let written = covenant::matrix::write(view, dir).map_err(|e| Fatal::Files(e.to_string()))?;
    out(&covenant::matrix::console::summary(view));
    tell_written(written);
    Ok(covenant::exit::SUCCESS)
}

/// Names each file written, one a line on stderr, as every command that writes reports does.
pub(super) fn tell_written(paths: Vec<PathBuf>) {
    for path in paths {
        note(&format!("report: {}", path.display()));
    }
}
