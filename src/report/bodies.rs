//! Bodies kept small: a request or response body over [`MAX_INLINE`] bytes is written once
//! beside the reports (`bodies/<hash>`), and every surface shows it by its length, its hash and
//! its first bytes; the curl of such a request sends the file (`--data-binary @DIR/bodies/<hash>`),
//! so that it still runs as printed. A run of the explorer sends a body of 1 MiB: printed whole
//! it was one console line of a million characters, and megabytes in each report.

use super::ReportError;
use crate::verdict::{Exchange, RunRecord};
use std::borrow::Cow;
use std::path::Path;

/// The longest body a surface shows whole.
pub const MAX_INLINE: usize = 4 << 10;
/// How much of a longer body is shown.
const SHOWN: usize = 256;

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
                    exchange.request.curl = from_file(&exchange.request.curl, &path);
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

fn foldable(body: &str) -> bool {
    body.len() > MAX_INLINE && !body.contains("***")
}

/// Writes `body` to `dir/bodies/<hash>` (once: the same body has the same name) and returns
/// that path as the reports name it.
fn write_body(dir: &Path, body: &str) -> Result<String, ReportError> {
    // Names need only be stable within a build: the same body is written once, under one name.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(body, &mut hasher);
    let hash = format!("{:016x}", std::hash::Hasher::finish(&hasher));
    let folder = dir.join("bodies");
    std::fs::create_dir_all(&folder).map_err(|source| ReportError::CreateDir {
        path: folder.clone(),
        source,
    })?;
    let path = folder.join(&hash);
    if !path.exists() {
        std::fs::write(&path, body).map_err(|source| ReportError::Write {
            path: path.clone(),
            source,
        })?;
    }
    Ok(path.display().to_string())
}

/// The first bytes of `body`, its length and where the whole of it is.
fn shown(body: &str, path: &str) -> String {
    let mut end = SHOWN.min(body.len());
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… ({} bytes in all; the whole body is in {path})",
        &body[..end],
        body.len()
    )
}

/// The curl of a request whose body is now in the file at `path`: the body given inline
/// (`--data-raw '…'` at its end) or piped in (`printf '%s' '…' | curl … --data-binary @-`) is
/// read from the file instead. A curl of another form is kept.
fn from_file(curl: &str, path: &str) -> String {
    let file = format!("--data-binary @'{}'", path.replace('\'', "'\\''"));
    if let Some((_, piped)) = curl.split_once(" | curl ") {
        if let Some(head) = piped.strip_suffix("--data-binary @-") {
            return format!("curl {head}{file}");
        }
    }
    match curl.rfind(" --data-raw ") {
        Some(at) => format!("{} {file}", &curl[..at]),
        None => curl.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{from_file, shown, MAX_INLINE};

    #[test]
    fn a_curl_sends_a_long_body_from_its_file_whichever_way_it_was_given() {
        let inline = "curl -sS -i -X POST 'http://h/p' -H 'a: 1' --data-raw '{\"a\":1}'";
        assert_eq!(
            from_file(inline, "r/bodies/00ff"),
            "curl -sS -i -X POST 'http://h/p' -H 'a: 1' --data-binary @'r/bodies/00ff'"
        );
        let piped = "printf '%s' '{}' | curl -sS -i -X POST 'http://h/p' --data-binary @-";
        assert_eq!(
            from_file(piped, "r/bodies/00ff"),
            "curl -sS -i -X POST 'http://h/p' --data-binary @'r/bodies/00ff'"
        );
    }

    #[test]
    fn a_long_body_is_shown_by_its_start_its_length_and_its_file() {
        let body = "é".repeat(MAX_INLINE);
        let text = shown(&body, "r/bodies/00ff");
        assert!(text.len() < 400, "{text}");
        assert!(text.contains(&format!("{} bytes", body.len())), "{text}");
        assert!(text.ends_with("r/bodies/00ff)"), "{text}");
    }
}
