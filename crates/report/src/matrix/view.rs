//! The matrix as every format shows it, built once: which rules some implementation breaks and
//! which the others keep, the rules grouped by area and section, each rule's results grouped,
//! each implementation's counts, the silent areas split into those where they chose differently
//! and those where they chose alike, each choice's values once with who showed them. `md`,
//! `html`, `json` and the console lay this out and decide nothing: they neither count, sort,
//! merge, deduplicate nor filter, so the three files and the command's lines cannot disagree.
//!
//! A view renders nothing and escapes nothing: its text is plain, and each format escapes it as
//! its syntax needs.

use super::{short_date, Cell, Implementation, Matrix, RuleOutcome, RuleRow, SilentPlace};
use crate::catalogue::Level;
use std::collections::BTreeSet;

/// The matrix and every list its formats show.
#[derive(Debug)]
pub struct MatrixView<'a> {
    /// The data, as matrix.json writes it.
    pub matrix: &'a Matrix,
    /// `Conformance matrix: 3 implementations, 160 rules`.
    pub title: String,
    /// The columns, in the order given.
    pub columns: Vec<Column<'a>>,
    /// Every rule, in the catalogue's order.
    pub rows: Vec<Row<'a>>,
    /// The rules some implementation fails or warns on, then the others: indices of
    /// [`rows`](Self::rows), each in the catalogue's order.
    pub broken: Vec<usize>,
    pub kept: Vec<usize>,
    /// The rules by area, then by the section of the spec they come from, each in the order
    /// the catalogue first names it.
    pub areas: Vec<RuleArea<'a>>,
    /// Every result some implementation had on some rule, in [`RuleOutcome`]'s order.
    pub results: Vec<RuleOutcome>,
    /// Every place where the spec is silent, ranked as the matrix ranks them.
    pub choices: Vec<ChoiceRow<'a>>,
    /// The places where they chose differently, then those where they chose alike: indices of
    /// [`choices`](Self::choices), each in rank order.
    pub differ: Vec<usize>,
    pub alike: Vec<usize>,
}

/// A column: an implementation and its counts.
#[derive(Debug)]
pub struct Column<'a> {
    pub implementation: &'a Implementation,
    /// Its verdict as words (`not run` for `not_run`).
    pub verdict: String,
    /// When its run started, `2026-11-27 22:09:09`; empty when its report does not say.
    pub date: String,
    /// How many rules had each result, every result counted (none left out), in
    /// [`RuleOutcome`]'s order.
    pub counts: Vec<(RuleOutcome, usize)>,
}

impl Column<'_> {
    /// How many rules had `result`.
    pub fn count(&self, result: RuleOutcome) -> usize {
        self.counts
            .iter()
            .find(|(r, _)| *r == result)
            .map_or(0, |(_, n)| *n)
    }
}

/// A rule's row.
#[derive(Debug)]
pub struct Row<'a> {
    pub rule: &'a RuleRow,
    /// Its place in the catalogue.
    pub order: usize,
    /// Its results grouped: each result once, in [`RuleOutcome`]'s order, with the implementations
    /// that had it, in column order.
    pub groups: Vec<(RuleOutcome, Vec<&'a str>)>,
}

impl Row<'_> {
    /// Each result it had, once.
    pub fn results(&self) -> impl Iterator<Item = RuleOutcome> + '_ {
        self.groups.iter().map(|(result, _)| *result)
    }
}

/// An area of rules and its sections.
#[derive(Debug)]
pub struct RuleArea<'a> {
    pub area: &'a str,
    /// Each section, with the indices of its rows in the catalogue's order.
    pub sections: Vec<(&'a str, Vec<usize>)>,
}

/// A place where the spec is silent.
#[derive(Debug)]
pub struct ChoiceRow<'a> {
    pub choice: &'a SilentPlace,
    /// `create-vat-id: success status` (with the kind and condition where there are).
    pub subject: String,
    /// What each implementation chose, in column order; `None` where it showed nothing.
    pub by_column: Vec<Option<&'a [String]>>,
    /// Each value once, with the implementations that showed it: values shown by the same
    /// implementations together, the most shown first, then in the order first shown.
    pub picks: Vec<Pick<'a>>,
}

/// Values shown by the same implementations.
#[derive(Debug, PartialEq, Eq)]
pub struct Pick<'a> {
    pub values: Vec<&'a str>,
    pub names: Vec<&'a str>,
    /// Whether every implementation of the matrix showed them, of two or more (one alone is
    /// named).
    pub everyone: bool,
}

