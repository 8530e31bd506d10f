//! Settling a run: what fails it, decided once. When a run ends (after the baseline of known
//! failures has marked its cases) and when a record is read back or merged, [`RunRecord::settle`]
//! applies `--strict` to its cases and works its counts out again; every surface then reads the
//! settled record and decides nothing. Under `--strict` a warned case is a failing case: its
//! verdict becomes `fail` (its findings keep their rule and level) and the counts say how many
//! failed on `should` rules alone. This is the only place that reads `meta.strict`.

use super::{CaseResult, Counts, RunRecord, Verdict};
use crate::catalogue::Level;

/// A case's verdict as it counts in a run asked for `strict` (`--strict`): a warning fails it.
/// The console's progress line says it as each case ends, before the run is settled.
pub fn settled(verdict: Verdict, strict: bool) -> Verdict {
    match verdict {
        Verdict::Warn if strict => Verdict::Fail,
        other => other,
    }
}

impl RunRecord {
    /// Applies `--strict` to every case and works the counts out again (the requests sent are
    /// kept). Settling a settled record changes nothing, so that a record read back from
    /// `report.json` is settled again safely.
    pub fn settle(&mut self) {
        let strict = self.meta.strict;
        for case in &mut self.cases {
            case.verdict = settled(case.verdict, strict);
        }
        self.counts = Counts {
            requests: self.counts.requests,
            warnings_failed: self.warnings_failed(),
            ..Counts::of(&self.cases)
        };
    }

    /// Whether a finding at `level` breaks its rule in this run (rather than warning of it): a
    /// `must` finding, or under `--strict` any finding.
    pub fn breaks(&self, level: Level) -> bool {
        self.meta.strict || level == Level::Must
    }

    /// Whether a settled case fails the run: a failure or an error.
    pub fn fails(case: &CaseResult) -> bool {
        matches!(case.verdict, Verdict::Fail | Verdict::Error)
    }

    /// Under `--strict`, the failing cases that break `should` rules alone (warned cases); 0
    /// without `--strict`.
    fn warnings_failed(&self) -> usize {
        if !self.meta.strict {
            return 0;
        }
        let must = |c: &CaseResult| {
            c.findings
                .iter()
                .any(|f| f.level == Level::Must && f.known.is_none())
        };
        self.cases
            .iter()
            .filter(|c| match c.verdict {
                Verdict::Warn => true,
                Verdict::Fail => !c.findings.is_empty() && !must(c),
                _ => false,
            })
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::verdict::Finding;

    fn case(id: &str, verdict: Verdict, level: Level) -> CaseResult {
        let findings = match verdict {
            Verdict::Pass => vec![],
            _ => vec![Finding::new("R", level, "broken")],
        };
        serde_json::from_value(serde_json::json!({
            "id": id, "suite": "s", "rules": [], "verdict": verdict,
            "findings": findings, "exchanges": [], "duration_ms": 0.0
        }))
        .expect("a case")
    }

    #[test]
    fn under_strict_a_warned_case_fails_and_is_counted_once_among_the_failures() {
        let cases = vec![
            case("a", Verdict::Pass, Level::Must),
            case("b", Verdict::Warn, Level::Should),
            case("c", Verdict::Fail, Level::Must),
        ];
        let mut run = RunRecord::of_cases(cases.clone());
        run.meta.strict = true;
        run.settle();
        let c = &run.counts;
        assert_eq!((c.pass, c.warn, c.fail, c.warnings_failed), (1, 0, 2, 1));
        assert_eq!(run.cases[1].verdict, Verdict::Fail);
        let again = run.clone();
        run.settle();
        assert_eq!(run, again, "settling twice changes nothing");
        let mut lenient = RunRecord::of_cases(cases);
        lenient.settle();
        let c = &lenient.counts;
        assert_eq!((c.warn, c.fail, c.warnings_failed), (1, 1, 0));
    }
}
