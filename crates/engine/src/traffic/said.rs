//! What the judge said of one exchange, one console line per finding.

use crate::verdict::Finding;

/// What the judge said of one exchange, for the console: each finding, the target's or the
/// client's, in one line.
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    /// `traffic.<operation>` or `client.<operation>`.
    pub case: String,
    /// `METHOD /path` (no query: it may hold a token).
    pub request: String,
    pub finding: Finding,
    /// The client's slip, not the target's breach.
    pub clients: bool,
}

impl Said {
    /// One line for the console: the level (or `CLIENT`), the rule, where, and what.
    pub fn line(&self) -> String {
        let level = if self.clients {
            "CLIENT"
        } else if self.finding.level == crate::catalogue::Level::Must {
            "FAIL"
        } else {
            "WARN"
        };
        format!(
            "{level} {} {} ({}): {}",
            self.finding.rule,
            self.request,
            self.case,
            one_line(&self.finding.message, LINE_MESSAGE)
        )
    }
}

/// The most characters of a finding's message one console line shows.
const LINE_MESSAGE: usize = 400;

/// `text` on one line: each run of whitespace (line breaks of an HTML body among them) one
/// space, and cut to `max` characters with an ellipsis.
fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 4));
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > max {
            let end = out.char_indices().nth(max).map_or(out.len(), |(i, _)| i);
            out.truncate(end);
            out.push('…');
            break;
        }
    }
    out
}
