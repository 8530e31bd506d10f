//! A fixed run and a small fixed catalogue, shared by the report tests.
//!
//! The run holds one case of each verdict: a pass, a failure with a diff and a curl, a warning,
//! a skip with its reason, an error, and an inconclusive case whose baseline was refused, over
//! four operations with latencies.

use covenant::catalogue::{Catalogue, Level};
use covenant::verdict::{
    CaseResult, Counts, Evidence, Exchange, Finding, Inconclusive, RequestRecord, ResponseRecord,
    RunMeta, RunRecord, Shape, StatusSeen, Verdict,
};
use std::path::PathBuf;

pub const FAILING_CASE: &str = "receivable.unknown-property";

/// A catalogue that does not move when `cases/rules.toml` does, so golden files stay put.
pub fn catalogue() -> Catalogue {
    Catalogue::parse(CATALOGUE).expect("the test catalogue parses")
}

const CATALOGUE: &str = r#"
[[rule]]
id = "RCV-UNKNOWN-PROPS"
section = "Receivable (create request bodies)"
text = "Unknown properties are rejected in every receivable body shape."
level = "must"
observable = true
checks = ["case:receivable.unknown-property"]

[[rule]]
id = "GEN-JSON-CONTENT-TYPE"
section = "Introduction"
text = "A JSON body declares a JSON media type in Content-Type."
level = "should"
observable = true
checks = ["generic:content-type"]

[[rule]]
id = "RCV-CREATE-201"
section = "Create receivable"
text = "A valid receivable body is answered with 201 and a receivable."
level = "must"
observable = true
checks = ["case:receivable.quote-minimal"]

[[rule]]
id = "VEL-CARD-SCOPE"
section = "Create velocity control"
text = "With cardId the control is scoped to that card."
level = "must"
observable = true
checks = ["case:velocity.card-scoped"]

[[rule]]
id = "EVT-LIMIT-RANGE"
section = "List events"
text = "limit is 1 to 100 <inclusive> & checked."
level = "must"
observable = true
checks = ["case:events.list-limit"]

[[rule]]
id = "PAG-TOKEN-OPAQUE"
section = "Cursor pagination rules"
text = "A pagination token is passed back exactly as returned."
level = "must"
observable = true
checks = ["pagination:opaque"]

[[rule]]
id = "EVT-HISTORY-3M"
section = "Events"
text = "Event data is guaranteed for the last three months."
level = "must"
observable = false
why_not = "A run cannot wait three months."

[[rule]]
id = "GEN-ENUM-ACCEPTED"
section = "Resources and their fields"
text = "Every listed value of a request field is accepted."
level = "must"
observable = true
checks = ["case:accept"]

[[gap]]
id = "GAP-RATE-LIMITS"
section = "Limits"
text = "Rate limits: not shown."

[[gap]]
id = "GAP-QUOTE-RESPONSE-TAIL"
section = "Receivable (response)"
text = "Quote response fields after memo: not shown."

[[gap]]
id = "GAP-PRECONDITIONS"
section = "Resources and their fields"
text = "Preconditions beyond the stated constraints."
"#;

/// A case that ran to a verdict judged each rule it names or found, on each of its responses,
/// and saw their statuses.
fn with_evidence(mut case: CaseResult) -> CaseResult {
    if !matches!(case.verdict, Verdict::Pass | Verdict::Warn | Verdict::Fail) {
        return case;
    }
    let responses = case.exchanges.len().max(1) as u32;
    let mut rules: Vec<String> = case.rules.clone();
    rules.extend(case.findings.iter().map(|f| f.rule.clone()));
    rules.sort();
    rules.dedup();
    case.evidence = rules
        .into_iter()
        .map(|rule| Evidence { rule, responses })
        .collect();
    let operation = case.operation.clone().unwrap_or_default();
    for exchange in &case.exchanges {
        let Some(response) = &exchange.response else {
            continue;
        };
        match case
            .statuses
            .iter_mut()
            .find(|s| s.status == response.status)
        {
            Some(seen) => seen.count += 1,
            None => case.statuses.push(StatusSeen {
                operation: operation.clone(),
                status: response.status,
                count: 1,
            }),
        }
    }
    case
}

/// The fixed run.
pub fn run() -> RunRecord {
    let cases: Vec<CaseResult> = [
        passing_case(),
        failing_case(),
        warning_case(),
        skipped_case(),
        error_case(),
        inconclusive_case(),
    ]
    .into_iter()
    .map(with_evidence)
    .collect();
    RunRecord {
        meta: meta("2026-01-02T03:04:05Z", "2026-01-02T03:04:15.5Z"),
        counts: Counts::of(&cases),
        cases,
    }
}

