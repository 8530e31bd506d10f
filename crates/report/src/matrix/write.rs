//! The matrix's files, each laid out from one view.

use super::{html, json, md, MatrixError, MatrixView};
use std::path::{Path, PathBuf};

/// Writes `matrix.json`, `matrix.md` and `matrix.html` of one view into `dir` (created if
/// missing). Returns the paths written.
pub fn write(view: &MatrixView<'_>, dir: &Path) -> Result<Vec<PathBuf>, MatrixError> {
    [
        ("matrix.json", json::render(view)),
        ("matrix.md", md::render(view)),
        ("matrix.html", html::render(view)),
    ]
    .into_iter()
    .map(|(name, text)| Ok(crate::report::write_file(dir, name, &text, &[])?))
    .collect()
}
