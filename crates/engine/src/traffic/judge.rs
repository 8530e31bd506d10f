//! The judge: each exchange matched to its operation and judged as it comes, the target's answer
//! with the suite's checks and the client's request for its slips, and what the reports need
//! kept.

use super::credential::{credential, is_credential};
use super::{operation, sequence, tally, Observed, Said, Seen};
use crate::catalogue::Catalogue;
use crate::check::{self, AnswerShapes};
use crate::client::ShellVars;
use crate::schema::OperationId;
use crate::verdict::{CaseResult, Counts, Finding, RunMeta, RunRecord, CLIENT_TOKEN_VAR};
use std::collections::BTreeMap;

/// Judges exchanges one after another, as they come, and keeps what the reports need.
pub struct Judge {
    catalogue: &'static Catalogue,
    /// The banking organization header's name, where the profile gives it.
    org_header: Option<String>,
    /// The target's base URL, as the records name it.
    base_url: String,
    cases: BTreeMap<OperationId, tally::OperationTally>,
    /// What the target chose, per operation: the shapes of its answers, as a run's cases keep
    /// them, for the spec owners' section and the behaviour diff.
    shapes: BTreeMap<OperationId, AnswerShapes>,
    slips: BTreeMap<OperationId, tally::OperationTally>,
    pages: sequence::Pages,
    /// Requests to paths the spec does not list, by method and path.
    unlisted: BTreeMap<String, u64>,
    /// Requests to another origin than the target's, by method, origin and path.
    elsewhere: BTreeMap<String, u64>,
    /// Exchanges without an answer, by method, path and what happened; the first of each kept.
    unanswered: tally::NoAnswers,
    /// Answers judged on their status alone because the file holds no body, by method and path.
    bodiless: BTreeMap<String, u64>,
    /// Answers whose body was judged.
    bodies: u64,
    /// Credentials the target accepted (a 2xx) in each area: a refusal of one as invalid is
    /// no answer another cause of the request allows. Indexed by [`area_index`].
    accepted: [std::collections::HashSet<String>; 2],
    /// Exchanges the proxy passed on without judging them (the judge was too far behind).
    unjudged: u64,
    secrets: Vec<String>,
    /// Each credential a curl names, with its shell variable: the profile's, then the
    /// clients' in the order first sent.
    named: Vec<(String, String)>,
    vars: ShellVars,
}

/// Where requests go and how the records name them.
pub struct JudgeConfig {
    pub base_url: String,
    pub org_header: Option<String>,
    /// Secrets known before any traffic (the profile's).
    pub secrets: Vec<String>,
    /// The profile's secrets with the shell variables a curl names them by
    /// (`Profile::secret_vars`): a client sending one is replayed with its variable.
    pub named: Vec<(String, String)>,
}

impl Judge {
    pub fn new(config: JudgeConfig) -> Judge {
        Judge {
            catalogue: Catalogue::embedded(),
            org_header: config.org_header,
            base_url: config.base_url.trim_end_matches('/').to_owned(),
            cases: BTreeMap::new(),
            shapes: BTreeMap::new(),
            slips: BTreeMap::new(),
            pages: sequence::Pages::default(),
            unlisted: BTreeMap::new(),
            elsewhere: BTreeMap::new(),
            unanswered: tally::NoAnswers::default(),
            bodiless: BTreeMap::new(),
            bodies: 0,
            accepted: Default::default(),
            unjudged: 0,
            secrets: config.secrets,
            vars: ShellVars::new(config.named.clone()),
            named: config.named,
        }
    }

