//! Verdicts as plain data: what a case found, and the exchanges that show it.
//!
//! Everything here is serialisable so that runs can be written, merged and compared without the
//! code that produced them. Checks produce [`Finding`]s; the runner folds them into a
//! [`CaseResult`]; reporters read a [`RunRecord`]. Nothing here sends a request or writes a file.

use crate::catalogue::Level;
use crate::exit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
}

impl Finding {
    pub fn new(rule: &str, level: Level, message: impl Into<String>) -> Finding {
        Finding {
            rule: rule.to_owned(),
            level,
            message: message.into(),
            diff: None,
            exchange: None,
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
    /// The variants it names, and how many more it blocked.
    pub fn named(&self) -> String {
        let more = self.count.saturating_sub(self.variants.len());
        let mut named = self.variants.join("; ");
        if more > 0 {
            named.push_str(&format!("; and {more} more"));
        }
        named
    }

    /// One line for consoles and reports.
    pub fn sentence(&self) -> String {
        format!(
            "{} variant(s) of {} blocked by their baseline ({}), refused with {}: {}",
            self.count,
            self.rule,
            self.baseline,
            self.answer,
            self.named()
        )
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

/// One kind of answer a case had from one operation, and how many responses had it: what the
/// behaviour diff compares and the spec owners' section reads. It holds the status, the JSON
/// types of the body's top-level fields (and of a page's items, and the page sizes served under
/// each limit), never a value of the body but a banking error's `errorCode`: ids, timestamps and
/// generated text differ between any two targets and say nothing of their behaviour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// The operation id, as in `operations.json`.
    pub operation: String,
    pub status: u16,
    /// What the request asked for where an operation has kinds of request: the `type` of a
    /// create receivable body (`quote`, `invoice`, `credit_note`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The rule the case judged the answer a refusal under (the condition the request was
    /// made to break), where it did; `GEN-VALID-ACCEPTED` for a valid body refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// `empty`, `object`, `array`, another JSON type (`string`, `number`, ...) or `not-json`.
    pub body: String,
    /// Top-level field name -> the JSON types it held (`string|null`), with `absent` when some
    /// responses of this shape lacked it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, String>,
    /// A page's items: their top-level fields, the same way, over every item.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub items: BTreeMap<String, String>,
    /// A page's size against the limit asked, per limit and fill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<PageFill>,
    /// A banking error's `errorCode` values (the first few).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<String>,
    /// Responses of this shape.
    pub count: u32,
    /// Index into the case's exchanges of the first response of this shape, where it was kept
    /// (the first of each operation, status and kind is kept as an example).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<usize>,
}

/// Pages of one fill served under one limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageFill {
    /// The `limit` asked, as sent, or `default` when none was.
    pub limit: String,
    pub fill: Fill,
    /// Pages, and the fewest and most items one held.
    pub pages: u32,
    pub min: u32,
    pub max: u32,
}

/// How full a page was against the limit asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fill {
    /// `limit` items and a next token.
    Full,
    /// Fewer than `limit` items and a next token.
    Short,
    /// A next token under the default limit (no `limit` asked).
    Next,
    /// No next token: the last (or only) page.
    Last,
    /// More items than `limit`.
    Over,
}

impl Fill {
    pub fn as_str(self) -> &'static str {
        match self {
            Fill::Full => "full",
            Fill::Short => "short",
            Fill::Next => "next",
            Fill::Last => "last",
            Fill::Over => "over",
        }
    }
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

/// A request as sent, secrets redacted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestRecord {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The same request as a curl command line, secrets redacted.
    pub curl: String,
}

/// A response as received (body truncated for reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseRecord {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Whether `body` was cut short for the record.
    #[serde(default)]
    pub truncated: bool,
}

/// One request and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub request: RequestRecord,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResponseRecord>,
    /// A transport error instead of a response (refused, reset, timeout, oversized body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: f64,
    /// Retries made before this outcome: a GET after a 5xx or a transport error, any request
    /// after a rate-limit answer.
    #[serde(default)]
    pub retries: u32,
}

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
    pub requests: usize,
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
            }
            c.requests += case.requests.max(case.exchanges.len());
        }
        c
    }

    pub fn total(&self) -> usize {
        self.pass + self.warn + self.fail + self.error + self.skip + self.inconclusive
    }
}

