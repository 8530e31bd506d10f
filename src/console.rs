//! The terminal: what commands print to stdout and stderr.
//!
//! Every line goes through here so that a closed pipe (`covenant run | head`) is never an
//! error and never a panic: the output is dropped, the command carries on and exits as it would.

use std::io::Write;

/// Writes to stdout, ignoring a closed pipe.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Writes a line to stderr, ignoring a closed pipe.
pub fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
