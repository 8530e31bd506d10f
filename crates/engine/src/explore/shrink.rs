//! Delta debugging over the steps of a failing sequence (Zeller's ddmin, complements only):
//! drop ever smaller chunks of steps while the rest still fails, until no single step can go.
//!
//! The search is a state machine rather than a loop over a predicate, because each answer is a
//! replay against the target, awaited by the caller: it asks [`Ddmin::candidate`] for the steps
//! to replay and tells [`Ddmin::answer`] whether they still failed.

use std::collections::VecDeque;

/// The search for the fewest steps that still fail.
#[derive(Debug)]
pub struct Ddmin {
    /// The steps (indices into the sequence) of the smallest failing sequence so far.
    current: Vec<usize>,
    /// Chunks the current steps are cut into.
    n: usize,
    queue: VecDeque<Vec<usize>>,
    pending: Option<Vec<usize>>,
    done: bool,
}

impl Ddmin {
    /// A search over a failing sequence of `len` steps.
    pub fn new(len: usize) -> Ddmin {
        let mut search = Ddmin {
            current: (0..len).collect(),
            n: 2,
            queue: VecDeque::new(),
            pending: None,
            done: false,
        };
        search.refill();
        search
    }

    fn refill(&mut self) {
        self.queue.clear();
        let len = self.current.len();
        if len <= 1 {
            self.done = true;
            return;
        }
        let n = self.n.min(len);
        let size = len.div_ceil(n);
        for start in (0..len).step_by(size) {
            let end = (start + size).min(len);
            let rest: Vec<usize> = self.current[..start]
                .iter()
                .chain(&self.current[end..])
                .copied()
                .collect();
            self.queue.push_back(rest);
        }
    }

    /// Tries `steps` first (the steps up to the one that broke the rule).
    pub fn prefer(&mut self, steps: Vec<usize>) {
        if !steps.is_empty() && steps.len() < self.current.len() {
            self.queue.push_front(steps);
        }
    }

    /// The next steps to replay, or `None` when no step can be dropped any more.
    pub fn candidate(&mut self) -> Option<Vec<usize>> {
        while !self.done {
            if let Some(next) = self.queue.pop_front() {
                self.pending = Some(next.clone());
                return Some(next);
            }
            if self.n >= self.current.len() {
                self.done = true;
            } else {
                self.n = (self.n * 2).min(self.current.len());
                self.refill();
            }
        }
        None
    }

    /// Whether the steps last handed out still failed.
    pub fn answer(&mut self, fails: bool) {
        let Some(tried) = self.pending.take() else {
            return;
        };
        if fails {
            self.current = tried;
            self.n = (self.n - 1).max(2);
            self.refill();
        }
    }

    /// The smallest failing steps found so far.
    pub fn best(&self) -> &[usize] {
        &self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shrink(len: usize, fails: impl Fn(&[usize]) -> bool) -> (Vec<usize>, usize) {
        let mut search = Ddmin::new(len);
        let mut tries = 0;
        while let Some(candidate) = search.candidate() {
            tries += 1;
            search.answer(fails(&candidate));
        }
        (search.best().to_vec(), tries)
    }

    #[test]
    fn a_failure_that_needs_two_steps_keeps_exactly_those_two() {
        let (kept, tries) = shrink(24, |s| s.contains(&3) && s.contains(&17));
        assert_eq!(kept, [3, 17]);
        assert!(tries < 60, "{tries} replays");
    }

    #[test]
    fn a_failure_that_needs_four_creates_before_a_step_keeps_five() {
        let fails = |s: &[usize]| s.contains(&20) && s.iter().filter(|i| **i < 10).count() >= 4;
        let (kept, _) = shrink(22, fails);
        assert_eq!(kept.len(), 5);
        assert!(kept.contains(&20));
    }

    #[test]
    fn a_preferred_prefix_that_still_fails_is_taken_first() {
        let mut search = Ddmin::new(10);
        search.prefer((0..4).collect());
        assert_eq!(search.candidate(), Some(vec![0, 1, 2, 3]));
        search.answer(true);
        assert_eq!(search.best(), [0, 1, 2, 3]);
    }

    #[test]
    fn a_failure_of_one_step_keeps_it_alone() {
        assert_eq!(shrink(9, |s| s.contains(&8)).0, [8]);
    }
}
