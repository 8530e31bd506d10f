//! Test helpers other report tests share, and tests of every format at once.

use super::*;
use crate::catalogue::Catalogue;
use crate::report::view::failed_case as case;
use crate::verdict::{CaseResult, RunRecord, Verdict};

/// A case skipped for `reason`.
pub(crate) fn skipped(id: &str, reason: &str) -> CaseResult {
    let mut case = case(id, &[]);
    case.verdict = Verdict::Skip;
    case.skip_reason = Some(reason.to_owned());
    case
}

#[test]
fn every_format_says_each_skip_reason_once_with_its_cases() {
    let key = "the profile does not give finops.other_organization_id (tenancy)";
    let run = RunRecord::of_cases(vec![
        skipped("tenant.a", key),
        skipped("velocity.card-scoped", "the profile has no card_id fixture"),
        skipped("tenant.b", key),
        skipped("tenant.c", key),
    ]);
    let catalogue = Catalogue::embedded();
    let view = RunView::new(&run, catalogue);
    let md = Markdown.render(&view).expect("summary.md");
    let html = Html.render(&view).expect("summary.html");
    let console = console::summary(&view);
    for (name, text) in [("md", &md), ("html", &html), ("console", &console)] {
        assert_eq!(text.matches("(tenancy)").count(), 1, "{name}: {text}");
        assert!(text.contains("tenant.c"), "{name}: {text}");
    }
    assert!(md.contains("### Skipped (4)"), "{md}");
    assert!(
        md.contains("- **3 cases**: the profile does not give"),
        "{md}"
    );
    assert!(
        md.contains("  - `tenant.a`, `tenant.b`, `tenant.c`\n"),
        "{md}"
    );
    assert!(
        md.contains("- **`velocity.card-scoped`**: the profile has no card\\_id fixture"),
        "{md}"
    );
    assert!(
        html.contains("<details><summary>3 cases</summary>"),
        "{html}"
    );
}
