//! `matrix.md`: the matrix as a pull-request comment, which GitHub caps at 65,536 characters.
//! First what a reviewer needs (one line per implementation, every rule some implementation
//! breaks, the silent areas where they chose differently), then the rest folded in `<details>`;
//! rows that would pass the cap are counted and left to matrix.html.
//!
//! Up to [`COLUMNS`] implementations, the rules and the divergent choices have a column each;
//! beyond, a cell groups them by result or by choice. Either way no line passes [`MAX_LINE`]:
//! long lists in a cell show their first items and `and N more`.

use super::view::{broken_in, ChoiceRow, MatrixView, Row};
use super::{listed, Cell, RuleOutcome};
use crate::report::markdown::text;

/// The largest matrix.md written, in bytes: GitHub's cap on a comment, less room for a line
/// a workflow may add around it.
pub const MAX_BYTES: usize = 60_000;

/// The longest line written, in bytes.
pub const MAX_LINE: usize = 1_000;

/// Implementations up to which a table holds a column each.
pub const COLUMNS: usize = 4;

/// Room kept for the closing lines of a section and of the file.
const RESERVE: usize = 1_000;

/// The longest message shown in a cell, in characters.
const MESSAGE_CHARS: usize = 120;

/// The characters a list in a cell takes before `and N more`: a choice's values, the names of
/// the implementations that made it.
const VALUE_CHARS: usize = 160;
const NAME_CHARS: usize = 120;

/// The different choices one cell shows before `and N more`.
const PICKS: usize = 3;

/// Lines added while they fit.
struct MatrixComment {
    text: String,
    /// Rows that did not fit, to say so once.
    left_out: usize,
}

impl MatrixComment {
    fn line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// A table row, when it fits under the cap and the longest line.
    fn row(&mut self, line: &str) -> bool {
        if line.len() > MAX_LINE || self.text.len() + line.len() + 1 + RESERVE > MAX_BYTES {
            self.left_out += 1;
            return false;
        }
        self.line(line);
        true
    }

    /// After a table: how many rows it left out.
    fn end_table(&mut self) {
        if self.left_out > 0 {
            let n = self.left_out;
            self.line(&format!(
                "\n… and {n} more {} than fit a comment: see matrix.html.",
                if n == 1 { "row" } else { "rows" }
            ));
            self.left_out = 0;
        }
    }
}

/// Whether tables hold a column per implementation: few of them, with names that fit a line.
fn by_column(view: &MatrixView<'_>) -> bool {
    let names: usize = view
        .columns
        .iter()
        .map(|c| c.implementation.name.len() + 3)
        .sum();
    view.columns.len() <= COLUMNS && names <= MAX_LINE / 4
}

/// The whole matrix.md.
pub fn render(view: &MatrixView<'_>) -> String {
    let mut page = MatrixComment {
        text: String::new(),
        left_out: 0,
    };
    page.line(&format!("## {}\n", view.title));
    implementations(&mut page, view);
    page.line(&format!(
        "\n### Rules broken by any implementation ({})\n",
        view.broken.len()
    ));
    if view.broken.is_empty() {
        page.line("Every implementation keeps every rule it was judged on.");
    } else {
        rules(&mut page, view, &view.broken);
    }
    page.line(&format!(
        "\n### Where the spec is silent and they chose differently ({})\n",
        view.differ.len()
    ));
    if view.differ.is_empty() {
        page.line("Wherever the spec is silent, the implementations chose alike.");
    } else {
        choices(&mut page, view, &view.differ);
    }
    folded(
        &mut page,
        &format!("The other {} rules", view.kept.len()),
        |page| rules(page, view, &view.kept),
    );
    if !view.alike.is_empty() {
        let title = format!("Silent areas where they chose alike ({})", view.alike.len());
        folded(&mut page, &title, |page| alike(page, view));
    }
    page.line(
        "\nThe full table, by area and by implementation: matrix.html; the data: matrix.json.",
    );
    capped(page.text)
}

