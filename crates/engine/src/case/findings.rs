//! What a case records of its answers: findings (their level from the catalogue), the rules it
//! judged, the refusals it saw under a rule, and variants it could not judge. The usual checks
//! that do all of these in one call are the expectation vocabulary ([`super::Expect`]).
//!
//! A finding recorded after a fixture of the profile proved wrong is dropped: the case is
//! blocked by the profile, not judged.

use super::context::CaseCx;
use crate::check;
use crate::verdict::{Finding, Inconclusive};

/// The rules a failure of which a banking organization header the target does not read can
/// cause, when the request carried the header: the other organization's value ignored (its
/// resources read, a control scoped to the first), a malformed value or another notation
/// ignored.
const ORG_HEADER_RULES: [&str; 4] = [
    "BANK-ORG-HEADER-MALFORMED-400",
    "BANK-ORG-HEADER-UUID-FORM",
    "BANK-TENANT",
    "VC-ORG-SCOPE",
];

impl CaseCx {
    /// The index the next finding refers to: the last exchange kept.
    fn last_exchange(&self) -> Option<usize> {
        self.exchanges.len().checked_sub(1)
    }

    /// Records a breach of `rule`; its level comes from the catalogue.
    pub fn finding(&mut self, rule: &str, message: impl Into<String>) {
        let f = check::finding(self.run.catalogue, rule, message);
        self.push(f);
    }

    /// Records a breach of `rule` with a diff of expected against actual.
    pub fn finding_diff(
        &mut self,
        rule: &str,
        message: impl Into<String>,
        expected: &str,
        actual: &str,
    ) {
        let f = check::finding(self.run.catalogue, rule, message).with_diff(expected, actual);
        self.push(f);
    }

    /// [`CaseCx::finding`] about the exchange recorded at `exchange` (the page of a read that
    /// broke the rule), not the last one; the last one where it was not kept.
    pub fn finding_at(&mut self, exchange: Option<usize>, rule: &str, message: impl Into<String>) {
        let f = check::finding(self.run.catalogue, rule, message);
        self.push(Finding { exchange, ..f });
    }

    /// [`CaseCx::finding_diff`] about the exchange recorded at `exchange`.
    pub fn finding_diff_at(
        &mut self,
        exchange: Option<usize>,
        rule: &str,
        message: impl Into<String>,
        expected: &str,
        actual: &str,
    ) {
        let f = check::finding(self.run.catalogue, rule, message).with_diff(expected, actual);
        self.push(Finding { exchange, ..f });
    }

    /// Records that the current response was judged against `rule` (and held, unless a finding
    /// says otherwise): the evidence the rule coverage counts. The expectation vocabulary and
    /// [`CaseCx::ensure`] record it themselves; a check written as `if broken { finding }` calls
    /// this before its test.
    pub fn judged(&mut self, rule: &str) {
        self.tally.judged(rule);
    }

    /// Records that the current response was judged a refusal under `rule` (the condition its
    /// request was made to break): the spec owners' section shows which status and error code
    /// the target gives for each condition. [`super::Expect`]'s refusals record it themselves.
    pub fn refused_under(&mut self, rule: &str) {
        self.shapes.refused_under(rule);
    }

    pub(super) fn push(&mut self, mut f: Finding) {
        if self.blocked.is_some() {
            return;
        }
        self.tally.judged(&f.rule);
        if f.exchange.is_none() {
            f.exchange = self.last_exchange();
        }
        if let Some(cause) = self.profile_cause(&f.rule, f.exchange) {
            if !f.message.contains("banking.org_header") {
                f.message = format!("{}; {cause}", f.message);
            }
        }
        self.findings.push(f);
    }

    /// Records that `variant`, judged under `rule`, could not be judged: its baseline (`what`)
    /// was refused with `answer`. Variants of one rule and baseline are gathered in one entry
    /// that names the first few; `exchange` is the baseline's.
    pub fn inconclusive(
        &mut self,
        rule: &str,
        baseline: &str,
        answer: &str,
        variant: String,
        exchange: Option<usize>,
    ) {
        if self.blocked.is_some() {
            return;
        }
        const NAMED: usize = 5;
        let same = |i: &&mut Inconclusive| i.rule == rule && i.baseline == baseline;
        match self.inconclusive.iter_mut().find(same) {
            Some(entry) => {
                entry.count += 1;
                if entry.variants.len() < NAMED {
                    entry.variants.push(variant);
                }
            }
            None => self.inconclusive.push(Inconclusive {
                rule: rule.to_owned(),
                baseline: baseline.to_owned(),
                answer: answer.to_owned(),
                count: 1,
                variants: vec![variant],
                exchange,
            }),
        }
    }

    /// Records a breach of `rule` unless `ok`; returns `ok`.
    pub fn ensure(&mut self, ok: bool, rule: &str, message: impl FnOnce() -> String) -> bool {
        self.judged(rule);
        if !ok {
            self.finding(rule, message());
        }
        ok
    }

    /// Where a failure of `rule` about `exchange` can come from a profile mistake rather than
    /// the target, the profile key that may be the cause, in a clause for the finding's message.
    /// The spec does not name the banking organization header: a target that reads it under
    /// another name ignores the value the profile's name carries (the other organization, a
    /// malformed value), and answers as it would without it. Not where the preflight showed
    /// that the target reads it under this name.
    fn profile_cause(&self, rule: &str, exchange: Option<usize>) -> Option<String> {
        if !ORG_HEADER_RULES.contains(&rule) || self.run.org_header_read.get().is_some() {
            return None;
        }
        let name = self.run.org_header()?;
        let sent = &self.exchanges.get(exchange?)?.request.headers;
        sent.iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
            .then(|| {
                format!(
                    "or the profile's banking.org_header ({name:?}) is not the name this target \
                     reads the organization from"
                )
            })
    }
}
