//! The HTML format: self-contained pages (no external asset, no network). `summary.html` of a
//! run ([`Html`]) and `diff.html` of two targets ([`diff()`]). Style sheets and the script are
//! resource files beside this module, embedded with `include_str!`. Every piece of text from a
//! record or the catalogue is escaped.

mod diff;
mod run;

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
