//! What every page of this format shares, whichever product it lays out: the anchor a case's
//! `<details>` carries (the summary, the matrix and their links must agree on it), the one way a
//! template is rendered, and the escaping the templates apply, for whoever must find a value as
//! a page writes it.

use askama::Template;

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
