//! The user's cases: case files (TOML, `cases/case.schema.json`) of a team's own flows,
//! fixtures and regressions, run beside the built-in suite as cases of suite `user`.
//!
//! Loading reads every `*.toml` of the directories given (`--case-dir`, the profile's `cases`)
//! and checks every name in them before anything is sent: a bad case file is the user's mistake
//! (exit 2, naming file, line and column), never a finding of the target. Each case's answers go
//! through [`crate::case::CaseCx::send`], so the generic checks and the operation's schemas judge
//! them exactly as they judge the built-in cases'. This module never knows the runner.

mod file;
mod steps;
mod template;

pub use file::{CaseStep, FileProblem, Spec};

use crate::case::{case_fn, Case};
use crate::exit::Fatal;
use crate::profile::Profile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The JSON Schema of a case file, for editors (`covenant schema case`).
pub const CASE_SCHEMA: &str = include_str!("../../../../cases/case.schema.json");

/// The cases of every case file in `dirs` (each directory's `*.toml`, in name order), checked
/// against the operations table, the catalogue and `profile`. Every mistake of every file is
/// named in one usage error.
pub fn load(dirs: &[PathBuf], profile: &Profile) -> Result<Vec<Case>, Fatal> {
    let mut specs: Vec<Spec> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for dir in dirs {
        for path in files(dir)? {
            let text = std::fs::read_to_string(&path).map_err(|e| {
                Fatal::Files(format!("cannot read case file {}: {e}", path.display()))
            })?;
            match file::parse(&text, &path, profile) {
                Ok(found) => {
                    for spec in found {
                        if specs.iter().any(|s| s.id == spec.id) {
                            problems.push(format!(
                                "{}: a second case {} (case ids are the file's name and the \
                                 case's: rename one)",
                                path.display(),
                                spec.id
                            ));
                        }
                        specs.push(spec);
                    }
                }
                Err(found) => problems.extend(found.iter().map(FileProblem::to_string)),
            }
        }
    }
    if !problems.is_empty() {
        return Err(Fatal::Usage(format!(
            "{} in case files; nothing was sent:\n  {}",
            match problems.len() {
                1 => "a mistake".to_owned(),
                n => format!("{n} mistakes"),
            },
            problems.join("\n  ")
        )));
    }
    Ok(specs.into_iter().map(case).collect())
}

/// The case files of `dir`, in name order.
fn files(dir: &Path) -> Result<Vec<PathBuf>, Fatal> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Fatal::Files(format!(
            "cannot read the case directory {}: {e}",
            dir.display()
        ))
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(Fatal::Files(format!(
            "the case directory {} holds no case file (*.toml)",
            dir.display()
        )));
    }
    Ok(files)
}

/// The plan's case of a checked spec: it needs what each step's operation needs, names every
/// rule its steps judge, and writes when a step does.
fn case(spec: Spec) -> Case {
    let first = spec.steps[0].operation;
    let mut rules: Vec<&'static str> = Vec::new();
    for step in &spec.steps {
        if !rules.contains(&step.rule) {
            rules.push(step.rule);
        }
    }
    let writes = spec.steps.iter().any(|s| s.write);
    let requests = spec.steps.len();
    let id = spec.id.clone();
    let fixtures = spec.fixtures.clone();
    let spec = Arc::new(spec);
    let steps = spec.steps.clone();
    let mut case = Case::new(
        &id,
        first,
        &rules,
        case_fn(move |cx| {
            let spec = spec.clone();
            Box::pin(async move { steps::run(cx, &spec).await })
        }),
    )
    .suite("user")
    .requests(requests);
    for step in &steps {
        case = case.also(step.operation);
    }
    case = case.needs(&fixtures);
    if writes {
        case = case.writes();
    }
    case
}