/// The text cut at a line to fit [`MAX_BYTES`], when the headers of many wide tables alone
/// outgrow it, a folded part closed.
fn capped(text: String) -> String {
    if text.len() <= MAX_BYTES {
        return text;
    }
    let mut end = MAX_BYTES - RESERVE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(0, |at| at + 1);
    let mut cut = text[..end].to_owned();
    if cut.matches("<details>").count() > cut.matches("</details>").count() {
        cut.push_str("\n</details>\n");
    }
    cut.push_str("\n… cut to fit a comment: see matrix.html for the rest.\n");
    cut
}

fn folded(page: &mut MatrixComment, title: &str, body: impl FnOnce(&mut MatrixComment)) {
    page.line(&format!("\n<details><summary>{title}</summary>\n"));
    body(page);
    page.line("\n</details>");
}

/// Text cut to `chars` characters, with `…` where it was cut.
fn short(raw: &str, chars: usize) -> String {
    let mut cut: String = raw.chars().take(chars).collect();
    if cut.len() < raw.len() {
        cut.push('…');
    }
    cut
}

fn implementations(page: &mut MatrixComment, view: &MatrixView<'_>) {
    page.line("| implementation | verdict | must kept | must broken | should warned | target | covenant | date |");
    page.line("|---|---|---:|---:|---:|---|---|---|");
    for column in &view.columns {
        let i = column.implementation;
        page.row(&format!(
            "| **{}** | {} | {} | {} | {} | {} | {} | {} |",
            text(&short(&i.name, 200)),
            text(&column.verdict),
            i.must_kept,
            i.must_broken,
            i.should_warned,
            text(&short(&i.target, 200)),
            text(&short(&i.covenant_version, 40)),
            text(&column.date),
        ));
    }
    page.end_table();
}

fn header(page: &mut MatrixComment, view: &MatrixView<'_>, first: &str) {
    let names: Vec<String> = view
        .columns
        .iter()
        .map(|c| text(&c.implementation.name))
        .collect();
    page.line(&format!("| {first} | {} |", names.join(" | ")));
    page.line(&format!("|---|{}", "---|".repeat(names.len())));
}

fn rules(page: &mut MatrixComment, view: &MatrixView<'_>, rows: &[usize]) {
    let columns = by_column(view);
    if columns {
        header(page, view, "rule");
    } else {
        page.line("| rule | results |\n|---|---|");
    }
    for row in view.rows_at(rows) {
        let level = row.rule.level;
        let cells = if columns {
            let cells: Vec<String> = row.rule.results.iter().map(|(_, c)| cell(c)).collect();
            cells.join(" | ")
        } else {
            by_result(row)
        };
        page.row(&format!("| `{}` ({level}) | {cells} |", row.rule.id));
    }
    page.end_table();
}

/// A result, with the failing case and its message where it failed or warned.
fn cell(cell: &Cell) -> String {
    let word = cell.result.as_str();
    match (broken_in(cell), &cell.message) {
        (Some(case), Some(message)) => {
            format!(
                "**{word}** in `{}`: {}",
                short(&case.replace('`', "'"), MESSAGE_CHARS),
                text(&short(message, MESSAGE_CHARS))
            )
        }
        _ if matches!(cell.result, RuleOutcome::Fail | RuleOutcome::Warn) => format!("**{word}**"),
        _ => word.to_owned(),
    }
}

/// A rule's results grouped: each result once, with how many had it and, where it failed,
/// warned or is known, which.
fn by_result(row: &Row<'_>) -> String {
    let groups: Vec<String> = row
        .groups
        .iter()
        .map(|(result, names)| {
            let word = result.as_str();
            match result {
                RuleOutcome::Fail | RuleOutcome::Warn | RuleOutcome::Known => format!(
                    "**{word}** ({}): {}",
                    names.len(),
                    text(&listed(names, NAME_CHARS))
                ),
                _ => format!("{word} ({})", names.len()),
            }
        })
        .collect();
    groups.join("; ")
}

