//! Loading: the case files of the directories given read in name order, every mistake of every
//! file gathered into one usage error before anything is sent, and each checked spec made the
//! plan's case, which runs its steps through `CaseCx` like any built-in case.

use super::file::{self, FileProblem, Spec};
use super::steps;
use crate::case::{case_fn, Case};
use crate::exit::Fatal;
use crate::profile::Profile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
