//! `covenant compare` and `covenant merge`: commands that work on JSON reports alone, with no
//! target.

use super::publish::{publish, tell_written, Publication};
use clap::Args;
use covenant::baseline::Baseline;
use covenant::catalogue::Catalogue;
use covenant::exit::{self, Fatal};
use covenant::report::{
    behaviour_diff, compare, console, load, merge, traffic_diff, two_targets, write_compare,
    BehaviourDiff, ReportError,
};
use covenant::terminal::{note, out};
use covenant::verdict::{RunRecord, RunVerdict};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The earlier run's report.json.
    pub old: PathBuf,
    /// The later run's report.json.
    pub new: PathBuf,
    /// Where the comparison report is written (compare.md and compare.json; with one seed, the
    /// behaviour diff too: diff.json, diff.md and diff.html).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// With reports of one seed: exit 6 when the runs behaved differently (and nothing else set
    /// another code).
    #[arg(long)]
    pub fail_on_difference: bool,
    /// Take the two reports for two targets even where their base URLs differ only by port:
    /// the behaviour diff is labelled by target, not as old and new. What newly fails is
    /// listed, and exits 1, either way.
    #[arg(long)]
    pub as_targets: bool,
}

#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// The report.json of every shard of one run (same seed, same target, each K/N of one N
    /// once), or of parts of a run without shards.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Where the merged reports are written.
    #[arg(long, value_name = "DIR", default_value = covenant::settings::DEFAULT_REPORT_DIR)]
    pub report_dir: PathBuf,
    /// Coverage the merged run must reach, as for `covenant run` (MEASURE=PERCENT, repeatable or
    /// comma-separated: must, should, status, constraints); replaces what the shards were run
    /// with.
    #[arg(long, value_name = "MEASURE=PERCENT", value_delimiter = ',')]
    pub require_coverage: Vec<String>,
    /// Judge the merged run against a baseline of known failures, as `covenant run --baseline`
    /// does (needed when the shards were run with one).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// With --baseline: stale entries do not fail the merged run.
    #[arg(long, requires = "baseline")]
    pub accept_stale: bool,
    /// GitHub Actions annotations of the merged run and its summary.md appended to the step
    /// summary, as for `covenant run`; auto when GITHUB_ACTIONS=true.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = super::CiAnnotations::Auto)]
    pub ci_annotations: super::CiAnnotations,
}

/// `covenant compare OLD NEW [--report-dir DIR]`: prints what changed; exit 1 when something
/// newly fails, whatever the two targets are. With one seed the behaviour diff follows: of two
/// targets (their base URLs differ by more than a port, or `--as-targets`), or of one target
/// before and after an upgrade. A report of real traffic (`covenant proxy`, `covenant check`)
/// beside a run's has no case in common with it: it gets the behaviour diff by operation alone.
pub fn compare_command(args: CompareArgs) -> Result<u8, Fatal> {
    let old = load(&args.old).map_err(|e| Fatal::Files(e.to_string()))?;
    let new = load(&args.new).map_err(|e| Fatal::Files(e.to_string()))?;
    if old.is_traffic() != new.is_traffic() {
        return compare_kinds(&old, &new, &args);
    }
    let comparison = compare(&old, &new, Catalogue::embedded(), args.as_targets);
    out(&console::compare(&comparison));
    if let Some(dir) = &args.report_dir {
        let written = write_compare(&comparison, dir).map_err(|e| Fatal::Files(e.to_string()))?;
        tell_written(written);
    }
    let two = two_targets(&old, &new, args.as_targets);
    // Of two targets, "the new run" is either: one that cannot show what it did not run gives
    // its code where nothing newly fails.
    let code = match comparison.exit_code() {
        exit::SUCCESS if two => own(&old).worse(own(&new)).exit_code(),
        code => code,
    };
    if old.meta.seed != new.meta.seed {
        return Ok(code);
    }
    let mut diff = diff_of(&old, &new);
    if !two {
        // One target, one seed: where its behaviour changed, also where both runs keep the
        // contract.
        diff.a.target = format!("{} (old: {})", diff.a.target, args.old.display());
        diff.b.target = format!("{} (new: {})", diff.b.target, args.new.display());
    }
    out(&format!("\n{}", console::diff(&diff)));
    write_diff(&diff, &args)?;
    Ok(different(code, &diff, &args))
}

/// With `--report-dir`, the behaviour diff's files, named on the console.
fn write_diff(diff: &BehaviourDiff, args: &CompareArgs) -> Result<(), Fatal> {
    if let Some(dir) = &args.report_dir {
        let written = covenant::report::write_diff(diff, dir, &[])
            .map_err(|e| Fatal::Files(e.to_string()))?;
        tell_written(written);
    }
    Ok(())
}

