//! `matrix.html`: the full matrix on one self-contained page (no external asset). Every rule,
//! grouped by area and by the spec section it comes from, a column per implementation; a
//! failing cell holds its case and message on hover and links to that case in the
//! implementation's summary.html when it sits beside its report. A button per column (or
//! `#sort=N` in the address) sorts every rule by that implementation's result, failures first;
//! filters keep the rules of one area, level or result (`#area=GEN&level=must&result=fail`).
//! The silent areas follow, each choice once with the implementations that made it, long lists
//! folded. The page fits 1280 px: wide tables scroll in their own box, and long text wraps. It
//! is well-formed XML as well as HTML.
//!
//! The template `templates/matrix.html` lays the view out, and its engine (askama) escapes every
//! text from a report or the catalogue; nothing here writes markup.

use super::view::{broken_in, MatrixView, Row, LEVELS};
use super::{listed, Cell, RuleOutcome};
use crate::report::html::{case_anchor, rendered};
use askama::Template;

const CSS: &str = include_str!("matrix.css");
const JS: &str = include_str!("matrix.js");

/// A choice's values longer than this (in characters) are folded, their first items shown.
const FOLD_CHARS: usize = 160;
/// Names of implementations past this many are folded.
const FOLD_NAMES: usize = 8;

/// The whole page.
pub fn render(view: &MatrixView<'_>) -> String {
    rendered(&MatrixPage {
        view,
        css: CSS,
        js: JS,
    })
}

#[derive(Template)]
#[template(path = "matrix.html")]
struct MatrixPage<'v, 'a> {
    view: &'v MatrixView<'a>,
    css: &'static str,
    js: &'static str,
}

/// A filter of the rules, "all" unless the address asks: its options' values and words.
struct Filter {
    id: &'static str,
    label: &'static str,
    options: Vec<(String, String)>,
}

impl MatrixPage<'_, '_> {
    /// The filters of the rules: by area, level and result.
    fn filters(&self) -> [Filter; 3] {
        let view = self.view;
        [
            Filter {
                id: "area",
                label: "area",
                options: view
                    .area_names()
                    .map(|a| (a.to_owned(), a.to_owned()))
                    .collect(),
            },
            Filter {
                id: "level",
                label: "level",
                options: LEVELS
                    .iter()
                    .map(|l| (l.to_string(), l.to_string()))
                    .collect(),
            },
            Filter {
                id: "result",
                label: "some implementation's result",
                options: view
                    .results
                    .iter()
                    .map(|r| (r.class().to_owned(), r.as_str().to_owned()))
                    .collect(),
            },
        ]
    }

    /// The results a rule had, as the filters name them.
    fn results(&self, row: &Row<'_>) -> String {
        let results: Vec<&str> = row.results().map(RuleOutcome::class).collect();
        results.join(" ")
    }

    /// A cell's rank, for sorting.
    fn rank(&self, cell: &Cell) -> u8 {
        cell.result as u8
    }
}

/// What a cell shows on hover: its case and message, as far as it has them.
fn cell_title(cell: &Cell) -> String {
    match (&cell.case, &cell.message) {
        (Some(case), Some(message)) => format!("{case}: {message}"),
        (None, Some(message)) => message.clone(),
        (Some(case), None) => case.clone(),
        (None, None) => String::new(),
    }
}

/// Items as one text, and their first items as a summary when the whole is too long to show
/// unfolded.
struct Folded {
    whole: String,
    summary: Option<String>,
}

impl Folded {
    fn of(items: &[&str]) -> Folded {
        let whole = items.join(", ");
        let summary = (whole.chars().count() > FOLD_CHARS).then(|| listed(items, FOLD_CHARS / 2));
        Folded { whole, summary }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Level;
    use crate::matrix::{Implementation, Matrix, RuleRow, SilentPlace};

    const HOSTILE: &str = "<script>alert(\"x\")</script> & 'y'";
    const ESCAPED: &str = "&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;y&#39;";

    #[test]
    fn hostile_text_of_a_report_or_the_catalogue_comes_out_escaped() {
        let implementation = Implementation {
            name: HOSTILE.to_owned(),
            target: HOSTILE.to_owned(),
            covenant_version: "0.1.0".to_owned(),
            seed: Some(1),
            date: None,
            verdict: "fail".to_owned(),
            traffic: false,
            report: "a/report.json".to_owned(),
            summary: Some(format!("a/summary.html?{HOSTILE}")),
            must_kept: 0,
            must_broken: 1,
            should_warned: 0,
        };
        let cell = Cell {
            result: RuleOutcome::Fail,
            case: Some(HOSTILE.to_owned()),
            message: Some(HOSTILE.to_owned()),
        };
        let matrix = Matrix {
            covenant_version: HOSTILE.to_owned(),
            implementations: vec![implementation],
            rules: vec![RuleRow {
                id: HOSTILE.to_owned(),
                area: HOSTILE.to_owned(),
                section: HOSTILE.to_owned(),
                level: Level::Must,
                statement: HOSTILE.to_owned(),
                results: vec![(HOSTILE.to_owned(), cell)],
            }],
            choices: vec![SilentPlace {
                gap: HOSTILE.to_owned(),
                text: HOSTILE.to_owned(),
                subject: Default::default(),
                what: HOSTILE.to_owned(),
                distinct: 1,
                choices: vec![(HOSTILE.to_owned(), vec![HOSTILE.repeat(9)])],
            }],
        };
        let page = render(&MatrixView::new(&matrix));
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(!page.contains("& '"), "{page}");
        // The name, the target, the rule's id, area, section and statement, the cell's case
        // and message, the gap, its text, what was chosen (folded: its summary and the whole)
        // and who chose it, the version.
        assert!(page.matches(ESCAPED).count() >= 15, "{page}");
    }
}
