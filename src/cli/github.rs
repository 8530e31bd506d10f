//! GitHub Actions: whether a command prints its workflow annotations, and the step summary it
//! writes to.

use clap::ValueEnum;

/// `--ci-annotations` values: workflow commands of GitHub Actions on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CiAnnotations {
    /// When `GITHUB_ACTIONS=true` (GitHub sets it in every job).
    Auto,
    Always,
    Never,
}

/// Whether GitHub Actions annotations are printed: `--ci-annotations`, or with `auto`, whether
/// GitHub set `GITHUB_ACTIONS=true`; and the step summary file GitHub names, if any.
pub fn github(choice: CiAnnotations) -> Option<covenant::report::github::Job> {
    let on = match choice {
        CiAnnotations::Always => true,
        CiAnnotations::Never => false,
        CiAnnotations::Auto => std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"),
    };
    on.then(|| covenant::report::github::Job {
        step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
            .filter(|p| !p.is_empty())
            .map(std::path::PathBuf::from),
    })
}
