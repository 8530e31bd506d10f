//! The fixture ledger: which consumable fixtures of the profile earlier runs used up, per target
//! and organization, so that fixtures survive reruns.
//!
//! Why it exists: the delete cases delete ids the profile names as deletable
//! (`finops.deletable_tag_ids`, `finops.deletable_bank_accounts`). A run that deleted the same
//! id an earlier run had deleted would meet a 404 and fail a `must` rule for a fixture covenant
//! itself used up: a verdict about covenant's memory, not about the target. So the fixtures of a
//! list are taken in turn across runs, and each is recorded in a small JSON state file the
//! moment it is taken, before its DELETE is sent (written whole to a temporary file and renamed
//! over the old one), so that an interrupted run still remembers what it deleted. Every run on
//! the machine reads, changes and writes the file under one lock (a lock file beside it, held
//! with the operating system's file lock, `.fixtures.json.lock`), so that two runs or shards
//! never take the same fixture between one's read and its rename. When a list runs out, the
//! cases that need it are skipped with the reason: never failed, never passed.
//!
//! What it must never do: hand out a fixture twice for one target and organization, hand out
//! anything the profile does not list, or write anything for a target that starts fresh every
//! run (the embedded reference: [`Ledger::fresh`] reads and writes nothing). It sends nothing and
//! judges nothing; the cases decide when to take a fixture.
//!
//! The state file (see [`default_path`]; `covenant run --state FILE` overrides):
//!
//! ```json
//! {
//!   "format": 1,
//!   "entries": [
//!     {
//!       "target": "https://staging.example.com/",
//!       "organization_id": "5e0e1b2c-8a4f-4d7e-9b1a-2c3d4e5f6a7b",
//!       "consumed": {
//!         "finops.deletable_bank_accounts": ["COUNTERPART_ID/BANK_ACCOUNT_ID"],
//!         "finops.deletable_tag_ids": ["TAG_ID_1", "TAG_ID_2"]
//!       }
//!     }
//!   ]
//! }
//! ```
//!
//! `consumed` lists, by the profile key of their list, the fixtures taken, in the order they were
//! taken (a bank account as `counterpart_id/bank_account_id`).

use crate::profile::Profile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The format of the state file this covenant reads and writes.
pub const FORMAT: u32 = 1;

/// What to do about a state file covenant cannot use.
const FIX: &str = "delete it (covenant then forgets which deletable fixtures earlier runs used \
                   up: put fresh ids in finops.deletable_tag_ids and \
                   finops.deletable_bank_accounts), or pass --state FILE to keep the state \
                   elsewhere";

/// A list of the profile whose fixtures a run uses up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consumable {
    /// `finops.deletable_tag_ids`: each is deleted by `tag.delete-twice`.
    DeletableTags,
    /// `finops.deletable_bank_accounts`: each is deleted by `bank-account.delete-twice`.
    DeletableBankAccounts,
}

impl Consumable {
    /// The profile key of the list, which also names it in the state file.
    pub fn key(self) -> &'static str {
        match self {
            Consumable::DeletableTags => "finops.deletable_tag_ids",
            Consumable::DeletableBankAccounts => "finops.deletable_bank_accounts",
        }
    }

    /// The fixtures of the list in the profile, in its order, each as the ledger records it (a
    /// bank account as `counterpart_id/bank_account_id`).
    pub fn ids(self, profile: &Profile) -> Vec<String> {
        let Some(f) = &profile.finops else {
            return Vec::new();
        };
        match self {
            Consumable::DeletableTags => f.deletable_tag_ids.clone(),
            Consumable::DeletableBankAccounts => f
                .deletable_bank_accounts
                .iter()
                .map(|a| format!("{}/{}", a.counterpart_id, a.bank_account_id))
                .collect(),
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Consumable::DeletableTags => "ids",
            Consumable::DeletableBankAccounts => "entries",
        }
    }
}

/// A fixture handed out: its place in the profile's list, and the id the ledger recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    pub index: usize,
    pub id: String,
}

