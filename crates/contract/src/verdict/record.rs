//! A whole run: what it was (meta), its cases, and the one verdict every surface states.

use super::{
    BaselineOutcome, CaseResult, ClientSlip, ConstraintCoverage, Counts, CoverageRequirement,
    KnownRule, Pace, Verdict, CLIENT_TOKEN_VAR,
};
use crate::exit;
use crate::schema::JudgedAgainst;
use serde::{Deserialize, Serialize};

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
    /// Set when the target did not answer before the first case: nothing was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
    /// Faults switched on in an embedded reference (self-test runs only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<String>,
    /// `--strict`: warnings count as failures.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// `--keep-exchanges`: passing cases keep every exchange, in report.json too (without it, a
    /// passing case keeps only its examples, and report.json only the exchanges of the cases
    /// that did not pass).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_exchanges: bool,
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
    /// The baseline of known failures the run was judged with (`--baseline`), and what it held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineOutcome>,
    /// Every inventoried constraint of the requests, and how the run exercised it (empty
    /// for real traffic and for runs of covenant before the inventory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<ConstraintCoverage>,
    /// The real traffic the record judges (`covenant proxy`, `covenant check`); absent for a
    /// run of covenant's own requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficMeta>,
    /// The contract the run was judged against (absent in reports of covenant before it, which
    /// stay readable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_against: Option<JudgedAgainst>,
}

/// What real traffic a record judges: where it was seen, over what span of time, and why
/// nothing could be judged where nothing could.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrafficMeta {
    /// `proxy` (seen live) or `file` (recorded in a HAR file).
    pub source: String,
    /// The HAR file's name, or the address the proxy listened on.
    pub name: String,
    /// The first and the last exchange's start (RFC 3339), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Why no exchange could be judged: the record is then INCOMPLETE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nothing_judged: Option<String>,
}

impl RunMeta {
    /// The meta of a run of `target` with `profile` (redacted) and `seed` that has done nothing
    /// yet: this covenant's version, no time spent, nothing stopped, required or found.
    pub fn bare(target: &str, profile: serde_json::Value, seed: u64) -> RunMeta {
        RunMeta {
            covenant_version: env!("CARGO_PKG_VERSION").to_owned(),
            seed,
            target: target.to_owned(),
            profile,
            started_at: String::new(),
            finished_at: String::new(),
            duration_ms: 0.0,
            cases_per_operation: 0,
            shard: None,
            interrupted: None,
            unreachable: None,
            faults: Vec::new(),
            strict: false,
            keep_exchanges: false,
            profile_problems: Vec::new(),
            coverage_required: Vec::new(),
            coverage_short: Vec::new(),
            pace: None,
            baseline: None,
            constraints: Vec::new(),
            traffic: None,
            judged_against: None,
        }
    }

    /// The implementation's name its profile gives (the optional `name` key), if any.
    pub fn name(&self) -> Option<&str> {
        self.profile.get("name").and_then(|name| name.as_str())
    }

    /// Whether two records judged one target: their base URLs alike but for a trailing slash.
    pub fn same_target(&self, other: &RunMeta) -> bool {
        self.target.trim_end_matches('/') == other.target.trim_end_matches('/')
    }

    /// Whether two records judged one host under one base path, whatever its port: a CI job
    /// that starts its target on a free port tests the same target run after run.
    pub fn same_target_but_port(&self, other: &RunMeta) -> bool {
        let (mine, theirs) = (without_port(&self.target), without_port(&other.target));
        self.same_target(other) || (mine.is_some() && mine == theirs)
    }
}

/// Why a run is incomplete, as data: the reports word it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incomplete {
    /// The run stopped early (an interrupt, its deadline, its request budget), for this reason.
    Stopped(String),
    /// Real traffic of which nothing, or only the statuses, could be judged, for this reason.
    Traffic(String),
    /// No case was planned.
    NothingPlanned,
    /// Every planned case was skipped.
    NothingRan,
    /// Every case was skipped or blocked by its baseline.
    NothingJudged,
}

