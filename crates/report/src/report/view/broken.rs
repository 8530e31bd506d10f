//! The failures of a run grouped by the rule they break, worked out once for every format (the
//! console summary, `summary.md`, `summary.html`, the JUnit messages). Each broken rule is said
//! once, with its statement, the count of cases and responses and the first example; a rule
//! broken by responses a more specific rule (one with fewer responses) already showed is named
//! under that rule, not shown again. `report.json` keeps every finding: this view renders none.

use crate::catalogue::{Catalogue, Level};
use crate::verdict::{CaseResult, Exchange, Finding, RunRecord, Verdict};
use std::collections::{BTreeMap, BTreeSet};

/// One broken rule, as the reports show it.
#[derive(Debug, Clone)]
pub struct BrokenRule<'a> {
    pub rule: String,
    pub level: Level,
    /// The catalogue's statement of the rule (empty for a rule the catalogue lacks).
    pub statement: String,
    /// Where the spec states it: section, lines, strength and what (see [`spec_citation`]).
    pub spec: String,
    /// Why a known failure is known (`--baseline`); `None` for a failure.
    pub known: Option<String>,
    /// A failure of a run gated on a baseline: `new` (no entry held it) or `expired` (its
    /// entry's `until` has passed); `None` without a baseline and for a known failure.
    pub gate: Option<&'static str>,
    /// The cases whose responses are counted under this rule, first one first.
    pub cases: Vec<String>,
    /// The responses counted under this rule.
    pub responses: usize,
    /// Responses of this rule already shown under a more specific rule.
    pub shown_elsewhere: usize,
    /// Other rules the responses counted here also break (said here, not again).
    pub also: Vec<String>,
    /// The first finding of the rule, its case and the exchange that shows it.
    pub example: (&'a CaseResult, &'a Finding, Option<&'a Exchange>),
}

/// A response a finding is about: its case and exchange (the case alone when none is named).
type ExchangeAt = (usize, Option<usize>);

/// The statement of the spec a finding under `rule` rests on, as the trace cites it
/// (`Resources / Velocity control, line 157 (stated): usageLimit -1 means unlimited`); empty for
/// a rule no entry names.
pub fn spec_citation(rule: &str) -> String {
    crate::trace::Trace::embedded()
        .statement(rule)
        .map(|e| e.citation())
        .unwrap_or_default()
}

