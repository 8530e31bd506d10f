//! Latency per operation, from the durations of recorded exchanges.
//!
//! Exchanges that ended in a transport error count too: a timeout is latency a client saw.
//! Cases without an operation (cross-cutting scenarios) are grouped under no name and left out.

use crate::verdict::RunRecord;
use std::collections::BTreeMap;

/// Latency of one operation's exchanges, in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    pub operation: String,
    pub count: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

/// One row per operation, sorted by operation id.
pub fn latency_by_operation(run: &RunRecord) -> Vec<Latency> {
    let mut by_operation: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for case in &run.cases {
        let Some(operation) = case.operation.as_deref() else {
            continue;
        };
        let durations = case.exchanges.iter().map(|e| e.duration_ms);
        by_operation.entry(operation).or_default().extend(durations);
    }
    by_operation
        .into_iter()
        .filter(|(_, durations)| !durations.is_empty())
        .map(|(operation, mut durations)| {
            durations.sort_by(f64::total_cmp);
            Latency {
                operation: operation.to_owned(),
                count: durations.len(),
                p50_ms: nearest_rank(&durations, 50),
                p95_ms: nearest_rank(&durations, 95),
                max_ms: durations.last().copied().unwrap_or(0.0),
            }
        })
        .collect()
}

/// The nearest-rank percentile of sorted, non-empty values: an observed value, never an
/// interpolation.
fn nearest_rank(sorted: &[f64], percent: usize) -> f64 {
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn nearest_rank_picks_observed_values() {
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(nearest_rank(&values, 50), 10.0);
        assert_eq!(nearest_rank(&values, 95), 19.0);
        assert_eq!(nearest_rank(&[7.0], 95), 7.0);
    }
}
