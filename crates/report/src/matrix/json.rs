//! `matrix.json`: the matrix as data, for readers that do not run covenant. Its schema is
//! `schemas/matrix.json`.

use super::view::MatrixView;

/// The matrix, pretty-printed, with a final newline.
pub fn render(view: &MatrixView<'_>) -> String {
    let mut text = serde_json::to_string_pretty(view.matrix).expect("a matrix is plain data");
    text.push('\n');
    text
}
