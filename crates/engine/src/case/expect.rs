//! The expectation vocabulary of a case: what an answer must be for a rule (refused, a success,
//! created, exactly this status, of this schema), each judging the rule, recording a breach at
//! the catalogue's level and counting the status the spec expects, in one call.
//!
//! [`CaseCx`] records (exchanges, findings, the rules judged); [`Expect`] is a short-lived view of
//! it that says what the usual checks expect, in terms of that record: `cx.expect().created(..)`.
//! A check the vocabulary has no word for is written with [`CaseCx::ensure`] or
//! [`CaseCx::judged`] and [`CaseCx::finding`].

use super::context::CaseCx;
use crate::check;
use crate::client::Response;

/// What the answer at hand must be: [`CaseCx::expect`].
pub struct Expect<'a> {
    cx: &'a mut CaseCx,
}

impl CaseCx {
    /// The expectation vocabulary, over this record.
    pub fn expect(&mut self) -> Expect<'_> {
        Expect { cx: self }
    }
}

impl Expect<'_> {
    /// The response must be refused (not 2xx) for `rule`; a 5xx is already a finding of its own.
    pub fn refused(&mut self, response: &Response, rule: &str, what: &str) -> bool {
        self.cx.tally.expected("4xx");
        self.cx.refused_under(rule);
        self.cx.ensure(!response.is_success(), rule, || {
            format!(
                "{what} was accepted with {}; the spec requires it be refused",
                response.status
            )
        })
    }

    /// A refused response should carry exactly `status` (a `should` rule usually).
    pub fn refused_with(&mut self, response: &Response, status: u16, rule: &str, what: &str) {
        self.cx.tally.expected(status.to_string());
        self.cx.refused_under(rule);
        if response.is_success() || response.status >= 500 {
            return;
        }
        self.cx.judged(rule);
        if response.status != status {
            self.cx.finding_diff(
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
    pub fn success(&mut self, response: &Response, rule: &str, what: &str) -> bool {
        self.cx.tally.expected("2xx");
        let ok = response.is_success();
        if !ok && self.cx.blame_profile(response) {
            return false;
        }
        if ok || response.status < 500 {
            self.cx.judged(rule);
        }
        if !ok && response.status < 500 {
            self.cx.finding(
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
    pub fn created(
        &mut self,
        response: &Response,
        rule: &str,
        created_rule: &str,
        what: &str,
    ) -> bool {
        if !self.success(response, rule, what) {
            return false;
        }
        self.status(response, 201, created_rule, what);
        true
    }

    /// The response must carry exactly `status` for `rule`.
    pub fn status(&mut self, response: &Response, status: u16, rule: &str, what: &str) -> bool {
        self.cx.tally.expected(status.to_string());
        if status >= 400 {
            self.cx.refused_under(rule);
        }
        let ok = response.status == status;
        if ok || response.status < 500 {
            self.cx.judged(rule);
        }
        if !ok && response.status < 500 {
            let message = format!("{what}: {} where the spec states {status}", response.status);
            self.cx.finding_diff(
                rule,
                message,
                &status.to_string(),
                &response.status.to_string(),
            );
        }
        ok
    }

    /// Validates a JSON body against a schema, recording each issue under its rule (the nearest
    /// `x-rule`, else `fallback_rule`).
    pub fn schema(&mut self, response: &Response, stem: &str, fallback_rule: &str) -> bool {
        for rule in check::schema_rules(self.cx.run.catalogue, stem, fallback_rule) {
            self.cx.tally.judged(rule);
        }
        let findings = check::schema_findings(self.cx.run.catalogue, stem, response, fallback_rule);
        let ok = findings.is_empty();
        for f in findings {
            self.cx.push(f);
        }
        ok
    }
}
