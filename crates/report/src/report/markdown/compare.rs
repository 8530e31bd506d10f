//! `compare.md`: what changed between two runs, for a pull-request comment.

use super::{sides, text};
use crate::report::compare::Comparison;
use crate::report::view::CompareView;
use crate::report::words::capitalised;
use std::fmt::Write;

/// `compare.md`, for a pull-request comment.
pub fn compare(comparison: &Comparison) -> String {
    let view = CompareView::new(comparison);
    let mut out = String::new();
    let mark = if view.regressed { "❌" } else { "✅" };
    let _ = writeln!(out, "## Covenant compare: {mark} {}\n", view.headline);
    sides(&mut out, &view.sides);
    for note in view.notes {
        let _ = writeln!(out, "\n> {}", text(note));
    }
    for (title, cases) in &view.cases {
        if cases.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {title} ({})\n", cases.len());
        for case in cases {
            let _ = writeln!(out, "- {}", case.replace('|', "\\|"));
        }
    }
    for (title, rules) in &view.rules {
        if rules.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n### {} ({})\n\n| rule | old | new |\n|---|---|---|",
            capitalised(title),
            rules.len()
        );
        for rule in *rules {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                rule.rule,
                rule.old.as_str(),
                rule.new.as_str()
            );
        }
    }
    out
}
