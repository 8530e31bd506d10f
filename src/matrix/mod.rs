//! The conformance matrix (`covenant matrix`): the report.json of several runs, each of one
//! implementation, side by side, for the owner of the specification: every rule of the catalogue
//! with each implementation's result on it, and, most of all, where the spec is silent and the
//! implementations chose differently (which is where the spec should say more).
//!
//! It reads reports as data and nothing else: it needs no target, sends nothing, and judges
//! nothing again; a report of another covenant version is read as far as it goes (a rule that
//! version did not have is "not in that version"). [`read`] turns one file into a [`Run`],
//! [`build`] lines runs up into a [`Matrix`], [`view`] works out once every list, count and
//! order the outputs show, and one module per output lays that view out: [`json`]
//! (`matrix.json`, its schema `schemas/matrix.json`), [`md`] (`matrix.md`, sized for a pull
//! request comment), [`html`] (`matrix.html`) and [`console`] (the command's lines).

#[cfg(test)]
mod agreement;
mod choices;
pub mod console;
pub mod html;
pub mod json;
pub mod md;
mod read;
pub mod view;

pub use read::read;
pub use view::MatrixView;

use crate::catalogue::{Catalogue, Level};
use crate::report::Subject;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A report covenant cannot put in a matrix; each names its file and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a covenant report ({why}); pass the report.json a `covenant run`, `covenant merge`, `covenant proxy` or `covenant check` wrote")]
    NotAReport { path: PathBuf, why: String },
    #[error("{path}: the report of shard {shard} of a run; merge the shards of the run first (`covenant merge`) and pass the merged report.json")]
    Shard { path: PathBuf, shard: String },
    #[error(
        "--name {0:?}: expected LABEL=REPORT.json, e.g. --name staging=reports/staging/report.json"
    )]
    Label(String),
    #[error("no report given: pass the report.json of each implementation")]
    Nothing,
    #[error(transparent)]
    Write(#[from] crate::report::ReportError),
}

/// An implementation's result on one rule, from its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Outcome {
    /// A finding at `must` level names the rule.
    #[serde(rename = "fail")]
    Fail,
    /// Only findings at `should` level name it.
    #[serde(rename = "warn")]
    Warn,
    /// It fails, but the baseline of known failures the run was judged with holds every
    /// failure of it.
    #[serde(rename = "known")]
    Known,
    /// No response was judged against it: its cases ended in an error, or beside a refused
    /// baseline.
    #[serde(rename = "inconclusive")]
    Inconclusive,
    /// Responses were judged against it and none broke it.
    #[serde(rename = "pass")]
    Pass,
    /// Its cases were skipped (a fixture the profile lacks, ...).
    #[serde(rename = "skipped")]
    Skipped,
    /// No case of the run judged it (filtered out, not observable, not in the traffic).
    #[serde(rename = "not run")]
    NotRun,
    /// The covenant version that wrote the report did not have the rule.
    #[serde(rename = "not in that version")]
    NotInVersion,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Fail => "fail",
            Outcome::Warn => "warn",
            Outcome::Known => "known",
            Outcome::Inconclusive => "inconclusive",
            Outcome::Pass => "pass",
            Outcome::Skipped => "skipped",
            Outcome::NotRun => "not run",
            Outcome::NotInVersion => "not in that version",
        }
    }

    /// The CSS class and short word of a cell.
    pub fn class(self) -> &'static str {
        match self {
            Outcome::NotRun => "notrun",
            Outcome::NotInVersion => "absent",
            other => other.as_str(),
        }
    }
}

/// One implementation's result on one rule: where it failed, the first failing case and its
/// message (or why it has no evidence).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub result: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Cell {
    pub fn of(result: Outcome) -> Cell {
        Cell {
            result,
            case: None,
            message: None,
        }
    }
}

