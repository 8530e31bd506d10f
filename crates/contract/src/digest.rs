//! FNV-1a 64, the one hash covenant keeps stable across builds, platforms and Rust versions:
//! the catalogue hash a report names, the seed of each random stream, the shard a case falls in,
//! the labels a run shares with earlier runs. A few lines, no crate; not for secrets.

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = Fnv1a::new();
    hash.write(bytes);
    hash.finish()
}

/// FNV-1a 64 over bytes written in parts: the same as [`fnv1a`] of their concatenation.
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a(u64);

impl Fnv1a {
    pub fn new() -> Fnv1a {
        Fnv1a(OFFSET)
    }

    pub fn write(&mut self, bytes: &[u8]) {
        self.0 = bytes
            .iter()
            .fold(self.0, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME));
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_the_published_function() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn written_in_parts_it_hashes_as_the_whole() {
        let mut parts = Fnv1a::new();
        parts.write(b"foo");
        parts.write(b"");
        parts.write(b"bar");
        assert_eq!(parts.finish(), fnv1a(b"foobar"));
    }
}
