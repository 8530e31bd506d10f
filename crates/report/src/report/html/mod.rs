//! The HTML format: self-contained pages (no external asset, no network). `summary.html` of a
//! run ([`Html`]) and `diff.html` of two targets ([`diff()`]), each laid out from its view
//! (`report::view`) by a template of `crates/report/templates/`; their style sheets and scripts
//! are resource files beside this module, embedded with `include_str!`.
//!
//! The templates are askama's: checked when the crate compiles (a field or a method a template
//! names that the page lacks is a compile error, not a blank on the page), and every value they
//! write is HTML-escaped by the engine unless marked `safe`, which only this crate's own style
//! sheets, scripts and constant markup are. No text of a record or the catalogue is escaped by
//! hand, and none reaches a page unescaped.

mod diff;
mod run;

use askama::Template;

pub use diff::diff;
pub use run::Html;

/// The `id` of a case's `<details>` element.
pub fn case_anchor(case_id: &str) -> String {
    format!("case-{case_id}")
}

/// A page laid out by its template, for a page whose values cannot fail to write.
pub(crate) fn rendered(page: &impl Template) -> String {
    page.render()
        .expect("a page's values are strings and numbers, whose writing into a String never fails")
}

/// `text` as the templates write it into an element or a quoted attribute (askama's escape:
/// `&#60;`, `&#34;`, ...): the HTML form a secret is masked in, and a test looks for.
pub fn escaped(text: &str) -> String {
    askama::filters::escape(text, askama::filters::Html)
        .map(|safe| safe.to_string())
        .unwrap_or_else(|never| match never {})
}
