//! The plan: every case of the run, in a stable order, after filters, `--read-only` and shards.

use super::case::Case;
use super::context::RunCx;
use super::execute::RunSettings;
use crate::exit::Fatal;
use std::fmt::Write;

/// The K-th of N parts of the cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Parses `K/N` with 1 <= K <= N.
    pub fn parse(text: &str) -> Result<Shard, Fatal> {
        let bad = || {
            Fatal::usage(format!(
                "--shard {text:?}: expected K/N with 1 <= K <= N, e.g. 2/4"
            ))
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether a case belongs to this shard: by a stable hash of its id, so that adding a case
    /// never moves the others.
    pub fn contains(&self, id: &str) -> bool {
        fnv1a(id) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// All cases of the run, filtered.
pub fn build_plan(run: &RunCx, settings: &RunSettings) -> Vec<Case> {
    let mut cases = Vec::new();
    if !settings.generated_only {
        cases.extend(crate::scenario::all());
    }
    cases.extend(crate::scenario::generated(run));
    cases.extend(crate::pagination::cases());
    cases.retain(|c| keep(c, settings));
    cases
}

/// The order cases start in (indices into the plan); reports keep the plan's order. Cases
/// that need the data to stand still come first, so that they run together before any writer
/// starts rather than each waiting for a moment without writers; then the cases that only read,
/// which can run beside them; then the writers. Each group keeps the plan's order.
pub fn execution_order(plan: &[Case]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..plan.len()).collect();
    order.sort_by_key(|&i| (!plan[i].still, plan[i].writes));
    order
}

fn keep(case: &Case, s: &RunSettings) -> bool {
    let id = case.id.as_str();
    (s.filter.is_empty() || s.filter.iter().any(|p| id.contains(p.as_str())))
        && !s.skip.iter().any(|p| id.contains(p.as_str()))
        && !(s.read_only && case.writes)
        && s.shard.is_none_or(|shard| shard.contains(id))
}

/// What `--dry-run` prints: each case, whether it runs, the requests it sends and the fixtures
/// it consumes.
pub fn describe(plan: &[Case], run: &RunCx) -> String {
    let mut out = String::new();
    let mut requests = 0;
    for case in plan {
        let skip = case.needs.iter().find_map(|n| n.unmet(run));
        let fixtures: Vec<&str> = case.needs.iter().map(|n| n.key()).collect();
        let what = if case.writes { "writes" } else { "reads" };
        match skip {
            Some(why) => {
                let _ = writeln!(out, "skip  {:<55} {why}", case.id);
            }
            None => {
                requests += case.requests;
                let _ = writeln!(
                    out,
                    "run   {:<55} ~{} requests, {what}; uses {}",
                    case.id,
                    case.requests,
                    if fixtures.is_empty() {
                        "no fixture".to_owned()
                    } else {
                        fixtures.join(", ")
                    }
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "\n{} cases, about {requests} requests; nothing was sent (--dry-run)",
        plan.len()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_cases() {
        let ids: Vec<String> = (0..200).map(|i| format!("case.{i}")).collect();
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { index: k, count: 3 }).collect();
        for id in &ids {
            assert_eq!(shards.iter().filter(|s| s.contains(id)).count(), 1, "{id}");
        }
        assert!(shards.iter().all(|s| ids.iter().any(|id| s.contains(id))));
    }

    #[test]
    fn still_cases_start_first_then_readers_then_writers_each_in_plan_order() {
        let case = |id: &str| {
            Case::new(
                id,
                "list-events",
                &[],
                super::super::case_fn(|_| Box::pin(async { Ok(()) })),
            )
        };
        let plan = vec![
            case("w1").writes(),
            case("r1"),
            case("s1").still(),
            case("w2").writes(),
            case("s2").still(),
            case("r2"),
        ];
        let started: Vec<&str> = execution_order(&plan)
            .into_iter()
            .map(|i| plan[i].id.as_str())
            .collect();
        assert_eq!(started, ["s1", "s2", "r1", "r2", "w1", "w2"]);
    }

    #[test]
    fn bad_shards_are_usage_errors() {
        for text in ["0/2", "3/2", "x/2", "2", "1/0"] {
            assert!(Shard::parse(text).is_err(), "{text}");
        }
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
    }
}
