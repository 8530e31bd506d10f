//! The counts table of `summary.html`: the settled counts every surface says, one column each
//! (under `--strict` a warned case is counted under fail); the known cases of a baseline and the client's slips
//! of real traffic get a column only where there are some.

use super::escape;
use crate::verdict::RunRecord;

/// The table, as one line.
pub(super) fn table(run: &RunRecord) -> String {
    let c = &run.counts;
    let mut head = String::new();
    let mut row = String::new();
    let mut column = |class: &str, name: &str, n: usize| {
        let class = match class {
            "" => String::new(),
            class => format!(" class=\"{class}\""),
        };
        head.push_str(&format!("<th{class}>{name}</th>"));
        row.push_str(&format!("<td class=\"num\">{n}</td>"));
    };
    column("", "cases", c.total());
    column("pass", "pass", c.pass);
    column("warn", "warn", c.warn);
    column("fail", "fail", c.fail);
    column("error", "error", c.error);
    column("skip", "skip", c.skip);
    column("skip", "inconclusive", c.inconclusive);
    if c.known > 0 {
        column("known", "known", c.known);
    }
    if c.client > 0 {
        column("client", "client's slips", c.client);
    }
    column("", "requests", c.requests);
    format!("<table id=\"counts\"><tr>{head}</tr>\n<tr>{row}</tr></table>")
}

/// What the run's setup showed wrong, before the counts: a target that never answered, the
/// profile's problems and what they held back; empty where there was nothing.
pub(super) fn setup(view: &crate::report::view::RunView<'_>) -> String {
    let run = view.record;
    let mut out = String::new();
    if let Some(why) = &run.meta.unreachable {
        out.push_str(&format!(
            "<p class=\"warn\" id=\"unreachable\"><strong>Unreachable:</strong> {}.</p>\n",
            escape(why)
        ));
    }
    if !run.meta.profile_problems.is_empty() {
        out.push_str(&format!(
            "<p class=\"warn\"><strong>The profile does not fit the target</strong> ({}):</p>\n\
             <ul id=\"profile-problems\">\n",
            view.profile_problems_held()
        ));
        for problem in &run.meta.profile_problems {
            out.push_str(&format!("<li>{}</li>\n", escape(problem)));
        }
        out.push_str("</ul>");
    }
    out
}
