//! Long bodies kept out of what people read: a body over [`MAX_INLINE`] bytes is written once
//! into a folder beside the reports (`bodies/<hash>`), shown by its first bytes, its length and
//! that file, and a curl that sent it sends the file instead (`--data-binary @'<file>'`), so
//! that it still runs as printed. The reports fold the bodies of the record this way, and the
//! explorer's scripts, written while the run goes on, fold theirs into the same files.
//!
//! A report directory used again keeps only the bodies its newest reports name: [`sweep`]
//! removes what earlier runs left there, which grew by every run's long bodies (459 MB after
//! some 300 runs into one directory).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

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

/// The folder beside the reports in `dir` that long bodies are written to.
const FOLDER: &str = "bodies";
/// The length of a body file's name: its hash in lowercase hexadecimal digits.
const NAME_LEN: usize = 16;

/// Writes `body` to `dir/bodies/<hash>` (once: the same body has the same name) and returns
/// that path as the reports name it.
pub fn write(dir: &Path, body: &str) -> Result<String, WriteError> {
    // Names need only be stable within a build: the same body is written once, under one name.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(body, &mut hasher);
    let hash = format!("{:0NAME_LEN$x}", std::hash::Hasher::finish(&hasher));
    let folder = dir.join(FOLDER);
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

/// Removes from `dir/bodies` the files of earlier runs that no report of this one names, and
/// returns how many it removed. A file goes only when its name is one [`write`] gives (its hash:
/// a folder of the user's that happens to be called `bodies` keeps its files), it was last
/// written before `since` (the start of this run: a run writing into the same directory at the
/// same time keeps its files) and none of `reports` (the files this run wrote, read one at a
/// time and only when some body is old enough) names it as `bodies/<hash>`.
pub fn sweep(dir: &Path, since: SystemTime, reports: &[PathBuf]) -> std::io::Result<usize> {
    let folder = dir.join(FOLDER);
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut stale = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str().filter(|n| is_name(n.as_bytes())) else {
            continue;
        };
        let meta = entry.metadata()?;
        if meta.is_file() && meta.modified()? < since {
            stale.push(name.to_owned());
        }
    }
    if stale.is_empty() {
        return Ok(0);
    }
    let mut named = HashSet::new();
    for report in reports {
        named.extend(names_in(&std::fs::read(report)?));
    }
    let mut removed = 0;
    for name in stale.iter().filter(|n| !named.contains(n.as_str())) {
        match std::fs::remove_file(folder.join(name)) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

/// Whether `name` is a name [`write`] gives a body file.
fn is_name(name: &[u8]) -> bool {
    name.len() == NAME_LEN && name.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The body files `text` names, as `bodies/<hash>` (a path in a report, a curl or a script;
/// `bodies\<hash>` where paths are written so).
fn names_in(text: &[u8]) -> HashSet<String> {
    memchr::memmem::find_iter(text, FOLDER.as_bytes())
        .map(|at| at + FOLDER.len())
        .filter(|&at| matches!(text.get(at), Some(b'/' | b'\\')))
        .filter_map(|at| text.get(at + 1..at + 1 + NAME_LEN))
        .filter(|name| is_name(name))
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect()
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
    use super::{curl_from_file, shown, sweep, write, MAX_INLINE};
    use std::path::PathBuf;
    use std::time::{Duration, SystemTime};

    /// A fresh folder of its own for each test.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("covenant-bodies-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A folder used by an earlier run and by this one: what goes and what stays.
    #[test]
    fn a_sweep_removes_only_the_old_bodies_no_report_names() {
        let dir = scratch("sweep");
        let body = |c: char| c.to_string().repeat(MAX_INLINE + 1);
        let named = write(dir.as_path(), &body('a')).unwrap();
        let unnamed = write(dir.as_path(), &body('b')).unwrap();
        let user = dir.as_path().join("bodies").join("notes.txt");
        std::fs::write(&user, "a file of the user's").unwrap();
        std::fs::create_dir(dir.as_path().join("bodies").join("0123456789abcdef")).unwrap();
        // Written after the run started: another run writing into the same folder.
        let since = SystemTime::now() + Duration::from_secs(60);
        let late = write(dir.as_path(), &body('c')).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&late)
            .unwrap()
            .set_modified(since + Duration::from_secs(1))
            .unwrap();
        let report = dir.join("report.json");
        std::fs::write(
            &report,
            format!("{{\"curl\": \"curl --data-binary @'{named}'\"}}"),
        )
        .unwrap();
        let removed = sweep(dir.as_path(), since, &[report]).unwrap();
        assert_eq!(removed, 1);
        assert!(!std::path::Path::new(&unnamed).exists());
        for kept in [&named, &late] {
            assert!(std::path::Path::new(kept).exists(), "{kept}");
        }
        assert!(user.exists());
        assert!(dir
            .as_path()
            .join("bodies")
            .join("0123456789abcdef")
            .is_dir());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_sweep_reads_no_report_when_no_body_is_old_enough() {
        let dir = scratch("fresh");
        // A report that cannot be read: the sweep fails where it reads it.
        let missing = [dir.join("no-such-report.json")];
        let none = sweep(dir.as_path(), SystemTime::now(), &missing).unwrap();
        assert_eq!(none, 0, "no folder");
        write(dir.as_path(), &"x".repeat(MAX_INLINE + 1)).unwrap();
        let none = sweep(dir.as_path(), SystemTime::UNIX_EPOCH, &missing).unwrap();
        assert_eq!(none, 0, "no body old enough");
        let later = SystemTime::now() + Duration::from_secs(60);
        assert!(
            sweep(dir.as_path(), later, &missing).is_err(),
            "an old body"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_body_file_is_named_with_either_separator() {
        let names = super::names_in(
            br"r/bodies/00112233445566ff and r\bodies\ffeeddccbbaa9988 bodies/short",
        );
        assert!(names.contains("00112233445566ff"));
        assert!(names.contains("ffeeddccbbaa9988"));
        assert_eq!(names.len(), 2);
    }

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
