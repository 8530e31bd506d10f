//! `diff.html`: the behaviour diff of two targets, as `diff.md` has it, as one page.

use super::escape;
use crate::report::case_list;
use crate::report::diff::{listed, BehaviourDiff, COMPARED};
use std::fmt::Write;

/// The page's style sheet, on one line.
const STYLE: &str = include_str!("diff.css");

/// `diff.html`: both verdicts, the differences by operation, the gaps chosen differently and the
/// cases not compared.
pub fn diff(diff: &BehaviourDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Covenant behaviour diff</title>\n<style>{}</style>\n</head>\n<body>\n<h1>Covenant behaviour diff</h1>",
        STYLE.trim_end()
    );
    let _ = writeln!(
        out,
        "<p id=\"headline\" data-differences=\"{}\">{}</p>",
        diff.differences.len() + diff.gaps.len(),
        escape(&diff.headline())
    );
    sides(&mut out, diff);
    for note in &diff.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
    for group in diff.grouped() {
        let _ = writeln!(
            out,
            "<h2 id=\"op-{op}\"><code>{op}</code></h2>\n<table><tr><th>what</th><th>A</th><th>B</th><th>cases</th></tr>",
            op = escape(&group.operation)
        );
        for alike in group.alike {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&alike.what()),
                escape(&alike.difference.a),
                escape(&alike.difference.b),
                escape(&case_list(&alike.cases, 8))
            );
        }
        let _ = writeln!(out, "</table>");
    }
    gaps(&mut out, diff);
    not_compared(&mut out, diff);
    let _ = writeln!(out, "</body>\n</html>");
    out
}

/// Both targets' verdicts and counts, and what was compared.
fn sides(out: &mut String, diff: &BehaviourDiff) {
    let _ = writeln!(out, "<table id=\"sides\"><tr><th></th><th>target</th><th>verdict</th><th>pass</th><th>warn</th><th>fail</th><th>error</th><th>skip</th></tr>");
    for side in [&diff.a, &diff.b] {
        let c = &side.counts;
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&side.name),
            escape(&side.target),
            side.verdict.as_str(),
            c.pass,
            c.warn,
            c.fail,
            c.error,
            c.skip
        );
    }
    let _ = writeln!(
        out,
        "</table>\n<p>Seed <code>{}</code>. {}</p>",
        diff.a.seed,
        escape(COMPARED)
    );
}

fn gaps(out: &mut String, diff: &BehaviourDiff) {
    let apart = diff.gaps_apart();
    if apart.is_empty() {
        return;
    }
    let _ = writeln!(out, "<h2 id=\"gaps\">Where the spec is silent, the two chose differently</h2>\n<table><tr><th>gap</th><th>about</th><th>what</th><th>A</th><th>B</th></tr>");
    for gap in apart {
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
}

fn not_compared(out: &mut String, diff: &BehaviourDiff) {
    if diff.not_compared.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<details id=\"not-compared\"><summary>Not compared ({})</summary><ul>",
        diff.not_compared.len()
    );
    for n in &diff.not_compared {
        let _ = writeln!(
            out,
            "<li><code>{}</code>: {}</li>",
            escape(&n.case),
            escape(&n.why)
        );
    }
    let _ = writeln!(out, "</ul></details>");
}
