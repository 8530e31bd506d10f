//! Selection: the cases of the run, in the suite's stable order, after filters, `--read-only`
//! and shards; the order they start in; and what `--dry-run` prints of them.

use crate::case::{Case, RunCx};
use crate::schema::{OperationId, Registry};
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
/// which can run beside them; then the writers; last the late cases, which start only once all
/// the others have finished (`runner::phase::Pending`). Within each group the long chains of
/// requests ([`Case::chain`], [`LONG_CHAIN`] or more) start first, longest first, so that against
/// a remote target they run beside the short cases instead of after them, alone on the critical
/// path; the short cases, and chains of equal length, keep the plan's order. The order is the
/// plan's alone: shards, seeds and payloads do not depend on it.
pub fn execution_order(plan: &[Case]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..plan.len()).collect();
    order.sort_by_key(|&i| {
        let case = &plan[i];
        let long = if case.chain >= LONG_CHAIN {
            case.chain
        } else {
            0
        };
        (case.late, !case.still, case.writes, std::cmp::Reverse(long))
    });
    order
}

/// Round trips one after another from which a case's chain counts as long: shorter ones take
/// no longer than the cases around them, and start in the plan's order.
pub const LONG_CHAIN: usize = 5;

/// Why a case of `plan` cannot run, if it cannot: a need the profile does not meet, or an
/// earlier case whose results it uses that the plan does not hold.
pub fn unmet(case: &Case, plan: &[Case], run: &RunCx) -> Option<String> {
    if let Some(why) = case.needs.iter().find_map(|n| run.unmet(*n)) {
        return Some(why);
    }
    let missing = case
        .after
        .iter()
        .find(|id| !plan.iter().any(|c| c.id == **id && !c.late))?;
    Some(format!(
        "it uses what {missing} leaves behind, and this run does not include {missing} \
         (left out by --filter, --skip, --shard or --read-only)"
    ))
}

fn keep(case: &Case, s: &Selection) -> bool {
    let id = case.id.as_str();
    // A late case goes to the shard of the earlier case it uses, so that shards keep the two
    // together; every case is still in exactly one shard.
    let shard_key = case.after.first().map_or(id, String::as_str);
    (s.filter.is_empty() || s.filter.iter().any(|p| matches(case, p)))
        && !s.skip.iter().any(|p| names(case, p))
        && !(s.read_only && case.writes)
        && s.shard.is_none_or(|shard| shard.contains(shard_key))
        && s.ids.as_ref().is_none_or(|ids| ids.contains(id))
}

/// Whether `pattern` of `--skip` names `case`: a part of its id, or a rule the case names (its
/// id as every report shows it, in any case). Narrower than [`matches`]: the generic checks
/// judge every answer, so skipping each case that judges GEN-NO-5XX would skip the suite.
pub fn names(case: &Case, pattern: &str) -> bool {
    case.id.contains(pattern) || case.rules.iter().any(|r| r.eq_ignore_ascii_case(pattern))
}

/// Whether `pattern` of `--filter` selects `case`: it [`names`] it, or names a rule the case
/// judges: one the generic checks or a schema judge on the answers of its operation, or one of
/// the schema of the bodies it sends.
pub fn matches(case: &Case, pattern: &str) -> bool {
    let rule = |r: &&str| r.eq_ignore_ascii_case(pattern);
    names(case, pattern)
        || case.operation.is_some_and(|op| {
            crate::check::answer_rules(op).iter().any(rule) || body_rules(op).any(|r| rule(&r))
        })
}

/// The rules the schema of `op`'s request body holds: the answers to the bodies drawn from it,
/// valid and invalid, judge them.
fn body_rules(op: OperationId) -> impl Iterator<Item = &'static str> {
    let stem = op.operation().request_body.as_deref();
    stem.into_iter()
        .flat_map(|stem| Registry::embedded().rules_of(stem))
        .map(String::as_str)
}