/// One choice a run showed where the spec is silent: a gap, what was looked at (`success
/// status` of an operation) and the value seen.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Seen {
    pub gap: String,
    pub subject: Subject,
    pub what: String,
    pub value: String,
}

/// One report, as far as the matrix reads it.
#[derive(Debug, Clone)]
pub struct Run {
    /// The file it was read from.
    pub path: PathBuf,
    /// The name the command line gave it (`--name`).
    pub label: Option<String>,
    /// The name its profile gives (`name`).
    pub profile_name: Option<String>,
    pub target: String,
    pub covenant_version: String,
    pub seed: Option<u64>,
    /// When the run started (RFC 3339).
    pub date: Option<String>,
    /// The verdict the report states (`unknown` when it states none).
    pub verdict: String,
    /// Whether it judged real traffic (`covenant proxy`, `covenant check`).
    pub traffic: bool,
    /// Its result on each rule it knew.
    pub results: BTreeMap<String, Cell>,
    /// Whether the report lists every rule its version had (a rule it lacks was not in that
    /// version); without the list a rule it does not name was not run.
    pub lists_rules: bool,
    /// The gaps' texts as the report gives them.
    pub gap_texts: BTreeMap<String, String>,
    /// What it chose where the spec is silent.
    pub seen: Vec<Seen>,
}

/// A column of the matrix.
#[derive(Debug, Clone, Serialize)]
pub struct Implementation {
    pub name: String,
    pub target: String,
    pub covenant_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    pub verdict: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub traffic: bool,
    /// The report.json it was read from, as given.
    pub report: String,
    /// Its summary.html, when it sits beside its report: relative to the matrix's directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Must rules it kept (pass) and broke (fail).
    pub must_kept: usize,
    pub must_broken: usize,
    /// Should rules it departed from (warn).
    pub should_warned: usize,
}

/// A row of the matrix: a rule of the catalogue and each implementation's result on it, in
/// column order.
#[derive(Debug, Clone, Serialize)]
pub struct RuleRow {
    pub id: String,
    /// The prefix of its id (`RCV`, `BPAG`).
    pub area: String,
    /// The section of the spec it comes from.
    pub section: String,
    pub level: Level,
    pub statement: String,
    #[serde(serialize_with = "by_name")]
    pub results: Vec<(String, Cell)>,
}

/// One place where the spec is silent (a gap, and what was looked at there), and what each
/// implementation chose.
#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    pub gap: String,
    pub text: String,
    #[serde(flatten)]
    pub subject: Subject,
    pub what: String,
    /// How many different choices the implementations that showed something made.
    pub distinct: usize,
    /// Per implementation that showed something, the values it showed.
    #[serde(serialize_with = "by_name")]
    pub choices: Vec<(String, Vec<String>)>,
}

/// `items` joined with `, ` as far as `chars` characters hold them, the rest counted: `a, b
/// and 3 more`. The first item is always shown whole.
pub fn listed<S: AsRef<str>>(items: &[S], chars: usize) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        let item = item.as_ref();
        if i > 0 && out.len() + 2 + item.len() > chars {
            return format!("{out} and {} more", items.len() - i);
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(item);
    }
    out
}

/// The whole matrix: `matrix.json` as it is written.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    pub covenant_version: String,
    pub implementations: Vec<Implementation>,
    pub rules: Vec<RuleRow>,
    /// Ranked by how many different choices were made, the most first.
    pub choices: Vec<Choice>,
}

/// `(name, value)` pairs written as a JSON object, in their order.
fn by_name<S: Serializer, T: Serialize>(
    pairs: &[(String, T)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(pairs.len()))?;
    for (name, value) in pairs {
        map.serialize_entry(name, value)?;
    }
    map.end()
}

