//! Real traffic judged through the real binary: an ordinary client's requests through
//! `covenant proxy` to references over HTTP (clean, with a fault, and a stand-in with other
//! choices where the spec is silent), ended with SIGINT; and the same exchanges recorded as a
//! HAR file, judged by `covenant check` to the same verdicts.

use crate::support::standin;

use crate::support::covenant;
use covenant::profile::Profile;
use covenant::reference::{start, FaultSet, ReferenceConfig, RunningReference};
use serde_json::{json, Value};
use standin::{runtime, says, Choices, Incoming};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A reference with `faults`, and the path of its profile.
fn reference(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    faults: &[&str],
) -> (RunningReference, PathBuf) {
    let faults: Vec<String> = faults.iter().map(|f| (*f).to_owned()).collect();
    let server = rt
        .block_on(start(ReferenceConfig {
            seed: 7,
            faults: FaultSet::from_names(&faults).expect("known faults"),
            ..ReferenceConfig::default()
        }))
        .expect("the reference starts");
    let path = dir.join("target.toml");
    std::fs::write(&path, server.profile().to_toml()).expect("write the profile");
    (server, path)
}

/// `covenant proxy` running, its output gathered as it comes.
struct Proxy {
    child: Child,
    url: String,
    stdout: Arc<Mutex<String>>,
    stderr: std::thread::JoinHandle<String>,
}