/// `code`, or 6 where it is 0, the runs behaved differently and `--fail-on-difference` asks.
fn different(code: u8, diff: &BehaviourDiff, args: &CompareArgs) -> u8 {
    exit::different(code, args.fail_on_difference, !diff.is_empty())
}

/// A run's report beside one of real traffic: the behaviour diff by operation, as a
/// differential run prints it (their cases have no id in common, so no case newly fails). Exit
/// 6 with `--fail-on-difference` when they behaved differently; a run that is incomplete,
/// blocked by its profile or short of its coverage gives its own code first, since its diff
/// may miss what it did not run.
fn compare_kinds(a: &RunRecord, b: &RunRecord, args: &CompareArgs) -> Result<u8, Fatal> {
    let diff = diff_of(a, b);
    out(&console::diff(&diff));
    write_diff(&diff, args)?;
    Ok(different(own(a).worse(own(b)).exit_code(), &diff, args))
}

/// A run's verdict where it keeps the run from showing what it did not run (incomplete,
/// blocked by its profile, short of its coverage), else a pass.
fn own(run: &RunRecord) -> RunVerdict {
    match run.verdict() {
        verdict @ (RunVerdict::Incomplete
        | RunVerdict::ProfileProblem
        | RunVerdict::CoverageShort) => verdict,
        _ => RunVerdict::Pass,
    }
}

/// The behaviour diff of two reports: by operation where one is real traffic.
fn diff_of(a: &RunRecord, b: &RunRecord) -> BehaviourDiff {
    if a.is_traffic() || b.is_traffic() {
        traffic_diff(a, b, Catalogue::embedded())
    } else {
        behaviour_diff(a, b, Catalogue::embedded())
    }
}

/// `covenant merge A.json B.json ... --report-dir DIR`: one set of reports from the shards of
/// one run. Exit 1 when the merged run has a failure or an error, like the run itself.
pub fn merge_command(args: MergeArgs) -> Result<u8, Fatal> {
    let records = args
        .reports
        .iter()
        .map(|path| load(path))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Fatal::Files(e.to_string()))?;
    let required = args
        .require_coverage
        .iter()
        .map(|term| term.parse().map_err(Fatal::Usage))
        .collect::<Result<Vec<_>, _>>()?;
    let records_baselines: Vec<String> = records
        .iter()
        .filter_map(|r| Some(r.meta.baseline.as_ref()?.file.clone()))
        .collect();
    let mut merged = merge(records).map_err(|e| Fatal::Usage(name_inputs(e, &args.reports)))?;
    if !required.is_empty() {
        merged.meta.coverage_required = required;
        covenant::report::judge_requirements(&mut merged, Catalogue::embedded());
    }
    judge_known(&mut merged, &records_baselines, &args)?;
    // The merged run as `run` publishes its own: the broken rules, then the verdict line.
    publish(Publication {
        records: vec![(merged, Some(args.report_dir.clone()))],
        secrets: &[],
        github: super::github(args.ci_annotations),
        preface: Some(format!("merged {} reports\n", args.reports.len())),
        summary: true,
        diff: None,
    })
}

/// A merge error, followed by the files its report numbers refer to.
fn name_inputs(error: ReportError, paths: &[PathBuf]) -> String {
    let mut message = error.to_string();
    for (i, path) in paths.iter().enumerate() {
        message.push_str(&format!("\n  report #{}: {}", i + 1, path.display()));
    }
    message
}

/// `--baseline` on a merge: the merged run judged afresh against it (a shard saw only part of
/// the run, so its stale entries say nothing of the whole). Shards judged with a baseline must
/// be merged with one: their known failures would otherwise pass unjudged.
fn judge_known(
    merged: &mut RunRecord,
    shard_baselines: &[String],
    args: &MergeArgs,
) -> Result<(), Fatal> {
    let Some(path) = &args.baseline else {
        return match shard_baselines.first() {
            Some(file) => Err(Fatal::Usage(format!(
                "the shards were judged with the baseline {file}: pass --baseline {file} to \
                 covenant merge too"
            ))),
            None => Ok(()),
        };
    };
    let baseline =
        Baseline::read(path, Catalogue::embedded()).map_err(|e| Fatal::Usage(e.to_string()))?;
    // The merged run has every case its shards ran: an entry naming another is noted, not
    // refused (a --filter may have left it out).
    if let Err(e) = baseline.check_cases(merged.cases.iter().map(|c| c.id.as_str())) {
        note(&format!("note: {e}"));
    }
    let today = time::OffsetDateTime::now_utc().date();
    baseline.apply(merged, today, args.accept_stale);
    Ok(())
}
