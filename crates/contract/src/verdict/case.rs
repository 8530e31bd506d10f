//! What one case found: its verdict, the broken rules, the rules it judged, the statuses it
//! saw and meant to provoke, and the counts of a run's verdicts.

use super::{Exchange, Shape};
use crate::catalogue::Level;
use serde::{Deserialize, Serialize};

/// The outcome of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every check held.
    Pass,
    /// Only `should` rules were broken.
    Warn,
    /// A `must` rule was broken.
    Fail,
    /// The case could not run to a verdict: the target did not answer usably (timeout, reset,
    /// oversized body) or covenant could not prepare the request.
    Error,
    /// The case did not run; `skip_reason` says why (a fixture the profile lacks, a filter,
    /// `--max-requests` reached, an interrupt).
    Skip,
    /// The case ran but could not judge what it tested: the baseline its variants are judged
    /// against was refused (see [`CaseResult::inconclusive`]). Neither a pass nor a failure.
    Inconclusive,
    /// Every rule the case broke is held by the run's baseline of known failures
    /// (`--baseline`): named, with its reason, but not failing the run.
    Known,
    /// The case holds a client's slips seen in real traffic (`covenant proxy`, `covenant
    /// check`): requests that break what the spec asks of clients. They say nothing of the
    /// target, so they never fail a run, and no baseline holds or changes them.
    Client,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
            Verdict::Error => "error",
            Verdict::Skip => "skip",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Known => "known",
            Verdict::Client => "client",
        }
    }
}

/// One broken rule, seen in one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule id from the catalogue.
    pub rule: String,
    pub level: Level,
    /// One line saying what was wrong.
    pub message: String,
    /// Unified diff of expected against actual, where a comparison was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Index into the case's exchanges of the exchange that shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<usize>,
    /// Set when the run's baseline holds this failure: the entry's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
}

impl Finding {
    pub fn new(rule: &str, level: Level, message: impl Into<String>) -> Finding {
        Finding {
            rule: rule.to_owned(),
            level,
            message: message.into(),
            diff: None,
            exchange: None,
            known: None,
        }
    }

    /// Adds a unified diff of `expected` against `actual`.
    pub fn with_diff(mut self, expected: &str, actual: &str) -> Finding {
        self.diff = Some(unified_diff(expected, actual));
        self
    }

    pub fn at_exchange(mut self, index: usize) -> Finding {
        self.exchange = Some(index);
        self
    }
}

/// Variants a case could not judge because the baseline they are judged against was refused:
/// a positive variant says something about the target only beside a baseline, differing from it
/// in the part under test alone, that the target accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inconclusive {
    /// The rule the variants would have been judged under.
    pub rule: String,
    /// What the baseline was (`the minimal quote body`).
    pub baseline: String,
    /// The baseline's answer: the diagnosis (`404: counterpart not found`).
    pub answer: String,
    /// How many variants it blocked, and the first few of them.
    pub count: usize,
    pub variants: Vec<String>,
    /// Index into the case's exchanges of the baseline's exchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<usize>,
}

impl Inconclusive {
    /// How many variants it blocked beyond those it names.
    pub fn unnamed(&self) -> usize {
        self.count.saturating_sub(self.variants.len())
    }
}

/// A rule a case judged responses against, and how many: the evidence the rule coverage counts.
/// A finding is evidence too; a check that held leaves only this.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub rule: String,
    /// Responses judged against the rule (a check across several responses counts once).
    pub responses: u32,
}

/// How often a case saw one status from one operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusSeen {
    /// The operation id, as in `operations.json`.
    pub operation: String,
    pub status: u16,
    pub count: u32,
}

/// A status a case set out to provoke from an operation: `201`, or a class, `2xx` (any
/// success) or `4xx` (any refusal).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StatusExpected {
    pub operation: String,
    pub status: String,
}