/// The broken rules of a run: the findings of failed cases that break their rule
/// ([`RunRecord::breaks`]) and known failures, one entry per
/// rule (per rule and reason for known failures), in the order the run first broke them, a
/// rule partly told under a more specific one after those told whole.
pub fn broken_rules<'a>(record: &'a RunRecord, catalogue: &Catalogue) -> Vec<BrokenRule<'a>> {
    type Key = (String, Option<String>);
    let mut order: Vec<Key> = Vec::new();
    let mut found: BTreeMap<Key, Vec<(ExchangeAt, &'a CaseResult, &'a Finding)>> = BTreeMap::new();
    for (index, case) in record.cases.iter().enumerate() {
        // A case holding a known failure is counted under it whatever else it did, as the
        // baseline's tally counts it (`RunRecord::known_by_rule`).
        let holds_known = case.findings.iter().any(|f| f.known.is_some());
        if !RunRecord::fails(case) && case.verdict != Verdict::Known && !holds_known {
            continue;
        }
        for finding in case.findings.iter().filter(|f| record.breaks(f.level)) {
            let key = (finding.rule.clone(), finding.known.clone());
            let entry = found.entry(key.clone()).or_default();
            if entry.is_empty() {
                order.push(key);
            }
            entry.push(((index, finding.exchange), case, finding));
        }
    }
    let responses =
        |key: &Key| -> BTreeSet<ExchangeAt> { found[key].iter().map(|(r, _, _)| *r).collect() };
    // The more specific rule first: fewer responses, then the order the run broke them.
    let mut specific: Vec<&Key> = order.iter().collect();
    specific.sort_by_key(|key| responses(key).len());
    let mut claimed: BTreeMap<ExchangeAt, String> = BTreeMap::new();
    let mut groups: BTreeMap<&Key, (BTreeSet<ExchangeAt>, usize)> = BTreeMap::new();
    for key in &specific {
        let all = responses(key);
        // A known rule is counted whole, as the baseline holds it (each case holding it once),
        // and claims nothing: the folding tells the cause of new failures first.
        let known = key.1.is_some();
        let own: BTreeSet<ExchangeAt> = all
            .iter()
            .filter(|r| known || !claimed.contains_key(r))
            .copied()
            .collect();
        for r in own.iter().filter(|_| !known) {
            claimed.insert(*r, key.0.clone());
        }
        let elsewhere = all.len() - own.len();
        groups.insert(key, (own, elsewhere));
    }
    let mut broken: Vec<BrokenRule<'a>> = order
        .iter()
        .filter_map(|key| {
            let (own, elsewhere) = &groups[key];
            if own.is_empty() {
                return None;
            }
            let findings: Vec<_> = found[key]
                .iter()
                .filter(|(r, _, _)| own.contains(r))
                .collect();
            let (_, case, finding) = findings[0];
            let mut cases: Vec<String> = Vec::new();
            for (_, c, _) in &findings {
                if !cases.contains(&c.id) {
                    cases.push(c.id.clone());
                }
            }
            let also: BTreeSet<String> = found
                .iter()
                .filter(|(other, _)| other.0 != key.0)
                .filter(|(_, list)| list.iter().any(|(r, _, _)| own.contains(r)))
                .map(|(other, _)| other.0.clone())
                .collect();
            let rule = catalogue.rule(&key.0);
            let gate = record
                .meta
                .baseline
                .as_ref()
                .filter(|_| key.1.is_none())
                .map(|b| {
                    let expired = b
                        .expired
                        .iter()
                        .any(|e| e.split(' ').next() == Some(&key.0));
                    if expired {
                        "expired"
                    } else {
                        "new"
                    }
                });
            Some(BrokenRule {
                gate,
                rule: key.0.clone(),
                level: finding.level,
                statement: rule.map(|r| r.text.clone()).unwrap_or_default(),
                spec: spec_citation(&key.0),
                known: key.1.clone(),
                cases,
                responses: own.len(),
                shown_elsewhere: *elsewhere,
                also: also.into_iter().collect(),
                example: (case, finding, shown_exchange(case, finding)),
            })
        })
        .collect();
    // The cause first: a rule partly told under a more specific one comes after the rules that
    // are told whole (a 200 for a create: RCV-CREATE-201 before RCV-STATUS-SET).
    // New failures before the known ones, which come last under their own heading.
    broken.sort_by_key(|b| (b.known.is_some(), b.shown_elsewhere > 0));
    broken
}

/// The known failures in one count, as every surface heads them: the rules, the cases holding
/// one, and of those the cases the counts call known (they break nothing else) apart from those
/// they call failed (they break a new rule too): `2 rules in 13 cases: 11 known (they break
/// nothing else), 2 failed (a new rule too)`.
pub fn known_tally(record: &RunRecord) -> String {
    let known = record.known_by_rule();
    let cases: BTreeSet<&str> = known
        .iter()
        .flat_map(|k| k.cases.iter().map(String::as_str))
        .collect();
    let holding = record
        .cases
        .iter()
        .filter(|c| cases.contains(c.id.as_str()));
    // What the counts sentence calls each case holding a known failure.
    let mut called = [
        ("known (they break nothing else)", 0),
        ("failed (a new rule too)", 0),
        ("warned (a new should rule too)", 0),
        ("with errors", 0),
    ];
    for case in holding {
        let word = match case.verdict {
            Verdict::Warn => 2,
            Verdict::Error => 3,
            _ if RunRecord::fails(case) => 1,
            _ => 0,
        };
        called[word].1 += 1;
    }
    let parts: Vec<String> = called
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(w, n)| format!("{n} {w}"))
        .collect();
    format!(
        "{} in {}: {}",
        crate::report::plural(known.len(), "rule"),
        crate::report::plural(cases.len(), "case"),
        parts.join(", ")
    )
}

