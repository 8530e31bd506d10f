//! What the traffic of one operation adds up to: a case result, as the reports read a run's.

use super::credential::is_credential;
use super::Observed;
use crate::client::ShellVars;
use crate::schema::OperationId;
use crate::secret::{redact, Redactor};
use crate::verdict::{
    CaseResult, Evidence, Exchange, Finding, RequestRecord, ResponseRecord, StatusSeen, Verdict,
    CLIENT_SUITE, TRAFFIC_SUITE,
};
use std::collections::BTreeMap;

/// Exchanges a case keeps at most: its first, then those with findings.
const KEPT_EXCHANGES: usize = 100;
/// Findings a case keeps at most (the console has named every one as it came).
const KEPT_FINDINGS: usize = 1000;
/// Bytes of a body an exchange's record keeps.
const RECORDED_BODY: usize = 4096;

/// The traffic of one operation so far.
#[derive(Debug, Default)]
pub struct OperationTally {
    pub requests: usize,
    exchanges: Vec<Exchange>,
    findings: Vec<Finding>,
    evidence: BTreeMap<&'static str, u32>,
    statuses: BTreeMap<u16, u32>,
    duration_ms: f64,
}

impl OperationTally {
    /// Whether an exchange with `findings` would be kept: the first, and those with findings.
    pub fn keeps(&self, findings: bool) -> bool {
        (self.exchanges.is_empty() || findings) && self.exchanges.len() < KEPT_EXCHANGES
    }

    /// Adds one exchange (its record where [`OperationTally::keeps`] it); returns the record's
    /// index among the case's exchanges.
    pub fn add(
        &mut self,
        record: Option<Exchange>,
        status: Option<u16>,
        mut judged: Vec<&'static str>,
        findings: Vec<Finding>,
        duration_ms: f64,
    ) -> Option<usize> {
        self.requests += 1;
        self.duration_ms += duration_ms;
        if let Some(status) = status {
            *self.statuses.entry(status).or_default() += 1;
        }
        judged.sort_unstable();
        judged.dedup();
        for rule in judged {
            *self.evidence.entry(rule).or_default() += 1;
        }
        let index = record.map(|record| {
            self.exchanges.push(record);
            self.exchanges.len() - 1
        });
        let room = KEPT_FINDINGS.saturating_sub(self.findings.len());
        self.findings
            .extend(findings.into_iter().take(room).map(|f| match index {
                Some(i) => f.at_exchange(i),
                None => f,
            }));
        index
    }

    /// The case: `traffic.<operation>`, or for the client's slips `client.<operation>`,
    /// verdict `client` whatever they are (the reports name them under
    /// [`crate::verdict::CLIENT_TITLE`]).
    pub fn case(&self, operation: OperationId, clients: bool) -> CaseResult {
        let (id, suite) = if clients {
            (format!("client.{}", operation.as_str()), CLIENT_SUITE)
        } else {
            (format!("traffic.{}", operation.as_str()), TRAFFIC_SUITE)
        };
        let findings = self.findings.clone();
        let verdict = if clients {
            Verdict::Client
        } else {
            CaseResult::judge(&findings, None, false)
        };
        let mut rules: Vec<String> = self.evidence.keys().map(|r| (*r).to_owned()).collect();
        for finding in &findings {
            if !rules.contains(&finding.rule) {
                rules.push(finding.rule.clone());
            }
        }
        rules.sort();
        CaseResult {
            id,
            suite: suite.to_owned(),
            operation: Some(operation.as_str().to_owned()),
            rules,
            verdict,
            findings,
            exchanges: self.exchanges.clone(),
            skip_reason: None,
            error: None,
            payload: None,
            inconclusive: Vec::new(),
            requests: self.requests,
            evidence: self
                .evidence
                .iter()
                .map(|(rule, n)| Evidence {
                    rule: (*rule).to_owned(),
                    responses: *n,
                })
                .collect(),
            statuses: if clients {
                Vec::new()
            } else {
                self.statuses
                    .iter()
                    .map(|(status, n)| StatusSeen {
                        operation: operation.as_str().to_owned(),
                        status: *status,
                        count: *n,
                    })
                    .collect()
            },
            expected_statuses: Vec::new(),
            shapes: Vec::new(),
            duration_ms: self.duration_ms,
        }
    }
}

/// Requests to paths the spec does not list (another API): counted, not judged.
pub fn unlisted(counts: &BTreeMap<String, u64>) -> CaseResult {
    let total: u64 = counts.values().sum();
    let reason = format!(
        "{total} request(s) to paths the spec does not list (another API), not judged: {}",
        named(counts)
    );
    passed("traffic.unlisted", reason, total)
}

/// Requests to another origin than the target's: counted, not judged.
pub fn elsewhere(counts: &BTreeMap<String, u64>, base_url: &str) -> CaseResult {
    let total: u64 = counts.values().sum();
    let reason = format!(
        "{total} request(s) to another origin than {base_url}, not judged: {}",
        named(counts)
    );
    passed("traffic.elsewhere", reason, total)
}

/// Answers judged on their status alone because the file holds no body of them: their body
/// checks are not judged. Each exchange is counted by its operation's case already.
pub fn bodiless(counts: &BTreeMap<String, u64>) -> CaseResult {
    let total: u64 = counts.values().sum();
    let reason = format!(
        "{total} answer(s) judged on their status alone, their body checks not judged: the \
         file holds no body (left out when it was exported, or in an encoding covenant cannot \
         read): {}",
        named(counts)
    );
    passed("traffic.bodiless", reason, 0)
}