/// A unified diff (`similar`) with `expected` and `actual` headers.
pub fn unified_diff(expected: &str, actual: &str) -> String {
    let expected = with_final_newline(expected);
    let actual = with_final_newline(actual);
    similar::TextDiff::from_lines(&expected, &actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

fn with_final_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}

/// The suite of the cases that hold a client's slips seen in real traffic (`covenant proxy`,
/// `covenant check`): their findings are the client's, never the target's.
pub const CLIENT_SUITE: &str = "client";

/// The suite of the cases that judge the target's answers in real traffic.
pub const TRAFFIC_SUITE: &str = "traffic";

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// Stable case id, such as `velocity.duplicate-id` or `generated.create-receivable.valid-3`.
    pub id: String,
    /// The area or operation it belongs to (the JUnit testsuite).
    pub suite: String,
    /// The operation id it exercises, where it exercises one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The rules the case covers.
    pub rules: Vec<String>,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    pub exchanges: Vec<Exchange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The (shrunk) generated payload, for generated cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<serde_json::Value>,
    /// Variants not judged because their baseline was refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inconclusive: Vec<Inconclusive>,
    /// Requests sent, retries included (generated cases keep only the exchanges with findings).
    #[serde(default)]
    pub requests: usize,
    /// The rules the case judged responses against, in rule id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// The statuses the case saw, per operation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statuses: Vec<StatusSeen>,
    /// The statuses the case set out to provoke, per operation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_statuses: Vec<StatusExpected>,
    /// The kinds of answer the case had (see [`Shape`]), in the order first seen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shapes: Vec<Shape>,
    pub duration_ms: f64,
}

impl CaseResult {
    /// Drops every exchange that no finding, variant left unjudged or shape points at, and
    /// renumbers the pointers to those kept: what a passing case keeps (its shapes' examples)
    /// unless a run keeps every exchange.
    pub fn keep_referenced_exchanges(&mut self) {
        let pointers = self
            .findings
            .iter()
            .map(|f| f.exchange)
            .chain(self.inconclusive.iter().map(|i| i.exchange))
            .chain(self.shapes.iter().map(|s| s.exchange));
        let mut kept = vec![false; self.exchanges.len()];
        for index in pointers.flatten() {
            if let Some(keep) = kept.get_mut(index) {
                *keep = true;
            }
        }
        if kept.iter().all(|k| *k) {
            return;
        }
        // The new index of each kept exchange.
        let mut next = 0;
        let renumbered: Vec<Option<usize>> = kept
            .iter()
            .map(|keep| {
                keep.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        let new = |index: Option<usize>| index.and_then(|i| renumbered.get(i).copied().flatten());
        for finding in &mut self.findings {
            finding.exchange = new(finding.exchange);
        }
        for unjudged in &mut self.inconclusive {
            unjudged.exchange = new(unjudged.exchange);
        }
        for shape in &mut self.shapes {
            shape.exchange = new(shape.exchange);
        }
        let mut keep = kept.into_iter();
        self.exchanges.retain(|_| keep.next().unwrap_or(false));
    }

    /// A copy of the result without its exchanges (which are never copied).
    pub fn without_exchanges(&self) -> CaseResult {
        // Every field named, so that one added to the result is not forgotten here.
        let CaseResult {
            id,
            suite,
            operation,
            rules,
            verdict,
            findings,
            exchanges: _,
            skip_reason,
            error,
            payload,
            inconclusive,
            requests,
            evidence,
            statuses,
            expected_statuses,
            shapes,
            duration_ms,
        } = self;
        CaseResult {
            id: id.clone(),
            suite: suite.clone(),
            operation: operation.clone(),
            rules: rules.clone(),
            verdict: *verdict,
            findings: findings.clone(),
            exchanges: Vec::new(),
            skip_reason: skip_reason.clone(),
            error: error.clone(),
            payload: payload.clone(),
            inconclusive: inconclusive.clone(),
            requests: *requests,
            evidence: evidence.clone(),
            statuses: statuses.clone(),
            expected_statuses: expected_statuses.clone(),
            shapes: shapes.clone(),
            duration_ms: *duration_ms,
        }
    }

    /// The verdict that the findings, the error and the variants left unjudged imply: a
    /// failure wins over everything; a case that judged only part of what it tested is
    /// inconclusive unless something it did judge warned.
    pub fn judge(findings: &[Finding], error: Option<&str>, inconclusive: bool) -> Verdict {
        if findings.iter().any(|f| f.level == Level::Must) {
            Verdict::Fail
        } else if error.is_some() {
            Verdict::Error
        } else if !findings.is_empty() {
            Verdict::Warn
        } else if inconclusive {
            Verdict::Inconclusive
        } else {
            Verdict::Pass
        }
    }
}

/// Counts of verdicts in a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub pass: usize,
    pub warn: usize,
    pub fail: usize,
    pub error: usize,
    pub skip: usize,
    /// Cases whose variants were blocked by a refused baseline.
    #[serde(default)]
    pub inconclusive: usize,
    /// Cases whose every broken rule the baseline holds (`--baseline`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub known: usize,
    /// Cases holding a client's slips seen in real traffic: never the target's failure.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub client: usize,
    /// Under `--strict`, the failed cases that break `should` rules alone (warned cases),
    /// counted in `fail` too.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub warnings_failed: usize,
    pub requests: usize,
}

impl CaseResult {
    /// The requests the case sent: as it counted them, or for a record that counts none (built
    /// by hand, or by a covenant before the count), its exchanges. (A request the budget or
    /// `--read-only` held back leaves no exchange.)
    pub fn requests_sent(&self) -> usize {
        match self.requests {
            0 => self.exchanges.len(),
            n => n,
        }
    }
}

impl Counts {
    pub fn of(cases: &[CaseResult]) -> Counts {
        let mut c = Counts::default();
        for case in cases {
            match case.verdict {
                Verdict::Pass => c.pass += 1,
                Verdict::Warn => c.warn += 1,
                Verdict::Fail => c.fail += 1,
                Verdict::Error => c.error += 1,
                Verdict::Skip => c.skip += 1,
                Verdict::Inconclusive => c.inconclusive += 1,
                Verdict::Known => c.known += 1,
                Verdict::Client => c.client += 1,
            }
            // A client's slips are exchanges a traffic case counts already: each once.
            if case.suite != CLIENT_SUITE {
                c.requests += case.requests_sent();
            }
        }
        c
    }

