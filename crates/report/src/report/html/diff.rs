//! `diff.html`: the behaviour diff of two targets, as `diff.md` has it, as one page laid out
//! from the diff's view in the skeleton `diff.html` beside this file.

use super::{escape, fill};
use crate::report::diff::BehaviourDiff;
use crate::report::view::{listed, what, DiffView, Sides, COMPARED, SIDE_COLUMNS};
use crate::report::words::case_list;
use std::fmt::Write;

/// The page's skeleton.
const PAGE: &str = include_str!("diff.html");

/// The page's style sheet, on one line.
const STYLE: &str = include_str!("diff.css");

/// `diff.html`: both runs side by side, the differences by operation, the gaps chosen
/// differently and the cases not compared.
pub fn diff(diff: &BehaviourDiff) -> String {
    let view = DiffView::new(diff);
    let notes: String = view
        .notes
        .iter()
        .map(|note| format!("<p class=\"note\">{}</p>\n", escape(note)))
        .collect();
    fill(
        PAGE,
        &[
            ("style", STYLE.trim_end().to_owned()),
            ("count", view.count().to_string()),
            ("headline", escape(&view.headline)),
            ("sides", sides(&view.sides)),
            ("notes", notes),
            ("operations", operations(&view)),
            ("gaps", gaps(&view)),
            ("not_compared", not_compared(&view)),
        ],
    )
}

/// Both runs side by side, and what was compared.
fn sides(sides: &Sides) -> String {
    let head: String = SIDE_COLUMNS
        .iter()
        .map(|c| format!("<th>{c}</th>"))
        .collect();
    let mut out = format!("<table id=\"sides\"><tr><th></th>{head}</tr>\n");
    for side in &sides.rows {
        let counts: String = side
            .counts
            .iter()
            .map(|n| format!("<td>{n}</td>"))
            .collect();
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td><code>{}</code></td><td>{}</td><td><code>{}</code></td>{counts}</tr>",
            escape(&side.name),
            escape(&side.target),
            side.verdict,
            side.seed
        );
    }
    let _ = writeln!(out, "</table>\n<p>{}</p>", escape(COMPARED));
    out
}

/// Per operation, a table of its facts.
fn operations(view: &DiffView<'_>) -> String {
    let mut out = String::new();
    for operation in &view.operations {
        let _ = writeln!(
            out,
            "<h2 id=\"op-{op}\"><code>{op}</code></h2>\n<table><tr><th>what</th><th>A</th><th>B</th><th>cases</th></tr>",
            op = escape(&operation.operation)
        );
        for fact in &operation.facts {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&what(fact)),
                escape(&fact.difference.a),
                escape(&fact.difference.b),
                escape(&case_list(&fact.cases, 8))
            );
        }
        let _ = writeln!(out, "</table>");
    }
    out
}

fn gaps(view: &DiffView<'_>) -> String {
    let mut out = String::new();
    if view.gaps.is_empty() {
        return out;
    }
    let _ = writeln!(out, "<h2 id=\"gaps\">Where the spec is silent, the two chose differently</h2>\n<table><tr><th>gap</th><th>about</th><th>what</th><th>A</th><th>B</th></tr>");
    for gap in &view.gaps {
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>",
            escape(&gap.gap),
            escape(&gap.subject.to_string()),
            escape(&gap.what),
            escape(&listed(&gap.a)),
            escape(&listed(&gap.b))
        );
    }
    let _ = writeln!(out, "</table>");
    out
}

fn not_compared(view: &DiffView<'_>) -> String {
    let mut out = String::new();
    if view.not_compared.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "<details id=\"not-compared\"><summary>Not compared ({})</summary><ul>",
        view.not_compared.len()
    );
    for n in view.not_compared {
        let _ = writeln!(
            out,
            "<li><code>{}</code>: {}</li>",
            escape(&n.case),
            escape(&n.why)
        );
    }
    let _ = writeln!(out, "</ul></details>");
    out
}