/// One `should` rule the run warned of, as the reports show it.
#[derive(Debug, Clone)]
pub struct WarnedRule<'a> {
    pub rule: &'a str,
    /// The catalogue's statement of the rule (empty for a rule the catalogue lacks).
    pub statement: String,
    /// Where the spec states it (see [`spec_citation`]).
    pub spec: String,
    /// The first case that warned of it, and that finding's message.
    pub first: (&'a str, &'a str),
    /// The request of that finding, and the target's reason for a refusal ([`request_of`]).
    pub request: Option<String>,
    /// Every case that warned of it, first one first.
    pub cases: Vec<String>,
}

/// The warnings of a run by rule, each rule once, in the order first warned of (a settled run
/// under `--strict` has none: its warned cases failed).
pub fn warned_rules<'a>(record: &'a RunRecord, catalogue: &Catalogue) -> Vec<WarnedRule<'a>> {
    let mut rules: Vec<WarnedRule<'a>> = Vec::new();
    for case in record.cases.iter().filter(|c| c.verdict == Verdict::Warn) {
        for f in case.findings.iter().filter(|f| f.level == Level::Should) {
            match rules.iter_mut().find(|r| r.rule == f.rule) {
                Some(r) if !r.cases.contains(&case.id) => r.cases.push(case.id.clone()),
                Some(_) => {}
                None => rules.push(WarnedRule {
                    rule: &f.rule,
                    statement: catalogue
                        .rule(&f.rule)
                        .map(|r| r.text.clone())
                        .unwrap_or_default(),
                    spec: spec_citation(&f.rule),
                    first: (&case.id, &f.message),
                    request: request_of(case, f),
                    cases: vec![case.id.clone()],
                }),
            }
        }
    }
    rules
}

/// One rule a case's findings break: its first finding and the case's other findings of it.
#[derive(Debug, Clone)]
pub struct CaseRule<'a> {
    pub first: &'a Finding,
    pub more: Vec<&'a Finding>,
}

/// A case's findings by rule, each rule once: `must` rules first, then in the order found.
pub fn case_rules(case: &CaseResult) -> Vec<CaseRule<'_>> {
    let mut rules: Vec<CaseRule<'_>> = Vec::new();
    let mut findings: Vec<&Finding> = case.findings.iter().collect();
    findings.sort_by_key(|f| f.level);
    for finding in findings {
        match rules.iter_mut().find(|r| r.first.rule == finding.rule) {
            Some(rule) => rule.more.push(finding),
            None => rules.push(CaseRule {
                first: finding,
                more: Vec::new(),
            }),
        }
    }
    rules
}

/// The rule a failed case is said under: of the broken rules that count its responses, the
/// most specific (fewest responses); `None` when no broken rule counts it.
pub fn lead_rule<'g, 'a>(groups: &'g [BrokenRule<'a>], case: &str) -> Option<&'g BrokenRule<'a>> {
    groups
        .iter()
        .filter(|g| g.cases.iter().any(|c| c == case))
        .min_by_key(|g| g.responses)
}

/// Case findings named one a line before the rest are only counted.
pub const MORE_NAMED: usize = 10;

/// The failed cases whose error no broken rule shows: errors without a failing finding.
pub fn errors_apart(record: &RunRecord) -> Vec<&CaseResult> {
    record
        .cases
        .iter()
        .filter(|c| RunRecord::fails(c))
        .filter(|c| !c.findings.iter().any(|f| record.breaks(f.level)))
        .collect()
}

/// The request a finding is about, for a folded line that shows no exchange: its method and
/// path (`POST /finops/v1/receivables`) and, for a refusal, the target's reason (`refused 422:
/// memo is not supported`, its status and first error message); `None` when the finding names
/// no exchange.
pub fn request_of(case: &CaseResult, finding: &Finding) -> Option<String> {
    let exchange = shown_exchange(case, finding)?;
    let request = &exchange.request;
    let path = match request.url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]),
        None => request.url.as_str(),
    };
    let path: String = path.chars().take(120).collect();
    let mut line = format!("{} {path}", request.method);
    if let Some(response) = exchange.response.as_ref().filter(|r| r.status >= 400) {
        line.push_str(&format!(", refused {}", response.status));
        if let Some(reason) = first_error(&response.body) {
            line.push_str(&format!(": {reason}"));
        }
    }
    Some(line)
}

