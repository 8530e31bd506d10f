//! What a case judged, beyond what it found: the rules it judged responses against, the
//! statuses it saw, and the statuses it set out to provoke.
//!
//! A finding proves that a rule was judged and broken; a check that held leaves no finding. Rule
//! coverage must tell a rule that held on every response from a rule no response was judged
//! against, so every check records the rule it judged here, whether or not it held, and the
//! coverage matrix counts nothing else.

use crate::schema::OperationId;
use crate::verdict::{Evidence, StatusExpected, StatusSeen};
use std::collections::{BTreeMap, BTreeSet};

/// The tally of one case, kept by its `CaseCx`.
#[derive(Debug, Default)]
pub struct Tally {
    /// Rule id -> (responses judged against it, the last response that counted).
    rules: BTreeMap<String, (u32, u64)>,
    statuses: BTreeMap<(OperationId, u16), u32>,
    expected: BTreeSet<(OperationId, String)>,
    /// Responses recorded so far; the current one is number `seen`.
    seen: u64,
    /// The operation of the response being judged.
    current: Option<OperationId>,
}

impl Tally {
    /// A response of `operation` with `status` arrived: what is judged next is judged on it.
    pub fn response(&mut self, operation: OperationId, status: u16) {
        self.seen += 1;
        self.current = Some(operation);
        *self.statuses.entry((operation, status)).or_insert(0) += 1;
    }

    /// A check judged the current response against `rule`. A rule judged several times on one
    /// response counts once; a check across every response of a case counts on the last.
    pub fn judged(&mut self, rule: &str) {
        let seen = self.seen;
        match self.rules.get_mut(rule) {
            Some((_, last)) if *last == seen && seen > 0 => {}
            Some((count, last)) => {
                *count += 1;
                *last = seen;
            }
            None => {
                self.rules.insert(rule.to_owned(), (1, seen));
            }
        }
    }

    /// The case set out to provoke `status` (`201`, `2xx`, `4xx`) from the current operation.
    pub fn expected(&mut self, status: impl Into<String>) {
        if let Some(operation) = self.current {
            self.expected.insert((operation, status.into()));
        }
    }

    /// Adds what a part of the case tallied (see `CaseCx::fork`): its rules, statuses and
    /// expectations count as this case's.
    pub fn absorb(&mut self, part: Tally) {
        self.seen += part.seen;
        for (rule, (count, _)) in part.rules {
            let entry = self.rules.entry(rule).or_insert((0, 0));
            entry.0 += count;
            entry.1 = self.seen;
        }
        for (key, count) in part.statuses {
            *self.statuses.entry(key).or_insert(0) += count;
        }
        self.expected.extend(part.expected);
    }

    /// The evidence, the statuses seen and those expected, for the case's result.
    pub fn into_parts(self) -> (Vec<Evidence>, Vec<StatusSeen>, Vec<StatusExpected>) {
        let evidence = self
            .rules
            .into_iter()
            .map(|(rule, (responses, _))| Evidence { rule, responses })
            .collect();
        let statuses = self
            .statuses
            .into_iter()
            .map(|((operation, status), count)| StatusSeen {
                operation: operation.as_str().to_owned(),
                status,
                count,
            })
            .collect();
        let expected = self
            .expected
            .into_iter()
            .map(|(operation, status)| StatusExpected {
                operation: operation.as_str().to_owned(),
                status,
            })
            .collect();
        (evidence, statuses, expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_judged_twice_on_one_response_counts_once() {
        let mut tally = Tally::default();
        tally.response(OperationId::GetVatId, 200);
        tally.judged("VAT-RESPONSE");
        tally.judged("VAT-RESPONSE");
        tally.response(OperationId::GetVatId, 404);
        tally.judged("VAT-RESPONSE");
        tally.expected("2xx");
        let (evidence, statuses, expected) = tally.into_parts();
        assert_eq!(
            evidence,
            vec![Evidence {
                rule: "VAT-RESPONSE".into(),
                responses: 2
            }]
        );
        assert_eq!(statuses.len(), 2);
        assert_eq!(statuses[1].status, 404);
        assert_eq!(expected[0].operation, "get-vat-id");
        assert_eq!(expected[0].status, "2xx");
    }

    #[test]
    fn a_check_before_any_response_still_counts() {
        let mut tally = Tally::default();
        tally.judged("GEN-IDS-UUID");
        tally.judged("GEN-IDS-UUID");
        tally.expected("201");
        let (evidence, _, expected) = tally.into_parts();
        assert_eq!(evidence[0].responses, 2);
        assert!(expected.is_empty(), "no operation to expect it from");
    }

    #[test]
    fn a_forked_part_adds_its_evidence_and_statuses() {
        let mut whole = Tally::default();
        whole.response(OperationId::ListEvents, 200);
        whole.judged("EVT-PAGE-SHAPE");
        let mut part = Tally::default();
        part.response(OperationId::ListEvents, 200);
        part.judged("EVT-PAGE-SHAPE");
        part.judged("EVT-LIMIT-MAX");
        part.expected("2xx");
        whole.absorb(part);
        let (evidence, statuses, expected) = whole.into_parts();
        let count = |rule: &str| {
            evidence
                .iter()
                .find(|e| e.rule == rule)
                .map(|e| e.responses)
        };
        assert_eq!(count("EVT-PAGE-SHAPE"), Some(2));
        assert_eq!(count("EVT-LIMIT-MAX"), Some(1));
        assert_eq!(statuses[0].count, 2);
        assert_eq!(expected.len(), 1);
    }
}