    /// Every secret seen so far: the profile's, and each credential a client sent.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// Judges one exchange; returns what it found, for the console.
    pub fn judge(&mut self, seen: &Observed) -> Vec<Said> {
        self.learn_secrets(seen);
        let shape = || operation::shape(seen.path());
        if seen.outside {
            let origin = seen.origin.as_deref().unwrap_or("");
            let key = format!("{} {origin}{}", seen.method, shape());
            *self.elsewhere.entry(key).or_default() += 1;
            return Vec::new();
        }
        if seen.answer.is_none() {
            let what = seen.failure.as_deref().unwrap_or("no answer came");
            let key = format!("{} {}: {what}", seen.method, shape());
            let key = crate::secret::redact(&key, &self.secrets);
            let first = !self.unanswered.has(&key);
            let record =
                first.then(|| tally::exchange(seen, &self.base_url, &self.secrets, &self.vars));
            self.unanswered.add(key, record);
            return Vec::new();
        }
        let Some(operation) = operation::find(&seen.method, seen.path()) else {
            let key = format!("{} {}", seen.method, shape());
            *self.unlisted.entry(key).or_default() += 1;
            return Vec::new();
        };
        let area = area_index(operation);
        let credential = seen
            .request_header("authorization")
            .map(|v| credential("authorization", v).to_owned())
            .filter(|t| !t.is_empty());
        // A refusal as unauthenticated is an answer another cause allows unless the target
        // has accepted this very credential in this area.
        let trusted = credential
            .as_ref()
            .is_some_and(|t| self.accepted[area].contains(t));
        let slips = check::slips(self.catalogue, operation, seen, self.org_header.as_deref());
        let token_slips = self.pages.slips(self.catalogue, operation, seen);
        let mut findings = Vec::new();
        let mut judged = Vec::new();
        let (response, status) = match &seen.answer {
            Some(answer) => (Some(answer.response()), Some(answer.status)),
            None => (None, None),
        };
        let shapes = self.shapes.entry(operation).or_default();
        let mut shaped = false;
        if let (Some(answer), Some(response)) = (&seen.answer, &response) {
            if answer.unrecorded {
                let key = format!("{} {}", seen.method, shape());
                *self.bodiless.entry(key).or_default() += 1;
            } else if !answer.cut {
                self.bodies += 1;
            }
            if let Some(token) = credential.filter(|_| (200..300).contains(&answer.status)) {
                self.accepted[area].insert(token);
            }
            let checked = if answer.status_only() {
                check::status_only(self.catalogue, operation, answer.status)
            } else {
                let request = seen.request();
                shapes.response(operation, &request, response);
                shaped = true;
                crate::check::generic(self.catalogue, operation, &request, response)
            };
            judged.extend(checked.judged);
            findings.extend(checked.findings);
            let stated = check::stated_success(self.catalogue, operation, answer.status);
            judged.extend(stated.judged);
            findings.extend(stated.findings);
            for slip in &slips {
                if shaped {
                    refused_under(shapes, slip, answer.status);
                }
                let others = slips.iter().filter(|s| !std::ptr::eq(*s, slip));
                let allowed = check::also_allowed(others, trusted);
                let answered = check::answer_to(self.catalogue, slip, answer.status, &allowed);
                judged.extend(answered.judged);
                findings.extend(answered.findings);
            }
            if !answer.status_only() {
                let clean = slips.is_empty() && token_slips.is_empty();
                let paged = self
                    .pages
                    .judge(self.catalogue, operation, seen, response, clean);
                judged.extend(paged.judged);
                findings.extend(paged.findings);
            }
        }
        if shaped && answered_refusal(status) {
            for slip in &token_slips {
                shapes.refused_under(&slip.rule);
            }
        }
        let request_line = format!("{} {}", seen.method, seen.path());
        let client_findings: Vec<Finding> = slips
            .into_iter()
            .map(|s| s.finding)
            .chain(token_slips)
            .collect();
        let mut said = Vec::new();
        for (finding, clients) in findings
            .iter()
            .map(|f| (f, false))
            .chain(client_findings.iter().map(|f| (f, true)))
        {
            let kind = if clients { "client" } else { "traffic" };
            let mut finding = finding.clone();
            finding.message = crate::secret::redact(&finding.message, &self.secrets);
            said.push(Said {
                case: format!("{kind}.{}", operation.as_str()),
                request: crate::secret::redact(&request_line, &self.secrets),
                finding,
                clients,
            });
        }
        // A record is built only where a case keeps it: most exchanges of a long session are not.
        let case = self.cases.entry(operation).or_default();
        // The first answer of each status (and kind) is kept too: the example of what the
        // target chose.
        let example = shaped && shapes.wants_example();
        let keep = case.keeps(!findings.is_empty() || example);
        let slipped = !client_findings.is_empty();
        let keep_slip = slipped && self.slips.get(&operation).is_none_or(|t| t.keeps(true));
        let record = (keep || keep_slip)
            .then(|| tally::exchange(seen, &self.base_url, &self.secrets, &self.vars));
        let kept = case.add(
            record.clone().filter(|_| keep),
            status,
            judged,
            findings,
            seen.duration_ms,
        );
        if let (Some(index), true) = (kept, shaped) {
            shapes.kept(index);
        }
        if slipped {
            let slip = self.slips.entry(operation).or_default();
            slip.add(
                record.filter(|_| keep_slip),
                status,
                Vec::new(),
                client_findings,
                0.0,
            );
        }
        said
    }

    /// Counts exchanges passed on without being judged.
    pub fn unjudged(&mut self, exchanges: u64) {
        self.unjudged += exchanges;
    }

    /// Each credential a client sends joins the secrets, before anything of its exchange is kept.
    fn learn_secrets(&mut self, seen: &Observed) {
        for (name, value) in &seen.request_headers {
            if !is_credential(name) || value.trim().is_empty() {
                continue;
            }
            let secret = credential(name, value);
            if secret.len() >= 4 && !self.secrets.iter().any(|s| s == secret) {
                self.secrets.push(secret.to_owned());
            }
            self.name_credential(secret);
        }
    }

