//! `matrix.md`: the matrix as a pull-request comment, which GitHub caps at 65,536 characters.
//! First what a reviewer needs (one line per implementation, every rule some implementation
//! breaks, the silent areas where they chose differently), then the rest folded in `<details>`;
//! rows that would pass the cap are counted and left to matrix.html.
//!
//! Up to [`COLUMNS`] implementations, the rules and the divergent choices have a column each;
//! beyond, a cell groups them by result or by choice. Either way no line passes [`MAX_LINE`]:
//! long lists in a cell show their first items and `and N more`.

use super::{listed, Cell, Choice, Matrix, Outcome, RuleRow};
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
struct Page {
    text: String,
    /// Rows that did not fit, to say so once.
    left_out: usize,
}

impl Page {
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
fn by_column(matrix: &Matrix) -> bool {
    let names: usize = matrix
        .implementations
        .iter()
        .map(|i| i.name.len() + 3)
        .sum();
    matrix.implementations.len() <= COLUMNS && names <= MAX_LINE / 4
}

/// The whole matrix.md.
pub fn render(matrix: &Matrix) -> String {
    let mut page = Page {
        text: String::new(),
        left_out: 0,
    };
    page.line(&format!(
        "## Conformance matrix: {} implementations, {} rules\n",
        matrix.implementations.len(),
        matrix.rules.len()
    ));
    implementations(&mut page, matrix);
    let (broken, kept): (Vec<&RuleRow>, Vec<&RuleRow>) =
        matrix.rules.iter().partition(|r| r.broken());
    let (differ, agree): (Vec<&Choice>, Vec<&Choice>) =
        matrix.choices.iter().partition(|c| c.distinct > 1);
    page.line(&format!(
        "\n### Rules broken by any implementation ({})\n",
        broken.len()
    ));
    if broken.is_empty() {
        page.line("Every implementation keeps every rule it was judged on.");
    } else {
        rules(&mut page, matrix, &broken);
    }
    page.line(&format!(
        "\n### Where the spec is silent and they chose differently ({})\n",
        differ.len()
    ));
    if differ.is_empty() {
        page.line("Wherever the spec is silent, the implementations chose alike.");
    } else {
        choices(&mut page, matrix, &differ);
    }
    folded(
        &mut page,
        &format!("The other {} rules", kept.len()),
        |page| rules(page, matrix, &kept),
    );
    if !agree.is_empty() {
        let title = format!("Silent areas where they chose alike ({})", agree.len());
        folded(&mut page, &title, |page| alike(page, matrix, &agree));
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

fn folded(page: &mut Page, title: &str, body: impl FnOnce(&mut Page)) {
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

fn implementations(page: &mut Page, matrix: &Matrix) {
    page.line("| implementation | verdict | must kept | must broken | should warned | target | covenant | date |");
    page.line("|---|---|---:|---:|---:|---|---|---|");
    for i in &matrix.implementations {
        page.row(&format!(
            "| **{}** | {} | {} | {} | {} | {} | {} | {} |",
            text(&short(&i.name, 200)),
            text(&i.verdict.replace('_', " ")),
            i.must_kept,
            i.must_broken,
            i.should_warned,
            text(&short(&i.target, 200)),
            text(&short(&i.covenant_version, 40)),
            text(&i.date.as_deref().map(super::short_date).unwrap_or_default()),
        ));
    }
    page.end_table();
}

fn header(page: &mut Page, matrix: &Matrix, first: &str) {
    let names: Vec<String> = matrix
        .implementations
        .iter()
        .map(|i| text(&i.name))
        .collect();
    page.line(&format!("| {first} | {} |", names.join(" | ")));
    page.line(&format!("|---|{}", "---|".repeat(names.len())));
}

fn rules(page: &mut Page, matrix: &Matrix, rows: &[&RuleRow]) {
    let columns = by_column(matrix);
    if columns {
        header(page, matrix, "rule");
    } else {
        page.line("| rule | results |\n|---|---|");
    }
    for row in rows {
        let level = row.level;
        let cells = if columns {
            let cells: Vec<String> = row.results.iter().map(|(_, c)| cell(c)).collect();
            cells.join(" | ")
        } else {
            by_result(row)
        };
        page.row(&format!("| `{}` ({level}) | {cells} |", row.id));
    }
    page.end_table();
}

/// A result, with the failing case and its message where it failed or warned.
fn cell(cell: &Cell) -> String {
    let word = cell.result.as_str();
    match (cell.result, &cell.case, &cell.message) {
        (Outcome::Fail | Outcome::Warn | Outcome::Known, Some(case), Some(message)) => {
            format!(
                "**{word}** in `{}`: {}",
                short(&case.replace('`', "'"), MESSAGE_CHARS),
                text(&short(message, MESSAGE_CHARS))
            )
        }
        (Outcome::Fail | Outcome::Warn, _, _) => format!("**{word}**"),
        _ => word.to_owned(),
    }
}

/// A rule's results grouped: each result once, with how many had it and, where it failed,
/// warned or is known, which.
fn by_result(row: &RuleRow) -> String {
    let mut results: Vec<Outcome> = row.results.iter().map(|(_, c)| c.result).collect();
    results.sort();
    results.dedup();
    let groups: Vec<String> = results
        .into_iter()
        .map(|result| {
            let names: Vec<&str> = row
                .results
                .iter()
                .filter(|(_, c)| c.result == result)
                .map(|(n, _)| n.as_str())
                .collect();
            let word = result.as_str();
            match result {
                Outcome::Fail | Outcome::Warn | Outcome::Known => format!(
                    "**{word}** ({}): {}",
                    names.len(),
                    text(&listed(&names, NAME_CHARS))
                ),
                _ => format!("{word} ({})", names.len()),
            }
        })
        .collect();
    groups.join("; ")
}

fn choices(page: &mut Page, matrix: &Matrix, rows: &[&Choice]) {
    let columns = by_column(matrix);
    if columns {
        header(page, matrix, "where the spec is silent");
    } else {
        page.line("| where the spec is silent | choices | what each chose |\n|---|---:|---|");
    }
    for choice in rows {
        let cells = if columns {
            let cells: Vec<String> = matrix
                .implementations
                .iter()
                .map(|i| value(&choice.of(&i.name)))
                .collect();
            cells.join(" | ")
        } else {
            format!("{} | {}", choice.distinct, picks(choice))
        };
        page.row(&format!(
            "| `{}` {} | {cells} |",
            choice.gap,
            text(&choice.subject())
        ));
    }
    page.end_table();
}

/// A choice's values as a cell: its first items, the rest counted.
fn value(values: &str) -> String {
    let items: Vec<&str> = values.split(", ").collect();
    text(&listed(&items, VALUE_CHARS))
}

/// Each value once with the implementations that showed it, the first [`PICKS`] groups.
fn picks(choice: &Choice) -> String {
    let picks = choice.picks();
    let mut said: Vec<String> = picks
        .iter()
        .take(PICKS)
        .map(|(values, names)| {
            format!(
                "{} ({}: {})",
                value(values),
                names.len(),
                text(&listed(names, NAME_CHARS))
            )
        })
        .collect();
    if picks.len() > PICKS {
        said.push(format!("and {} more choices", picks.len() - PICKS));
    }
    said.join("; ")
}

/// The places where every implementation that showed something chose alike: the choice once,
/// and how many showed it.
fn alike(page: &mut Page, matrix: &Matrix, rows: &[&Choice]) {
    let all = matrix.implementations.len();
    page.line("| where the spec is silent | chosen | by |\n|---|---|---:|");
    for choice in rows {
        let (values, names) = choice.picks().into_iter().next().unwrap_or_default();
        let by = if names.len() == all {
            format!("all {all}")
        } else {
            format!("{} of {all}", names.len())
        };
        page.row(&format!(
            "| `{}` {} | {} | {by} |",
            choice.gap,
            text(&choice.subject()),
            value(&values)
        ));
    }
    page.end_table();
}

#[cfg(test)]
mod tests {
    use super::super::{Implementation, Matrix};
    use super::*;
    use crate::catalogue::Level;

    #[test]
    fn a_hundred_failing_implementations_with_long_names_fit_a_comment_grouped_by_result() {
        let names: Vec<String> = (0..100)
            .map(|i| format!("an-implementation-with-a-long-name-{i:03}"))
            .collect();
        let failing = Cell {
            result: Outcome::Fail,
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
        let md = render(&matrix);
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
