//! Scratch directories: one fresh, empty directory per test under cargo's temporary directory
//! of the tests, so that no test reads what another one wrote.

use std::path::PathBuf;

/// A fresh, empty scratch directory under cargo's temporary directory of the tests. Every test
/// shares one process, so each module prefixes `name` with its own.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}