    /// A shell variable for a credential no variable names yet. The clients' are
    /// `COVENANT_CLIENT_TOKEN`, then `COVENANT_CLIENT_TOKEN_2` and on, in the order sent.
    fn name_credential(&mut self, token: &str) {
        if token.len() < 4 || self.named.iter().any(|(known, _)| known == token) {
            return;
        }
        let clients = self
            .named
            .iter()
            .filter(|(_, var)| var.starts_with(CLIENT_TOKEN_VAR))
            .count();
        let var = match clients {
            0 => CLIENT_TOKEN_VAR.to_owned(),
            n => format!("{CLIENT_TOKEN_VAR}_{}", n + 1),
        };
        self.named.push((token.to_owned(), var));
        self.vars = ShellVars::new(self.named.clone());
    }

    /// The verdicts so far, as a run record.
    pub fn record(&self, meta: RunMeta) -> RunRecord {
        let cases = self.cases();
        let mut record = RunRecord {
            counts: Counts::of(&cases),
            meta,
            cases,
        };
        record.settle();
        record
    }

    /// A case per operation seen, one per operation the client slipped in, and the exchanges
    /// passed through unjudged.
    fn cases(&self) -> Vec<CaseResult> {
        let mut cases: Vec<_> = self
            .cases
            .iter()
            .map(|(op, t)| {
                let mut case = t.case(*op, false);
                if let Some(shapes) = self.shapes.get(op) {
                    case.shapes = shapes.clone().into_shapes();
                }
                case
            })
            .collect();
        cases.extend(self.slips.iter().map(|(op, t)| t.case(*op, true)));
        if let Some(case) = self.unanswered.case() {
            cases.push(case);
        }
        if !self.unlisted.is_empty() {
            cases.push(tally::unlisted(&self.unlisted));
        }
        if !self.elsewhere.is_empty() {
            cases.push(tally::elsewhere(&self.elsewhere, &self.base_url));
        }
        if !self.bodiless.is_empty() {
            cases.push(tally::bodiless(&self.bodiless));
        }
        if self.unjudged > 0 {
            cases.push(tally::unjudged(self.unjudged));
        }
        cases
    }

    /// How many exchanges were judged, and how many were not, each counted once.
    pub fn seen(&self) -> Seen {
        Seen {
            judged: self.cases.values().map(|t| t.requests as u64).sum(),
            unanswered: self.unanswered.total(),
            unlisted: self.unlisted.values().sum(),
            elsewhere: self.elsewhere.values().sum(),
            unjudged: self.unjudged,
            bodiless: self.bodiless.values().sum(),
        }
    }

    /// Why nothing of the traffic could be judged, where nothing could: the record is then
    /// INCOMPLETE. `source` names where the traffic was seen (`the file`, `the proxy`).
    pub fn nothing_judged(&self, source: &str) -> Option<String> {
        let seen = self.seen();
        if seen.judged == 0 {
            let total = seen.total();
            if total == 0 {
                return Some(format!("{source} saw no exchange, so nothing was judged"));
            }
            return Some(format!(
                "none of the {total} exchange(s) {source} saw could be judged: {}",
                seen.not_judged().join(", ")
            ));
        }
        (self.bodies == 0 && seen.bodiless > 0).then(|| {
            format!(
                "the file holds no body of the {} answer(s) judged: their body checks were not \
                 judged, only their statuses",
                seen.bodiless
            )
        })
    }
}

/// The index of an operation's area among [`Judge`]'s accepted credentials.
fn area_index(operation: OperationId) -> usize {
    usize::from(operation.area() == crate::schema::Area::Banking)
}

/// Whether an answer is a refusal (4xx): the target's answer to a client's slip, whose status
/// the spec may leave open.
fn answered_refusal(status: Option<u16>) -> bool {
    status.is_some_and(|s| (400..500).contains(&s))
}

