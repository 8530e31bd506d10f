//! The plan: the cases of the run, in the suite's stable order, after filters, `--read-only`
//! and shards; the order they start in; and what `--dry-run` prints of them.

use crate::case::{Case, RunCx};
use crate::settings::Selection;
use std::fmt::Write;

/// The cases of the suite that this run keeps, in the suite's order: filters, `--read-only` and
/// the shard applied.
pub fn select(mut cases: Vec<Case>, selection: &Selection) -> Vec<Case> {
    cases.retain(|c| keep(c, selection));
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

fn keep(case: &Case, s: &Selection) -> bool {
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
        let fixtures: Vec<String> = case.needs.iter().map(|n| n.uses(run)).collect();
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
    use crate::schema::OperationId;

    #[test]
    fn still_cases_start_first_then_readers_then_writers_each_in_plan_order() {
        let case = |id: &str| {
            Case::new(
                id,
                OperationId::ListEvents,
                &[],
                crate::case::case_fn(|_| Box::pin(async { Ok(()) })),
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
}
