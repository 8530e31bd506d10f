//! `diff.md`: the behaviour diff of two targets, for a pull-request comment.

use super::{inline_code, sides, text};
use crate::report::diff::BehaviourDiff;
use crate::report::view::{alike_line, gap_line, DiffView, COMPARED};
use crate::report::words::case_list;
use std::fmt::Write;

/// `diff.md`: both runs side by side, then the differences by operation, the gaps chosen
/// differently and the cases not compared.
pub fn diff(diff: &BehaviourDiff) -> String {
    let view = DiffView::new(diff);
    let mut out = String::new();
    let mark = if view.alike { "✅" } else { "🔀" };
    let _ = writeln!(
        out,
        "## Covenant behaviour diff: {mark} {}\n",
        view.headline
    );
    sides(&mut out, &view.sides);
    let _ = writeln!(out, "\n{COMPARED}");
    for note in view.notes {
        let _ = writeln!(out, "\n> {}", text(note));
    }
    for operation in &view.operations {
        let _ = writeln!(out, "\n### {}\n", inline_code(&operation.operation));
        for fact in &operation.facts {
            let _ = writeln!(
                out,
                "- {}, in {}",
                text(&alike_line(fact)),
                text(&case_list(&fact.cases, 5))
            );
        }
    }
    if !view.gaps.is_empty() {
        let _ = writeln!(
            out,
            "\n### Where the spec is silent, the two chose differently\n"
        );
        for gap in &view.gaps {
            let _ = writeln!(out, "- {}", text(&gap_line(gap)));
        }
    }
    if !view.not_compared.is_empty() {
        let _ = writeln!(
            out,
            "\n<details><summary>Not compared ({})</summary>\n",
            view.not_compared.len()
        );
        for n in view.not_compared {
            let _ = writeln!(out, "- {}: {}", inline_code(&n.case), text(&n.why));
        }
        let _ = writeln!(out, "\n</details>");
    }
    out
}