/// Every fixture of a list is used up (or the list is empty): the reason a case is skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exhausted {
    pub list: Consumable,
    /// Fixtures the profile lists.
    pub total: usize,
    /// The state file that records them; `None` for a ledger of one run.
    pub file: Option<PathBuf>,
}

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (key, noun, total) = (self.list.key(), self.list.noun(), self.total);
        if total == 0 {
            return write!(f, "the profile does not give {key}");
        }
        match &self.file {
            Some(file) => write!(
                f,
                "all {total} {noun} of {key} were deleted by earlier runs against this target \
                 (recorded in {}): add fresh ids to {key}",
                file.display()
            ),
            None => write!(
                f,
                "all {total} {noun} of {key} were deleted earlier in this run: add fresh ids to \
                 {key}"
            ),
        }
    }
}

impl std::error::Error for Exhausted {}

/// A state file covenant cannot use; each message names the file and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("cannot read the fixture ledger {}: {source}: make it readable, or {FIX}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the fixture ledger {} is corrupt ({message}): {FIX}", .path.display())]
    Corrupt { path: PathBuf, message: String },
    #[error(
        "the fixture ledger {} has format {found}, and this covenant knows only format {FORMAT}: \
         use the covenant that wrote it, or pass --state FILE to keep the state elsewhere",
        .path.display()
    )]
    Format { path: PathBuf, found: u32 },
    #[error(
        "cannot record a used fixture in the fixture ledger {}: {source}: pass --state FILE \
         naming a writable place",
        .path.display()
    )]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why [`Ledger::take`] handed nothing out.
#[derive(Debug, thiserror::Error)]
pub enum TakeError {
    #[error(transparent)]
    Exhausted(#[from] Exhausted),
    /// The taking could not be recorded: the fixture must not be used.
    #[error(transparent)]
    Record(#[from] LedgerError),
}

/// The state file as written.
#[derive(Debug, Default, Serialize, Deserialize)]
struct StateFile {
    format: u32,
    #[serde(default)]
    entries: Vec<LedgerEntry>,
}

/// The fixtures used up on one target for one organization.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct LedgerEntry {
    target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    organization_id: Option<String>,
    #[serde(default)]
    consumed: Consumed,
}

/// Fixtures taken, by list key, in the order they were taken.
type Consumed = BTreeMap<String, Vec<String>>;

/// The consumable fixtures used up on one target for one organization, as a run sees them.
#[derive(Debug)]
pub struct Ledger {
    /// The state file; `None` for a target that starts fresh every run.
    file: Option<PathBuf>,
    target: String,
    organization_id: Option<String>,
    consumed: Mutex<Consumed>,
}

impl Ledger {
    /// A ledger for a target that starts fresh every run (the embedded reference): it hands
    /// fixtures out in turn within the run, and reads and writes nothing.
    pub fn fresh() -> Ledger {
        Ledger {
            file: None,
            target: String::new(),
            organization_id: None,
            consumed: Mutex::default(),
        }
    }

    /// The ledger of `target` (its base URL, without credentials) and `organization_id`, kept
    /// in `file`. A missing file is an empty ledger; nothing is written until a fixture is taken.
    pub fn open(
        file: &Path,
        target: &str,
        organization_id: Option<&str>,
    ) -> Result<Ledger, LedgerError> {
        let state = read(file)?;
        let organization_id = organization_id.map(str::to_owned);
        let consumed = state
            .entries
            .into_iter()
            .find(|e| e.target == target && e.organization_id == organization_id)
            .map(|e| e.consumed)
            .unwrap_or_default();
        Ok(Ledger {
            file: Some(file.to_owned()),
            target: target.to_owned(),
            organization_id,
            consumed: Mutex::new(consumed),
        })
    }

    /// The state file, if this ledger keeps one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The fixture of `list` the next [`Ledger::take`] would hand out, taking nothing (for
    /// the skip reasons and `--dry-run`).
    pub fn next(&self, list: Consumable, profile: &Profile) -> Result<Taken, Exhausted> {
        self.first_free(&self.lock(), list, profile)
    }

