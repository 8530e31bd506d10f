//! The Markdown format, sized for a pull-request comment: `summary.md` of a run ([`Markdown`]),
//! `compare.md` of two runs ([`compare()`]) and `diff.md` of two targets ([`diff()`]), each laid
//! out from its view (`report::view`).
//!
//! Text from the record is escaped so that a hostile body cannot restructure the comment, and
//! long lists are cut; past 65 536 bytes (GitHub refuses longer comments) the least important
//! parts of a run are left out, with a note saying so; the HTML and the JSON have the rest.

mod compare;
mod diff;
mod escape;
mod layout;
mod run;

pub use compare::compare;
pub use diff::diff;
pub use escape::text;
pub use run::{Markdown, LIMIT};

use escape::{cut_lines, fence_for, inline_code};
use layout::sides;
