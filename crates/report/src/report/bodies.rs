//! Bodies kept small: a request or response body over [`MAX_INLINE`] bytes is written once
//! beside the reports (`bodies/<hash>`), and every surface shows it by its length, its hash and
//! its first bytes; the curl of such a request sends the file (`--data-binary @DIR/bodies/<hash>`),
//! so that it still runs as printed (see [`crate::body_file`]). A run of the explorer sends a
//! body of 1 MiB: printed whole it was one console line of a million characters, and megabytes
//! in each report.

use super::ReportError;
use crate::body_file::{self, curl_from_file, foldable, shown, MAX_INLINE};
use crate::verdict::{Exchange, RunRecord};
use std::borrow::Cow;
use std::path::Path;

/// `run` with every body over [`MAX_INLINE`] written into `dir/bodies/` and shown by reference.
/// A body holding a redacted secret stays whole: the file would not send what was sent.
pub fn fold<'a>(run: &'a RunRecord, dir: &Path) -> Result<Cow<'a, RunRecord>, ReportError> {
    let long = |e: &Exchange| {
        let request = e.request.body.as_ref().is_some_and(|b| foldable(b));
        request
            || e.response
                .as_ref()
                .is_some_and(|r| r.body.len() > MAX_INLINE)
    };
    if !run.cases.iter().any(|c| c.exchanges.iter().any(long)) {
        return Ok(Cow::Borrowed(run));
    }
    let mut run = run.clone();
    fold_in_place(&mut run, dir)?;
    Ok(Cow::Owned(run))
}

/// [`fold`] on a record of the caller's, without a copy of it.
pub fn fold_in_place(run: &mut RunRecord, dir: &Path) -> Result<(), ReportError> {
    for exchange in run.cases.iter_mut().flat_map(|c| c.exchanges.iter_mut()) {
        if let Some(body) = exchange.request.body.take() {
            exchange.request.body = Some(match foldable(&body) {
                true => {
                    let path = write_body(dir, &body)?;
                    exchange.request.curl = curl_from_file(&exchange.request.curl, &path);
                    shown(&body, &path)
                }
                false => body,
            });
        }
        if let Some(response) = exchange.response.as_mut() {
            if response.body.len() > MAX_INLINE {
                let path = write_body(dir, &response.body)?;
                response.body = shown(&response.body, &path);
                response.truncated = true;
            }
        }
    }
    Ok(())
}

/// Writes `body` beside the reports in `dir` and returns the path the reports name.
fn write_body(dir: &Path, body: &str) -> Result<String, ReportError> {
    body_file::write(dir, body).map_err(|e| ReportError::Write {
        path: e.path,
        source: e.source,
    })
}