impl<'a> MatrixView<'a> {
    pub fn new(matrix: &'a Matrix) -> MatrixView<'a> {
        let rows: Vec<Row<'a>> = matrix
            .rules
            .iter()
            .enumerate()
            .map(|(order, rule)| Row {
                rule,
                order,
                groups: groups(rule),
            })
            .collect();
        let (broken, kept): (Vec<usize>, Vec<usize>) = (0..rows.len()).partition(|&i| {
            rows[i]
                .results()
                .any(|r| matches!(r, RuleOutcome::Fail | RuleOutcome::Warn))
        });
        let results: BTreeSet<RuleOutcome> = rows.iter().flat_map(Row::results).collect();
        let all = matrix.implementations.len();
        let choices: Vec<ChoiceRow<'a>> = matrix
            .choices
            .iter()
            .map(|choice| ChoiceRow {
                choice,
                subject: subject(choice),
                by_column: matrix
                    .implementations
                    .iter()
                    .map(|i| {
                        choice
                            .choices
                            .iter()
                            .find(|(name, _)| *name == i.name)
                            .map(|(_, values)| values.as_slice())
                    })
                    .collect(),
                picks: picks(choice, all),
            })
            .collect();
        let (differ, alike) = (0..choices.len()).partition(|&i| choices[i].choice.distinct > 1);
        MatrixView {
            title: format!(
                "Conformance matrix: {} implementations, {} rules",
                matrix.implementations.len(),
                matrix.rules.len()
            ),
            columns: matrix
                .implementations
                .iter()
                .enumerate()
                .map(|(at, implementation)| Column {
                    implementation,
                    verdict: implementation.verdict.replace('_', " "),
                    date: implementation
                        .date
                        .as_deref()
                        .map(short_date)
                        .unwrap_or_default(),
                    counts: counts(&matrix.rules, at),
                })
                .collect(),
            areas: areas(&matrix.rules),
            results: results.into_iter().collect(),
            broken,
            kept,
            rows,
            choices,
            differ,
            alike,
            matrix,
        }
    }

    /// The rows at `indices`.
    pub fn rows_at<'v>(&'v self, indices: &'v [usize]) -> impl Iterator<Item = &'v Row<'a>> + 'v {
        indices.iter().map(|&i| &self.rows[i])
    }

    /// The places at `indices`.
    pub fn choices_at<'v>(
        &'v self,
        indices: &'v [usize],
    ) -> impl Iterator<Item = &'v ChoiceRow<'a>> + 'v {
        indices.iter().map(|&i| &self.choices[i])
    }

    /// The areas' names, in the order the catalogue first names each.
    pub fn area_names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.areas.iter().map(|a| a.area)
    }
}

/// The case a cell names as where the rule was broken (failed, warned or known), when it names
/// one.
pub fn broken_in(cell: &Cell) -> Option<&str> {
    match cell.result {
        RuleOutcome::Fail | RuleOutcome::Warn | RuleOutcome::Known => cell.case.as_deref(),
        _ => None,
    }
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

/// The levels a rule can have, as the filters offer them.
pub const LEVELS: [Level; 2] = [Level::Must, Level::Should];

/// Each result of `rule` once, with who had it.
fn groups(rule: &RuleRow) -> Vec<(RuleOutcome, Vec<&str>)> {
    let results: BTreeSet<RuleOutcome> = rule.results.iter().map(|(_, c)| c.result).collect();
    results
        .into_iter()
        .map(|result| {
            let names = rule
                .results
                .iter()
                .filter(|(_, c)| c.result == result)
                .map(|(n, _)| n.as_str())
                .collect();
            (result, names)
        })
        .collect()
}

/// How many rules had each result in column `at`.
fn counts(rules: &[RuleRow], at: usize) -> Vec<(RuleOutcome, usize)> {
    let mut counts: Vec<(RuleOutcome, usize)> = Vec::new();
    let results: BTreeSet<RuleOutcome> = rules.iter().map(|r| r.results[at].1.result).collect();
    for result in results {
        let n = rules
            .iter()
            .filter(|r| r.results[at].1.result == result)
            .count();
        counts.push((result, n));
    }
    counts
}

/// The rules by area and section, each where the catalogue first names it.
fn areas(rules: &[RuleRow]) -> Vec<RuleArea<'_>> {
    let mut areas: Vec<RuleArea<'_>> = Vec::new();
    for (at, rule) in rules.iter().enumerate() {
        let area = match areas.iter_mut().position(|a| a.area == rule.area) {
            Some(i) => &mut areas[i],
            None => {
                areas.push(RuleArea {
                    area: &rule.area,
                    sections: Vec::new(),
                });
                areas.last_mut().expect("just pushed")
            }
        };
        match area
            .sections
            .iter_mut()
            .find(|(section, _)| *section == rule.section)
        {
            Some((_, rows)) => rows.push(at),
            None => area.sections.push((&rule.section, vec![at])),
        }
    }
    areas
}

/// `create-vat-id: success status` (with the kind and condition when there are).
fn subject(choice: &SilentPlace) -> String {
    let s = &choice.subject;
    let mut parts: Vec<&str> = Vec::new();
    parts.extend(s.operation.as_deref());
    parts.extend(s.kind.as_deref());
    parts.extend(s.condition.as_deref());
    let mut text = parts.join(" ");
    if !text.is_empty() {
        text.push_str(": ");
    }
    text.push_str(&choice.what);
    text
}

/// Each value shown once, with the implementations that showed it: values shown by the same
/// implementations together, the most shown first, then in the order first shown. Where each
/// showed one value, these are the choices made and who made them.
fn picks(choice: &SilentPlace, all: usize) -> Vec<Pick<'_>> {
    let mut by_value: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, values) in &choice.choices {
        for value in values {
            match by_value.iter_mut().find(|(v, _)| v == value) {
                Some((_, names)) => names.push(name),
                None => by_value.push((value, vec![name.as_str()])),
            }
        }
    }
    let mut picks: Vec<Pick<'_>> = Vec::new();
    for (value, names) in by_value {
        match picks.iter_mut().find(|p| p.names == names) {
            Some(pick) => pick.values.push(value),
            None => picks.push(Pick {
                values: vec![value],
                everyone: all > 1 && names.len() == all,
                names,
            }),
        }
    }
    picks.sort_by_key(|p| std::cmp::Reverse(p.names.len()));
    picks
}