fn choices(page: &mut MatrixComment, view: &MatrixView<'_>, rows: &[usize]) {
    let columns = by_column(view);
    if columns {
        header(page, view, "where the spec is silent");
    } else {
        page.line("| where the spec is silent | choices | what each chose |\n|---|---:|---|");
    }
    for row in view.choices_at(rows) {
        let cells = if columns {
            let cells: Vec<String> = row
                .by_column
                .iter()
                .map(|values| values.map_or_else(|| "-".to_owned(), value))
                .collect();
            cells.join(" | ")
        } else {
            format!("{} | {}", row.choice.distinct, picks(row))
        };
        page.row(&format!(
            "| `{}` {} | {cells} |",
            row.choice.gap,
            text(&row.subject)
        ));
    }
    page.end_table();
}

/// A choice's values as a cell: its first items, the rest counted.
fn value<S: AsRef<str>>(values: &[S]) -> String {
    text(&listed(values, VALUE_CHARS))
}

/// Each value once with the implementations that showed it, the first [`PICKS`] groups.
fn picks(row: &ChoiceRow<'_>) -> String {
    let mut said: Vec<String> = row
        .picks
        .iter()
        .take(PICKS)
        .map(|pick| {
            format!(
                "{} ({}: {})",
                value(&pick.values),
                pick.names.len(),
                text(&listed(&pick.names, NAME_CHARS))
            )
        })
        .collect();
    if row.picks.len() > PICKS {
        said.push(format!("and {} more choices", row.picks.len() - PICKS));
    }
    said.join("; ")
}

/// The places where every implementation that showed something chose alike: the choice once,
/// and how many showed it.
fn alike(page: &mut MatrixComment, view: &MatrixView<'_>) {
    let all = view.columns.len();
    page.line("| where the spec is silent | chosen | by |\n|---|---|---:|");
    for row in view.choices_at(&view.alike) {
        let Some(pick) = row.picks.first() else {
            continue;
        };
        let by = if pick.everyone {
            format!("all {all}")
        } else {
            format!("{} of {all}", pick.names.len())
        };
        page.row(&format!(
            "| `{}` {} | {} | {by} |",
            row.choice.gap,
            text(&row.subject),
            value(&pick.values)
        ));
    }
    page.end_table();
}

#[cfg(test)]
mod tests {
    use super::super::{Implementation, Matrix, RuleRow};
    use super::*;
    use crate::catalogue::Level;

    #[test]
    fn a_hundred_failing_implementations_with_long_names_fit_a_comment_grouped_by_result() {
        let names: Vec<String> = (0..100)
            .map(|i| format!("an-implementation-with-a-long-name-{i:03}"))
            .collect();
        let failing = Cell {
            result: RuleOutcome::Fail,
            case: Some("a.case".to_owned()),
            message: Some("m".repeat(300)),
        };
        let matrix = Matrix {
            covenant_version: "0.1.0".to_owned(),
            implementations: names
                .iter()
                .map(|name| Implementation {
                    name: name.clone(),
                    target: format!("https://{name}.example/"),
                    covenant_version: "0.1.0".to_owned(),
                    seed: Some(1),
                    date: None,
                    verdict: "fail".to_owned(),
                    traffic: false,
                    report: "r.json".to_owned(),
                    summary: None,
                    must_kept: 0,
                    must_broken: 160,
                    should_warned: 0,
                })
                .collect(),
            rules: (0..160)
                .map(|i| RuleRow {
                    id: format!("R-{i}"),
                    area: "R".to_owned(),
                    section: "S".to_owned(),
                    level: Level::Must,
                    statement: "s".to_owned(),
                    results: names.iter().map(|n| (n.clone(), failing.clone())).collect(),
                })
                .collect(),
            choices: Vec::new(),
        };
        let md = render(&MatrixView::new(&matrix));
        assert!(md.len() <= MAX_BYTES, "{} bytes", md.len());
        assert!(
            md.lines().all(|line| line.len() <= MAX_LINE),
            "no line over {MAX_LINE}"
        );
        assert!(
            md.contains(
                "| `R-0` (must) | **fail** (100): an-implementation-with-a-long-name-000, "
            ),
            "the failures grouped, their names cut: {}",
            &md[..3000]
        );
        assert_eq!(
            md.matches("<details>").count(),
            md.matches("</details>").count()
        );
    }
}