/// Reads every report, in order: `(label, path)`, the label `None` where `--name` gave none.
/// Reports are read on every core, since a report of a run holds every exchange (megabytes).
pub fn read_all(inputs: &[(Option<String>, PathBuf)]) -> Result<Vec<Run>, MatrixError> {
    if inputs.is_empty() {
        return Err(MatrixError::Nothing);
    }
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(inputs.len());
    let per = inputs.len().div_ceil(workers);
    let parts: Vec<Vec<Result<Run, MatrixError>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = inputs
            .chunks(per)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(label, path)| read(path, label.clone()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("reading a report never panics"))
            .collect()
    });
    parts.into_iter().flatten().collect()
}

/// The matrix of `runs` against `catalogue`: a column per run, a row per rule, the silent
/// areas ranked. `dir` is where the matrix is written (links to summaries are relative to it).
pub fn build(runs: &[Run], catalogue: &Catalogue, dir: &Path) -> Matrix {
    let names = names(runs);
    let rules: Vec<RuleRow> = catalogue
        .rules
        .iter()
        .map(|rule| RuleRow {
            id: rule.id.clone(),
            area: area(&rule.id).to_owned(),
            section: rule.section.clone(),
            level: rule.level,
            statement: rule.text.clone(),
            results: runs
                .iter()
                .zip(&names)
                .map(|(run, name)| (name.clone(), cell(run, &rule.id)))
                .collect(),
        })
        .collect();
    let implementations = runs
        .iter()
        .zip(&names)
        .enumerate()
        .map(|(i, (run, name))| implementation(run, name, i, &rules, dir))
        .collect();
    Matrix {
        covenant_version: env!("CARGO_PKG_VERSION").to_owned(),
        implementations,
        choices: choices::rank(runs, &names, catalogue),
        rules,
    }
}

/// A run's result on a rule: its own, else not run, or not in that version when the report
/// lists the rules of its version and this one is not among them.
fn cell(run: &Run, rule: &str) -> Cell {
    match run.results.get(rule) {
        Some(cell) => cell.clone(),
        None if run.lists_rules => Cell::of(Outcome::NotInVersion),
        None => Cell::of(Outcome::NotRun),
    }
}

fn implementation(
    run: &Run,
    name: &str,
    column: usize,
    rules: &[RuleRow],
    dir: &Path,
) -> Implementation {
    let count = |level: Level, outcome: Outcome| {
        rules
            .iter()
            .filter(|r| r.level == level && r.results[column].1.result == outcome)
            .count()
    };
    Implementation {
        name: name.to_owned(),
        target: run.target.clone(),
        covenant_version: run.covenant_version.clone(),
        seed: run.seed,
        date: run.date.clone(),
        verdict: run.verdict.clone(),
        traffic: run.traffic,
        report: run.path.display().to_string(),
        summary: summary_link(&run.path, dir),
        must_kept: count(Level::Must, Outcome::Pass),
        must_broken: count(Level::Must, Outcome::Fail),
        should_warned: count(Level::Should, Outcome::Warn),
    }
}

/// The area of a rule: its id's prefix.
fn area(id: &str) -> &str {
    id.split('-').next().unwrap_or(id)
}

/// Each run's name: `--name`, else its profile's `name`, else its target's host and port. Two
/// runs of one name (two versions of one target) are told apart by their dates, then by their
/// places.
fn names(runs: &[Run]) -> Vec<String> {
    let plain: Vec<String> = runs.iter().map(plain_name).collect();
    let dated: Vec<String> = runs
        .iter()
        .zip(&plain)
        .map(|(run, name)| {
            if plain.iter().filter(|n| *n == name).count() < 2 {
                return name.clone();
            }
            match &run.date {
                Some(date) => format!("{name} ({})", short_date(date)),
                None => name.clone(),
            }
        })
        .collect();
    dated
        .iter()
        .enumerate()
        .map(|(i, name)| {
            if dated.iter().filter(|n| *n == name).count() < 2 {
                name.clone()
            } else {
                format!("{name} #{}", i + 1)
            }
        })
        .collect()
}

