//! `covenant merge`: the JSON reports of the shards of one run, combined into one record.
//!
//! Shards of one run share a seed and a target and never share a case, and together they are
//! every `K/N` of one `N`, each once; anything else is refused, because a merged report must mean
//! what a single run would have meant (one shard of two alone is not a passing run). Reports
//! with no shard at all (runs split by hand, e.g. with `--filter`) merge as they are.

use super::ReportError;
use crate::verdict::{parse_shard, ConstraintCoverage, Counts, Pace, RunMeta, RunRecord};
use std::collections::BTreeMap;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// One record from `records`: cases sorted by id, counts recomputed, the earliest start and the
/// latest end, shard cleared. Refuses records of different seeds or targets, shards that are not
/// exactly the N parts of one run, and a case found in two records.
pub fn merge(records: Vec<RunRecord>) -> Result<RunRecord, ReportError> {
    let first = records.first().ok_or(ReportError::NothingToMerge)?;
    check_same_run(&records)?;
    check_shards(&records)?;
    let meta = merged_meta(&records, &first.meta)?;
    let mut cases = Vec::new();
    let mut seen = BTreeMap::new();
    for (index, record) in records.into_iter().enumerate() {
        for case in record.cases {
            if let Some(first) = seen.insert(case.id.clone(), index + 1) {
                return Err(ReportError::DuplicateCase {
                    id: case.id,
                    first,
                    second: index + 1,
                });
            }
            cases.push(case);
        }
    }
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    let mut merged = RunRecord {
        meta,
        counts: Counts::of(&cases),
        cases,
    };
    merged.settle();
    // The shards' --require-coverage is judged here, on the whole run.
    super::judge_requirements(&mut merged, crate::catalogue::Catalogue::embedded());
    Ok(merged)
}

fn check_same_run(records: &[RunRecord]) -> Result<(), ReportError> {
    let first = &records[0].meta;
    for (i, record) in records.iter().enumerate().skip(1) {
        let meta = &record.meta;
        if meta.seed != first.seed {
            return Err(mismatch(i, "seed", first.seed, meta.seed));
        }
        if !meta.same_target(first) {
            return Err(mismatch(i, "target", &first.target, &meta.target));
        }
        if let (Some(a), Some(b)) = (&first.judged_against, &meta.judged_against) {
            if a != b {
                return Err(mismatch(
                    i,
                    "a contract of",
                    super::words::judged_against_sentence(a),
                    super::words::judged_against_sentence(b),
                ));
            }
        }
    }
    Ok(())
}

/// Missing shards named in an error, at most this many (the rest are counted).
const MISSING_NAMED: usize = 8;

/// With a shard in any report: every report is a shard `K/N` of one `N`, each `K` once, none
/// missing.
fn check_shards(records: &[RunRecord]) -> Result<(), ReportError> {
    let mut sharded = Vec::new();
    let mut whole = None;
    for (i, record) in records.iter().enumerate() {
        match record.meta.shard.as_deref() {
            None => whole = whole.or(Some(i + 1)),
            Some(text) => {
                let shard = parse_shard(text).ok_or_else(|| ReportError::BadShard {
                    index: i + 1,
                    value: text.to_owned(),
                })?;
                sharded.push((i + 1, shard));
            }
        }
    }
    let Some(&(first, (first_k, count))) = sharded.first() else {
        return Ok(());
    };
    if let Some(unsharded) = whole {
        return Err(ReportError::ShardMixedWithWhole {
            sharded: first,
            shard: format!("{first_k}/{count}"),
            unsharded,
        });
    }
    let mut seen = BTreeMap::new();
    for &(index, (k, n)) in &sharded {
        if n != count {
            return Err(ReportError::ShardCounts {
                index,
                found: format!("{k}/{n}"),
                first,
                expected: format!("{first_k}/{count}"),
            });
        }
        if let Some(earlier) = seen.insert(k, index) {
            return Err(ReportError::DuplicateShard {
                shard: format!("{k}/{n}"),
                first: earlier,
                second: index,
            });
        }
    }
    missing_shards(&seen, count)
}

/// Every K of 1..=count is in `seen`, or an error naming the first few missing.
fn missing_shards(seen: &BTreeMap<u32, usize>, count: u32) -> Result<(), ReportError> {
    // Each `seen` K is at most `count`, so `count - seen` is the number missing.
    let missing = count as usize - seen.len();
    if missing == 0 {
        return Ok(());
    }
    let mut named: Vec<String> = (1..=count)
        .filter(|k| !seen.contains_key(k))
        .take(MISSING_NAMED)
        .map(|k| format!("{k}/{count}"))
        .collect();
    if missing > named.len() {
        named.push(format!("and {} more", missing - named.len()));
    }
    let noun = if missing == 1 { "shard" } else { "shards" };
    Err(ReportError::MissingShards {
        missing: format!("{noun} {}", named.join(", ")),
        given: seen.len(),
        count,
    })
}