/// The first error message of an error body: the finance error's `error.message`, the first
/// `detail[].msg` of a validation error, a banking error's `detail`; `None` for another body.
fn first_error(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let message = [
        "/error/message",
        "/detail/0/msg",
        "/detail",
        "/message",
        "/title",
    ]
    .iter()
    .find_map(|pointer| value.pointer(pointer).and_then(|v| v.as_str()))?;
    Some(message.chars().take(160).collect())
}

/// `broken in 3 cases, 4 responses`, the other rules these responses break, and the
/// responses a more specific rule shows.
pub fn count_sentence(broken: &BrokenRule<'_>) -> String {
    let mut text = format!(
        "{} in {}, {}",
        match (&broken.known, broken.gate) {
            (Some(_), _) => "known failure",
            (None, Some("expired")) => "broken, its baseline entry expired,",
            (None, Some(_)) => "new: broken",
            (None, None) => "broken",
        },
        crate::report::plural(broken.cases.len(), "case"),
        crate::report::plural(broken.responses, "response")
    );
    if !broken.also.is_empty() {
        text.push_str(&format!(
            "; the same responses also break {}",
            broken.also.join(", ")
        ));
    }
    if broken.shown_elsewhere > 0 {
        text.push_str(&format!(
            "; {} more under a more specific rule",
            crate::report::plural(broken.shown_elsewhere, "response")
        ));
    }
    text
}

/// The exchange that shows a finding: the one it points at, or the case's only exchange.
pub fn shown_exchange<'a>(
    case: &'a crate::verdict::CaseResult,
    finding: &crate::verdict::Finding,
) -> Option<&'a crate::verdict::Exchange> {
    match finding.exchange {
        Some(index) => case.exchanges.get(index),
        None if case.exchanges.len() == 1 => case.exchanges.first(),
        None => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A failed case with one must finding per rule named (a rule named twice, two findings).
    pub(crate) fn case(id: &str, rules: &[&str]) -> CaseResult {
        let text = format!(
            r#"{{"id":"{id}","suite":"s","rules":[],"verdict":"fail","findings":[],
                "exchanges":[],"requests":1,"duration_ms":1.0}}"#
        );
        let mut case: CaseResult = serde_json::from_str(&text).expect("a case");
        case.findings = rules
            .iter()
            .map(|r| Finding::new(r, Level::Must, format!("{r} broken")))
            .collect();
        case
    }

    #[test]
    fn a_rule_broken_by_the_responses_of_a_more_specific_one_is_named_under_it() {
        let mut cases = vec![case("create", &["WIDE", "NARROW"])];
        cases.extend((0..5).map(|i| case(&format!("drawn-{i}"), &["WIDE"])));
        let record = RunRecord::of_cases(cases);
        let broken = broken_rules(&record, Catalogue::embedded());
        let ids: Vec<&str> = broken.iter().map(|b| b.rule.as_str()).collect();
        assert_eq!(
            ids,
            ["NARROW", "WIDE"],
            "the more specific rule is said first"
        );
        assert_eq!(broken[0].also, ["WIDE"]);
        assert_eq!(broken[0].cases, ["create"]);
        assert_eq!(broken[1].cases.len(), 5);
        assert_eq!(broken[1].shown_elsewhere, 1);
        assert!(count_sentence(&broken[0]).contains("also break WIDE"));
    }

    #[test]
    fn a_case_says_each_rule_it_broke_once() {
        let case = case("c", &["ONE", "TWO", "ONE", "ONE"]);
        let rules = case_rules(&case);
        let said: Vec<(&str, usize)> = rules
            .iter()
            .map(|r| (r.first.rule.as_str(), r.more.len()))
            .collect();
        assert_eq!(said, [("ONE", 2), ("TWO", 0)]);
    }

    #[test]
    fn rules_broken_by_the_same_responses_are_said_once() {
        let cases = vec![case("a", &["ONE", "TWO"]), case("b", &["ONE", "TWO"])];
        let record = RunRecord::of_cases(cases);
        let broken = broken_rules(&record, Catalogue::embedded());
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert_eq!(broken[0].responses, 2);
    }
}