fn plain_name(run: &Run) -> String {
    if let Some(name) = run.label.as_ref().or(run.profile_name.as_ref()) {
        return name.clone();
    }
    match url::Url::parse(&run.target) {
        Ok(url) if url.host_str().is_some() => {
            let host = url.host_str().unwrap_or_default();
            match url.port_or_known_default() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_owned(),
            }
        }
        _ => run.target.clone(),
    }
}

/// `2026-11-27 22:09:09` of an RFC 3339 timestamp.
pub fn short_date(date: &str) -> String {
    date.chars()
        .take(19)
        .map(|c| if c == 'T' { ' ' } else { c })
        .collect()
}

/// The summary.html beside `report`, as a link from `dir`: relative when both are on one
/// tree, else absolute.
fn summary_link(report: &Path, dir: &Path) -> Option<String> {
    let summary = report.parent()?.join("summary.html");
    let summary = summary.canonicalize().ok()?;
    let _ = std::fs::create_dir_all(dir);
    let from = dir.canonicalize().ok()?;
    let common = from
        .components()
        .zip(summary.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = from.components().count() - common;
    let mut link: Vec<String> = vec!["..".to_owned(); ups];
    link.extend(
        summary
            .components()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(link.join("/"))
}

/// Writes `matrix.json`, `matrix.md` and `matrix.html` of one view into `dir` (created if
/// missing). Returns the paths written.
pub fn write(view: &MatrixView<'_>, dir: &Path) -> Result<Vec<PathBuf>, MatrixError> {
    [
        ("matrix.json", json::render(view)),
        ("matrix.md", md::render(view)),
        ("matrix.html", html::render(view)),
    ]
    .into_iter()
    .map(|(name, text)| Ok(crate::report::write_file(dir, name, &text, &[])?))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(label: Option<&str>, target: &str, date: &str) -> Run {
        Run {
            path: PathBuf::from("r.json"),
            label: label.map(str::to_owned),
            profile_name: None,
            target: target.to_owned(),
            covenant_version: "0.1.0".to_owned(),
            seed: Some(1),
            date: Some(date.to_owned()),
            verdict: "pass".to_owned(),
            traffic: false,
            results: BTreeMap::new(),
            lists_rules: true,
            gap_texts: BTreeMap::new(),
            seen: Vec::new(),
        }
    }

    #[test]
    fn names_come_from_the_label_else_the_host_and_port_and_two_of_one_target_get_dates() {
        let runs = [
            run(Some("partner"), "http://a.example/", "2026-01-01T00:00:00Z"),
            run(None, "https://api.example/v1", "2026-01-01T00:00:00Z"),
            run(None, "http://127.0.0.1:8080/", "2026-01-01T10:00:00Z"),
            run(None, "http://127.0.0.1:8080/", "2026-02-01T10:00:00Z"),
        ];
        assert_eq!(
            names(&runs),
            [
                "partner",
                "api.example:443",
                "127.0.0.1:8080 (2026-01-01 10:00:00)",
                "127.0.0.1:8080 (2026-02-01 10:00:00)"
            ]
        );
    }

    #[test]
    fn a_rule_the_report_does_not_list_was_not_in_its_version() {
        let mut old = run(None, "http://a/", "2026-01-01T00:00:00Z");
        old.results
            .insert("GEN-JSON-BODY".to_owned(), Cell::of(Outcome::Pass));
        let matrix = build(&[old], Catalogue::embedded(), Path::new("."));
        assert_eq!(matrix.rules.len(), Catalogue::embedded().rules.len());
        let result = |id: &str| {
            let row = matrix.rules.iter().find(|r| r.id == id).expect("the rule");
            row.results[0].1.result
        };
        assert_eq!(result("GEN-JSON-BODY"), Outcome::Pass);
        assert_eq!(result("GEN-NO-5XX"), Outcome::NotInVersion);
        assert_eq!(matrix.implementations[0].must_kept, 1);
    }
}