pub fn meta(started_at: &str, finished_at: &str) -> RunMeta {
    RunMeta {
        started_at: started_at.to_owned(),
        finished_at: finished_at.to_owned(),
        duration_ms: 10_500.0,
        cases_per_operation: 25,
        ..RunMeta::bare(
            "http://127.0.0.1:8080",
            serde_json::json!({"base_url": "http://127.0.0.1:8080", "finops": {"token": "***"}}),
            42,
        )
    }
}

fn case(id: &str, suite: &str, operation: &str, rules: &[&str]) -> CaseResult {
    CaseResult {
        id: id.to_owned(),
        suite: suite.to_owned(),
        operation: Some(operation.to_owned()),
        rules: rules.iter().map(|r| (*r).to_owned()).collect(),
        verdict: Verdict::Pass,
        findings: Vec::new(),
        exchanges: Vec::new(),
        skip_reason: None,
        error: None,
        payload: None,
        inconclusive: Vec::new(),
        requests: 0,
        evidence: Vec::new(),
        statuses: Vec::new(),
        expected_statuses: Vec::new(),
        shapes: Vec::new(),
        duration_ms: 0.0,
    }
}

pub fn exchange(method: &str, path: &str, status: u16, body: &str, ms: f64) -> Exchange {
    let url = format!("http://127.0.0.1:8080{path}");
    let sent = (method == "POST").then(|| "{\"type\":\"quote\"}".to_owned());
    let data = sent
        .as_deref()
        .map(|b| format!(" --data '{b}'"))
        .unwrap_or_default();
    Exchange {
        request: RequestRecord {
            method: method.to_owned(),
            url: url.clone(),
            headers: vec![("authorization".to_owned(), "Bearer ***".to_owned())],
            body: sent,
            curl: format!("curl -X {method} '{url}' -H 'authorization: Bearer ***'{data}"),
        },
        response: Some(ResponseRecord {
            status,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            body: body.to_owned(),
            truncated: false,
        }),
        error: None,
        duration_ms: ms,
        retries: 0,
    }
}

fn passing_case() -> CaseResult {
    let mut c = case(
        "receivable.quote-minimal",
        "receivables",
        "create-receivable",
        &["RCV-CREATE-201"],
    );
    c.exchanges = vec![
        exchange(
            "POST",
            "/finops/v1/receivables",
            201,
            "{\"id\":\"1\"}",
            12.5,
        ),
        exchange(
            "POST",
            "/finops/v1/receivables",
            201,
            "{\"id\":\"2\"}",
            20.0,
        ),
    ];
    c.shapes = vec![Shape {
        operation: "create-receivable".to_owned(),
        status: 201,
        kind: Some("quote".to_owned()),
        condition: None,
        body: "object".to_owned(),
        fields: [("id", "string"), ("note", "string|absent")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
        nested: Default::default(),
        items: Default::default(),
        pages: Vec::new(),
        codes: Vec::new(),
        count: 2,
        exchange: Some(0),
    }];
    c.duration_ms = 33.0;
    c
}

fn failing_case() -> CaseResult {
    let mut c = case(
        FAILING_CASE,
        "receivables",
        "create-receivable",
        &["RCV-UNKNOWN-PROPS"],
    );
    c.exchanges = vec![exchange(
        "POST",
        "/finops/v1/receivables",
        201,
        "{\"id\":\"3\",\"note\":\"<script>alert('x')</script>\"}",
        30.0,
    )];
    c.findings = vec![Finding::new(
        "RCV-UNKNOWN-PROPS",
        Level::Must,
        "a quote body with the unknown property `surprise` was accepted with 201",
    )
    .with_diff("status: 4xx (rejected)", "status: 201 (created)")
    .at_exchange(0)];
    c.verdict = Verdict::Fail;
    c.payload = Some(serde_json::json!({"type": "quote", "surprise": true}));
    c.duration_ms = 31.0;
    c
}

fn warning_case() -> CaseResult {
    let mut c = case(
        "vat-id.get",
        "vat-ids",
        "get-counterpart-vat-id",
        &["GEN-JSON-CONTENT-TYPE"],
    );
    let mut ex = exchange(
        "GET",
        "/finops/v1/counterparts/c/vat-ids/v",
        200,
        "{\"id\":\"v\"}",
        8.0,
    );
    if let Some(response) = ex.response.as_mut() {
        response.headers = vec![("content-type".to_owned(), "text/plain".to_owned())];
    }
    c.exchanges = vec![ex];
    c.findings = vec![Finding::new(
        "GEN-JSON-CONTENT-TYPE",
        Level::Should,
        "a JSON body came with Content-Type text/plain",
    )];
    c.verdict = Verdict::Warn;
    c.duration_ms = 9.0;
    c
}

fn skipped_case() -> CaseResult {
    let mut c = case(
        "velocity.card-scoped",
        "velocity",
        "create-velocity-control",
        &["VEL-CARD-SCOPE"],
    );
    c.verdict = Verdict::Skip;
    c.skip_reason = Some("the profile has no [banking] card_id fixture".to_owned());
    c
}

fn error_case() -> CaseResult {
    let mut c = case(
        "events.list-limit",
        "events",
        "list-events",
        &["EVT-LIMIT-RANGE"],
    );
    let mut ex = exchange("GET", "/finops/v1/events?limit=100", 200, "", 10_000.0);
    ex.response = None;
    ex.error = Some("operation timed out after 10 s".to_owned());
    c.exchanges = vec![ex];
    c.error = Some("the target did not answer within 10 s".to_owned());
    c.verdict = Verdict::Error;
    c.duration_ms = 10_001.0;
    c
}

fn inconclusive_case() -> CaseResult {
    let mut c = case(
        "accept.create-vat-id",
        "accept",
        "create-vat-id",
        &["GEN-ENUM-ACCEPTED"],
    );
    let body =
        r#"{"detail":[{"loc":["body","value"],"msg":"not a VAT number","type":"value_error"}]}"#;
    c.exchanges = vec![exchange(
        "POST",
        "/finops/v1/counterparts/c1/vat-ids",
        422,
        body,
        3.0,
    )];
    c.inconclusive = vec![Inconclusive {
        rule: "GEN-ENUM-ACCEPTED".to_owned(),
        baseline: "the smallest vat-id-create body".to_owned(),
        answer: format!("422: {body}"),
        count: 297,
        variants: vec![
            "country = \"AX\" (a listed value)".to_owned(),
            "country = \"AL\" (a listed value)".to_owned(),
        ],
        exchange: Some(0),
    }];
    c.verdict = Verdict::Inconclusive;
    c.requests = 1;
    c.duration_ms = 3.5;
    c
}

/// A fresh, empty directory for one test under cargo's temporary directory.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("report-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory can be created");
    dir
}

