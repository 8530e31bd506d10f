//! `matrix.html`: the full matrix on one self-contained page (no external asset). Every rule,
//! grouped by area and by the spec section it comes from, a column per implementation; a
//! failing cell holds its case and message on hover and links to that case in the
//! implementation's summary.html when it sits beside its report. A button per column (or
//! `#sort=N` in the address) sorts every rule by that implementation's result, failures first;
//! filters keep the rules of one area, level or result (`#area=GEN&level=must&result=fail`).
//! The silent areas follow, each choice once with the implementations that made it, long lists
//! folded. The page fits 1280 px: wide tables scroll in their own box, and long text wraps. It
//! is well-formed XML as well as HTML, and every text from a report or the catalogue is escaped.

use super::{listed, Cell, Choice, Matrix, Outcome, RuleRow};
use crate::report::html::{case_anchor, escape};
use std::collections::BTreeSet;
use std::fmt::Write;

const CSS: &str = include_str!("matrix.css");
const JS: &str = include_str!("matrix.js");

/// A choice's values longer than this (in characters) are folded, their first items shown.
const FOLD_CHARS: usize = 160;
/// Names of implementations past this many are folded.
const FOLD_NAMES: usize = 8;

/// The whole page.
pub fn render(matrix: &Matrix) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    let title = format!(
        "Conformance matrix: {} implementations, {} rules",
        matrix.implementations.len(),
        matrix.rules.len()
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&title));
    let _ = writeln!(out, "<style>\n{CSS}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    implementations(&mut out, matrix);
    filters(&mut out, matrix);
    rules(&mut out, matrix);
    choices(&mut out, matrix);
    let _ = writeln!(
        out,
        "<p>Written by covenant {} (<code>covenant matrix</code>); the data: matrix.json.</p>",
        escape(&matrix.covenant_version)
    );
    let _ = writeln!(
        out,
        "<script>//<![CDATA[\n{JS}//]]></script>\n</body>\n</html>"
    );
    out
}

/// The filters of the rules: by area, level and result, each "all" unless the address asks.
fn filters(out: &mut String, matrix: &Matrix) {
    let mut areas: Vec<&str> = Vec::new();
    for row in &matrix.rules {
        if !areas.contains(&row.area.as_str()) {
            areas.push(&row.area);
        }
    }
    let results: BTreeSet<Outcome> = matrix
        .rules
        .iter()
        .flat_map(|r| r.results.iter().map(|(_, c)| c.result))
        .collect();
    out.push_str("<form id=\"filters\" class=\"filters\">\n");
    let select = |out: &mut String, id: &str, label: &str, options: Vec<(String, String)>| {
        let _ = write!(
            out,
            "<label>{label} <select id=\"filter-{id}\" data-filter=\"{id}\"><option value=\"\">all</option>"
        );
        for (value, text) in options {
            let _ = write!(
                out,
                "<option value=\"{}\">{}</option>",
                escape(&value),
                escape(&text)
            );
        }
        out.push_str("</select></label>\n");
    };
    select(
        out,
        "area",
        "area",
        areas
            .iter()
            .map(|a| (a.to_string(), a.to_string()))
            .collect(),
    );
    select(
        out,
        "level",
        "level",
        ["must", "should"]
            .iter()
            .map(|l| (l.to_string(), l.to_string()))
            .collect(),
    );
    select(
        out,
        "result",
        "some implementation's result",
        results
            .iter()
            .map(|r| (r.class().to_owned(), r.as_str().to_owned()))
            .collect(),
    );
    let _ = writeln!(
        out,
        "<output id=\"shown\">{n} of {n} rules</output>\n</form>",
        n = matrix.rules.len()
    );
}

fn implementations(out: &mut String, matrix: &Matrix) {
    out.push_str("<table id=\"implementations\">\n<tr><th>implementation</th><th>verdict</th><th>must kept</th><th>must broken</th><th>should warned</th><th>target</th><th>covenant</th><th>seed</th><th>date</th></tr>\n");
    for i in &matrix.implementations {
        let name = match &i.summary {
            Some(link) => format!("<a href=\"{}\">{}</a>", escape(link), escape(&i.name)),
            None => escape(&i.name),
        };
        let _ = writeln!(
            out,
            "<tr><th>{name}</th><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&i.verdict.replace('_', " ")),
            i.must_kept,
            i.must_broken,
            i.should_warned,
            escape(&i.target),
            escape(&i.covenant_version),
            i.seed.map(|s| s.to_string()).unwrap_or_default(),
            escape(&i.date.as_deref().map(super::short_date).unwrap_or_default()),
        );
    }
    out.push_str("</table>\n");
}

