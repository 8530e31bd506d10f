//! The Markdown format, sized for a pull-request comment: `summary.md` of a run ([`Markdown`]),
//! `compare.md` of two runs ([`compare()`]) and `diff.md` of two targets ([`diff()`]), each laid
//! out from its view (`report::view`).
//!
//! Text from the record is escaped so that a hostile body cannot restructure the comment, and
//! long lists are cut; past 65 536 bytes (GitHub refuses longer comments) the least important
//! parts of a run are left out, with a note saying so; the HTML and the JSON have the rest.

mod compare;
mod diff;
mod run;

pub use compare::compare;
pub use diff::diff;
pub use run::{Markdown, LIMIT};

use crate::report::view::Sides;
use crate::report::view::SIDE_COLUMNS;
use std::fmt::Write;

/// Text safe in a Markdown paragraph or list item: one line, Markdown and HTML characters
/// escaped.
pub fn text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '!' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span that holds any text: the fence is longer than any run of backticks inside.
fn inline_code(raw: &str) -> String {
    let one_line = raw.replace(['\n', '\r'], " ");
    let ticks = "`".repeat(longest_backtick_run(&one_line) + 1);
    if one_line.starts_with('`') || one_line.ends_with('`') {
        format!("{ticks} {one_line} {ticks}")
    } else {
        format!("{ticks}{one_line}{ticks}")
    }
}

/// A code fence longer than any run of backticks in `body`, at least three.
fn fence_for(body: &str) -> String {
    "`".repeat((longest_backtick_run(body) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn cut_lines(text: &str, max: usize) -> String {
    let total = text.lines().count();
    let mut shown: String = text.lines().take(max).collect::<Vec<_>>().join("\n");
    if total > max {
        let _ = write!(shown, "\n… {} more lines", total - max);
    }
    shown
}

/// Two runs side by side, as a table: a compare's old and new, a diff's A and B.
fn sides(out: &mut String, sides: &Sides) {
    let _ = writeln!(
        out,
        "| | {} |\n|---|---|---|---|{}",
        SIDE_COLUMNS.join(" | "),
        "---:|".repeat(SIDE_COLUMNS.len() - 3)
    );
    for side in &sides.rows {
        let counts: Vec<String> = side.counts.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | `{}` | {} |",
            side.name,
            inline_code(&side.target),
            side.verdict,
            side.seed,
            counts.join(" | ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_code_survives_backticks() {
        assert_eq!(inline_code("a`b"), "``a`b``");
        assert_eq!(inline_code("`x"), "`` `x ``");
    }

    #[test]
    fn fence_outgrows_backticks_in_the_body() {
        assert_eq!(fence_for("no ticks"), "```");
        assert_eq!(fence_for("has ```` four"), "`````");
    }

    #[test]
    fn text_cannot_open_a_link_or_a_heading() {
        assert_eq!(text("# [x](y)\n<b>"), "\\# \\[x\\](y) \\<b\\>");
    }
}