    pub fn total(&self) -> usize {
        self.pass
            + self.warn
            + self.fail
            + self.error
            + self.skip
            + self.inconclusive
            + self.known
            + self.client
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn must_finding_fails_and_should_finding_warns() {
        let must = Finding::new("X", Level::Must, "m");
        let should = Finding::new("Y", Level::Should, "s");
        assert_eq!(
            CaseResult::judge(std::slice::from_ref(&should), None, false),
            Verdict::Warn
        );
        assert_eq!(
            CaseResult::judge(&[should.clone(), must.clone()], None, false),
            Verdict::Fail
        );
        assert_eq!(CaseResult::judge(&[], None, false), Verdict::Pass);
        assert_eq!(
            CaseResult::judge(&[], Some("timeout"), false),
            Verdict::Error
        );
    }

    #[test]
    fn only_the_exchanges_pointed_at_are_kept_and_every_pointer_follows_its_exchange() {
        let exchange = |url: &str| {
            serde_json::json!({
                "request": {"method": "GET", "url": url, "headers": [], "curl": url},
                "duration_ms": 1.0
            })
        };
        let shape = |exchange: Option<usize>| {
            serde_json::json!({
                "operation": "list-events", "status": 200, "body": "object", "count": 1,
                "exchange": exchange
            })
        };
        let mut case: CaseResult = serde_json::from_value(serde_json::json!({
            "id": "c", "suite": "s", "rules": [], "verdict": "warn", "duration_ms": 1.0,
            "exchanges": [exchange("/0"), exchange("/1"), exchange("/2"), exchange("/3")],
            "findings": [{"rule": "R", "level": "should", "message": "m", "exchange": 3}],
            "shapes": [shape(Some(1)), shape(None), shape(Some(3))]
        }))
        .expect("a case result");
        case.keep_referenced_exchanges();
        let urls: Vec<&str> = case
            .exchanges
            .iter()
            .map(|e| e.request.url.as_str())
            .collect();
        assert_eq!(urls, ["/1", "/3"]);
        assert_eq!(case.findings[0].exchange, Some(1));
        let shapes: Vec<Option<usize>> = case.shapes.iter().map(|s| s.exchange).collect();
        assert_eq!(shapes, [Some(0), None, Some(1)]);
    }

    #[test]
    fn unjudged_variants_make_a_case_inconclusive_but_never_hide_a_failure_or_warning() {
        let must = Finding::new("X", Level::Must, "m");
        let should = Finding::new("Y", Level::Should, "s");
        assert_eq!(CaseResult::judge(&[], None, true), Verdict::Inconclusive);
        assert_eq!(CaseResult::judge(&[must], None, true), Verdict::Fail);
        assert_eq!(CaseResult::judge(&[should], None, true), Verdict::Warn);
    }

    #[test]
    fn diff_shows_changed_lines() {
        let d = unified_diff("a\nb\n", "a\nc\n");
        assert!(d.contains("-b") && d.contains("+c"), "{d}");
    }
}