pub fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixed run with a client's slip seen in real traffic beside its cases: a page token
/// passed back without its `limit`, twice.
pub fn run_with_client_slip() -> RunRecord {
    let mut run = run();
    let mut c = case(
        "client.list-transactions",
        "client",
        "list-transactions",
        &["BPAG-TOKEN-OPAQUE"],
    );
    c.exchanges = vec![exchange(
        "GET",
        "/embedded-banking/v1/bank-accounts/b1/transactions?page_token=t2",
        200,
        r#"{"data":[],"next_page_token":null}"#,
        2.0,
    )];
    c.findings = vec![
        Finding::new(
            "BPAG-TOKEN-OPAQUE",
            Level::Must,
            "the client passed a page token back without its limit (limit=2)",
        )
        .at_exchange(0),
        Finding::new(
            "BPAG-TOKEN-OPAQUE",
            Level::Must,
            "the client passed a page token back without its limit (limit=5)",
        ),
    ];
    c.verdict = Verdict::Client;
    c.requests = 2;
    run.cases.push(c);
    run.counts = Counts::of(&run.cases);
    run
}

/// The sample with the failure fixed.
pub fn fixed() -> RunRecord {
    let mut run = run();
    let case = &mut run.cases[1];
    case.findings.clear();
    case.verdict = Verdict::Pass;
    run.counts = Counts::of(&run.cases);
    run
}

/// The fixed run, where the passing case now fails, one case is gone and one is new.
pub fn regressed() -> RunRecord {
    let mut run = fixed();
    let case = &mut run.cases[0];
    case.findings = vec![Finding::new(
        "RCV-CREATE-201",
        Level::Must,
        "answered 200, not 201",
    )];
    case.verdict = Verdict::Fail;
    run.cases.remove(3);
    let mut added = run.cases[2].clone();
    added.id = "vat-id.create".to_owned();
    added.findings.clear();
    added.verdict = Verdict::Pass;
    run.cases.push(added);
    run.counts = Counts::of(&run.cases);
    run
}

/// The sample run as another target answered it (same seed and plan): the quote is created with
/// a 200 and an extra field, and the skipped case ran.
pub fn other_target() -> RunRecord {
    let mut run = run();
    run.meta.target = "http://localhost:9999".to_owned();
    let created = &mut run.cases[0];
    for shape in &mut created.shapes {
        shape.status = 200;
        shape.fields.insert("total".to_owned(), "number".to_owned());
    }
    run.cases[3].verdict = Verdict::Pass;
    run.cases[3].skip_reason = None;
    run.counts = Counts::of(&run.cases);
    run
}
