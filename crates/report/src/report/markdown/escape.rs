//! Text from a record made safe to write into Markdown: escaped in a paragraph, held whole in a
//! code span or a fence however many backticks it has, cut to a number of lines. One place, so
//! that no hostile body can restructure a comment, whichever file writes it.

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
pub(super) fn inline_code(raw: &str) -> String {
    let one_line = raw.replace(['\n', '\r'], " ");
    let ticks = "`".repeat(longest_backtick_run(&one_line) + 1);
    if one_line.starts_with('`') || one_line.ends_with('`') {
        format!("{ticks} {one_line} {ticks}")
    } else {
        format!("{ticks}{one_line}{ticks}")
    }
}

/// A code fence longer than any run of backticks in `body`, at least three.
pub(super) fn fence_for(body: &str) -> String {
    "`".repeat((longest_backtick_run(body) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

pub(super) fn cut_lines(text: &str, max: usize) -> String {
    let total = text.lines().count();
    let mut shown: String = text.lines().take(max).collect::<Vec<_>>().join("\n");
    if total > max {
        let _ = write!(shown, "\n… {} more lines", total - max);
    }
    shown
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
