//! Runs lined up into a [`Matrix`]: a column per run, named; a row per rule of the catalogue,
//! each run's result on it; the silent places ranked.

use super::{choices, Cell, Implementation, Matrix, RuleOutcome, RuleRow, Run};
use crate::catalogue::{Catalogue, Level};
use std::path::Path;

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
        None if run.lists_rules => Cell::of(RuleOutcome::NotInVersion),
        None => Cell::of(RuleOutcome::NotRun),
    }
}

fn implementation(
    run: &Run,
    name: &str,
    column: usize,
    rules: &[RuleRow],
    dir: &Path,
) -> Implementation {
    let count = |level: Level, outcome: RuleOutcome| {
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
        must_kept: count(Level::Must, RuleOutcome::Pass),
        must_broken: count(Level::Must, RuleOutcome::Fail),
        should_warned: count(Level::Should, RuleOutcome::Warn),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

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
            .insert("GEN-JSON-BODY".to_owned(), Cell::of(RuleOutcome::Pass));
        let matrix = build(&[old], Catalogue::embedded(), Path::new("."));
        assert_eq!(matrix.rules.len(), Catalogue::embedded().rules.len());
        let result = |id: &str| {
            let row = matrix.rules.iter().find(|r| r.id == id).expect("the rule");
            row.results[0].1.result
        };
        assert_eq!(result("GEN-JSON-BODY"), RuleOutcome::Pass);
        assert_eq!(result("GEN-NO-5XX"), RuleOutcome::NotInVersion);
        assert_eq!(matrix.implementations[0].must_kept, 1);
    }
}
