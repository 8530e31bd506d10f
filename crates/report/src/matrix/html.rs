//! `matrix.html`: the full matrix on one self-contained page (no external asset). Every rule,
//! grouped by area and by the spec section it comes from, a column per implementation; a
//! failing cell holds its case and message on hover and links to that case in the
//! implementation's summary.html when it sits beside its report. A button per column (or
//! `#sort=N` in the address) sorts every rule by that implementation's result, failures first;
//! filters keep the rules of one area, level or result (`#area=GEN&level=must&result=fail`).
//! The silent areas follow, each choice once with the implementations that made it, long lists
//! folded. The page fits 1280 px: wide tables scroll in their own box, and long text wraps. It
//! is well-formed XML as well as HTML, and every text from a report or the catalogue is escaped.

use super::view::{broken_in, ChoiceRow, MatrixView, Row, LEVELS};
use super::{listed, Cell, Outcome};
use crate::report::html::{case_anchor, escape};
use std::fmt::Write;

const CSS: &str = include_str!("matrix.css");
const JS: &str = include_str!("matrix.js");

/// A choice's values longer than this (in characters) are folded, their first items shown.
const FOLD_CHARS: usize = 160;
/// Names of implementations past this many are folded.
const FOLD_NAMES: usize = 8;

/// The whole page.
pub fn render(view: &MatrixView<'_>) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    let _ = writeln!(out, "<title>{}</title>", escape(&view.title));
    let _ = writeln!(out, "<style>\n{CSS}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(&view.title));
    implementations(&mut out, view);
    filters(&mut out, view);
    rules(&mut out, view);
    choices(&mut out, view);
    let _ = writeln!(
        out,
        "<p>Written by covenant {} (<code>covenant matrix</code>); the data: matrix.json.</p>",
        escape(&view.matrix.covenant_version)
    );
    let _ = writeln!(
        out,
        "<script>//<![CDATA[\n{JS}//]]></script>\n</body>\n</html>"
    );
    out
}

/// The filters of the rules: by area, level and result, each "all" unless the address asks.
fn filters(out: &mut String, view: &MatrixView<'_>) {
    out.push_str("<form id=\"filters\" class=\"filters\">\n");
    let select = |out: &mut String, id: &str, label: &str, options: Vec<(&str, &str)>| {
        let _ = write!(
            out,
            "<label>{label} <select id=\"filter-{id}\" data-filter=\"{id}\"><option value=\"\">all</option>"
        );
        for (value, text) in options {
            let _ = write!(
                out,
                "<option value=\"{}\">{}</option>",
                escape(value),
                escape(text)
            );
        }
        out.push_str("</select></label>\n");
    };
    select(
        out,
        "area",
        "area",
        view.area_names().map(|a| (a, a)).collect(),
    );
    let levels: Vec<String> = LEVELS.iter().map(ToString::to_string).collect();
    select(
        out,
        "level",
        "level",
        levels.iter().map(|l| (l.as_str(), l.as_str())).collect(),
    );
    select(
        out,
        "result",
        "some implementation's result",
        view.results
            .iter()
            .map(|r| (r.class(), r.as_str()))
            .collect(),
    );
    let _ = writeln!(
        out,
        "<output id=\"shown\">{n} of {n} rules</output>\n</form>",
        n = view.rows.len()
    );
}

fn implementations(out: &mut String, view: &MatrixView<'_>) {
    out.push_str("<table id=\"implementations\">\n<tr><th>implementation</th><th>verdict</th><th>must kept</th><th>must broken</th><th>should warned</th><th>target</th><th>covenant</th><th>seed</th><th>date</th></tr>\n");
    for column in &view.columns {
        let i = column.implementation;
        let name = match &i.summary {
            Some(link) => format!("<a href=\"{}\">{}</a>", escape(link), escape(&i.name)),
            None => escape(&i.name),
        };
        let _ = writeln!(
            out,
            "<tr><th>{name}</th><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&column.verdict),
            i.must_kept,
            i.must_broken,
            i.should_warned,
            escape(&i.target),
            escape(&i.covenant_version),
            i.seed.map(|s| s.to_string()).unwrap_or_default(),
            escape(&column.date),
        );
    }
    out.push_str("</table>\n");
}

fn rules(out: &mut String, view: &MatrixView<'_>) {
    let columns = view.columns.len() + 2;
    let _ = writeln!(
        out,
        "<section id=\"rules-section\">\n<h2>Rules ({})</h2>",
        view.rows.len()
    );
    out.push_str("<div class=\"scroll\">\n<table id=\"rules\">\n<thead><tr><th><button type=\"button\" id=\"by-area\" aria-pressed=\"true\" title=\"group the rules by area\">rule (by area)</button></th><th>level</th>");
    for (at, column) in view.columns.iter().enumerate() {
        let _ = write!(
            out,
            "<th><button type=\"button\" data-column=\"{at}\" aria-pressed=\"false\" title=\"sort the rules by this implementation's result\">{}</button></th>",
            escape(&column.implementation.name)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for area in &view.areas {
        let _ = writeln!(
            out,
            "<tr class=\"area\" id=\"area-{}\"><th colspan=\"{columns}\">{}</th></tr>",
            escape(area.area),
            escape(area.area)
        );
        for (section, rows) in &area.sections {
            let _ = writeln!(
                out,
                "<tr class=\"section\"><th colspan=\"{columns}\">{}</th></tr>",
                escape(section)
            );
            for row in view.rows_at(rows) {
                rule(out, view, row);
            }
        }
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

fn rule(out: &mut String, view: &MatrixView<'_>, row: &Row<'_>) {
    let rule = row.rule;
    let level = rule.level;
    let results: Vec<&str> = row.results().map(Outcome::class).collect();
    let _ = write!(
        out,
        "<tr class=\"rule\" id=\"rule-{}\" data-order=\"{}\" data-area=\"{}\" data-level=\"{level}\" data-results=\"{}\"><td class=\"statement\"><code>{}</code><br/><span>{}</span></td><td>{level}</td>",
        escape(&rule.id),
        row.order,
        escape(&rule.area),
        results.join(" "),
        escape(&rule.id),
        escape(&rule.statement)
    );
    for ((_, c), column) in rule.results.iter().zip(&view.columns) {
        out.push_str(&cell(c, column.implementation.summary.as_deref()));
    }
    out.push_str("</tr>\n");
}

/// A result's cell: its rank for sorting, the case and message on hover, and a link to that
/// case in the implementation's summary.
fn cell(cell: &Cell, summary: Option<&str>) -> String {
    let rank = cell.result as u8;
    let word = escape(cell.result.as_str());
    let title = match (&cell.case, &cell.message) {
        (Some(case), Some(message)) => format!("{case}: {message}"),
        (None, Some(message)) => message.clone(),
        (Some(case), None) => case.clone(),
        (None, None) => String::new(),
    };
    let title = if title.is_empty() {
        String::new()
    } else {
        format!(" title=\"{}\"", escape(&title))
    };
    let text = match (broken_in(cell), summary) {
        (Some(case), Some(summary)) => format!(
            "<a href=\"{}#{}\">{word}</a>",
            escape(summary),
            escape(&case_anchor(case))
        ),
        _ => word,
    };
    format!(
        "<td class=\"{}\" data-rank=\"{rank}\"{title}>{text}</td>",
        cell.result.class()
    )
}

fn choices(out: &mut String, view: &MatrixView<'_>) {
    let _ = writeln!(
        out,
        "<section id=\"choices-section\">\n<h2>Where the spec is silent ({} places, {} where they chose differently)</h2>",
        view.choices.len(),
        view.differ.len(),
    );
    out.push_str("<p><label><input type=\"checkbox\" id=\"differ-only\"/> only where they chose differently</label></p>\n");
    out.push_str("<div class=\"scroll\">\n<table id=\"choices\">\n<thead><tr><th>gap</th><th>where</th><th>choices</th><th>what each chose (and who)</th></tr></thead>\n<tbody>\n");
    for row in &view.choices {
        let choice = row.choice;
        let class = if choice.distinct > 1 {
            "differ"
        } else {
            "alike"
        };
        let _ = write!(
            out,
            "<tr class=\"{class}\"><td><code title=\"{}\">{}</code></td><td>{}</td><td class=\"num\">{}</td><td>",
            escape(&choice.text),
            escape(&choice.gap),
            escape(&row.subject),
            choice.distinct
        );
        picks(out, view, row);
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

/// Each value once, with who showed it; long values and long lists of names folded.
fn picks(out: &mut String, view: &MatrixView<'_>, row: &ChoiceRow<'_>) {
    let all = view.columns.len();
    out.push_str("<ul class=\"picks\">");
    for pick in &row.picks {
        out.push_str("<li><span class=\"value\">");
        fold(out, &pick.values, FOLD_CHARS);
        out.push_str("</span> <span class=\"who\">");
        if pick.everyone {
            let _ = write!(out, "all {all}");
        } else if pick.names.len() > FOLD_NAMES {
            let who = pick.names.join(", ");
            let _ = write!(
                out,
                "<details><summary>{} implementations</summary>{}</details>",
                pick.names.len(),
                escape(&who)
            );
        } else {
            out.push_str(&escape(&pick.names.join(", ")));
        }
        out.push_str("</span></li>");
    }
    out.push_str("</ul>");
}

/// `items` as is when short, else folded: their first items as the summary, all inside.
fn fold(out: &mut String, items: &[&str], chars: usize) {
    let whole = items.join(", ");
    if whole.chars().count() <= chars {
        out.push_str(&escape(&whole));
        return;
    }
    let _ = write!(
        out,
        "<details><summary>{}</summary>{}</details>",
        escape(&listed(items, chars / 2)),
        escape(&whole)
    );
}
