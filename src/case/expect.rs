//! What a case records of its answers: findings (their level from the catalogue), the rules
//! it judged, variants left unjudged, and the `expect_*` helpers that do all three for the
//! usual checks.

use super::CaseCx;
use crate::check;
use crate::client::Response;
use crate::verdict::{Finding, Inconclusive};

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
    /// says otherwise): the evidence the rule coverage counts. The `expect_*` helpers and
    /// [`CaseCx::ensure`] record it themselves; a check written as `if broken { finding }` calls
    /// this before its test.
    pub fn judged(&mut self, rule: &str) {
        self.tally.judged(rule);
    }

    /// Records that the current response was judged a refusal under `rule` (the condition its
    /// request was made to break): the spec owners' section shows which status and error code
    /// the target gives for each condition. The `expect_refused*` helpers record it themselves.
    pub fn refused_under(&mut self, rule: &str) {
        self.behaviour.refused_under(rule);
    }

    fn push(&mut self, mut f: Finding) {
        if self.blocked.is_some() {
            return;
        }
        self.tally.judged(&f.rule);
        if f.exchange.is_none() {
            f.exchange = self.last_exchange();
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

    /// The response must be refused (not 2xx) for `rule`; a 5xx is already a finding of its own.
    pub fn expect_refused(&mut self, response: &Response, rule: &str, what: &str) -> bool {
        self.tally.expected("4xx");
        self.refused_under(rule);
        self.ensure(!response.is_success(), rule, || {
            format!(
                "{what} was accepted with {}; the spec requires it be refused",
                response.status
            )
        })
    }

    /// A refused response should carry exactly `status` (a `should` rule usually).
    pub fn expect_refused_with(
        &mut self,
        response: &Response,
        status: u16,
        rule: &str,
        what: &str,
    ) {
        self.tally.expected(status.to_string());
        self.refused_under(rule);
        if response.is_success() || response.status >= 500 {
            return;
        }
        self.judged(rule);
        if response.status != status {
            self.finding_diff(
                rule,
                format!(
                    "{what} was refused with {} rather than {status}",
                    response.status
                ),
                &status.to_string(),
                &response.status.to_string(),
            );
        }
    }

    /// The response must be a 2xx for `rule`; returns whether it was. A 404 that a fixture of
    /// the profile explains blocks the case instead (see [`CaseCx::blame_profile`]).
    pub fn expect_success(&mut self, response: &Response, rule: &str, what: &str) -> bool {
        self.tally.expected("2xx");
        let ok = response.is_success();
        if !ok && self.blame_profile(response) {
            return false;
        }
        if ok || response.status < 500 {
            self.judged(rule);
        }
        if !ok && response.status < 500 {
            self.finding(
                rule,
                format!(
                    "{what} was refused with {}: {}",
                    response.status,
                    crate::client::snippet(response)
                ),
            );
        }
        ok
    }

    /// A creation must succeed (`rule`) and answer 201 Created (`created_rule`); returns whether
    /// it succeeded at all.
    pub fn expect_created(
        &mut self,
        response: &Response,
        rule: &str,
        created_rule: &str,
        what: &str,
    ) -> bool {
        if !self.expect_success(response, rule, what) {
            return false;
        }
        self.expect_status(response, 201, created_rule, what);
        true
    }

    /// The response must carry exactly `status` for `rule`.
    pub fn expect_status(
        &mut self,
        response: &Response,
        status: u16,
        rule: &str,
        what: &str,
    ) -> bool {
        self.tally.expected(status.to_string());
        if status >= 400 {
            self.refused_under(rule);
        }
        let ok = response.status == status;
        if ok || response.status < 500 {
            self.judged(rule);
        }
        if !ok && response.status < 500 {
            let mut message = format!("{what}: {} where the spec states {status}", response.status);
            if let Some(cause) = self.profile_cause(rule) {
                message.push_str("; ");
                message.push_str(&cause);
            }
            self.finding_diff(
                rule,
                message,
                &status.to_string(),
                &response.status.to_string(),
            );
        }
        ok
    }

    /// Where a rule's failure can come from a profile mistake rather than the target, the
    /// profile key that may be the cause, in a clause for the finding's message.
    fn profile_cause(&self, rule: &str) -> Option<String> {
        match rule {
            // The spec does not name the header: a target may read it under another name, and
            // then ignores the malformed value the profile's name carries.
            "BANK-ORG-HEADER-MALFORMED-400" => self.run.org_header().map(|name| {
                format!(
                    "or the profile's banking.org_header ({name:?}) is not the name this target \
                     reads the organization from"
                )
            }),
            _ => None,
        }
    }

    /// Validates a JSON body against a schema, recording each issue under its rule (the nearest
    /// `x-rule`, else `fallback_rule`).
    pub fn expect_schema(&mut self, response: &Response, stem: &str, fallback_rule: &str) -> bool {
        for rule in check::schema_rules(self.run.catalogue, stem, fallback_rule) {
            self.tally.judged(rule);
        }
        let findings = check::schema_findings(self.run.catalogue, stem, response, fallback_rule);
        let ok = findings.is_empty();
        for f in findings {
            self.push(f);
        }
        ok
    }
}
