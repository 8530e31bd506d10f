//! `diff.html`: the behaviour diff of two targets, as `diff.md` has it, as one page laid out
//! from the diff's view by the template `templates/diff.html`.

use crate::report::diff::BehaviourDiff;
use crate::report::view::{listed, what, DiffView, COMPARED, SIDE_COLUMNS};
use crate::report::words::case_list;
use askama::Template;

/// The page's style sheet, on one line.
const STYLE: &str = include_str!("diff.css");

/// `diff.html`: both runs side by side, the differences by operation, the gaps chosen
/// differently and the cases not compared.
#[derive(Template)]
#[template(path = "diff.html")]
struct DiffPage<'a> {
    view: DiffView<'a>,
    style: &'static str,
}

/// `diff.html` of the diff.
pub fn diff(diff: &BehaviourDiff) -> String {
    let page = DiffPage {
        view: DiffView::new(diff),
        style: STYLE.trim_end(),
    };
    super::rendered(&page)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::{NotCompared, Side};
    use crate::verdict::{Counts, RunVerdict};

    #[test]
    fn hostile_text_of_a_record_comes_out_escaped() {
        let hostile = "<script>alert(\"x\")</script> & 'y'";
        let side = |name: &str| Side {
            name: name.to_owned(),
            target: hostile.to_owned(),
            seed: 1,
            verdict: RunVerdict::Fail,
            counts: Counts::default(),
        };
        let page = diff(&BehaviourDiff {
            a: side("A"),
            b: side("B"),
            differences: Vec::new(),
            gaps: Vec::new(),
            not_compared: vec![NotCompared {
                case: hostile.to_owned(),
                why: hostile.to_owned(),
            }],
            notes: vec![hostile.to_owned()],
        });
        assert!(!page.contains("<script>alert"), "{page}");
        let escaped = "&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;y&#39;";
        assert_eq!(page.matches(escaped).count(), 5, "{page}");
    }
}