/// What a run was: enough to reproduce it (without secrets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    pub covenant_version: String,
    pub seed: u64,
    pub target: String,
    /// The profile with secrets redacted.
    pub profile: serde_json::Value,
    /// RFC 3339 timestamps.
    pub started_at: String,
    pub finished_at: String,
    pub duration_ms: f64,
    pub cases_per_operation: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Set when the run stopped early (interrupt, deadline, request budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// Faults switched on in an embedded reference (self-test runs only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<String>,
    /// `--strict`: warnings count as failures.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// Fixtures of the profile that the target showed to be wrong at their first use, each
    /// naming its profile key and what the target answered; the cases that needed them were
    /// blocked, not judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profile_problems: Vec<String>,
    /// `--require-coverage`: the coverage the run had to reach.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coverage_required: Vec<CoverageRequirement>,
    /// Each requirement the run fell short of, in a sentence that names what lacked evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coverage_short: Vec<String>,
    /// How the target's rate limits paced the run; absent when it refused no request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pace: Option<Pace>,
}

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
}

impl CoverageMeasure {
    pub fn as_str(self) -> &'static str {
        match self {
            CoverageMeasure::Must => "must",
            CoverageMeasure::Should => "should",
            CoverageMeasure::Status => "status",
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
                 should, status and PERCENT 0 to 100 (as in must=100)"
            )
        };
        let (measure, percent) = text.split_once('=').ok_or_else(usage)?;
        let measure = match measure.trim() {
            "must" => CoverageMeasure::Must,
            "should" => CoverageMeasure::Should,
            "status" | "statuses" => CoverageMeasure::Status,
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

/// How a target's rate limits paced a run. The spec states no rate limit, so none of this is a
/// finding: a refused request was sent again once the pause was over, and only its answer was
/// judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pace {
    /// Answers 429 Too Many Requests.
    pub answers_429: u64,
    /// Answers 503 Service Unavailable with `Retry-After`.
    pub answers_503: u64,
    /// Times every lane paused for a `Retry-After`, and how long in all (overlapping pauses
    /// counted once).
    pub pauses: u64,
    pub paused_ms: f64,
    /// The pace that worked, requests per second: the rate covenant settled at after the last
    /// refusal, a `--rate` for the next run against this target.
    pub rate: f64,
}

impl Pace {
    /// The `--rate` value to suggest: the pace that worked, rounded down to what a person would
    /// type.
    pub fn suggested_rate(&self) -> String {
        let places = match self.rate {
            r if r >= 10.0 => 0,
            r if r >= 0.1 => 2,
            _ => 3,
        };
        let scale = 10f64.powi(places);
        let rate = ((self.rate * scale).floor() / scale).max(0.001);
        let text = format!("{rate:.*}", places as usize);
        match places {
            0 => text,
            _ => text.trim_end_matches('0').trim_end_matches('.').to_owned(),
        }
    }

    /// One line for the summary and the reports.
    pub fn sentence(&self) -> String {
        let answers = match (self.answers_429, self.answers_503) {
            (n, 0) => format!("{n} answer(s) 429"),
            (0, m) => format!("{m} answer(s) 503 with Retry-After"),
            (n, m) => format!("{n} answer(s) 429 and {m} 503 with Retry-After"),
        };
        format!(
            "the target rate-limited the run: {answers}, {} pause(s) of every request, {:.1} s \
             paused in all; the refused requests were sent again and none was judged; the pace \
             that worked: {} requests/s (--rate {} next time)",
            self.pauses,
            self.paused_ms / 1000.0,
            self.suggested_rate(),
            self.suggested_rate()
        )
    }
}