/// `what (n), ...` of the first twenty, and how many more.
fn named(counts: &BTreeMap<String, u64>) -> String {
    let named: Vec<String> = counts
        .iter()
        .take(20)
        .map(|(request, n)| format!("{request} ({n})"))
        .collect();
    let more = counts.len().saturating_sub(named.len());
    let mut text = named.join(", ");
    if more > 0 {
        text.push_str(&format!(", and {more} more"));
    }
    text
}

/// Exchanges that got no answer (the target refused or never answered, or the client's file
/// recorded none): an error of the run, each named by method, path and what happened.
#[derive(Debug, Default)]
pub struct NoAnswers {
    counts: BTreeMap<String, u64>,
    exchanges: Vec<Exchange>,
}

impl NoAnswers {
    pub fn has(&self, key: &str) -> bool {
        self.counts.contains_key(key)
    }

    /// Counts one, keeping its record where given (the first of its kind, at most
    /// [`KEPT_EXCHANGES`]).
    pub fn add(&mut self, key: String, record: Option<Exchange>) {
        *self.counts.entry(key).or_default() += 1;
        if let Some(record) = record.filter(|_| self.exchanges.len() < KEPT_EXCHANGES) {
            self.exchanges.push(record);
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The case `traffic.unanswered`, an error, where any exchange got no answer.
    pub fn case(&self) -> Option<CaseResult> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let error = format!(
            "{total} exchange(s) got no answer, not judged: {}",
            named(&self.counts)
        );
        let mut case = passed("traffic.unanswered", String::new(), total);
        case.verdict = Verdict::Error;
        case.skip_reason = None;
        case.error = Some(error);
        case.exchanges = self.exchanges.clone();
        Some(case)
    }
}

/// Exchanges the proxy passed on while its judge was too far behind.
pub fn unjudged(total: u64) -> CaseResult {
    let reason = format!(
        "{total} exchange(s) passed through while the judge was too far behind the traffic, \
         not judged"
    );
    passed("traffic.unjudged", reason, total)
}

/// Exchanges passed through and not judged, as a skipped case saying why.
fn passed(id: &str, reason: String, total: u64) -> CaseResult {
    CaseResult {
        id: id.to_owned(),
        suite: TRAFFIC_SUITE.to_owned(),
        operation: None,
        rules: Vec::new(),
        verdict: Verdict::Skip,
        findings: Vec::new(),
        exchanges: Vec::new(),
        skip_reason: Some(reason),
        error: None,
        payload: None,
        inconclusive: Vec::new(),
        requests: usize::try_from(total).unwrap_or(usize::MAX),
        evidence: Vec::new(),
        statuses: Vec::new(),
        expected_statuses: Vec::new(),
        shapes: Vec::new(),
        duration_ms: 0.0,
    }
}

/// The record of one exchange, every secret masked and bodies cut short; its curl names each
/// credential by the shell variable `vars` gives it, so that it runs as printed.
pub fn exchange(seen: &Observed, base_url: &str, secrets: &[String], vars: &ShellVars) -> Exchange {
    let headers = |headers: &[(String, String)]| -> Vec<(String, String)> {
        headers
            .iter()
            .map(|(name, value)| {
                let value = if is_credential(name) {
                    match value.split_once(' ') {
                        Some((scheme, _)) => format!("{scheme} {}", crate::profile::REDACTED),
                        None => crate::profile::REDACTED.to_owned(),
                    }
                } else {
                    redact(value, secrets)
                };
                (name.clone(), value)
            })
            .collect()
    };
    let origin = seen.origin.as_deref().unwrap_or(base_url);
    let sent_url = format!("{origin}{}", seen.target);
    let url = redact(&sent_url, secrets);
    let request_headers = headers(&seen.request_headers);
    // Redacted whole, then cut: a secret across the cut is masked, not left half.
    let body = (!seen.request_body.is_empty()).then(|| {
        cut(&redact(
            &String::from_utf8_lossy(&seen.request_body),
            secrets,
        ))
        .0
    });
    // curl sets these from its URL and body: the client's `host` named the proxy, not the
    // target, and a replay carrying it would ask the target for another host.
    let replayed: Vec<(String, String)> = seen
        .request_headers
        .iter()
        .filter(|(name, _)| {
            !name.eq_ignore_ascii_case("host") && !name.eq_ignore_ascii_case("content-length")
        })
        .cloned()
        .collect();
    // What the client went without, curl must not send of its own.
    let without: Vec<&str> = ["Accept", "User-Agent"]
        .into_iter()
        .filter(|own| !replayed.iter().any(|(n, _)| n.eq_ignore_ascii_case(own)))
        .collect();
    let curl = vars.curl(
        &seen.method,
        &sent_url,
        &replayed,
        &without,
        body.as_deref(),
        &Redactor::new(secrets),
    );
    let response = seen.answer.as_ref().map(|answer| {
        let (body, truncated) = cut(&redact(&String::from_utf8_lossy(&answer.body), secrets));
        ResponseRecord {
            status: answer.status,
            headers: headers(&answer.headers),
            body,
            truncated: truncated || answer.cut,
        }
    });
    Exchange {
        request: RequestRecord {
            method: seen.method.clone(),
            url,
            headers: request_headers,
            body,
            curl,
        },
        error: response.is_none().then(|| {
            seen.failure
                .clone()
                .unwrap_or_else(|| "no answer came from the target".to_owned())
        }),
        response,
        duration_ms: seen.duration_ms,
        retries: 0,
    }
}

/// `text` cut to [`RECORDED_BODY`] bytes at a character boundary, and whether it was cut.
fn cut(text: &str) -> (String, bool) {
    if text.len() <= RECORDED_BODY {
        return (text.to_owned(), false);
    }
    let mut end = RECORDED_BODY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_owned(), true)
}
