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
mod page;
mod run;

pub use diff::diff;
pub(crate) use page::rendered;
pub use page::{case_anchor, escaped};
pub use run::Html;