/// A shell variable the curls of a report name in place of a secret, and what it must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CurlVar {
    /// A secret the profile holds under `key`.
    Profile { var: String, key: &'static str },
    /// The banking access token that `[banking.oauth]` gives.
    Fetched { var: String },
    /// The `nth` credential the clients sent (real traffic), counted from 1.
    Client { var: String, nth: usize },
}

/// A base URL without its port and trailing slash (`http://127.0.0.1:8080/v1` ->
/// `http://127.0.0.1/v1`); `None` where it is no URL with a host.
fn without_port(target: &str) -> Option<String> {
    let mut url = url::Url::parse(target).ok()?;
    url.host_str()?;
    url.set_port(None).ok()?;
    Some(url.as_str().trim_end_matches('/').to_owned())
}

/// The verdict of a whole run, as every surface (console, reports, `compare`, exit code) states
/// it. In order of precedence: a broken `must` rule is a failure whatever else happened (a
/// profile problem beside it is named too); a profile problem makes every other verdict
/// untrustworthy; a run that did not test what it
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
    /// The target did not answer before the first case: nothing was judged.
    Unreachable,
    /// Nothing failed, but the run judged less of the contract than `--require-coverage`
    /// asks: it proves too little to pass.
    CoverageShort,
    /// Nothing new failed, but entries of the baseline of known failures hold rules the target
    /// no longer breaks: the gate fails until they are removed, so that a fixed rule cannot
    /// break again unseen.
    StaleBaseline,
}

impl RunVerdict {
    /// A short lower-case name, as in the JSON report (`pass`, `incomplete`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            RunVerdict::Pass => "pass",
            RunVerdict::PassWithWarnings => "pass_with_warnings",
            RunVerdict::Fail => "fail",
            RunVerdict::Error => "error",
            RunVerdict::Incomplete => "incomplete",
            RunVerdict::ProfileProblem => "profile_problem",
            RunVerdict::Unreachable => "unreachable",
            RunVerdict::CoverageShort => "coverage_short",
            RunVerdict::StaleBaseline => "stale_baseline",
        }
    }

    /// The worse of two verdicts, in the precedence above: a run with two targets states the
    /// worse of its two.
    pub fn worse(self, other: RunVerdict) -> RunVerdict {
        let rank = |v: RunVerdict| match v {
            RunVerdict::Pass => 0,
            RunVerdict::PassWithWarnings => 1,
            RunVerdict::CoverageShort => 2,
            RunVerdict::StaleBaseline => 3,
            RunVerdict::Error => 4,
            RunVerdict::Incomplete => 5,
            RunVerdict::Unreachable => 6,
            RunVerdict::ProfileProblem => 7,
            RunVerdict::Fail => 8,
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
            RunVerdict::Unreachable => exit::UNREACHABLE,
            RunVerdict::CoverageShort => exit::COVERAGE,
            RunVerdict::StaleBaseline => exit::STALE_BASELINE,
            RunVerdict::Incomplete => exit::INCOMPLETE,
        }
    }
}

impl RunRecord {
    /// Whether the record judges real traffic (`covenant proxy`, `covenant check`) rather than
    /// a run's own requests: reports then say what the traffic showed, not what the run sent.
    pub fn is_traffic(&self) -> bool {
        self.cases.iter().any(|c| c.suite == super::TRAFFIC_SUITE)
    }

    /// A record of `cases` with a minimal meta (seed 1, target `t`), for tests of what reads
    /// records (the engine's unit tests build theirs with it, across the crate boundary).
    #[doc(hidden)]
    pub fn of_cases(cases: Vec<CaseResult>) -> RunRecord {
        let mut meta = RunMeta::bare("t", serde_json::json!({}), 1);
        meta.covenant_version = "0".into();
        meta.started_at = "2026-01-01T00:00:00Z".into();
        meta.finished_at = "2026-01-01T00:00:01Z".into();
        meta.duration_ms = 1.0;
        meta.cases_per_operation = 1;
        RunRecord {
            counts: Counts::of(&cases),
            meta,
            cases,
        }
    }

