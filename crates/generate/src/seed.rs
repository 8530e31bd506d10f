//! Seeds: one deterministic random stream per (seed, stream name), so that payloads do not
//! depend on concurrency or on the order cases run in.

use covenant_contract::digest::fnv1a;
use proptest::strategy::{SBoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::VecDeque;

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

/// Values drawn per chunk by [`Draws`].
const CHUNK: usize = 32;

/// `n` values of a strategy, drawn a chunk at a time as they are taken, so that drawing and
/// sending overlap. proptest's value trees are not `Send`, so none outlives a chunk: each value
/// comes with the stream state it was drawn from, from which [`redraw`] gives its tree again (to
/// shrink it). The values are those [`sample`] gives.
pub struct Draws<T> {
    strategy: SBoxedStrategy<T>,
    rng: TestRng,
    left: usize,
    ready: VecDeque<(T, TestRng)>,
}

impl<T: std::fmt::Debug> Draws<T> {
    pub fn new(strategy: SBoxedStrategy<T>, rng: TestRng, n: usize) -> Draws<T> {
        Draws {
            strategy,
            rng,
            left: n,
            ready: VecDeque::new(),
        }
    }

    fn refill(&mut self) {
        let mut runner = TestRunner::new_with_rng(Config::default(), self.rng.clone());
        for _ in 0..self.left.min(CHUNK) {
            self.left -= 1;
            let at = runner.rng().clone();
            if let Ok(tree) = self.strategy.new_tree(&mut runner) {
                self.ready.push_back((tree.current(), at));
            }
        }
        self.rng = runner.rng().clone();
    }
}

impl<T: std::fmt::Debug> Iterator for Draws<T> {
    type Item = (T, TestRng);

    fn next(&mut self) -> Option<Self::Item> {
        if self.ready.is_empty() && self.left > 0 {
            self.refill();
        }
        self.ready.pop_front()
    }
}

/// The tree of the value [`Draws`] drew from the stream state `at`.
pub fn redraw<S: Strategy>(strategy: &S, at: TestRng) -> Option<S::Tree> {
    let mut runner = TestRunner::new_with_rng(Config::default(), at);
    strategy.new_tree(&mut runner).ok()
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A small, fast stream (splitmix64) for building one value from one drawn seed: strings are
/// drawn as a length and a seed rather than a shrinkable tree per character.
pub(crate) struct Stream(u64);

impl Stream {
    pub(crate) fn new(seed: u64) -> Stream {
        Stream(seed)
    }

    /// A value in `0..n` (`n` > 0); the tiny modulo bias does not matter here.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        splitmix64(&mut self.0) % n
    }
}