/// What a command said and how it ended.
struct CommandOutput {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl CommandOutput {
    fn all(&self) -> String {
        format!(
            "exit {:?}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn proxy(profile: &Path, reports: &Path, extra: &[&str]) -> Proxy {
    let mut child = covenant()
        .args(["proxy", "--listen", "127.0.0.1:0", "--profile"])
        .arg(profile)
        .arg("--report-dir")
        .arg(reports)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("covenant proxy starts");
    let stdout = Arc::new(Mutex::new(String::new()));
    let lines = BufReader::new(child.stdout.take().expect("stdout"));
    let gathered = stdout.clone();
    std::thread::spawn(move || {
        for line in lines.lines().map_while(Result::ok) {
            let mut text = gathered.lock().expect("the output");
            text.push_str(&line);
            text.push('\n');
        }
    });
    let mut errors = child.stderr.take().expect("stderr");
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = errors.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let url = loop {
        let text = stdout.lock().expect("the output").clone();
        if let Some(rest) = text.split("listening on ").nth(1) {
            break rest.split(',').next().expect("an address").to_owned();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the proxy never said where it listens: {text}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    Proxy {
        child,
        url,
        stdout,
        stderr,
    }
}

impl Proxy {
    /// SIGINT, then what it said until it exited.
    fn interrupt(mut self) -> CommandOutput {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill");
        assert!(killed.success());
        let status = self.child.wait().expect("the proxy exits");
        let stderr = self.stderr.join().expect("stderr read");
        // The reader ends with the pipe; give it a moment to take the last lines.
        std::thread::sleep(Duration::from_millis(100));
        let stdout = self.stdout.lock().expect("the output").clone();
        CommandOutput {
            code: status.code(),
            stdout,
            stderr,
        }
    }
}

/// One exchange as the client had it: what a HAR entry holds.
struct Had {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
    status: u16,
    response_headers: Vec<(String, String)>,
    response_body: String,
}

/// An ordinary client of the API, keeping every exchange it had.
struct Client {
    http: reqwest::Client,
    base: String,
    profile: Profile,
    had: Vec<Had>,
    bank_token: Option<String>,
}

enum Payload {
    None,
    Json(Value),
    Form(Vec<(&'static str, String)>),
}

impl Client {
    fn new(base: &str, profile: &Profile) -> Client {
        Client {
            http: crate::support::http().build().expect("a client"),
            base: base.to_owned(),
            profile: profile.clone(),
            had: Vec::new(),
            bank_token: None,
        }
    }

    fn finance(&self) -> Vec<(String, String)> {
        let f = self.profile.finops.as_ref().expect("finops");
        vec![
            (
                "authorization".into(),
                format!("Bearer {}", f.token.as_ref().expect("a token").expose()),
            ),
            (
                "x-finops-version".into(),
                self.profile.finops_version().to_owned(),
            ),
            (
                "x-organization-id".into(),
                f.organization_id.clone().expect("an org"),
            ),
        ]
    }

    fn banking(&self) -> Vec<(String, String)> {
        let token = self.bank_token.clone().expect("a banking token");
        vec![("authorization".into(), format!("Bearer {token}"))]
    }

    async fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: Vec<(String, String)>,
        payload: Payload,
    ) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
        let mut request = self.http.request(method.clone(), &url);
        let mut sent = headers.clone();
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        let body = match payload {
            Payload::None => None,
            Payload::Json(json) => {
                sent.push(("content-type".into(), "application/json".into()));
                request = request.header("content-type", "application/json");
                Some(json.to_string())
            }
            Payload::Form(pairs) => {
                let text = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(pairs)
                    .finish();
                sent.push((
                    "content-type".into(),
                    "application/x-www-form-urlencoded".into(),
                ));
                request = request.header("content-type", "application/x-www-form-urlencoded");
                Some(text)
            }
        };
        if let Some(body) = &body {
            request = request.body(body.clone());
        }
        let answer = request.send().await.expect("the proxy answers");
        let status = answer.status().as_u16();
        let response_headers: Vec<(String, String)> = answer
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
            .collect();
        // An ordinary client decodes a gzip answer itself (reqwest here asks for none and
        // decodes none): what the proxy passed on must decode once, to JSON.
        let raw = answer.bytes().await.expect("a body").to_vec();
        let decoded = covenant::client::decoded(&response_headers, raw, 1 << 24);
        let text = String::from_utf8(decoded.expect("the answer decodes")).expect("UTF-8");
        self.had.push(Had {
            method: method.to_string(),
            url,
            headers: sent,
            body,
            status,
            response_headers,
            response_body: text.clone(),
        });
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Events read over two pages, a VAT ID created and read, a comment updated, a velocity
    /// control created, transactions read by token (passed back with its `limit`, or, for a
    /// careless client, without it).
    async fn ordinary(&mut self, careless: bool) {
        let finance = self.finance();
        let (status, page) = self
            .send(
                "GET",
                "/finops/v1/events?limit=2",
                finance.clone(),
                Payload::None,
            )
            .await;
        assert_eq!(status, 200, "{page}");
        let token = page["next_pagination_token"]
            .as_str()
            .expect("a second page of events")
            .to_owned();
        let next = format!("/finops/v1/events?pagination_token={}", encode(&token));
        assert_eq!(
            self.send("GET", &next, finance.clone(), Payload::None)
                .await
                .0,
            200
        );

        let f = self.profile.finops.clone().expect("finops");
        let counterpart = f.counterpart_id.clone().expect("a counterpart");
        let vat = json!({"value": "DE123456789", "country": "DE", "type": "eu_vat"});
        let path = format!("/finops/v1/counterparts/{counterpart}/vat-ids");
        let (status, created) = self
            .send("POST", &path, finance.clone(), Payload::Json(vat))
            .await;
        assert!((200..300).contains(&status), "{created}");
        let id = created["id"].as_str().expect("a VAT ID id").to_owned();
        assert_eq!(
            self.send(
                "GET",
                &format!("{path}/{id}"),
                finance.clone(),
                Payload::None
            )
            .await
            .0,
            200
        );

        let comment = f.comment_ids.first().expect("a comment").clone();
        let text = json!({"text": "Updated by an ordinary client"});
        self.send(
            "PATCH",
            &format!("/finops/v1/comments/{comment}"),
            finance,
            Payload::Json(text),
        )
        .await;

        let b = self.profile.banking.clone().expect("banking");
        let oauth = b.oauth.clone().expect("oauth");
        let form = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("client_id", oauth.client_id.clone()),
            (
                "client_secret",
                oauth
                    .client_secret
                    .as_ref()
                    .expect("a secret")
                    .expose()
                    .to_owned(),
            ),
            ("scope", oauth.scope.clone().unwrap_or_default()),
        ];
        let (status, token) = self
            .send("POST", "/oauth/token", Vec::new(), Payload::Form(form))
            .await;
        assert_eq!(status, 200, "{token}");
        self.bank_token = Some(
            token["access_token"]
                .as_str()
                .expect("an access token")
                .to_owned(),
        );

        let control = json!({"id": "traffic-control-1", "amountLimit": 50000, "currencyCode": "EUR",
            "name": "Team travel", "velocityWindow": "MONTH", "usageLimit": 20});
        let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
        let (status, created) = self
            .send("POST", path, self.banking(), Payload::Json(control))
            .await;
        assert_eq!(status, 201, "{created}");

        let account = b.bank_account_id.clone().expect("a bank account");
        let list = format!("/embedded-banking/v1/bank-accounts/{account}/transactions");
        let (status, page) = self
            .send(
                "GET",
                &format!("{list}?limit=2"),
                self.banking(),
                Payload::None,
            )
            .await;
        assert_eq!(status, 200, "{page}");
        let token = encode(
            page["nextPaginationToken"]
                .as_str()
                .expect("a second page of transactions"),
        );
        let next = if careless {
            format!("{list}?pagination_token={token}")
        } else {
            format!("{list}?limit=2&pagination_token={token}")
        };
        assert_eq!(
            self.send("GET", &next, self.banking(), Payload::None)
                .await
                .0,
            200
        );
    }

    /// Every secret the client holds.
    fn secrets(&self) -> Vec<String> {
        let mut secrets = self.profile.secrets();
        secrets.extend(self.bank_token.clone());
        secrets
    }

    /// The exchanges as a HAR 1.2 file, as mitmproxy writes one.
    fn har(&self, path: &Path) {
        let pairs = |headers: &[(String, String)]| -> Vec<Value> {
            headers
                .iter()
                .map(|(n, v)| json!({"name": n, "value": v}))
                .collect()
        };
        let entries: Vec<Value> = self
            .had
            .iter()
            .map(|h| {
                let mut request = json!({"method": h.method, "url": h.url, "httpVersion": "HTTP/1.1",
                    "headers": pairs(&h.headers), "queryString": [], "cookies": [],
                    "headersSize": -1, "bodySize": h.body.as_ref().map_or(0, String::len)});
                if let Some(body) = &h.body {
                    request["postData"] = json!({"mimeType": "application/json", "text": body});
                }
                json!({"startedDateTime": "2026-11-25T10:00:00.000Z", "time": 1.5, "request": request,
                    "response": {"status": h.status, "statusText": "", "httpVersion": "HTTP/1.1",
                        "headers": pairs(&h.response_headers), "cookies": [],
                        "content": {"size": h.response_body.len(), "mimeType": "application/json",
                            "text": h.response_body},
                        "redirectURL": "", "headersSize": -1, "bodySize": h.response_body.len()},
                    "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
            })
            .collect();
        let har = json!({"log": {"version": "1.2", "creator": {"name": "covenant tests", "version": "1"},
            "entries": entries}});
        std::fs::write(path, serde_json::to_string_pretty(&har).expect("JSON"))
            .expect("write the HAR");
    }
}

fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// `covenant check FILE.har` of the client's exchanges.
fn check(har: &Path, profile: &Path, reports: &Path, extra: &[&str]) -> CommandOutput {
    let output = covenant()
        .arg("check")
        .arg(har)
        .arg("--profile")
        .arg(profile)
        .arg("--report-dir")
        .arg(reports)
        .args(extra)
        .output()
        .expect("covenant check runs");
    assert!(
        output.status.code().is_some(),
        "covenant check ended by a signal: {}",
        says(&output)
    );
    CommandOutput {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Each case's id, verdict and the rules of its findings, from a JSON report.
fn verdicts(reports: &Path) -> BTreeSet<(String, String, Vec<String>)> {
    let text = std::fs::read_to_string(reports.join("report.json")).expect("report.json written");
    let record: Value = serde_json::from_str(&text).expect("JSON");
    record["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| {
            let mut rules: Vec<String> = case["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| f["rule"].as_str().unwrap_or("").to_owned())
                .collect();
            rules.sort();
            rules.dedup();
            let id = case["id"].as_str().unwrap_or("").to_owned();
            (id, case["verdict"].as_str().unwrap_or("").to_owned(), rules)
        })
        .collect()
}

/// No secret in what was said, nor in any report written.
fn no_secret(secrets: &[String], said: &[&CommandOutput], reports: &[&Path]) {
    for secret in secrets {
        for s in said {
            assert!(
                !s.stdout.contains(secret.as_str()) && !s.stderr.contains(secret.as_str()),
                "a secret in the output:\n{}",
                s.all()
            );
        }
        for dir in reports {
            for entry in std::fs::read_dir(dir).expect("the reports") {
                let path = entry.expect("an entry").path();
                let text = std::fs::read_to_string(&path).expect("a report");
                assert!(
                    !text.contains(secret.as_str()),
                    "a secret in {}",
                    path.display()
                );
            }
        }
    }
}

/// The ordinary client's traffic through the proxy to `profile`'s target, and through `covenant
/// check` as HAR: both said, and their verdicts, which must agree.
fn judged(
    rt: &tokio::runtime::Runtime,
    dir: &Path,
    profile: &Path,
    careless: bool,
    extra: &[&str],
) -> (CommandOutput, CommandOutput) {
    let live = dir.join("proxy-reports");
    let running = proxy(profile, &live, extra);
    let loaded = Profile::load(profile).expect("the profile");
    let mut client = Client::new(&running.url, &loaded);
    let running_url = running.url.clone();
    rt.block_on(client.ordinary(careless));
    let proxied = running.interrupt();
    for file in ["junit.xml", "report.json", "summary.html", "summary.md"] {
        assert!(
            live.join(file).is_file(),
            "{file} not written:\n{}",
            proxied.all()
        );
    }
    let har = dir.join("traffic.har");
    client.har(&har);
    // Recorded as the client had them with the target itself: each entry's URL is where its
    // request went, and the profile names the target.
    let base = loaded.base_url.clone().expect("a base URL");
    let text = std::fs::read_to_string(&har).expect("the HAR");
    let text = text.replace(&running_url, base.trim_end_matches('/'));
    std::fs::write(&har, text).expect("write the HAR");
    let recorded = dir.join("check-reports");
    let checked = check(&har, profile, &recorded, extra);
    assert_eq!(
        proxied.code,
        checked.code,
        "proxy:\n{}\ncheck:\n{}",
        proxied.all(),
        checked.all()
    );
    assert_eq!(
        verdicts(&live),
        verdicts(&recorded),
        "the HAR of the traffic is judged as the traffic was"
    );
    no_secret(
        &client.secrets(),
        &[&proxied, &checked],
        &[&live, &recorded],
    );
    (proxied, checked)
}

fn clean_cases(said: &CommandOutput) {
    assert!(
        !said.stdout.contains("FAIL ")
            && !said.stdout.contains("WARN ")
            && !said.stdout.contains("CLIENT "),
        "{}",
        said.all()
    );
}

#[test]
fn an_ordinary_clients_traffic_to_a_target_keeping_the_contract_passes_and_is_reported() {
    let rt = runtime();
    let dir = standin::scratch("traffic-clean");
    let (_server, profile) = reference(&rt, &dir, &[]);
    let (proxied, checked) = judged(&rt, &dir, &profile, false, &[]);
    assert_eq!(proxied.code, Some(0), "{}", proxied.all());
    clean_cases(&proxied);
    clean_cases(&checked);
    let seen = verdicts(&dir.join("proxy-reports"));
    for case in [
        "traffic.list-events",
        "traffic.create-vat-id",
        "traffic.get-vat-id",
        "traffic.update-comment",
        "traffic.create-velocity-control",
        "traffic.list-transactions",
    ] {
        assert!(
            seen.contains(&(case.to_owned(), "pass".to_owned(), Vec::new())),
            "{case} not passed: {seen:?}"
        );
    }
    assert!(
        seen.iter()
            .any(|(id, verdict, _)| id == "traffic.unlisted" && verdict == "skip"),
        "the token request is passed through, counted: {seen:?}"
    );
    let summary =
        std::fs::read_to_string(dir.join("proxy-reports/summary.md")).expect("summary.md");
    assert!(summary.contains("PASS"), "{summary}");
}

#[test]
fn proxy_and_check_annotate_their_broken_rules_in_github_actions_as_run_does() {
    let rt = runtime();
    let dir = standin::scratch("traffic-annotated");
    let (_server, profile) = reference(&rt, &dir, &["cmt-status-uppercase"]);
    let (proxied, checked) = judged(&rt, &dir, &profile, false, &["--ci-annotations", "always"]);
    assert_eq!(proxied.code, Some(1), "{}", proxied.all());
    for said in [&proxied, &checked] {
        assert!(
            said.stdout
                .lines()
                .any(|l| l.starts_with("::error title=CMT-STATUS-ENUM (must)::")),
            "{}",
            said.all()
        );
        assert!(said.stderr.contains("report: "), "{}", said.all());
    }
}

#[test]
fn comment_answers_breaking_their_status_enum_fail_naming_the_rule() {
    let rt = runtime();
    let dir = standin::scratch("traffic-fault");
    let (_server, profile) = reference(&rt, &dir, &["cmt-status-uppercase"]);
    let (proxied, checked) = judged(&rt, &dir, &profile, false, &[]);
    assert_eq!(proxied.code, Some(1), "{}", proxied.all());
    for said in [&proxied, &checked] {
        assert!(
            said.stdout
                .contains("FAIL CMT-STATUS-ENUM PATCH /finops/v1/comments/"),
            "{}",
            said.all()
        );
    }
    let seen = verdicts(&dir.join("proxy-reports"));
    let comment = seen
        .iter()
        .find(|(id, _, _)| id == "traffic.update-comment")
        .expect("the comment's case");
    assert_eq!(comment.1, "fail");
    assert!(
        comment.2.contains(&"CMT-STATUS-ENUM".to_owned()),
        "{comment:?}"
    );
    // The client sent the profile's finance token: the curl names its variable and runs as
    // printed once it is exported.
    let summary =
        std::fs::read_to_string(dir.join("proxy-reports/summary.md")).expect("summary.md");
    assert!(
        summary.contains("export `COVENANT_FINOPS_TOKEN` (the profile's `finops.token`)"),
        "{summary}"
    );
    let curl = summary
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("curl ") && l.contains("/comments/"))
        .expect("summary.md shows the comment's curl");
    assert!(
        curl.contains("\"authorization: Bearer $COVENANT_FINOPS_TOKEN\"")
            && !curl.contains("host:"),
        "{curl}"
    );
    let token = Profile::load(&profile)
        .expect("the profile")
        .finops
        .expect("finops")
        .token;
    let replayed = std::process::Command::new("sh")
        .args(["-c", curl])
        .env("COVENANT_FINOPS_TOKEN", token.expect("a token").expose())
        .output()
        .expect("sh runs");
    let answer = String::from_utf8_lossy(&replayed.stdout);
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.contains("\"status\":\"ACTIVE\""),
        "{curl}\n{answer}"
    );
}

#[test]
fn a_page_token_passed_back_without_its_limit_is_the_clients_slip_and_never_fails_the_target() {
    let rt = runtime();
    let dir = standin::scratch("traffic-careless");
    let (_server, profile) = reference(&rt, &dir, &[]);
    let (proxied, checked) = judged(&rt, &dir, &profile, true, &["--strict"]);
    assert_eq!(
        proxied.code,
        Some(0),
        "not even --strict fails the target for the client's slip:\n{}",
        proxied.all()
    );
    for said in [&proxied, &checked] {
        assert!(
            said.stdout
                .contains("CLIENT BPAG-TOKEN-OPAQUE GET /embedded-banking/v1/bank-accounts/"),
            "{}",
            said.all()
        );
        assert!(
            said.stdout.contains("without its limit (limit=2)"),
            "{}",
            said.all()
        );
        assert!(!said.stdout.contains("FAIL "), "{}", said.all());
        // The summary names it under the client's own heading, with its count: no broken rule
        // of the target, no known failure.
        assert!(
            said.stdout.contains(
                "\nthe client's slips: requests that break what the spec asks of clients (they \
                 never fail the target):\n  [BPAG-TOKEN-OPAQUE] 1 request in \
                 client.list-transactions: "
            ),
            "{}",
            said.all()
        );
        assert!(
            said.stdout.contains(", 1 with the client's slips;")
                && said.stdout.contains("covenant: PASS."),
            "{}",
            said.all()
        );
        assert!(
            !said.stdout.contains("broken rules") && !said.stdout.contains("known"),
            "{}",
            said.all()
        );
    }
    let seen = verdicts(&dir.join("proxy-reports"));
    let slip = (
        "client.list-transactions".to_owned(),
        "client".to_owned(),
        vec!["BPAG-TOKEN-OPAQUE".to_owned()],
    );
    assert!(seen.contains(&slip), "{seen:?}");
    assert!(
        seen.contains(&(
            "traffic.list-transactions".to_owned(),
            "pass".to_owned(),
            Vec::new()
        )),
        "{seen:?}"
    );
    let summary =
        std::fs::read_to_string(dir.join("proxy-reports/summary.md")).expect("summary.md");
    assert!(
        summary.contains("### The client's slips: requests that break what the spec asks of clients (they never fail the target) (1)")
            && summary.contains("BPAG-TOKEN-OPAQUE"),
        "{summary}"
    );
    assert!(
        !summary.contains("Broken rules") && !summary.contains("Known"),
        "the client's slip is no broken rule of the target, nor a known failure:\n{summary}"
    );
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("proxy-reports/report.json")).expect("report.json"),
    )
    .expect("JSON");
    assert_eq!(report["counts"]["client"], 1, "{}", report["counts"]);
    assert_eq!(report["counts"]["fail"], 0, "{}", report["counts"]);
    let junit = std::fs::read_to_string(dir.join("proxy-reports/junit.xml")).expect("junit.xml");
    assert!(
        junit.contains("type=\"client\"") && !junit.contains("<failure"),
        "{junit}"
    );
    // The banking token came from the token endpoint, not the profile: the slip's curl names
    // it by the clients' first variable.
    let slip = report["cases"]
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["verdict"] == "client"))
        .expect("the slip's case");
    let curl = slip["exchanges"][0]["request"]["curl"]
        .as_str()
        .unwrap_or("");
    assert!(
        curl.contains("\"authorization: Bearer $COVENANT_CLIENT_TOKEN\""),
        "{slip}"
    );
}

/// A contract-keeping target with other choices where the spec is silent: a VAT ID create
/// answered 200 instead of 201, VAT ID and comment answers with a field the spec does not list.
#[test]
fn a_target_with_other_choices_where_the_spec_is_silent_passes_clean() {
    let rt = runtime();
    let dir = standin::scratch("traffic-choices");
    let choices = Choices {
        answer: Box::new(|seen: &Incoming, (status, body)| {
            let vat = seen.path.contains("/vat-ids");
            let comment = seen.path.starts_with("/finops/v1/comments/");
            let mut json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if (vat || comment) && json.is_object() {
                json["vendor_note"] = json!("kept");
            }
            let body = if json.is_null() {
                body
            } else {
                json.to_string().into_bytes()
            };
            match status {
                201 if vat && seen.method == axum::http::Method::POST => (200, body),
                _ => (status, body),
            }
        }),
        ..Choices::default()
    };
    let (_server, profile) = standin::stand_in(&rt, 7, &dir, "stand-in", choices);
    let (proxied, checked) = judged(&rt, &dir, &profile, false, &["--strict"]);
    assert_eq!(proxied.code, Some(0), "{}", proxied.all());
    clean_cases(&proxied);
    clean_cases(&checked);
}

/// A stand-in keeping the contract with choices of its own where the spec is silent: a VAT ID
/// create answered 200 (the spec states no success status for it), and VAT ID answers with a
/// field the spec does not list.
fn silent_chooser() -> Choices {
    Choices {
        answer: Box::new(|seen: &Incoming, (status, body)| {
            if !seen.path.contains("/vat-ids") {
                return (status, body);
            }
            let mut json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if json.is_object() {
                json["vendor_note"] = json!("kept");
            }
            let body = json.to_string().into_bytes();
            match status {
                201 if seen.method == axum::http::Method::POST => (200, body),
                _ => (status, body),
            }
        }),
        ..Choices::default()
    }
}

/// The lines of summary.md's section of what the target chose where the spec is silent, up to
/// the next section; panics where there is none.
fn silent_section(reports: &Path) -> String {
    let summary = std::fs::read_to_string(reports.join("summary.md")).expect("summary.md");
    let start = summary
        .find("### What this target chose where the spec is silent")
        .unwrap_or_else(|| panic!("no silent-area section in summary.md:\n{summary}"));
    let rest = &summary[start..];
    let end = rest[4..].find("\n##").map_or(rest.len(), |i| i + 4);
    rest[..end].to_owned()
}

/// The observation lines of one gap in a silent-area section.
fn observed(section: &str, gap: &str) -> Vec<String> {
    let mut lines = section
        .lines()
        .skip_while(|l| !l.starts_with(&format!("- `{gap}`")))
        .skip(1);
    let mut found = Vec::new();
    for line in lines.by_ref() {
        if line.starts_with("  - ") {
            found.push(line.trim_start_matches("  - ").to_owned());
        } else if line.starts_with("- ") {
            break;
        }
    }
    found
}

#[test]
fn traffic_shows_what_the_target_chose_where_the_spec_is_silent_and_never_fails_it() {
    let rt = runtime();
    let dir = standin::scratch("traffic-silent");
    let (_server, profile) = standin::stand_in(&rt, 7, &dir, "stand-in", silent_chooser());
    let (proxied, checked) = judged(&rt, &dir, &profile, false, &["--strict"]);
    assert_eq!(proxied.code, Some(0), "{}", proxied.all());
    clean_cases(&proxied);
    clean_cases(&checked);
    for reports in [dir.join("proxy-reports"), dir.join("check-reports")] {
        let section = silent_section(&reports);
        let status = observed(&section, "GAP-SUCCESS-STATUS");
        assert!(
            status.contains(&"create-vat-id: success status `200` (1 response)".to_owned()),
            "the VAT ID create's 200, seen once in the traffic:\n{section}"
        );
        assert!(
            status.contains(&"get-vat-id: success status `200` (1 response)".to_owned()),
            "{section}"
        );
        let extra = observed(&section, "GAP-EXTRA-FIELDS");
        for op in ["create-vat-id", "get-vat-id"] {
            assert!(
                extra.contains(&format!(
                    "{op}: fields beyond the listed ones `vendor_note (string)` (1 response)"
                )),
                "{op}'s unlisted field:\n{section}"
            );
        }
        assert!(
            extra
                .iter()
                .any(|l| l.starts_with("update-comment: fields beyond the listed ones `none`")),
            "the comment, answered as the spec lists it:\n{section}"
        );
        // The event pages: two asked for, the first with a limit, full, and a next token.
        assert!(
            observed(&section, "GAP-PAGE-SIZES")
                .contains(&"list-events: limit 2 `full pages` (1 response)".to_owned()),
            "{section}"
        );
        // The example is an exchange the traffic case kept (in summary.html, as summary.md says):
        // the client's own request, its credentials masked.
        assert!(
            section.contains("`summary.html` has an example"),
            "{section}"
        );
        let html = std::fs::read_to_string(reports.join("summary.html")).expect("summary.html");
        assert!(
            html.contains("from <code>traffic.") && html.contains("curl"),
            "summary.html"
        );
        // The client's host named the proxy: a replay goes to the target by its URL alone.
        assert!(
            !html.to_lowercase().contains("-h &#39;host:"),
            "summary.html"
        );
        assert!(!html.to_lowercase().contains("-h 'host:"), "summary.html");
        assert!(
            section.contains("what the traffic showed the target do"),
            "{section}"
        );
        // The profile names the banking header, but this client never sent it: traffic shows
        // no header name.
        assert!(
            observed(&section, "GAP-BANK-ORG-HEADER-NAME").is_empty(),
            "{section}"
        );
    }
    let record: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("proxy-reports/report.json")).expect("report.json"),
    )
    .expect("JSON");
    let create = record["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["id"] == "traffic.create-vat-id")
        .expect("the VAT ID create's case");
    assert_eq!(create["verdict"], "pass");
    assert_eq!(create["shapes"][0]["status"], 200, "{create}");
    let chosen = record["silent"]["GAP-SUCCESS-STATUS"]["observations"]
        .as_array()
        .expect("the success statuses chosen")
        .iter()
        .find(|o| o["operation"] == "create-vat-id")
        .expect("the VAT ID create's");
    assert_eq!(chosen["value"], "200", "{chosen}");
    assert_eq!(
        chosen["example"]["case"], "traffic.create-vat-id",
        "{chosen}"
    );
}

/// `covenant compare A B` with its arguments, as said.
fn compare(a: &Path, b: &Path, extra: &[&str]) -> CommandOutput {
    let output = covenant()
        .arg("compare")
        .arg(a.join("report.json"))
        .arg(b.join("report.json"))
        .args(extra)
        .output()
        .expect("covenant compare runs");
    CommandOutput {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The lines of a behaviour diff on the console that name a difference.
fn differences(said: &CommandOutput) -> Vec<String> {
    said.stdout
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn traffic_reports_compare_with_each_other_and_with_a_run_naming_what_each_target_chose() {
    let rt = runtime();
    let clean_dir = standin::scratch("traffic-compare-clean");
    let (_reference, clean_profile) = reference(&rt, &clean_dir, &[]);
    judged(&rt, &clean_dir, &clean_profile, false, &[]);
    let silent_dir = standin::scratch("traffic-compare-silent");
    let (_standin, silent_profile) =
        standin::stand_in(&rt, 7, &silent_dir, "stand-in", silent_chooser());
    judged(&rt, &silent_dir, &silent_profile, false, &[]);
    let (clean, silent) = (
        clean_dir.join("proxy-reports"),
        silent_dir.join("check-reports"),
    );
    let chosen = [
        "status, where the spec is silent (GAP-SUCCESS-STATUS): A 201; B 200 (traffic.create-vat-id)",
        "fields, where the spec is silent (GAP-EXTRA-FIELDS): A no other field; B also vendor_note (string) (traffic.create-vat-id)",
        "fields, where the spec is silent (GAP-EXTRA-FIELDS): A no other field; B also vendor_note (string) (traffic.get-vat-id)",
    ];

    // Two traffic reports of two targets: the behaviour diff, naming exactly the choices.
    let diff_dir = clean_dir.join("diff");
    let said = compare(
        &clean,
        &silent,
        &[
            "--fail-on-difference",
            "--report-dir",
            diff_dir.to_str().expect("a UTF-8 path"),
        ],
    );
    assert_eq!(said.code, Some(6), "{}", said.all());
    assert_eq!(differences(&said), chosen, "{}", said.all());
    let diff_md = std::fs::read_to_string(diff_dir.join("diff.md")).expect("diff.md");
    assert!(
        diff_md.contains("(GAP-SUCCESS-STATUS): A 201; B 200, in traffic.create-vat-id")
            && diff_md.contains("B also vendor\\_note (string), in traffic.get-vat-id"),
        "{diff_md}"
    );

    // A run's report beside traffic: compared by operation, over what both saw. The run
    // provokes refusals and sends bodies no client sent; none of it is a difference.
    let run = clean_dir.join("run-reports");
    let output = covenant()
        .args(["run", "--report-dir"])
        .arg(&run)
        .output()
        .expect("covenant run runs");
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let said = compare(&run, &silent, &["--fail-on-difference"]);
    assert_eq!(said.code, Some(6), "{}", said.all());
    assert_eq!(differences(&said), chosen, "{}", said.all());
    assert!(
        said.stdout.contains("note: B is real traffic"),
        "{}",
        said.all()
    );
    let said = compare(&run, &clean, &["--fail-on-difference"]);
    assert_eq!(said.code, Some(0), "{}", said.all());
    assert!(
        said.stdout.contains("no difference in behaviour"),
        "a run and the traffic of one contract-keeping behaviour:\n{}",
        said.all()
    );
}

/// `covenant check FILE.har` without a profile.
fn check_bare(har: &Path, reports: &Path) -> CommandOutput {
    let output = covenant()
        .arg("check")
        .arg(har)
        .arg("--report-dir")
        .arg(reports)
        .output()
        .expect("covenant check runs");
    CommandOutput {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the file")).expect("JSON")
}

/// A HAR entry: `method url`, answered `status` with `body` of `mime` (status 0: no answer).
fn entry(method: &str, url: &str, status: u16, mime: &str, body: &str) -> Value {
    json!({"startedDateTime": "2026-11-25T09:00:00.000Z", "time": 1.0,
        "request": {"method": method, "url": url, "headers": []},
        "response": {"status": status, "headers": [{"name": "content-type", "value": mime}],
            "content": {"size": body.len(), "mimeType": mime, "text": body}}})
}

/// The ordinary client's exchanges with the reference itself, as a HAR file's JSON.
fn ordinary_har(rt: &tokio::runtime::Runtime, dir: &Path, profile: &Path) -> (Value, Client) {
    let loaded = Profile::load(profile).expect("the profile");
    let base = loaded.base_url.clone().expect("a base URL");
    let mut client = Client::new(base.trim_end_matches('/'), &loaded);
    rt.block_on(client.ordinary(true));
    let path = dir.join("ordinary.har");
    client.har(&path);
    (read_json(&path), client)
}

fn write_har(dir: &Path, name: &str, har: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, har.to_string()).expect("write the HAR");
    path
}

fn case<'r>(report: &'r Value, id: &str) -> Option<&'r Value> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["id"] == id)
}

#[test]
fn a_proxy_whose_target_refuses_or_never_answers_is_never_a_pass_and_answers_in_time() {
    let rt = runtime();
    let dir = standin::scratch("traffic-unanswered");
    let (_server, profile) = reference(&rt, &dir, &[]);
    let http = crate::support::http().build().expect("a client");
    let get = |url: String| {
        rt.block_on(async {
            let answer = http.get(url).send().await.expect("the proxy answers");
            let status = answer.status().as_u16();
            (status, answer.text().await.unwrap_or_default())
        })
    };

    // A target that refuses every connection: 502, and an error of the run naming it.
    let refused_reports = dir.join("refused");
    let running = proxy(
        &profile,
        &refused_reports,
        &["--target", "http://127.0.0.1:1"],
    );
    let (status, text) = get(format!("{}/finops/v1/events", running.url));
    assert_eq!(status, 502, "{text}");
    assert!(text.contains("refused"), "{text}");
    let said = running.interrupt();
    assert_eq!(said.code, Some(4), "nothing was judged:\n{}", said.all());
    assert!(
        said.stdout.contains("INCOMPLETE")
            && said
                .stdout
                .contains("GET /finops/v1/events: the target refused")
            && !said.stdout.contains("--filter"),
        "{}",
        said.all()
    );
    let report = read_json(&refused_reports.join("report.json"));
    let unanswered = case(&report, "traffic.unanswered").expect("the unanswered case");
    assert_eq!(unanswered["verdict"], "error", "{unanswered}");
    assert_eq!(report["meta"]["traffic"]["source"], "proxy");

    // A target that accepts and never answers: the proxy's own --timeout, then 504.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let silent_url = format!("http://{}", silent.local_addr().expect("an address"));
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming() {
            held.push(stream);
        }
    });
    let silent_reports = dir.join("silent");
    let running = proxy(
        &profile,
        &silent_reports,
        &["--target", &silent_url, "--timeout", "0.5"],
    );
    let started = Instant::now();
    let (status, text) = get(format!("{}/finops/v1/events?limit=2", running.url));
    assert_eq!(status, 504, "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let said = running.interrupt();
    assert_eq!(said.code, Some(4), "{}", said.all());
    assert!(
        said.stdout
            .contains("GET /finops/v1/events: the target did not answer within 0.5 s"),
        "{}",
        said.all()
    );
}

#[test]
fn a_har_is_judged_where_each_entry_went_each_exchange_counted_once() {
    let rt = runtime();
    let dir = standin::scratch("traffic-har-origins");
    let (server, profile) = reference(&rt, &dir, &[]);
    let base = server.base_url();
    let base = base.trim_end_matches('/');
    let (mut har, _client) = ordinary_har(&rt, &dir, &profile);
    let entries = har["log"]["entries"].as_array_mut().expect("entries");
    let api = entries.len();
    // A browser's HAR starts with the web page; a request it aborted is recorded with status 0.
    entries.insert(
        0,
        entry(
            "GET",
            "https://www.example.org/app/index.html",
            200,
            "text/html",
            "<html></html>",
        ),
    );
    entries.push(entry(
        "GET",
        &format!("{base}/finops/v1/events?limit=3"),
        0,
        "",
        "",
    ));
    let path = write_har(&dir, "browser.har", &har);

    // With the profile: the page went to another origin, the aborted request is an error.
    let reports = dir.join("with-profile");
    let said = check(&path, &profile, &reports, &[]);
    assert_eq!(said.code, Some(1), "an error of the run:\n{}", said.all());
    assert!(
        said.stdout.contains("1 got no answer")
            && said.stdout.contains("1 went to another origin")
            && said
                .stdout
                .contains("GET /finops/v1/events: recorded without an answer"),
        "{}",
        said.all()
    );
    let report = read_json(&reports.join("report.json"));
    assert_eq!(
        case(&report, "traffic.elsewhere").expect("another origin")["verdict"],
        "skip"
    );
    // Each exchange once: every entry is one request of the summary, the slip's included.
    let requests = format!("{} requests", api + 2);
    assert!(
        said.stdout.contains(&requests),
        "{requests}:\n{}",
        said.all()
    );
    assert!(report["meta"]["traffic"]["name"]
        .as_str()
        .is_some_and(|n| n.ends_with("browser.har")));

    // Without a profile: the target is where the first entry of this API went; every curl
    // points where its request went, the page went to another origin.
    let reports = dir.join("bare");
    let said = check_bare(&path, &reports);
    assert_eq!(said.code, Some(1), "{}", said.all());
    let report = read_json(&reports.join("report.json"));
    assert_eq!(report["meta"]["target"], base);
    let elsewhere = case(&report, "traffic.elsewhere").expect("another origin");
    assert!(
        elsewhere["skip_reason"]
            .as_str()
            .is_some_and(|r| r.contains("GET https://www.example.org/app/index.html")),
        "{elsewhere}"
    );
    assert!(
        case(&report, "traffic.unlisted")
            .and_then(|c| c["skip_reason"].as_str())
            .is_none_or(|r| !r.contains("index.html")),
        "{report}"
    );
    for case in report["cases"].as_array().expect("cases") {
        for exchange in case["exchanges"].as_array().into_iter().flatten() {
            let url = exchange["request"]["url"].as_str().expect("a URL");
            let curl = exchange["request"]["curl"].as_str().expect("a curl");
            assert!(
                url.starts_with(base) && curl.contains(base) && !curl.contains("example.org"),
                "{url}\n{curl}"
            );
        }
    }
}

#[test]
fn a_har_checked_without_a_target_never_judges_an_entry_to_another_origin() {
    let rt = runtime();
    let dir = standin::scratch("traffic-har-elsewhere");
    let (server, profile) = reference(&rt, &dir, &[]);
    let base = server.base_url();
    let base = base.trim_end_matches('/');
    let (mut har, _client) = ordinary_har(&rt, &dir, &profile);
    // The last entry went to another host, to a path of the spec: a 500 with an HTML body.
    let html = "<html><body><h1>Internal error</h1></body></html>";
    har["log"]["entries"]
        .as_array_mut()
        .expect("entries")
        .push(entry(
            "GET",
            "https://other.example/finops/v1/events?limit=2",
            500,
            "text/html",
            html,
        ));
    let path = write_har(&dir, "elsewhere.har", &har);
    let reports = dir.join("bare");

    let said = check_bare(&path, &reports);

    assert_eq!(said.code, Some(0), "{}", said.all());
    assert!(
        !said.stdout.contains("FAIL ") && !said.stdout.contains("WARN "),
        "{}",
        said.all()
    );
    assert!(
        said.stdout.contains("1 went to another origin"),
        "{}",
        said.all()
    );
    let report = read_json(&reports.join("report.json"));
    assert_eq!(report["meta"]["target"], base);
    let elsewhere = case(&report, "traffic.elsewhere").expect("another origin");
    assert!(
        elsewhere["skip_reason"]
            .as_str()
            .is_some_and(|r| r.contains(&format!(
                "request(s) to another origin than {base}, not judged: GET \
             https://other.example/finops/v1/events"
            ))),
        "{elsewhere}"
    );
}

#[test]
fn the_proxy_never_judges_a_request_that_named_another_origin() {
    use std::io::Write;
    let rt = runtime();
    let dir = standin::scratch("traffic-proxy-elsewhere");
    let (_server, profile) = reference(&rt, &dir, &[]);
    let running = proxy(&profile, &dir.join("reports"), &[]);
    let send = |request: &str| {
        let address = running.url.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(address).expect("the proxy accepts");
        stream.write_all(request.as_bytes()).expect("the request");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    // As a client whose HTTP proxy covenant is sends it: the absolute form, another host.
    let answer = send(
        "GET http://other.example/finops/v1/events?limit=2 HTTP/1.1\r\nhost: other.example\r\n\
         connection: close\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
    // And one to the target itself, judged (refused: no credentials).
    let answer = send("GET /finops/v1/events HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");

    let said = running.interrupt();

    assert!(
        said.stdout.contains("1 exchange(s) judged")
            && said.stdout.contains("not judged: 1 went to another origin"),
        "{}",
        said.all()
    );
    let report = read_json(&dir.join("reports/report.json"));
    let elsewhere = case(&report, "traffic.elsewhere").expect("another origin");
    assert!(
        elsewhere["skip_reason"]
            .as_str()
            .is_some_and(|r| r.contains("GET http://other.example/finops/v1/events")),
        "{elsewhere}"
    );
}

#[test]
fn a_har_without_bodies_or_without_entries_is_incomplete_and_says_why_in_its_own_words() {
    let rt = runtime();
    let dir = standin::scratch("traffic-har-bodiless");
    let (_server, profile) = reference(&rt, &dir, &[]);
    let (mut har, _client) = ordinary_har(&rt, &dir, &profile);
    for entry in har["log"]["entries"].as_array_mut().expect("entries") {
        let content = entry["response"]["content"]
            .as_object_mut()
            .expect("content");
        content.remove("text");
    }
    let path = write_har(&dir, "bodiless.har", &har);
    let reports = dir.join("bodiless");
    let said = check(&path, &profile, &reports, &[]);
    assert_eq!(said.code, Some(4), "{}", said.all());
    assert!(
        said.stdout.contains("the file holds no body") && said.stdout.contains("INCOMPLETE"),
        "{}",
        said.all()
    );
    for report in ["summary.md", "summary.html"] {
        let text = std::fs::read_to_string(reports.join(report)).expect("a report");
        assert!(text.contains("the file holds no body"), "{report}:\n{text}");
    }

    let empty = write_har(
        &dir,
        "empty.har",
        &json!({"log": {"version": "1.2", "entries": []}}),
    );
    let reports = dir.join("empty");
    let said = check(&empty, &profile, &reports, &[]);
    assert_eq!(said.code, Some(4), "{}", said.all());
    let summary = std::fs::read_to_string(reports.join("summary.md")).expect("summary.md");
    let html = std::fs::read_to_string(reports.join("summary.html")).expect("summary.html");
    for text in [&said.stdout, &summary, &html] {
        assert!(
            !text.contains("--filter")
                && !text.contains("seed 0")
                && !text.contains("seed `0`")
                && !text.contains("cases per operation"),
            "{text}"
        );
    }
    assert!(
        said.stdout.contains("the file saw no exchange") && summary.contains("empty.har"),
        "{}\n{summary}",
        said.all()
    );
    let help = covenant().args(["check", "--help"]).output().expect("help");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("by check once the file is judged"), "{help}");
}

/// A HAR entry of a client that keeps the contract (its credentials and headers), answered
/// `status` with `mime`, whose body the file does not hold (no `text`).
fn bodiless_entry(method: &str, url: &str, status: u16, mime: &str) -> Value {
    let mut entry = entry(method, url, status, mime, "");
    entry["request"]["headers"] = json!([
        {"name": "Authorization", "value": "Bearer a-token"},
        {"name": "x-finops-version", "value": "2026-09-24"},
        {"name": "x-organization-id", "value": "5b1f3c2e-8d4a-4f6b-9c7e-2a1d0e9f8b7c"},
        {"name": "Accept", "value": "application/json"},
    ]);
    let content = entry["response"]["content"]
        .as_object_mut()
        .expect("content");
    content.remove("text");
    // A size above 0: the answer had a body, which the exporter left out.
    content.insert("size".to_owned(), json!(420));
    entry
}

#[test]
fn a_har_without_bodies_says_so_in_its_verdict_line_and_every_report_in_the_same_words() {
    let dir = standin::scratch("traffic-har-verdict-line");
    let base = "https://api.example";
    let har = json!({"log": {"version": "1.2", "entries": [
        bodiless_entry(
            "GET",
            &format!("{base}/finops/v1/counterparts/cp-1/vat-ids/vat-1"),
            200,
            "application/json",
        ),
        bodiless_entry("GET", &format!("{base}/finops/v1/events?limit=2"), 200, "application/json"),
    ]}});
    let path = write_har(&dir, "bodiless.har", &har);
    let reports = dir.join("reports");

    let said = check_bare(&path, &reports);

    assert_eq!(said.code, Some(4), "INCOMPLETE:\n{}", said.all());
    let why = "the file holds no body of the 2 answer(s) judged: their body checks were not \
               judged, only their statuses";
    let line = said
        .stdout
        .lines()
        .find(|l| l.starts_with("covenant: INCOMPLETE"))
        .unwrap_or_else(|| panic!("a verdict line:\n{}", said.all()));
    assert!(
        line.starts_with(&format!("covenant: INCOMPLETE: {why}. ")),
        "{line}"
    );
    // Said once: no line after it repeats the reason.
    assert_eq!(said.stdout.matches(why).count(), 1, "{}", said.all());
    let sentence = format!("INCOMPLETE: {why}");
    let md = std::fs::read_to_string(reports.join("summary.md")).expect("summary.md");
    assert!(md.contains(&format!("## Covenant: ⚪ {sentence}")), "{md}");
    let html = std::fs::read_to_string(reports.join("summary.html")).expect("summary.html");
    assert!(
        html.contains(&format!("data-verdict=\"incomplete\">{sentence}</div>")),
        "{html}"
    );
    let xml = std::fs::read_to_string(reports.join("junit.xml")).expect("junit.xml");
    assert!(xml.contains(&format!("message=\"{sentence}\"")), "{xml}");
    let report = read_json(&reports.join("report.json"));
    assert_eq!(
        (&report["verdict"], &report["incomplete"]),
        (&json!("incomplete"), &json!(why))
    );
}

#[test]
fn a_request_breaking_two_rules_passes_any_answer_the_spec_allows_for_one_of_them() {
    let rt = runtime();
    let dir = standin::scratch("traffic-two-causes");
    let (_server, profile) = reference(&rt, &dir, &[]);
    let loaded = Profile::load(&profile).expect("the profile");
    let base = loaded.base_url.clone().expect("a base URL");
    let mut client = Client::new(base.trim_end_matches('/'), &loaded);
    rt.block_on(client.ordinary(false));
    let account = loaded
        .banking
        .as_ref()
        .and_then(|b| b.bank_account_id.clone())
        .expect("a bank account");
    let list = format!("/embedded-banking/v1/bank-accounts/{account}/transactions");
    let org = covenant::reference::ORG_HEADER;
    let finance_token = client.finance()[0].1.clone();
    let mut bank = client.banking();
    bank.push((org.to_owned(), "{}".to_owned()));
    // A malformed organization header with a token that is no banking token, or none at all.
    for token in [finance_token.as_str(), "Bearer "] {
        let headers = vec![
            ("authorization".to_owned(), token.to_owned()),
            (org.to_owned(), "{}".to_owned()),
        ];
        let (status, _) = rt.block_on(client.send("GET", &list, headers, Payload::None));
        assert_eq!(status, 401);
    }
    // With the banking token the target accepted: the malformed header alone, 400.
    let (status, _) = rt.block_on(client.send("GET", &list, bank, Payload::None));
    assert_eq!(status, 400);
    let path = dir.join("two-causes.har");
    client.har(&path);
    let said = check(&path, &profile, &dir.join("honest"), &[]);
    assert_eq!(said.code, Some(0), "{}", said.all());
    assert!(!said.stdout.contains("FAIL "), "{}", said.all());

    // Had the target refused the accepted token as invalid, it would break the rule.
    let mut har = read_json(&path);
    let entries = har["log"]["entries"].as_array_mut().expect("entries");
    let last = entries.last_mut().expect("an entry");
    last["response"]["status"] = json!(401);
    let path = write_har(&dir, "refused-as-invalid.har", &har);
    let said = check(&path, &profile, &dir.join("breach"), &[]);
    assert_eq!(said.code, Some(1), "{}", said.all());
    assert!(
        said.stdout
            .contains("FAIL BANK-ORG-HEADER-MALFORMED-400 GET /embedded-banking"),
        "{}",
        said.all()
    );
}

#[test]
fn a_finding_is_one_line_and_compare_sees_one_target_whatever_its_trailing_slash() {
    let rt = runtime();
    let dir = standin::scratch("traffic-one-line");
    let (server, profile) = reference(&rt, &dir, &[]);
    let base = server.base_url();
    let base = base.trim_end_matches('/');
    let html = "<html>\n<head><title>Oops</title></head>\n<body>\n<h1>Internal error</h1>\n\
                <p>Something went wrong.</p>\n</body>\n</html>\n";
    let har = json!({"log": {"version": "1.2", "entries": [
        entry("GET", &format!("{base}/finops/v1/events"), 200, "text/html", html)]}});
    let path = write_har(&dir, "html.har", &har);
    let said = check(&path, &profile, &dir.join("html"), &[]);
    assert_eq!(said.code, Some(1), "{}", said.all());
    let findings: Vec<&str> = said
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL ") || l.starts_with("WARN "))
        .collect();
    assert!(
        findings
            .iter()
            .any(|l| l.starts_with("FAIL GEN-JSON-BODY")
                && l.contains("<h1>Internal error</h1> <p>")),
        "the body shown on the finding's line:\n{}",
        said.all()
    );
    assert!(
        said.stdout
            .lines()
            .all(|l| !l.trim_start().starts_with('<')),
        "{}",
        said.all()
    );

    // The same report under a base URL with a trailing slash: one target, compared as such.
    let report = dir.join("html/report.json");
    let mut slashed = read_json(&report);
    slashed["meta"]["target"] = json!(format!("{base}/"));
    let other = dir.join("slashed");
    std::fs::create_dir_all(&other).expect("a directory");
    std::fs::write(other.join("report.json"), slashed.to_string()).expect("write");
    let said = compare(&dir.join("html"), &other, &[]);
    // Before and after, case by case (one target, one seed also gets the behaviour diff).
    assert_eq!(said.code, Some(0), "{}", said.all());
    assert!(
        said.stdout.contains("still failing (1)")
            && said.stdout.contains("no difference in behaviour")
            && !said.stdout.contains("different targets"),
        "{}",
        said.all()
    );
}

#[test]
fn traffic_through_the_proxy_to_a_target_answering_gzip_in_chunks_is_read_once_and_judged_clean() {
    use crate::support::wire::{in_front, Gzip, WireShape};
    let rt = runtime();
    let dir = standin::scratch("traffic-gzip");
    let (_server, behind) = reference(&rt, &dir, &[]);
    let shape = WireShape {
        gzip: Gzip::Always,
        chunked: true,
        ..WireShape::PLAIN
    };
    let profile = in_front(&rt, &behind, &dir, "gzip-front", shape);
    // The client decodes each answer once (it would fail on an answer decoded twice or left
    // coded without its header), and the proxy's verdicts are those of the HAR of the same
    // traffic, read decoded as a browser records it.
    let (proxied, checked) = judged(&rt, &dir, &profile, false, &[]);
    assert_eq!(proxied.code, Some(0), "{}", proxied.all());
    clean_cases(&proxied);
    clean_cases(&checked);
    let seen = verdicts(&dir.join("proxy-reports"));
    for case in ["traffic.list-events", "traffic.create-vat-id"] {
        let passed = (case.to_owned(), "pass".to_owned(), Vec::new());
        assert!(seen.contains(&passed), "{case} not passed: {seen:?}");
    }
}

/// A target on a bare socket: each connection's request head is read, then `answer` writes
/// what it likes on the socket and closes it.
fn raw_target(answer: fn(&mut std::net::TcpStream)) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                answer(&mut stream);
            });
        }
    });
    url
}

