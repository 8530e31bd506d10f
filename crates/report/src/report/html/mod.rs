//! The HTML format: self-contained pages (no external asset, no network). `summary.html` of a
//! run ([`Html`]) and `diff.html` of two targets ([`diff()`]), each laid out from its view
//! (`report::view`). Each page's skeleton (its head, the order of its sections), its style sheet
//! and its script are resource files beside this module, embedded with `include_str!`; Rust
//! fills the skeleton's slots. Every piece of text from a record or the catalogue is escaped.

mod constraints;
mod counts;
mod diff;
mod run;

use std::fmt::Write;

pub use diff::diff;
pub use run::Html;

/// Text made safe for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The `id` of a case's `<details>` element.
pub fn case_anchor(case_id: &str) -> String {
    format!("case-{case_id}")
}

/// A skeleton with each `{{name}}` replaced by its slot's text, in one pass (a slot's text is
/// never read for slots). A line that is a slot alone is replaced whole, its line end with it:
/// a slot holds whole lines, or nothing when its section has nothing to say.
fn fill(skeleton: &str, slots: &[(&str, String)]) -> String {
    let value = |name: &str| {
        slots
            .iter()
            .find(|(slot, _)| *slot == name)
            .map(|(_, text)| text.as_str())
            .unwrap_or_else(|| panic!("the skeleton names {{{{{name}}}}}, which has no slot"))
    };
    let mut out =
        String::with_capacity(skeleton.len() + slots.iter().map(|s| s.1.len()).sum::<usize>());
    for line in skeleton.lines() {
        if let Some(name) = line.strip_prefix("{{").and_then(|l| l.strip_suffix("}}")) {
            if !name.contains('}') {
                out.push_str(value(name));
                continue;
            }
        }
        let mut rest = line;
        while let Some(start) = rest.find("{{") {
            let Some(end) = rest[start..].find("}}") else {
                break;
            };
            out.push_str(&rest[..start]);
            out.push_str(value(&rest[start + 2..start + end]));
            rest = &rest[start + end + 2..];
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// A unified diff with added, removed and hunk lines marked for colour.
fn diff_html(diff: &str) -> String {
    let mut out = String::new();
    for line in diff.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") {
            ""
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else if line.starts_with("@@") {
            "hunk"
        } else {
            ""
        };
        if class.is_empty() {
            let _ = writeln!(out, "{}", escape(line));
        } else {
            let _ = writeln!(out, "<span class=\"{class}\">{}</span>", escape(line));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_alone_on_its_line_holds_whole_lines_and_a_slot_inside_a_line_fills_it() {
        let slots = [
            ("title", "a {{body}} b".to_owned()),
            ("body", "<p>x</p>\n".to_owned()),
            ("none", String::new()),
        ];
        let page = fill("<h1>{{title}}</h1>\n{{body}}\n{{none}}\n<end>\n", &slots);
        assert_eq!(page, "<h1>a {{body}} b</h1>\n<p>x</p>\n<end>\n");
    }
}