    /// Whether the run stopped before its first case, for the profile or an unreachable target:
    /// its reports say why, and judge nothing.
    pub fn stopped_before_cases(&self) -> bool {
        self.cases.is_empty()
            && (self.meta.unreachable.is_some() || !self.meta.profile_problems.is_empty())
    }

    /// Why the run is incomplete, if it is: it stopped early, or it planned or ran no case.
    pub fn incomplete(&self) -> Option<Incomplete> {
        if let Some(why) = &self.meta.interrupted {
            return Some(Incomplete::Stopped(why.clone()));
        }
        if let Some(traffic) = &self.meta.traffic {
            return traffic.nothing_judged.clone().map(Incomplete::Traffic);
        }
        if self.stopped_before_cases() {
            // Its verdict names why: the profile, or the target that never answered.
            return None;
        }
        if self.cases.is_empty() {
            return Some(Incomplete::NothingPlanned);
        }
        let c = &self.counts;
        if c.skip == self.cases.len() {
            return Some(Incomplete::NothingRan);
        }
        (c.skip + c.inconclusive == self.cases.len()).then_some(Incomplete::NothingJudged)
    }

    /// The shell variables the curls reports print name in place of secrets (those of the
    /// exchanges that show a finding), each with what it must hold: the profile's secrets
    /// first, then the clients' credentials in the order of their number.
    pub fn curl_vars(&self) -> Vec<CurlVar> {
        let profile: crate::profile::Profile =
            serde_json::from_value(self.meta.profile.clone()).unwrap_or_default();
        let curls: Vec<&str> = self
            .cases
            .iter()
            .flat_map(|c| {
                c.findings
                    .iter()
                    .filter_map(|f| c.exchanges.get(f.exchange?))
            })
            .map(|e| e.request.curl.as_str())
            .collect();
        let mut vars: Vec<CurlVar> = profile
            .secret_vars()
            .into_iter()
            .filter(|(v, _)| {
                // `$VAR`, `${VAR}`, or a form built from it (`${VAR%?}`).
                let (plain, braced) = (format!("${}", v.var), format!("${{{}", v.var));
                curls
                    .iter()
                    .any(|c| names_var(c, &braced) || names_var(c, &plain))
            })
            .map(|(v, _)| {
                let fetched = v.key == "banking.token"
                    && profile
                        .banking
                        .as_ref()
                        .is_some_and(|b| b.token.is_none() && b.oauth.is_some());
                match fetched {
                    true => CurlVar::Fetched { var: v.var },
                    false => CurlVar::Profile {
                        var: v.var,
                        key: v.key,
                    },
                }
            })
            .collect();
        vars.extend(
            client_vars(&curls)
                .into_iter()
                .map(|(var, nth)| CurlVar::Client { var, nth }),
        );
        vars
    }

    /// The verdict of the run (see [`RunVerdict`] for the precedence), read from its settled
    /// counts ([`RunRecord::settle`]: under `--strict` its warnings are failures already).
    pub fn verdict(&self) -> RunVerdict {
        let c = &self.counts;
        // A broken `must` rule in a case the profile did not block stands apart from the
        // profile's problem: a breach found is never hidden behind it.
        if c.fail > 0 {
            RunVerdict::Fail
        } else if self.meta.unreachable.is_some() {
            RunVerdict::Unreachable
        } else if !self.meta.profile_problems.is_empty() {
            RunVerdict::ProfileProblem
        } else if self.incomplete().is_some() {
            RunVerdict::Incomplete
        } else if c.error > 0 {
            RunVerdict::Error
        } else if self.meta.baseline.as_ref().is_some_and(|b| b.stale_fails()) {
            RunVerdict::StaleBaseline
        } else if !self.meta.coverage_short.is_empty() {
            RunVerdict::CoverageShort
        } else if c.warn > 0 {
            RunVerdict::PassWithWarnings
        } else {
            RunVerdict::Pass
        }
    }