    /// Hands out the first fixture of `list` not used up yet, and records it as used up before
    /// returning it: in the state file when there is one, written again whole (other targets'
    /// entries and other runs' takings since this one started are kept). The caller must send
    /// nothing for it when this fails.
    pub fn take(&self, list: Consumable, profile: &Profile) -> Result<Taken, TakeError> {
        let mut consumed = self.lock();
        let Some(file) = &self.file else {
            let taken = self.first_free(&consumed, list, profile)?;
            consumed
                .entry(list.key().to_owned())
                .or_default()
                .push(taken.id.clone());
            return Ok(taken);
        };
        // Every ledger of the file, in this process (the two targets of a differential run) or
        // another (a run or a shard beside this one), reads, changes and writes it one at a
        // time, so that none hands out what another took nor loses another's entry. The mutex
        // orders this process's ledgers, the lock file all processes (a file lock may be held
        // per process rather than per open file on some systems).
        static FILE: Mutex<()> = Mutex::new(());
        let _file = FILE.lock().unwrap_or_else(|e| e.into_inner());
        let _lock = lock_beside(file)?;
        // Another run may have taken fixtures since this one started.
        let mut state = read(file)?;
        let mut updated = consumed.clone();
        if let Some(entry) = state.entries.iter().find(|e| self.is_ours(e)) {
            merge(&mut updated, &entry.consumed);
        }
        let taken = self.first_free(&updated, list, profile)?;
        updated
            .entry(list.key().to_owned())
            .or_default()
            .push(taken.id.clone());
        match state.entries.iter_mut().find(|e| self.is_ours(e)) {
            Some(entry) => entry.consumed = updated.clone(),
            None => state.entries.push(LedgerEntry {
                target: self.target.clone(),
                organization_id: self.organization_id.clone(),
                consumed: updated.clone(),
            }),
        }
        state.format = FORMAT;
        write_atomically(file, &state)?;
        *consumed = updated;
        Ok(taken)
    }

    fn is_ours(&self, entry: &LedgerEntry) -> bool {
        entry.target == self.target && entry.organization_id == self.organization_id
    }

    /// How many fixtures of `list` are not used up yet (as this run knows: another run beside
    /// it may have taken some since).
    pub fn free(&self, list: Consumable, profile: &Profile) -> usize {
        let consumed = self.lock();
        let used = consumed.get(list.key());
        list.ids(profile)
            .iter()
            .filter(|id| !used.is_some_and(|u| u.contains(*id)))
            .count()
    }

    fn first_free(
        &self,
        consumed: &Consumed,
        list: Consumable,
        profile: &Profile,
    ) -> Result<Taken, Exhausted> {
        let ids = list.ids(profile);
        let used = consumed.get(list.key());
        let is_used = |id: &String| used.is_some_and(|u| u.contains(id));
        ids.iter()
            .position(|id| !is_used(id))
            .map(|index| Taken {
                index,
                id: ids[index].clone(),
            })
            .ok_or_else(|| Exhausted {
                list,
                total: ids.len(),
                file: self.file.clone(),
            })
    }

    fn lock(&self) -> MutexGuard<'_, Consumed> {
        self.consumed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Adds to `into` what `from` records and it does not.
fn merge(into: &mut Consumed, from: &Consumed) {
    for (key, ids) in from {
        let list = into.entry(key.clone()).or_default();
        for id in ids {
            if !list.contains(id) {
                list.push(id.clone());
            }
        }
    }
}

/// Reads a state file; a missing one is empty.
fn read(path: &Path) -> Result<StateFile, LedgerError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(StateFile {
                format: FORMAT,
                entries: Vec::new(),
            })
        }
        Err(source) => {
            return Err(LedgerError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    let state: StateFile = serde_json::from_str(&text).map_err(|e| LedgerError::Corrupt {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    if state.format != FORMAT {
        return Err(LedgerError::Format {
            path: path.to_owned(),
            found: state.format,
        });
    }
    Ok(state)
}

/// The directory of the state file `path` (made if missing), and the file's name.
fn beside(path: &Path) -> Result<(&Path, String), LedgerError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|source| LedgerError::Write {
        path: path.to_owned(),
        source,
    })?;
    let name = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned();
    Ok((dir, name))
}

/// Takes the lock of the state file `path`: an exclusive lock (`File::lock`, `flock` on Unix)
/// on `.NAME.lock` beside it, waited for while another run holds it, released when the
/// returned file is dropped (or its process ends, however it ends). The lock file stays: one
/// removed while another run waits for it would let a third lock a new one beside it.
fn lock_beside(path: &Path) -> Result<std::fs::File, LedgerError> {
    let (dir, name) = beside(path)?;
    let failed = |source| LedgerError::Write {
        path: path.to_owned(),
        source,
    };
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!(".{name}.lock")))
        .map_err(failed)?;
    lock.lock().map_err(failed)?;
    Ok(lock)
}

