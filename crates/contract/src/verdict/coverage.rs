//! What `--require-coverage` asks, as the command line and the record hold it.

use serde::{Deserialize, Serialize};

/// What `--require-coverage` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoverageMeasure {
    /// Observable `must` rules with evidence.
    Must,
    /// Observable `should` rules with evidence.
    Should,
    /// Statuses the spec states (5xx aside) that some response showed.
    Status,
    /// Inventoried constraints of the request bodies each broken alone and held at its edge.
    Constraints,
    /// Stated entries of the trace a client can observe, judged by a rule with evidence or by a
    /// request constraint broken and held.
    Statements,
}

impl CoverageMeasure {
    pub fn as_str(self) -> &'static str {
        match self {
            CoverageMeasure::Must => "must",
            CoverageMeasure::Should => "should",
            CoverageMeasure::Status => "status",
            CoverageMeasure::Constraints => "constraints",
            CoverageMeasure::Statements => "statements",
        }
    }
}

/// One `--require-coverage` term: `must=100` asks that every observable `must` rule got
/// evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoverageRequirement {
    pub measure: CoverageMeasure,
    /// 0 to 100.
    pub percent: u8,
}

impl std::fmt::Display for CoverageRequirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.measure.as_str(), self.percent)
    }
}

impl std::str::FromStr for CoverageRequirement {
    type Err = String;

    /// `must=100`, `should=80`, `status=75` (a trailing `%` is allowed).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let usage = || {
            format!(
                "--require-coverage {text:?}: expected MEASURE=PERCENT, MEASURE one of must, \
                 should, status, constraints, statements and PERCENT 0 to 100 (as in must=100)"
            )
        };
        let (measure, percent) = text.split_once('=').ok_or_else(usage)?;
        let measure = match measure.trim() {
            "must" => CoverageMeasure::Must,
            "should" => CoverageMeasure::Should,
            "status" | "statuses" => CoverageMeasure::Status,
            "constraints" | "constraint" => CoverageMeasure::Constraints,
            "statements" | "statement" => CoverageMeasure::Statements,
            _ => return Err(usage()),
        };
        let percent = percent.trim().trim_end_matches('%');
        let percent = percent
            .parse::<u8>()
            .ok()
            .filter(|p| *p <= 100)
            .ok_or_else(usage)?;
        Ok(CoverageRequirement { measure, percent })
    }
}