fn rules(out: &mut String, matrix: &Matrix) {
    let columns = matrix.implementations.len() + 2;
    let _ = writeln!(
        out,
        "<section id=\"rules-section\">\n<h2>Rules ({})</h2>",
        matrix.rules.len()
    );
    out.push_str("<div class=\"scroll\">\n<table id=\"rules\">\n<thead><tr><th><button type=\"button\" id=\"by-area\" aria-pressed=\"true\" title=\"group the rules by area\">rule (by area)</button></th><th>level</th>");
    for (column, i) in matrix.implementations.iter().enumerate() {
        let _ = write!(
            out,
            "<th><button type=\"button\" data-column=\"{column}\" aria-pressed=\"false\" title=\"sort the rules by this implementation's result\">{}</button></th>",
            escape(&i.name)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let mut grouped: Vec<(usize, &RuleRow)> = matrix.rules.iter().enumerate().collect();
    // Areas and their sections in the catalogue's order: where each first appears.
    let first_of = |area: &str| matrix.rules.iter().position(|r| r.area == area);
    let first_in = |row: &RuleRow| {
        matrix
            .rules
            .iter()
            .position(|r| r.area == row.area && r.section == row.section)
    };
    grouped.sort_by(|(a_at, a), (b_at, b)| {
        first_of(&a.area)
            .cmp(&first_of(&b.area))
            .then_with(|| first_in(a).cmp(&first_in(b)))
            .then(a_at.cmp(b_at))
    });
    let (mut area, mut section) = ("", "");
    for (order, row) in grouped {
        if row.area != area {
            area = &row.area;
            section = "";
            let _ = writeln!(
                out,
                "<tr class=\"area\" id=\"area-{}\"><th colspan=\"{columns}\">{}</th></tr>",
                escape(area),
                escape(area)
            );
        }
        if row.section != section {
            section = &row.section;
            let _ = writeln!(
                out,
                "<tr class=\"section\"><th colspan=\"{columns}\">{}</th></tr>",
                escape(section)
            );
        }
        rule(out, matrix, row, order);
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

fn rule(out: &mut String, matrix: &Matrix, row: &RuleRow, order: usize) {
    let level = row.level;
    let mut results: Vec<&str> = row.results.iter().map(|(_, c)| c.result.class()).collect();
    results.sort_unstable();
    results.dedup();
    let _ = write!(
        out,
        "<tr class=\"rule\" id=\"rule-{}\" data-order=\"{order}\" data-area=\"{}\" data-level=\"{level}\" data-results=\"{}\"><td class=\"statement\"><code>{}</code><br/><span>{}</span></td><td>{level}</td>",
        escape(&row.id),
        escape(&row.area),
        results.join(" "),
        escape(&row.id),
        escape(&row.statement)
    );
    for (column, (_, c)) in row.results.iter().enumerate() {
        let summary = matrix.implementations[column].summary.as_deref();
        out.push_str(&cell(c, summary));
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
    let text = match (cell.result, &cell.case, summary) {
        (Outcome::Fail | Outcome::Warn | Outcome::Known, Some(case), Some(summary)) => format!(
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

fn choices(out: &mut String, matrix: &Matrix) {
    let differ = matrix.choices.iter().filter(|c| c.distinct > 1).count();
    let _ = writeln!(
        out,
        "<section id=\"choices-section\">\n<h2>Where the spec is silent ({} places, {differ} where they chose differently)</h2>",
        matrix.choices.len(),
    );
    out.push_str("<p><label><input type=\"checkbox\" id=\"differ-only\"/> only where they chose differently</label></p>\n");
    out.push_str("<div class=\"scroll\">\n<table id=\"choices\">\n<thead><tr><th>gap</th><th>where</th><th>choices</th><th>what each chose (and who)</th></tr></thead>\n<tbody>\n");
    for choice in &matrix.choices {
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
            escape(&choice.subject()),
            choice.distinct
        );
        picks(out, matrix, choice);
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n</section>\n");
}

/// Each value once, with who showed it; long values and long lists of names folded.
fn picks(out: &mut String, matrix: &Matrix, choice: &Choice) {
    let all = matrix.implementations.len();
    out.push_str("<ul class=\"picks\">");
    for (values, names) in choice.picks() {
        out.push_str("<li><span class=\"value\">");
        let items: Vec<&str> = values.split(", ").collect();
        fold(out, &values, &items, FOLD_CHARS);
        out.push_str("</span> <span class=\"who\">");
        if names.len() == all && all > 1 {
            let _ = write!(out, "all {all}");
        } else if names.len() > FOLD_NAMES {
            let who = names.join(", ");
            let _ = write!(
                out,
                "<details><summary>{} implementations</summary>{}</details>",
                names.len(),
                escape(&who)
            );
        } else {
            out.push_str(&escape(&names.join(", ")));
        }
        out.push_str("</span></li>");
    }
    out.push_str("</ul>");
}

/// `whole` as is when short, else folded: its first `items` as the summary, all of it inside.
fn fold(out: &mut String, whole: &str, items: &[&str], chars: usize) {
    if whole.chars().count() <= chars {
        out.push_str(&escape(whole));
        return;
    }
    let _ = write!(
        out,
        "<details><summary>{}</summary>{}</details>",
        escape(&listed(items, chars / 2)),
        escape(whole)
    );
}