    /// The known failures of the run, one entry per rule in rule id order.
    pub fn known_by_rule(&self) -> Vec<KnownRule> {
        let mut by_rule: std::collections::BTreeMap<&str, KnownRule> = Default::default();
        for case in &self.cases {
            for finding in &case.findings {
                let Some(reason) = &finding.known else {
                    continue;
                };
                let entry = by_rule.entry(&finding.rule).or_insert_with(|| KnownRule {
                    rule: finding.rule.clone(),
                    reason: reason.clone(),
                    cases: Vec::new(),
                });
                if entry.cases.last() != Some(&case.id) {
                    entry.cases.push(case.id.clone());
                }
            }
        }
        by_rule.into_values().collect()
    }

    /// The client's slips of the run, one entry per rule in the order the run first saw them.
    pub fn client_slips(&self) -> Vec<ClientSlip<'_>> {
        let mut slips: Vec<ClientSlip<'_>> = Vec::new();
        for case in self.cases.iter().filter(|c| c.verdict == Verdict::Client) {
            for finding in &case.findings {
                match slips.iter_mut().find(|s| s.rule == finding.rule) {
                    Some(slip) => {
                        slip.requests += 1;
                        if !slip.cases.contains(&case.id) {
                            slip.cases.push(case.id.clone());
                        }
                    }
                    None => slips.push(ClientSlip {
                        rule: finding.rule.clone(),
                        requests: 1,
                        cases: vec![case.id.clone()],
                        first: (case, finding),
                    }),
                }
            }
        }
        slips
    }
}

/// The variables of clients' credentials that `curls` name (`$COVENANT_CLIENT_TOKEN`,
/// `$COVENANT_CLIENT_TOKEN_2`, ...), each once in the order of their number, with its number.
fn client_vars(curls: &[&str]) -> Vec<(String, usize)> {
    let pattern = format!("${CLIENT_TOKEN_VAR}");
    // `${VAR}` read as `$VAR}`: the brace ends the name as any other character would.
    let curls: Vec<String> = curls.iter().map(|c| c.replace("${", "$")).collect();
    let mut numbers: Vec<usize> = curls
        .iter()
        .flat_map(|curl| {
            curl.match_indices(pattern.as_str())
                .map(|(at, _)| &curl[at + pattern.len()..])
        })
        .filter_map(|rest| {
            let name_goes_on =
                |t: &str| t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            match rest.strip_prefix('_') {
                Some(n) => {
                    let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
                    (!name_goes_on(&n[digits.len()..]))
                        .then(|| digits.parse().ok())
                        .flatten()
                }
                None => (!name_goes_on(rest)).then_some(1),
            }
        })
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
        .into_iter()
        .map(|n| match n {
            1 => (CLIENT_TOKEN_VAR.to_owned(), n),
            n => (format!("{CLIENT_TOKEN_VAR}_{n}"), n),
        })
        .collect()
}

