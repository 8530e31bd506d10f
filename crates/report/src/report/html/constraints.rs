//! The constraint coverage of `summary.html`: every inventoried constraint of the requests
//! (see the record's `meta.constraints`), per operation, with how the run broke and held it and,
//! where it did not, why. An operation with a constraint left unexercised is open; the others
//! are folded to their counts.

use super::escape;
use crate::report::{plural, Measured};
use crate::verdict::{ConstraintCoverage, CoverageMeasure, RunRecord};
use std::fmt::Write;

/// The section, or nothing for a record without an inventory (real traffic, an older run).
pub(super) fn section(run: &RunRecord) -> String {
    let all = &run.meta.constraints;
    if all.is_empty() {
        return String::new();
    }
    let covered = all.iter().filter(|c| c.covered()).count();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<h2 id=\"constraints\">Constraint coverage ({covered} of {} broken and held)</h2>",
        plural(all.len(), "constraint")
    );
    out.push_str("<p>Every constraint the schemas and the operations table state for a request (body, path, query, headers), derived from them: broken, the answers to requests that broke it alone; held, the accepted requests that kept it at its edge (a length at its limit, a bound, null, or the field present). Where a side was not exercised, the reason.</p>\n");
    let mut operations: Vec<&str> = Vec::new();
    for c in all {
        if !operations.contains(&c.operation.as_str()) {
            operations.push(&c.operation);
        }
    }
    for op in operations {
        let rows: Vec<&ConstraintCoverage> = all.iter().filter(|c| c.operation == op).collect();
        operation(&mut out, op, &rows);
    }
    out
}

/// The stated statements of the spec a client could observe that no response of the run judged,
/// each with its place in the spec (`covenant trace ID` says what would judge it); nothing when
/// every one was judged or the record has no inventory.
pub(super) fn unjudged_statements(measures: &[Measured]) -> String {
    let statements = measures
        .iter()
        .find(|m| m.measure == CoverageMeasure::Statements);
    let Some(m) = statements.filter(|m| !m.lacking.is_empty()) else {
        return String::new();
    };
    let mut out = format!(
        "<details id=\"unjudged-statements\" open><summary>{} of the spec no response of this \
         run judged</summary><ul>\n",
        plural(m.lacking.len(), "stated statement")
    );
    for entry in &m.lacking {
        let _ = writeln!(out, "<li>{}</li>", escape(entry));
    }
    out.push_str("</ul></details>\n");
    out
}

fn operation(out: &mut String, op: &str, rows: &[&ConstraintCoverage]) {
    let lacking = rows.iter().filter(|c| !c.covered()).count();
    let open = if lacking > 0 { " open" } else { "" };
    let state = match lacking {
        0 => "all broken and held".to_owned(),
        n => format!("{n} not exercised on both sides"),
    };
    let _ = writeln!(
        out,
        "<details id=\"constraints-{op}\"{open}><summary><code>{op}</code>: {}, {state}</summary>",
        plural(rows.len(), "constraint"),
        op = escape(op)
    );
    out.push_str("<table><tr><th>constraint</th><th>rule</th><th>broken</th><th>held</th><th>not exercised</th></tr>\n");
    for c in rows {
        let broken = match &c.unbreakable {
            Some(why) => format!("<td>{}</td>", escape(why)),
            None => side(c.broken, ""),
        };
        let refused = match c.refused {
            0 => String::new(),
            n => format!("; refused {n}"),
        };
        let held = side(c.held, &format!("{}{refused}", escape(&c.edge)));
        let why = c.why_not.as_deref().map(escape).unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td><code>{}</code></td>{broken}{held}<td>{why}</td></tr>",
            escape(&c.id),
            escape(&c.rule)
        );
    }
    out.push_str("</table>\n</details>\n");
}

/// A side's cell: its count (with what it means), marked when nothing exercised it.
fn side(count: u32, what: &str) -> String {
    let class = if count == 0 { "warn" } else { "pass" };
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(" ({what})")
    };
    format!("<td class=\"{class}\">{count}{what}</td>")
}
