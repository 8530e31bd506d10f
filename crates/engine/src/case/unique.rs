//! Uniqueness, in one place: ids that name nothing, and the run tag every value a run must not
//! share with earlier runs is derived from (hashed with `digest::fnv1a`, stable across Rust
//! versions, unlike the standard hasher).

use crate::digest::fnv1a;

/// A uuid that names nothing on any target: v4 layout, derived from a label so runs repeat.
pub fn absent_uuid(label: &str) -> String {
    let h = fnv1a(label.as_bytes());
    let g = h.rotate_left(29) ^ 0x9e37_79b9_7f4a_7c15;
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        (h >> 32) as u32,
        (h >> 16) as u16,
        (h & 0xfff) as u16,
        (g >> 52) as u16 & 0xfff,
        g & 0xffff_ffff_ffff
    )
}

/// The tag that makes this run's created resources (velocity control ids, mailbox domains, VAT
/// ID values, comment texts) unique on the target: the seed mixed with the process id and the
/// process's start time, so that a rerun with the same seed in a container (where the process id
/// is always the same) does not collide with what the previous run left on a persistent target.
/// Both targets of a differential run share it.
pub fn run_tag(seed: u64) -> String {
    static STARTED: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let started = *STARTED.get_or_init(|| {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        since.map_or(0, |d| d.as_nanos() as u32)
    });
    format!("{:08x}", seed as u32 ^ std::process::id() ^ started)
}

/// `len` upper-case letters and digits unique to the run of `run_tag` and to `salt`: the
/// salt's first (so that short codes of one run still differ), then the run tag's, repeated.
pub fn unique_code(run_tag: &str, salt: &str, len: usize) -> String {
    salt.chars()
        .chain(run_tag.chars().cycle())
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .take(len)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_uuids_are_valid_uuids_and_repeat() {
        let a = absent_uuid("x");
        assert_eq!(a, absent_uuid("x"));
        assert_ne!(a, absent_uuid("y"));
        assert!(uuid::Uuid::parse_str(&a).is_ok(), "{a}");
    }
}