/// The verdict of a whole run, as every surface (console, reports, `compare`, exit code) states
/// it. In order of precedence: a profile problem makes every other verdict untrustworthy; a
/// broken `must` rule is a failure whatever else happened; a run that did not test what it
/// planned is incomplete, never a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunVerdict {
    /// Every judged case held; nothing warned (or warnings allowed).
    Pass,
    /// Only `should` rules were broken (without `--strict`).
    PassWithWarnings,
    /// A `must` rule was broken, or a `should` rule under `--strict`.
    Fail,
    /// Some case could not reach a verdict (the target gave no usable answer); nothing failed.
    Error,
    /// The run was interrupted, hit its deadline or request budget, or planned or ran no case.
    Incomplete,
    /// The profile does not fit the target: a fixture or credential it names is wrong.
    ProfileProblem,
    /// Nothing failed, but the run judged less of the contract than `--require-coverage`
    /// asks: it proves too little to pass.
    CoverageShort,
}

impl RunVerdict {
    /// The word every surface uses.
    pub fn headline(self) -> &'static str {
        match self {
            RunVerdict::Pass => "PASS",
            RunVerdict::PassWithWarnings => "PASS with warnings",
            RunVerdict::Fail => "FAILED",
            RunVerdict::Error => "ERROR",
            RunVerdict::Incomplete => "INCOMPLETE",
            RunVerdict::ProfileProblem => "PROFILE PROBLEM",
            RunVerdict::CoverageShort => "COVERAGE SHORT",
        }
    }

    /// The verdict in a sentence, for the head of a report.
    pub fn sentence(self) -> &'static str {
        match self {
            RunVerdict::Pass => "PASS: no rule of the contract is broken",
            RunVerdict::PassWithWarnings => {
                "PASS with warnings: no rule of the contract is broken; some conventions the spec \
                 does not state are not kept"
            }
            RunVerdict::Fail => "FAILED: the target breaks the contract",
            RunVerdict::Error => "ERROR: some cases could not reach a verdict",
            RunVerdict::Incomplete => "INCOMPLETE: the run did not test all it planned",
            RunVerdict::ProfileProblem => {
                "PROFILE PROBLEM: the profile does not fit the target; fix it and run again"
            }
            RunVerdict::CoverageShort => {
                "COVERAGE SHORT: no rule of the contract is broken, but the run judged less of it \
                 than --require-coverage asks"
            }
        }
    }

    /// A short lower-case name, as in the JSON report (`pass`, `incomplete`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            RunVerdict::Pass => "pass",
            RunVerdict::PassWithWarnings => "pass_with_warnings",
            RunVerdict::Fail => "fail",
            RunVerdict::Error => "error",
            RunVerdict::Incomplete => "incomplete",
            RunVerdict::ProfileProblem => "profile_problem",
            RunVerdict::CoverageShort => "coverage_short",
        }
    }

    /// The worse of two verdicts, in the precedence above: a run with two targets states the
    /// worse of its two.
    pub fn worse(self, other: RunVerdict) -> RunVerdict {
        let rank = |v: RunVerdict| match v {
            RunVerdict::Pass => 0,
            RunVerdict::PassWithWarnings => 1,
            RunVerdict::CoverageShort => 2,
            RunVerdict::Error => 3,
            RunVerdict::Incomplete => 4,
            RunVerdict::Fail => 5,
            RunVerdict::ProfileProblem => 6,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }

    /// Whether the run proves the target keeps the contract (as far as it was tested).
    pub fn passed(self) -> bool {
        matches!(self, RunVerdict::Pass | RunVerdict::PassWithWarnings)
    }

    /// The exit code of a run (or a merged run) with this verdict (see `crate::exit`).
    pub fn exit_code(self) -> u8 {
        match self {
            RunVerdict::Pass | RunVerdict::PassWithWarnings => exit::SUCCESS,
            RunVerdict::Fail | RunVerdict::Error => exit::FAILURES,
            RunVerdict::ProfileProblem => exit::USAGE,
            RunVerdict::CoverageShort => exit::COVERAGE,
            RunVerdict::Incomplete => exit::INCOMPLETE,
        }
    }
}