fn mismatch(
    i: usize,
    what: &'static str,
    expected: impl ToString,
    found: impl ToString,
) -> ReportError {
    ReportError::Mismatch {
        index: i + 1,
        what,
        expected: expected.to_string(),
        found: found.to_string(),
    }
}

fn merged_meta(records: &[RunRecord], first: &RunMeta) -> Result<RunMeta, ReportError> {
    let mut start: Option<(OffsetDateTime, &str)> = None;
    let mut end: Option<(OffsetDateTime, &str)> = None;
    for (i, record) in records.iter().enumerate() {
        let s = timestamp(i, "started_at", &record.meta.started_at)?;
        let e = timestamp(i, "finished_at", &record.meta.finished_at)?;
        if start.is_none_or(|(t, _)| s < t) {
            start = Some((s, &record.meta.started_at));
        }
        if end.is_none_or(|(t, _)| e > t) {
            end = Some((e, &record.meta.finished_at));
        }
    }
    let (start, started_at) = start.ok_or(ReportError::NothingToMerge)?;
    let (end, finished_at) = end.ok_or(ReportError::NothingToMerge)?;
    let mut faults: Vec<String> = records
        .iter()
        .flat_map(|r| r.meta.faults.iter().cloned())
        .collect();
    faults.sort();
    faults.dedup();
    Ok(RunMeta {
        started_at: started_at.to_owned(),
        finished_at: finished_at.to_owned(),
        duration_ms: ((end - start).as_seconds_f64() * 1000.0).max(0.0),
        shard: None,
        interrupted: interruptions(records),
        unreachable: records.iter().find_map(|r| r.meta.unreachable.clone()),
        faults,
        strict: records.iter().any(|r| r.meta.strict),
        keep_exchanges: records.iter().all(|r| r.meta.keep_exchanges),
        profile_problems: profile_problems(records),
        coverage_short: Vec::new(),
        pace: pace(records),
        constraints: constraints(records),
        ..first.clone()
    })
}

/// The shards' constraint coverage in one: what each shard broke and held, added up.
fn constraints(records: &[RunRecord]) -> Vec<ConstraintCoverage> {
    let mut all: Vec<ConstraintCoverage> = Vec::new();
    for c in records.iter().flat_map(|r| &r.meta.constraints) {
        match all
            .iter_mut()
            .find(|m| m.id == c.id && m.operation == c.operation)
        {
            Some(merged) => merged.absorb(c),
            None => all.push(c.clone()),
        }
    }
    all
}

/// The shards' paces in one: every refusal and pause counted, and the slowest pace that worked
/// (shards run at once share the target's limit).
fn pace(records: &[RunRecord]) -> Option<Pace> {
    records
        .iter()
        .filter_map(|r| r.meta.pace.clone())
        .reduce(|all, shard| Pace {
            answers_429: all.answers_429 + shard.answers_429,
            answers_503: all.answers_503 + shard.answers_503,
            pauses: all.pauses + shard.pauses,
            paused_ms: all.paused_ms + shard.paused_ms,
            rate: all.rate.min(shard.rate),
            unanswered: [all.unanswered, shard.unanswered].concat(),
        })
}

fn timestamp(i: usize, field: &'static str, value: &str) -> Result<OffsetDateTime, ReportError> {
    OffsetDateTime::parse(value, &Rfc3339).map_err(|_| ReportError::BadTimestamp {
        index: i + 1,
        field,
        value: value.to_owned(),
    })
}

/// Each shard that stopped early, with its reason.
fn interruptions(records: &[RunRecord]) -> Option<String> {
    let reasons: Vec<String> = records
        .iter()
        .filter_map(|r| {
            let why = r.meta.interrupted.as_deref()?;
            let shard = r.meta.shard.as_deref().unwrap_or("?");
            Some(format!("shard {shard}: {why}"))
        })
        .collect();
    (!reasons.is_empty()).then(|| reasons.join("; "))
}

/// Every shard's profile problems, once each.
fn profile_problems(records: &[RunRecord]) -> Vec<String> {
    let mut problems: Vec<String> = records
        .iter()
        .flat_map(|r| r.meta.profile_problems.iter().cloned())
        .collect();
    problems.sort();
    problems.dedup();
    problems
}
