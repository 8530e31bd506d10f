//! Seeds: one deterministic random stream per (seed, stream name), so that payloads do not
//! depend on concurrency or on the order cases run in.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A random stream for `stream` (e.g. an operation id) under `seed`.
///
/// Streams of different names are independent; the same pair always gives the same stream.
pub fn rng_for(seed: u64, stream: &str) -> TestRng {
    let mut state = seed ^ fnv1a(stream.as_bytes());
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// Draws `n` values without shrinking, advancing `rng`.
///
/// A draw that the strategy rejects too often (a filter that cannot be met) is left out, so
/// fewer than `n` values may come back; it never panics.
pub fn sample<S: Strategy>(strategy: &S, rng: &mut TestRng, n: usize) -> Vec<S::Value> {
    let mut runner = TestRunner::new_with_rng(Config::default(), rng.clone());
    let values = (0..n)
        .filter_map(|_| strategy.new_tree(&mut runner).ok())
        .map(|tree| tree.current())
        .collect();
    *rng = runner.rng().clone();
    values
}

/// FNV-1a: stable across Rust versions, unlike the standard hasher.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