/// A 3 MiB answer, sent whole.
const LONG: usize = 3 << 20;

#[test]
fn the_proxy_passes_long_and_slow_answers_on_as_they_come_and_refuses_a_request_over_64_mib() {
    use std::io::Write;
    let rt = runtime();
    let dir = standin::scratch("traffic-streams");
    let (_server, profile) = reference(&rt, &dir, &[]);
    let http = crate::support::http().build().expect("a client");

    let long = raw_target(|s| {
        let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", LONG + 2);
        let _ = s.write_all(head.as_bytes());
        let _ = s.write_all(format!("\"{}\"", "a".repeat(LONG)).as_bytes());
    });
    let running = proxy(&profile, &dir.join("long"), &["--target", &long]);
    let body = rt.block_on(async {
        let answer = http
            .get(format!("{}/finops/v1/events", running.url))
            .send()
            .await
            .expect("the proxy answers");
        answer.bytes().await.expect("the whole body")
    });
    assert_eq!(body.len(), LONG + 2, "every byte passed on");
    drop(running.interrupt());

    // Chunks a second apart: the first reaches the client before the second is sent.
    let slow = raw_target(|s| {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
        let _ = s.write_all(head.as_bytes());
        let _ = s.write_all(b"1\r\n[\r\n");
        let _ = s.flush();
        std::thread::sleep(Duration::from_secs(1));
        let _ = s.write_all(b"1\r\n]\r\n0\r\n\r\n");
    });
    let running = proxy(&profile, &dir.join("slow"), &["--target", &slow]);
    let (first_at, whole) = rt.block_on(async {
        let started = Instant::now();
        let mut answer = http
            .get(format!("{}/finops/v1/events", running.url))
            .send()
            .await
            .expect("the proxy answers");
        let mut whole = answer
            .chunk()
            .await
            .expect("a chunk")
            .unwrap_or_default()
            .to_vec();
        let first_at = started.elapsed();
        while let Some(chunk) = answer.chunk().await.expect("a chunk") {
            whole.extend_from_slice(&chunk);
        }
        (first_at, whole)
    });
    assert!(
        first_at < Duration::from_millis(800),
        "the first chunk came after {first_at:?}"
    );
    assert_eq!(whole, b"[]");
    drop(running.interrupt());

    // A request body over 64 MiB: the proxy's own 413, and nothing sent on.
    let running = proxy(&profile, &dir.join("big"), &[]);
    let status = rt.block_on(async {
        http.post(format!("{}/finops/v1/receivables", running.url))
            .header("content-type", "application/json")
            .body(vec![b' '; (64 << 20) + 1])
            .send()
            .await
            .map(|a| a.status().as_u16())
    });
    assert!(matches!(status, Ok(413)), "{status:?}");
    drop(running.interrupt());
}
