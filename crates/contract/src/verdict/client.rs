//! A client's slips seen in real traffic (`covenant proxy`, `covenant check`): requests that
//! break what the spec asks of clients, held in cases of their own verdict
//! ([`Verdict::Client`]), never the target's failure. Every surface names them under one
//! heading, per rule, from here.

use super::{CaseResult, Finding, RunRecord, Verdict};

/// The heading every report gives the client's slips; it says what they are and that they
/// never fail the target.
pub const CLIENT_TITLE: &str = "The client's slips: requests that break what the spec asks of \
                                clients (they never fail the target)";

/// The shell variable a traffic report's curl names a client's credential by (the first; the
/// next are `COVENANT_CLIENT_TOKEN_2` and on): covenant never writes the credential, and the
/// user who exports it can run the curl as printed.
pub const CLIENT_TOKEN_VAR: &str = "COVENANT_CLIENT_TOKEN";

/// One rule the client broke, as the reports name it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientSlip<'a> {
    pub rule: String,
    /// How many of the client's requests broke it.
    pub requests: usize,
    /// The cases holding them (`client.<operation>`), first one first.
    pub cases: Vec<String>,
    /// The first of them, and its case.
    pub first: (&'a CaseResult, &'a Finding),
}

impl RunRecord {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Level;

    fn case(id: &str, verdict: Verdict, rules: &[&str]) -> CaseResult {
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
            case("traffic.list-transactions", Verdict::Pass, &[]),
            case(
                "client.list-transactions",
                Verdict::Client,
                &["A", "B", "A"],
            ),
            case("client.list-events", Verdict::Client, &["A"]),
        ]);
        assert_eq!((run.counts.client, run.counts.fail), (2, 0));
        assert_eq!(run.counts.total(), 3);
        assert_eq!(run.verdict(), super::super::RunVerdict::Pass);
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
        let case = case("client.list-events", Verdict::Client, &["A"]);
        let json = serde_json::to_value(&case).expect("JSON");
        assert_eq!(json["verdict"], "client");
        assert_eq!(Verdict::Client.as_str(), "client");
        let back: CaseResult = serde_json::from_value(json).expect("read back");
        assert_eq!(back.verdict, Verdict::Client);
    }
}
