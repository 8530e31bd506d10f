//! What `covenant matrix` prints: one line per implementation, then how many rules some
//! implementation breaks and in how many silent places they chose differently.

use super::view::MatrixView;

/// The lines printed once the matrix is written.
pub fn summary(view: &MatrixView<'_>) -> String {
    let mut text = String::new();
    for column in &view.columns {
        let i = column.implementation;
        text.push_str(&format!(
            "{}: {}, {} must rules kept, {} broken ({}, covenant {})\n",
            i.name, column.verdict, i.must_kept, i.must_broken, i.target, i.covenant_version
        ));
    }
    text.push_str(&format!(
        "rules broken by some implementation: {}; places where the spec is silent and they chose differently: {}\n",
        view.broken.len(),
        view.differ.len()
    ));
    text
}
