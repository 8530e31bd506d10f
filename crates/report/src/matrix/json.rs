//! `matrix.json`: the matrix as data, for readers that do not run covenant. Its schema is
//! `schemas/matrix.json`.

use super::Matrix;

/// The matrix, pretty-printed, with a final newline.
pub fn render(matrix: &Matrix) -> String {
    let mut text = serde_json::to_string_pretty(matrix).expect("a matrix is plain data");
    text.push('\n');
    text
}