impl RunRecord {
    /// Why the run is incomplete, if it is: it stopped early, or it planned or ran no case.
    pub fn incomplete(&self) -> Option<String> {
        if let Some(why) = &self.meta.interrupted {
            return Some(format!("the run stopped early: {why}"));
        }
        if self.cases.is_empty() {
            return Some(
                "no case was planned: check --filter, --skip, --shard and --read-only".to_owned(),
            );
        }
        let c = &self.counts;
        if c.skip == self.cases.len() {
            return Some(
                "no case ran: every planned case was skipped (see the reasons)".to_owned(),
            );
        }
        (c.skip + c.inconclusive == self.cases.len()).then(|| {
            "nothing was judged: every case was skipped or blocked by its baseline".to_owned()
        })
    }

    /// The verdict of the run (see [`RunVerdict`] for the precedence).
    pub fn verdict(&self) -> RunVerdict {
        let c = &self.counts;
        if !self.meta.profile_problems.is_empty() {
            RunVerdict::ProfileProblem
        } else if c.fail > 0 || (self.meta.strict && c.warn > 0) {
            RunVerdict::Fail
        } else if self.incomplete().is_some() {
            RunVerdict::Incomplete
        } else if c.error > 0 {
            RunVerdict::Error
        } else if !self.meta.coverage_short.is_empty() {
            RunVerdict::CoverageShort
        } else if c.warn > 0 {
            RunVerdict::PassWithWarnings
        } else {
            RunVerdict::Pass
        }
    }
}

/// A shard as [`RunMeta::shard`] holds it, `K/N` with 1 <= K <= N (the K-th of N parts of one
/// run), as `(K, N)`; `None` for anything else.
pub fn parse_shard(text: &str) -> Option<(u32, u32)> {
    let (k, n) = text.split_once('/')?;
    let (k, n) = (k.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?);
    (1..=n).contains(&k).then_some((k, n))
}

/// A whole run: the JSON report is this, serialised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub meta: RunMeta,
    pub counts: Counts,
    pub cases: Vec<CaseResult>,
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
    fn unjudged_variants_make_a_case_inconclusive_but_never_hide_a_failure_or_warning() {
        let must = Finding::new("X", Level::Must, "m");
        let should = Finding::new("Y", Level::Should, "s");
        assert_eq!(CaseResult::judge(&[], None, true), Verdict::Inconclusive);
        assert_eq!(CaseResult::judge(&[must], None, true), Verdict::Fail);
        assert_eq!(CaseResult::judge(&[should], None, true), Verdict::Warn);
    }

    #[test]
    fn the_suggested_rate_is_the_pace_rounded_down() {
        let pace = |rate| Pace {
            answers_429: 3,
            answers_503: 0,
            pauses: 2,
            paused_ms: 2000.0,
            rate,
        };
        assert_eq!(pace(93.7).suggested_rate(), "93");
        assert_eq!(pace(4.567).suggested_rate(), "4.56");
        assert_eq!(pace(0.5).suggested_rate(), "0.5");
        assert_eq!(
            pace(0.0001).suggested_rate(),
            "0.001",
            "never below what --rate takes"
        );
        let sentence = pace(93.7).sentence();
        assert!(sentence.contains("3 answer(s) 429"), "{sentence}");
        assert!(sentence.contains("--rate 93 next time"), "{sentence}");
    }

    #[test]
    fn the_worse_of_two_verdicts_follows_the_precedence_of_every_surface() {
        use RunVerdict::*;
        assert_eq!(Pass.worse(PassWithWarnings), PassWithWarnings);
        assert_eq!(Fail.worse(Incomplete), Fail);
        assert_eq!(Incomplete.worse(Error), Incomplete);
        assert_eq!(CoverageShort.worse(Error), Error);
        assert_eq!(Fail.worse(ProfileProblem), ProfileProblem);
        assert_eq!(Pass.worse(Pass), Pass);
    }

    #[test]
    fn diff_shows_changed_lines() {
        let d = unified_diff("a\nb\n", "a\nc\n");
        assert!(d.contains("-b") && d.contains("+c"), "{d}");
    }
}