/// Writes the state to a temporary file beside `path`, flushed to disk, and renames it over
/// `path`: a reader sees the old state or the new one, never half of either.
fn write_atomically(path: &Path, state: &StateFile) -> Result<(), LedgerError> {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let failed = |source| LedgerError::Write {
        path: path.to_owned(),
        source,
    };
    let (dir, name) = beside(path)?;
    let temp = dir.join(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let mut text = serde_json::to_string_pretty(state).expect("the state always serialises");
    text.push('\n');
    let written = std::fs::File::create(&temp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&temp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    renamed.map_err(failed)
}

/// Where the state file is kept unless `--state` (or `COVENANT_STATE`) says otherwise:
/// `$XDG_STATE_HOME/covenant/fixtures.json`, else `$HOME/.local/state/covenant/fixtures.json`,
/// else `.covenant/fixtures.json` in the working directory. A variable that is empty or not an
/// absolute path counts as unset, as the XDG base directory specification asks.
pub fn default_path() -> PathBuf {
    default_path_from(&|var| std::env::var_os(var))
}

/// [`default_path`], reading the environment through `var`.
pub fn default_path_from(var: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(state) = absolute("XDG_STATE_HOME") {
        return state.join("covenant").join("fixtures.json");
    }
    if let Some(home) = absolute("HOME") {
        return home.join(".local/state/covenant/fixtures.json");
    }
    PathBuf::from(".covenant/fixtures.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TARGET: &str = "http://127.0.0.1:8080/";

    fn profile(tags: &[&str]) -> Profile {
        let tags: Vec<String> = tags.iter().map(|t| format!("{t:?}")).collect();
        Profile::parse(
            &format!(
                "[finops]\norganization_id = \"org-1\"\ndeletable_tag_ids = [{}]\n\
                 [[finops.deletable_bank_accounts]]\ncounterpart_id = \"cp\"\n\
                 bank_account_id = \"ba\"\n",
                tags.join(", ")
            ),
            Path::new("p.toml"),
        )
        .expect("a valid profile")
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("covenant-ledger-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("nested").join("fixtures.json")
    }

    fn take(ledger: &Ledger, list: Consumable, p: &Profile) -> String {
        ledger.take(list, p).expect("a fixture is left").id
    }

    #[test]
    fn fixtures_taken_are_remembered_across_ledgers_of_the_same_file() {
        let file = scratch("round-trip");
        let p = profile(&["t1", "t2"]);
        let first = Ledger::open(&file, TARGET, Some("org-1")).expect("a missing file is empty");
        assert!(!file.exists(), "opening writes nothing");
        assert_eq!(
            first.next(Consumable::DeletableTags, &p).map(|t| t.id),
            Ok("t1".into())
        );
        assert_eq!(take(&first, Consumable::DeletableTags, &p), "t1");
        assert_eq!(take(&first, Consumable::DeletableBankAccounts, &p), "cp/ba");
        let second = Ledger::open(&file, TARGET, Some("org-1")).expect("the file reads back");
        let taken = second
            .take(Consumable::DeletableTags, &p)
            .expect("t2 is left");
        assert_eq!(
            taken,
            Taken {
                index: 1,
                id: "t2".into()
            }
        );
        let third = Ledger::open(&file, TARGET, Some("org-1")).expect("the file reads back");
        let gone = third.next(Consumable::DeletableTags, &p).unwrap_err();
        assert_eq!(gone.total, 2);
        let why = gone.to_string();
        assert!(
            why.starts_with("all 2 ids of finops.deletable_tag_ids were deleted by earlier runs")
                && why.contains(&file.display().to_string())
                && why.ends_with("add fresh ids to finops.deletable_tag_ids"),
            "{why}"
        );
        assert!(matches!(
            third.take(Consumable::DeletableBankAccounts, &p),
            Err(TakeError::Exhausted(_))
        ));
        // A fresh id added to the profile is handed out next.
        let more = profile(&["t1", "t2", "t3"]);
        assert_eq!(take(&third, Consumable::DeletableTags, &more), "t3");
    }

    #[test]
    fn the_ledger_is_kept_per_target_and_organization() {
        let file = scratch("keys");
        let p = profile(&["t1", "t2"]);
        let ours = Ledger::open(&file, TARGET, Some("org-1")).expect("opens");
        assert_eq!(take(&ours, Consumable::DeletableTags, &p), "t1");
        for (target, org) in [
            ("http://127.0.0.1:9090/", Some("org-1")),
            (TARGET, Some("org-2")),
            (TARGET, None),
        ] {
            let other = Ledger::open(&file, target, org).expect("opens");
            assert_eq!(
                take(&other, Consumable::DeletableTags, &p),
                "t1",
                "{target} {org:?}"
            );
        }
        // Every entry survived the others' writes.
        let again = Ledger::open(&file, TARGET, Some("org-1")).expect("opens");
        assert_eq!(take(&again, Consumable::DeletableTags, &p), "t2");
        let other = Ledger::open(&file, "http://127.0.0.1:9090/", Some("org-1")).expect("opens");
        assert_eq!(take(&other, Consumable::DeletableTags, &p), "t2");
    }

    #[test]
    fn a_taking_by_another_ledger_of_the_same_file_is_seen_before_handing_out() {
        let file = scratch("shards");
        let p = profile(&["t1", "t2"]);
        let a = Ledger::open(&file, TARGET, Some("org-1")).expect("opens");
        let b = Ledger::open(&file, TARGET, Some("org-1")).expect("opens");
        assert_eq!(take(&a, Consumable::DeletableTags, &p), "t1");
        assert_eq!(take(&b, Consumable::DeletableTags, &p), "t2");
        assert_eq!(take(&a, Consumable::DeletableBankAccounts, &p), "cp/ba");
        let c = Ledger::open(&file, TARGET, Some("org-1")).expect("opens");
        assert!(c.next(Consumable::DeletableTags, &p).is_err());
        assert!(c.next(Consumable::DeletableBankAccounts, &p).is_err());
    }

    #[test]
    fn writes_are_atomic_and_leave_no_temporary_file() {
        let file = scratch("atomic");
        let p = profile(&["t1", "t2", "t3"]);
        let ledger = Ledger::open(&file, TARGET, Some("org-1")).expect("opens");
        for _ in 0..3 {
            take(&ledger, Consumable::DeletableTags, &p);
            let text = std::fs::read_to_string(&file).expect("the file is written");
            let state: StateFile = serde_json::from_str(&text).expect("always whole JSON");
            assert_eq!(state.format, FORMAT);
        }
        let dir = file.parent().expect("a parent");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("the directory lists")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        assert_eq!(names, [".fixtures.json.lock", "fixtures.json"]);
        let text = std::fs::read_to_string(&file).expect("reads");
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            value["entries"][0]["consumed"]["finops.deletable_tag_ids"],
            serde_json::json!(["t1", "t2", "t3"])
        );
        assert_eq!(value["entries"][0]["target"], TARGET);
        assert_eq!(value["entries"][0]["organization_id"], "org-1");
    }

    #[test]
    fn a_taking_waits_while_another_process_holds_the_lock_file() {
        let file = scratch("locked");
        let p = profile(&["t1", "t2"]);
        let ledger = Ledger::open(&file, TARGET, Some("org-1")).expect("opens");
        take(&ledger, Consumable::DeletableTags, &p);
        // Another run holding the lock, as `lock_beside` takes it: a file opened on its own.
        let held = std::fs::OpenOptions::new()
            .write(true)
            .open(file.with_file_name(".fixtures.json.lock"))
            .expect("the lock file is beside the state file");
        held.lock().expect("locks");
        let before = std::fs::read(&file).expect("reads");
        let taking = std::thread::spawn(move || take(&ledger, Consumable::DeletableTags, &p));
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            !taking.is_finished(),
            "took a fixture while the lock was held"
        );
        assert_eq!(std::fs::read(&file).expect("reads"), before);
        held.unlock().expect("unlocks");
        assert_eq!(taking.join().expect("no panic"), "t2");
    }

    #[test]
    fn a_taking_that_cannot_be_recorded_hands_nothing_out() {
        let file = scratch("unrecorded");
        let p = profile(&["t1"]);
        let ledger = Ledger::open(&file, TARGET, Some("org-1")).expect("a missing file is empty");
        // A file where the state file's directory should be: neither read nor write can work.
        let dir = file.parent().expect("a parent");
        std::fs::create_dir_all(dir.parent().expect("a parent")).expect("mkdir");
        std::fs::write(dir, "not a directory").expect("write");
        let err = ledger.take(Consumable::DeletableTags, &p).unwrap_err();
        assert!(matches!(err, TakeError::Record(_)), "{err}");
        assert!(
            err.to_string().contains(&file.display().to_string()),
            "{err}"
        );
        assert!(err.to_string().contains("--state FILE"), "{err}");
        assert_eq!(
            ledger.next(Consumable::DeletableTags, &p).map(|t| t.id),
            Ok("t1".into())
        );
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_the_file_and_the_fix() {
        let file = scratch("corrupt");
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
        for text in ["{ not json", "[]", "{\"format\": 1, \"entries\": 3}", ""] {
            std::fs::write(&file, text).expect("write");
            let err = Ledger::open(&file, TARGET, None).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, LedgerError::Corrupt { .. }), "{text}: {msg}");
            assert!(msg.contains(&file.display().to_string()), "{msg}");
            assert!(
                msg.contains("delete it") && msg.contains("--state FILE"),
                "{msg}"
            );
        }
        std::fs::write(&file, "{\"format\": 2, \"entries\": []}").expect("write");
        let err = Ledger::open(&file, TARGET, None).unwrap_err();
        assert!(matches!(err, LedgerError::Format { found: 2, .. }), "{err}");
        // A directory where the file should be cannot be read.
        let dir = scratch("is-a-dir");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let err = Ledger::open(&dir, TARGET, None).unwrap_err();
        assert!(matches!(err, LedgerError::Read { .. }), "{err}");
    }

    #[test]
    fn a_fresh_ledger_hands_out_in_turn_and_writes_nothing() {
        let p = profile(&["t1", "t2"]);
        let ledger = Ledger::fresh();
        assert_eq!(take(&ledger, Consumable::DeletableTags, &p), "t1");
        assert_eq!(take(&ledger, Consumable::DeletableTags, &p), "t2");
        let gone = ledger.next(Consumable::DeletableTags, &p).unwrap_err();
        assert!(gone.to_string().contains("earlier in this run"), "{gone}");
        assert!(ledger.file().is_none());
        let none = Profile::default();
        let empty = ledger
            .next(Consumable::DeletableBankAccounts, &none)
            .unwrap_err();
        assert_eq!(
            empty.to_string(),
            "the profile does not give finops.deletable_bank_accounts"
        );
    }

    #[test]
    fn the_default_place_follows_xdg_then_home_then_the_working_directory() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let both = env(&[("XDG_STATE_HOME", "/x/state"), ("HOME", "/home/u")]);
        assert_eq!(
            default_path_from(&both),
            PathBuf::from("/x/state/covenant/fixtures.json")
        );
        let home = env(&[("XDG_STATE_HOME", "relative"), ("HOME", "/home/u")]);
        assert_eq!(
            default_path_from(&home),
            PathBuf::from("/home/u/.local/state/covenant/fixtures.json")
        );
        let none = env(&[("HOME", "")]);
        assert_eq!(
            default_path_from(&none),
            PathBuf::from(".covenant/fixtures.json")
        );
    }
}
