//! `covenant run --profile A.toml --profile B.toml`: one seeded plan against two targets at once,
//! each judged on its own as in a single run, and the behaviour diff of the two.
//!
//! Each target gets its own preflight, fixture ledger and report directory (`DIR/a`, `DIR/b`);
//! the diff goes beside them (`DIR/diff.json`, `diff.md`, `diff.html`). The exit code is that of
//! the worse verdict; `--fail-on-difference` turns a difference into exit 6 where both verdicts
//! left 0.

use crate::catalogue::Catalogue;
use crate::console::{note, out};
use crate::exit::{self, Fatal};
use crate::report::{behaviour_diff, write_all, write_file, BehaviourDiff, ReportError};
use crate::runner::Finisher;
use crate::settings::{Mode, RunSettings};
use crate::verdict::RunRecord;
use std::path::PathBuf;

/// A run with two `--profile`.
pub fn run_command(settings: &RunSettings) -> Result<u8, Fatal> {
    let sides = settings.per_target();
    if settings.mode.sends() {
        super::run::check_writable(&settings.report_dir)?;
    }
    let runtime = super::runtime(Some(2 * super::WORKERS_PER_TARGET))?;
    let (a, b) = runtime.block_on(async {
        tokio::try_join!(
            crate::runner::prepare(&sides[0]),
            crate::runner::prepare(&sides[1])
        )
    })?;
    if a.run.target.base_url() == b.run.target.base_url() {
        let url = a.run.target.base_url().to_string();
        runtime.block_on(async {
            a.shutdown().await;
            b.shutdown().await;
        });
        return Err(Fatal::Usage(format!(
            "both profiles name the target {url}: a differential run compares two targets; give \
             each profile the base_url of its own"
        )));
    }
    // One plan for both: the suite's cases depend on the generation settings alone (the seed,
    // the cases per operation), which the two share; each case reads its target's profile as it
    // runs.
    let cases = crate::suite::cases(&a.run, settings.selection.generated_only);
    let plan_a = crate::runner::select(cases, &settings.selection);
    let plan_b = plan_a.clone();
    match settings.mode {
        Mode::List => {
            let list: String = plan_a.iter().map(|c| format!("{}: test\n", c.id)).collect();
            out(&list);
            return Ok(exit::SUCCESS);
        }
        Mode::DryRun => {
            for (name, prepared, plan) in [("A", &a, &plan_a), ("B", &b, &plan_b)] {
                out(&format!("{name}: {}\n", prepared.target_label));
                out(&crate::runner::describe(plan, &prepared.run));
            }
            return Ok(exit::SUCCESS);
        }
        Mode::Run => {}
    }
    note(&format!(
        "covenant {}: {} cases against A at {} and B at {}, side by side (seed {}, {} generated \
         per operation)",
        env!("CARGO_PKG_VERSION"),
        plan_a.len(),
        a.run.target.base_url(),
        b.run.target.base_url(),
        settings.generation.seed,
        settings.generation.cases_per_operation
    ));
    // Either target's secrets are kept out of every report (two references of one seed share
    // theirs: each is looked for once).
    let mut secrets = a.run.target.secrets().to_vec();
    secrets.extend_from_slice(b.run.target.secrets());
    secrets.sort();
    secrets.dedup();
    // Each target's reports are written as soon as its run ends, the other's run perhaps still
    // going: rendering them is most of what a run does after its last case.
    let writer = |side: &RunSettings| -> Finisher<Written> {
        let (dir, secrets) = (side.report_dir.clone(), secrets.clone());
        Box::new(move |record: &RunRecord| write_all(record, &dir, &secrets))
    };
    let [(record_a, written_a), (record_b, written_b)] = crate::runner::run_beside(
        &runtime,
        (&a, plan_a),
        (&b, plan_b),
        &sides[0],
        [writer(&sides[0]), writer(&sides[1])],
    );
    runtime.block_on(async {
        a.shutdown().await;
        b.shutdown().await;
    });
    let diff = behaviour_diff(&record_a, &record_b, Catalogue::embedded());
    let failed = |e: ReportError| Fatal::Files(format!("cannot write reports: {e}"));
    let mut written = Vec::new();
    for paths in [
        written_a,
        written_b,
        write_diff(&diff, &settings.report_dir, &secrets),
    ] {
        written.extend(paths.map_err(failed)?);
    }
    finish(
        [&record_a, &record_b],
        &sides,
        settings,
        &diff,
        &secrets,
        &written,
    )
}

/// What writing a target's reports gave: the files, or why they could not be written.
type Written = Result<Vec<PathBuf>, ReportError>;

/// Prints both summaries, the diff and the files written, and maps the two verdicts and the
/// diff to an exit code.
fn finish(
    records: [&RunRecord; 2],
    sides: &[RunSettings],
    settings: &RunSettings,
    diff: &BehaviourDiff,
    secrets: &[String],
    written: &[PathBuf],
) -> Result<u8, Fatal> {
    for ((name, record), side) in ["A", "B"].iter().zip(records).zip(sides) {
        out(&format!(
            "\n{name}: {} (reports in {})",
            record.meta.target,
            side.report_dir.display()
        ));
        out(&crate::runner::summary(record));
    }
    out(&format!(
        "\n{}",
        crate::target::redact(&diff.render_text(), secrets)
    ));
    for path in written {
        note(&format!("report: {}", path.display()));
    }
    let code = records[0].verdict().worse(records[1].verdict()).exit_code();
    Ok(
        if code == exit::SUCCESS && settings.fail_on_difference && !diff.is_empty() {
            exit::DIFFERENT
        } else {
            code
        },
    )
}

/// Writes `diff.json`, `diff.md` and `diff.html` into `dir`, secrets replaced.
pub fn write_diff(
    diff: &BehaviourDiff,
    dir: &std::path::Path,
    secrets: &[String],
) -> Result<Vec<PathBuf>, crate::report::ReportError> {
    [
        ("diff.json", diff.render_json()),
        ("diff.md", diff.render_markdown()),
        ("diff.html", diff.render_html()),
    ]
    .into_iter()
    .map(|(name, text)| write_file(dir, name, &text, secrets))
    .collect()
}
