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
use crate::report::{behaviour_diff, write_all};
use crate::settings::{Mode, RunSettings};
use crate::verdict::RunRecord;

/// A run with two `--profile`.
pub fn run_command(settings: &RunSettings) -> Result<u8, Fatal> {
    let sides = settings.per_target();
    if settings.mode.sends() {
        super::run::check_writable(&settings.report_dir)?;
    }
    let runtime = super::runtime(Some(2))?;
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
    let (record_a, record_b) =
        crate::runner::run_beside(&runtime, (&a, plan_a), (&b, plan_b), &sides[0]);
    // Either target's secrets are kept out of every report (two references of one seed share
    // theirs: each is looked for once).
    let mut secrets = a.run.target.secrets().to_vec();
    secrets.extend_from_slice(b.run.target.secrets());
    secrets.sort();
    secrets.dedup();
    runtime.block_on(async {
        a.shutdown().await;
        b.shutdown().await;
    });
    finish([&record_a, &record_b], &sides, settings, &secrets)
}

/// Writes each target's reports and the diff, prints both summaries and the diff, and maps the
/// two verdicts and the diff to an exit code.
fn finish(
    records: [&RunRecord; 2],
    sides: &[RunSettings],
    settings: &RunSettings,
    secrets: &[String],
) -> Result<u8, Fatal> {
    let failed = |e: crate::report::ReportError| Fatal::Files(format!("cannot write reports: {e}"));
    // Each target's reports on a thread of their own, the diff on this one: rendering them is
    // most of what a run does after its last case.
    let (reports, diff) = std::thread::scope(|scope| {
        let writers: Vec<_> = records
            .iter()
            .zip(sides)
            .map(|(record, side)| scope.spawn(|| write_all(record, &side.report_dir, secrets)))
            .collect();
        let diff = behaviour_diff(records[0], records[1], Catalogue::embedded());
        let written = crate::report::write_diff(&diff, &settings.report_dir, secrets);
        let reports: Vec<_> = writers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .chain([written])
            .collect();
        (reports, diff)
    });
    let mut written = Vec::new();
    for paths in reports {
        written.extend(paths.map_err(failed)?);
    }
    for ((name, record), side) in ["A", "B"].iter().zip(records).zip(sides) {
        out(&format!(
            "\n{name}: {} (reports in {})",
            record.meta.target,
            side.report_dir.display()
        ));
        out(&crate::report::console::summary(record));
    }
    out(&format!(
        "\n{}",
        crate::client::redact(&crate::report::console::diff(&diff), secrets)
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
