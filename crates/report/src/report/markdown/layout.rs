//! The layout a compare and a diff share: their two runs side by side, as one table, so that
//! old and new, and A and B, read alike.

use super::inline_code;
use crate::report::view::Sides;
use crate::report::view::SIDE_COLUMNS;
use std::fmt::Write;

/// Two runs side by side, as a table: a compare's old and new, a diff's A and B.
pub(super) fn sides(out: &mut String, sides: &Sides) {
    let _ = writeln!(
        out,
        "| | {} |\n|---|---|---|---|{}",
        SIDE_COLUMNS.join(" | "),
        "---:|".repeat(SIDE_COLUMNS.len() - 3)
    );
    for side in &sides.rows {
        let counts: Vec<String> = side.counts.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | `{}` | {} |",
            side.name,
            inline_code(&side.target),
            side.verdict,
            side.seed,
            counts.join(" | ")
        );
    }
}
