//! A strategy whose trees remember their current value.
//!
//! proptest's `Map` rebuilds its value on every `current()`, and a `Filter` asks once to test the
//! value and the caller asks again: a whole request body was built twice per draw. [`Memo`]
//! builds it once per tree state. It never changes a value: a tree's `current()` is a pure
//! function of its state, and the cache is dropped whenever the state moves (shrinking).

use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::cell::OnceCell;

/// `inner`, with each tree's current value computed once per state.
#[derive(Debug, Clone)]
pub(crate) struct Memo<S>(pub(crate) S);

impl<S> Strategy for Memo<S>
where
    S: Strategy,
    S::Value: Clone,
{
    type Tree = MemoTree<S::Tree>;
    type Value = S::Value;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        Ok(MemoTree {
            inner: self.0.new_tree(runner)?,
            current: OnceCell::new(),
        })
    }
}

/// The tree of [`Memo`].
#[derive(Debug)]
pub(crate) struct MemoTree<T: ValueTree> {
    inner: T,
    current: OnceCell<T::Value>,
}

impl<T> ValueTree for MemoTree<T>
where
    T: ValueTree,
    T::Value: Clone,
{
    type Value = T::Value;

    fn current(&self) -> T::Value {
        self.current.get_or_init(|| self.inner.current()).clone()
    }

    fn simplify(&mut self) -> bool {
        self.current = OnceCell::new();
        self.inner.simplify()
    }

    fn complicate(&mut self) -> bool {
        self.current = OnceCell::new();
        self.inner.complicate()
    }
}