/// Whether `curl` holds `$VAR` as a whole variable name (not the start of a longer one).
fn names_var(curl: &str, plain: &str) -> bool {
    curl.match_indices(plain).any(|(at, _)| {
        !curl[at + plain.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })
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
    use crate::catalogue::Level;
    use crate::verdict::Finding;

    #[test]
    fn client_variables_are_read_from_curls_once_each_in_order_with_their_number() {
        let curls = [
            "curl -H \"authorization: Bearer $COVENANT_CLIENT_TOKEN_2\"",
            "curl -H 'x: a'\"${COVENANT_CLIENT_TOKEN}\"'b' -H \"a: $COVENANT_CLIENT_TOKEN\"",
            "curl -H \"a: $COVENANT_CLIENT_TOKENS\" -H \"b: $COVENANT_CLIENT_TOKEN_2x\"",
        ];
        assert_eq!(
            client_vars(&curls),
            [
                ("COVENANT_CLIENT_TOKEN".to_owned(), 1),
                ("COVENANT_CLIENT_TOKEN_2".to_owned(), 2)
            ]
        );
    }

    #[test]
    fn one_host_on_two_ports_is_one_target_but_for_its_port() {
        let at = |target: &str| without_port(target);
        assert_eq!(at("http://127.0.0.1:8080/"), at("http://127.0.0.1:41234"));
        assert_eq!(
            at("https://api.example/v1"),
            at("https://api.example:8443/v1/")
        );
        assert_ne!(at("http://127.0.0.1:8080"), at("http://localhost:8080"));
        assert_ne!(at("http://api.example/v1"), at("http://api.example/v2"));
        assert_ne!(at("http://api.example"), at("https://api.example"));
        assert_eq!(at("traffic.har"), None);
    }

    fn client_case(id: &str, verdict: Verdict, rules: &[&str]) -> CaseResult {
        let findings: Vec<Finding> = rules
            .iter()
            .map(|r| Finding::new(r, Level::Must, format!("{r} slipped")))
            .collect();
        serde_json::from_value(serde_json::json!({
            "id": id, "suite": "client", "rules": [], "verdict": verdict,
            "findings": findings, "exchanges": [], "duration_ms": 0.0
        }))
        .expect("a case")
    }

    #[test]
    fn the_clients_slips_are_counted_per_rule_and_never_fail_the_run() {
        let run = RunRecord::of_cases(vec![
            client_case("traffic.list-transactions", Verdict::Pass, &[]),
            client_case(
                "client.list-transactions",
                Verdict::Client,
                &["A", "B", "A"],
            ),
            client_case("client.list-events", Verdict::Client, &["A"]),
        ]);
        assert_eq!((run.counts.client, run.counts.fail), (2, 0));
        assert_eq!(run.counts.total(), 3);
        assert_eq!(run.verdict(), RunVerdict::Pass);
        assert_eq!(run.verdict().exit_code(), crate::exit::SUCCESS);
        let slips = run.client_slips();
        let said: Vec<(&str, usize, usize)> = slips
            .iter()
            .map(|s| (s.rule.as_str(), s.requests, s.cases.len()))
            .collect();
        assert_eq!(said, [("A", 3, 2), ("B", 1, 1)]);
        assert_eq!(slips[0].first.1.message, "A slipped");
    }

    #[test]
    fn a_clients_slip_is_serialised_as_client() {
        let case = client_case("client.list-events", Verdict::Client, &["A"]);
        let json = serde_json::to_value(&case).expect("JSON");
        assert_eq!(json["verdict"], "client");
        assert_eq!(Verdict::Client.as_str(), "client");
        let back: CaseResult = serde_json::from_value(json).expect("read back");
        assert_eq!(back.verdict, Verdict::Client);
    }

    #[test]
    fn the_worse_of_two_verdicts_follows_the_precedence_of_every_surface() {
        use RunVerdict::*;
        assert_eq!(Pass.worse(PassWithWarnings), PassWithWarnings);
        assert_eq!(Fail.worse(Incomplete), Fail);
        assert_eq!(Incomplete.worse(Error), Incomplete);
        assert_eq!(CoverageShort.worse(Error), Error);
        assert_eq!(Fail.worse(ProfileProblem), Fail);
        assert_eq!(Incomplete.worse(ProfileProblem), ProfileProblem);
        assert_eq!(Pass.worse(Pass), Pass);
    }

    #[test]
    fn a_failure_beside_a_profile_problem_fails_the_run_and_alone_the_problem_stops_it() {
        let case = |verdict: &str| -> CaseResult {
            serde_json::from_value(serde_json::json!({
                "id": format!("c.{verdict}"), "suite": "c", "rules": [], "verdict": verdict,
                "findings": [], "exchanges": [], "duration_ms": 1.0
            }))
            .expect("a case")
        };
        let mut run = RunRecord::of_cases(vec![case("pass"), case("skip")]);
        run.meta.profile_problems = vec!["finops.comment_ids: 404".into()];
        assert_eq!(run.verdict(), RunVerdict::ProfileProblem);
        let mut failed = RunRecord::of_cases(vec![case("fail"), case("skip")]);
        failed.meta.profile_problems = run.meta.profile_problems.clone();
        assert_eq!(failed.verdict(), RunVerdict::Fail);
        assert_eq!(failed.verdict().exit_code(), crate::exit::FAILURES);
    }
}