/// Marks the answer to a slip as a refusal under the rule the spec states it by (or, where it
/// states none, the slip's own rule), as a run's case marks the refusals it provokes: where the
/// spec names no status, which one the target chose is shown where the spec is silent.
fn refused_under(shapes: &mut AnswerShapes, slip: &check::Slip, status: u16) {
    match slip.answer {
        check::Expected::Refused(rule) => shapes.refused_under(rule),
        check::Expected::Status(want, rule) if want >= 400 => shapes.refused_under(rule),
        _ if answered_refusal(Some(status)) => shapes.refused_under(&slip.finding.rule),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::har;
    use serde_json::{json, Value};

    const FINANCE: [(&str, &str); 3] = [
        ("authorization", "Bearer t0ken-of-the-client"),
        ("x-finops-version", "2026-09-24"),
        ("x-organization-id", "3fa85f64-5717-4562-b3fc-2c963f66afa6"),
    ];

    /// An exchange as a HAR file records it.
    fn seen(method: &str, target: &str, headers: &[(&str, &str)], status: u16) -> Observed {
        let body = json!({"id": "3fa85f64-5717-4562-b3fc-2c963f66afa7", "value": "DE123456789",
            "country": "DE", "type": "eu_vat", "vendor_note": "kept"});
        let named = |list: &[(&str, &str)]| -> Vec<Value> {
            list.iter()
                .map(|(n, v)| json!({"name": n, "value": v}))
                .collect()
        };
        let entry = json!({"request": {"method": method, "url": format!("http://target{target}"),
                "headers": named(headers)},
            "response": {"status": status, "headers": named(&[("content-type", "application/json")]),
                "content": {"mimeType": "application/json", "text": body.to_string()}},
            "time": 1.0});
        let har = json!({"log": {"version": "1.2", "entries": [entry]}});
        let mut recorded = har::parse(&har.to_string(), None).expect("a HAR");
        recorded.exchanges.remove(0)
    }

    fn judge() -> Judge {
        Judge::new(JudgeConfig {
            base_url: "http://target".into(),
            org_header: None,
            secrets: Vec::new(),
            named: Vec::new(),
        })
    }

    #[test]
    fn a_kept_curl_names_each_credential_by_its_variable_the_profiles_or_the_clients() {
        let mut j = Judge::new(JudgeConfig {
            base_url: "http://target".into(),
            org_header: None,
            secrets: vec!["profile-token".into()],
            named: vec![("profile-token".into(), "MY_FIN_TOKEN".into())],
        });
        let get = "/finops/v1/counterparts/c/vat-ids/v";
        let with = |token: &str| {
            let mut headers = FINANCE.to_vec();
            headers[0].1 = token;
            seen("GET", get, &headers, 500)
        };
        for token in [
            "Bearer profile-token",
            "Bearer t0ken-of-the-client",
            "Bearer another-client",
            "Bearer t0ken-of-the-client",
        ] {
            j.judge(&with(token));
        }
        let cases = j.cases();
        let curls: Vec<&str> = cases
            .iter()
            .flat_map(|c| &c.exchanges)
            .map(|e| e.request.curl.as_str())
            .collect();
        let bearer = |var: &str| format!("\"authorization: Bearer ${var}\"");
        assert_eq!(curls.len(), 4, "{curls:?}");
        assert!(curls[0].contains(&bearer("MY_FIN_TOKEN")), "{curls:?}");
        assert!(
            curls[1].contains(&bearer("COVENANT_CLIENT_TOKEN")),
            "{curls:?}"
        );
        assert!(
            curls[2].contains(&bearer("COVENANT_CLIENT_TOKEN_2")),
            "{curls:?}"
        );
        assert!(
            curls[3].contains(&bearer("COVENANT_CLIENT_TOKEN")),
            "{curls:?}"
        );
        for curl in &curls {
            assert!(
                !curl.contains("t0ken") && !curl.contains("another-client"),
                "{curl}"
            );
        }
    }

    #[test]
    fn each_operations_answers_are_recorded_as_shapes_with_the_first_of_each_status_kept() {
        let mut j = judge();
        let get = "/finops/v1/counterparts/c/vat-ids/v";
        j.judge(&seen("GET", get, &FINANCE, 200));
        j.judge(&seen("GET", get, &FINANCE, 200));
        // A client without credentials: the target's refusal is shaped under the rule that
        // states it, and kept as the example of that status.
        j.judge(&seen("GET", get, &FINANCE[1..], 401));
        // Answers too long to keep are judged on their status alone, and shape nothing.
        let mut cut = seen("GET", get, &FINANCE, 202);
        cut.answer.as_mut().expect("an answer").cut = true;
        j.judge(&cut);
        let cases = j.cases();
        let case = cases
            .iter()
            .find(|c| c.id == "traffic.get-vat-id")
            .expect("the operation's case");
        let shapes: Vec<(u16, Option<&str>, u32)> = case
            .shapes
            .iter()
            .map(|s| (s.status, s.condition.as_deref(), s.count))
            .collect();
        assert_eq!(
            shapes,
            [(200, None, 2), (401, Some("AUTH-FIN-MISSING-401"), 1)]
        );
        assert_eq!(case.shapes[0].fields["vendor_note"], "string");
        // Each shape's example is an exchange the case kept, of its status.
        for shape in &case.shapes {
            let example = &case.exchanges[shape.exchange.expect("an example")];
            assert_eq!(
                example.response.as_ref().map(|r| r.status),
                Some(shape.status)
            );
        }
        let slips = cases
            .iter()
            .find(|c| c.id == "client.get-vat-id")
            .expect("the client's slip");
        assert!(slips.shapes.is_empty(), "the answers are the target's");
    }
}
