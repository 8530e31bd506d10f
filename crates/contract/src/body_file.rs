//! Long bodies kept out of what people read: a body over [`MAX_INLINE`] bytes is written once
//! into a folder beside the reports (`bodies/<hash>`), shown by its first bytes, its length and
//! that file, and a curl that sent it sends the file instead (`--data-binary @'<file>'`), so
//! that it still runs as printed. The reports fold the bodies of the record this way, and the
//! explorer's scripts, written while the run goes on, fold theirs into the same files.

use std::path::{Path, PathBuf};

/// The longest body a surface shows whole.
pub const MAX_INLINE: usize = 4 << 10;
/// How much of a longer body is shown.
const SHOWN: usize = 256;

/// A body that cannot be written beside the reports.
#[derive(Debug)]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Whether a request body is shown from its file: long, and holding no redacted secret (the
/// file would not send what was sent).
pub fn foldable(body: &str) -> bool {
    body.len() > MAX_INLINE && !body.contains("***")
}

/// Writes `body` to `dir/bodies/<hash>` (once: the same body has the same name) and returns
/// that path as the reports name it.
pub fn write(dir: &Path, body: &str) -> Result<String, WriteError> {
    // Names need only be stable within a build: the same body is written once, under one name.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(body, &mut hasher);
    let hash = format!("{:016x}", std::hash::Hasher::finish(&hasher));
    let folder = dir.join("bodies");
    std::fs::create_dir_all(&folder).map_err(|source| WriteError {
        path: folder.clone(),
        source,
    })?;
    let path = folder.join(&hash);
    if !path.exists() {
        std::fs::write(&path, body).map_err(|source| WriteError {
            path: path.clone(),
            source,
        })?;
    }
    Ok(path.display().to_string())
}

/// The first bytes of `body`, its length and where the whole of it is.
pub fn shown(body: &str, path: &str) -> String {
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
pub fn curl_from_file(curl: &str, path: &str) -> String {
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
    use super::{curl_from_file, shown, MAX_INLINE};

    #[test]
    fn a_curl_sends_a_long_body_from_its_file_whichever_way_it_was_given() {
        let inline = "curl -sS -i -X POST 'http://h/p' -H 'a: 1' --data-raw '{\"a\":1}'";
        assert_eq!(
            curl_from_file(inline, "r/bodies/00ff"),
            "curl -sS -i -X POST 'http://h/p' -H 'a: 1' --data-binary @'r/bodies/00ff'"
        );
        let piped = "printf '%s' '{}' | curl -sS -i -X POST 'http://h/p' --data-binary @-";
        assert_eq!(
            curl_from_file(piped, "r/bodies/00ff"),
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