/// What `--dry-run` prints: each case, whether it runs, the requests it sends and the fixtures
/// it consumes.
pub fn describe(plan: &[Case], run: &RunCx) -> String {
    let mut out = String::new();
    let mut requests = 0;
    for case in plan {
        let skip = unmet(case, plan, run);
        let fixtures: Vec<String> = case.needs.iter().map(|n| run.uses(*n)).collect();
        // A case that is not a write may still send a write's method: requests the target
        // must refuse (without a token, say), which change nothing where it keeps the contract.
        let method = case.operation.map(|op| op.operation().method);
        let refused = match method {
            Some(m) if m != crate::schema::Method::Get => {
                format!("sends {} requests the target must refuse", m.as_str())
            }
            _ => "reads".to_owned(),
        };
        let what = match (case.writes, case.late) {
            (true, _) => "writes".to_owned(),
            (false, true) => format!("{refused}, last (after every other case)"),
            (false, false) => refused,
        };
        match skip {
            Some(why) => {
                let _ = writeln!(out, "skip  {:<55} {why}", case.id);
            }
            None => {
                requests += case.requests;
                let _ = writeln!(
                    out,
                    "run   {:<55} ~{}, {what}; uses {}",
                    case.id,
                    crate::style::plural(case.requests, "request"),
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
    use crate::settings::Shard;

    fn case(id: &str) -> Case {
        Case::idle(id)
    }

    #[test]
    fn a_late_case_is_in_the_shard_of_the_earlier_case_it_uses() {
        let plan: Vec<Case> = (0..40)
            .flat_map(|i| {
                let early = format!("area.early-{i}");
                let late = case(&format!("area.late-{i}")).late(&[&early]);
                [case(&early), late]
            })
            .collect();
        let count = 3;
        let mut seen = 0;
        for index in 1..=count {
            let selection = Selection {
                shard: Some(Shard { index, count }),
                ..Selection::default()
            };
            let kept = select(plan.clone(), &selection);
            seen += kept.len();
            for late in kept.iter().filter(|c| c.late) {
                assert!(
                    kept.iter().any(|c| c.id == late.after[0]),
                    "{} without {}",
                    late.id,
                    late.after[0]
                );
            }
        }
        assert_eq!(seen, plan.len(), "every case in exactly one shard");
    }

    #[test]
    fn a_generic_rule_filters_in_every_case_of_an_operation_and_skips_only_the_cases_naming_it() {
        let mut judged = case("quotes.some-case");
        judged.operation = Some(OperationId::ALL[0]);
        let mut named = case("generic.no-5xx");
        named.rules = vec!["GEN-NO-5XX"];
        let plan = vec![judged, named];
        let ids = |s: &Selection| -> Vec<String> {
            select(plan.clone(), s).into_iter().map(|c| c.id).collect()
        };
        let rule = vec!["gen-no-5xx".to_owned()];
        let filtered = Selection {
            filter: rule.clone(),
            ..Selection::default()
        };
        assert_eq!(ids(&filtered), ["quotes.some-case", "generic.no-5xx"]);
        let skipped = Selection {
            skip: rule,
            ..Selection::default()
        };
        assert_eq!(ids(&skipped), ["quotes.some-case"]);
    }

    fn started(plan: &[Case]) -> Vec<&str> {
        execution_order(plan)
            .into_iter()
            .map(|i| plan[i].id.as_str())
            .collect()
    }

    #[test]
    fn still_cases_start_first_then_readers_then_writers_then_late_cases_each_in_plan_order() {
        let plan = vec![
            case("w1").writes(),
            case("r1"),
            case("s1").still(),
            case("w2").writes(),
            case("l1").still().late(&["s1"]),
            case("s2").still(),
            case("l2").late(&[]),
            case("r2"),
        ];
        assert_eq!(
            started(&plan),
            ["s1", "s2", "r1", "r2", "w1", "w2", "l1", "l2"]
        );
    }

    #[test]
    fn within_each_group_long_chains_start_first_and_short_cases_keep_plan_order() {
        let plan = vec![
            case("w-short").writes().requests(3),
            case("w-windowed").writes().requests(400).chain(50),
            case("s-short").still().requests(4),
            case("s-long").still().requests(99).chain(50),
            case("r-one"),
            case("r-a").requests(2),
            case("r-long").requests(12),
            case("r-b").requests(2),
            case("l-long").late(&[]).requests(9),
            case("l-short").late(&[]),
        ];
        assert_eq!(
            started(&plan),
            [
                "s-long",
                "s-short",
                "r-long",
                "r-one",
                "r-a",
                "r-b",
                "w-windowed",
                "w-short",
                "l-long",
                "l-short"
            ]
        );
    }
}
