//! The client side: a reference server started from a seed, requests written by hand over
//! TCP (so that a body goes out byte for byte: `1.0`, `1e2`, a key given twice), and the
//! bodies of the three operations the value classes are sent to.

use covenant_reference::{start, FaultSet, ReferenceConfig, RunningReference};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// An answer, read whole.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub text: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

/// A server and what its profile holds.
pub struct Server {
    pub running: RunningReference,
    counter: AtomicU64,
}

const RECEIVABLES: &str = "/finops/v1/receivables";
const VELOCITY: &str = "/embedded-banking/v1/authorization-controls/velocity-controls";
/// Stands in a body for a value written raw (see [`raw`]).
const SLOT: &str = "@raw-value@";

impl Server {
    pub async fn start(faults: FaultSet) -> Server {
        let config = ReferenceConfig {
            seed: 7,
            faults,
            ..ReferenceConfig::default()
        };
        let running = start(config).await.expect("the reference starts");
        Server {
            running,
            counter: AtomicU64::new(0),
        }
    }

    fn finops(&self) -> &covenant_contract::profile::FinopsProfile {
        let finops = self.running.profile().finops.as_ref();
        finops.expect("the reference profile has finops")
    }

    fn finance_headers(&self) -> Vec<(&'static str, String)> {
        let finops = self.finops();
        let token = finops.token.as_ref().expect("a finance token").expose();
        vec![
            ("authorization", format!("Bearer {token}")),
            (
                "x-finops-version",
                self.running.profile().finops_version().to_owned(),
            ),
            (
                "x-organization-id",
                finops.organization_id.clone().unwrap_or_default(),
            ),
            ("content-type", "application/json".to_owned()),
        ]
    }

    /// The smallest quote body, with one ordinary line item.
    pub fn quote(&self) -> Value {
        let finops = self.finops();
        json!({
            "type": "quote",
            "currency": "EUR",
            "counterpart_id": finops.counterpart_id,
            "line_items": [{
                "product": { "name": "Audit", "price": { "value": 1500, "currency": "EUR" },
                             "measure_unit": { "name": "hour" } },
                "quantity": 2,
                "vat_rate_id": finops.vat_rate_id,
            }],
        })
    }

    pub fn invoice(&self) -> Value {
        let mut body = self.quote();
        body["type"] = json!("invoice");
        body
    }

    /// The smallest velocity control body, with an id not used before.
    pub fn control(&self) -> Value {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        json!({
            "id": format!("vc-{n}"),
            "amountLimit": 150000,
            "currencyCode": "EUR",
            "name": "Daily spend",
            "velocityWindow": "DAY",
        })
    }

    pub async fn receivable(&self, body: &str) -> Resp {
        let headers = self.finance_headers();
        send(&self.running, "POST", RECEIVABLES, &headers, body).await
    }

    pub async fn vat(&self, value: &str) -> Resp {
        let counterpart = self.finops().counterpart_id.clone().unwrap_or_default();
        let path = format!("/finops/v1/counterparts/{counterpart}/vat-ids");
        let body = json!({ "value": value, "country": "DE", "type": "eu_vat" });
        let headers = self.finance_headers();
        send(&self.running, "POST", &path, &headers, &body.to_string()).await
    }

    pub async fn velocity(&self, body: &str) -> Resp {
        let headers = vec![
            (
                "authorization",
                format!("Bearer {}", self.bank_token().await),
            ),
            ("content-type", "application/json".to_owned()),
        ];
        send(&self.running, "POST", VELOCITY, &headers, body).await
    }

    async fn bank_token(&self) -> String {
        let banking = self.running.profile().banking.as_ref();
        let oauth = banking.and_then(|b| b.oauth.as_ref()).expect("oauth");
        let secret = oauth
            .client_secret
            .as_ref()
            .expect("a client secret")
            .expose();
        let form = format!(
            "grant_type=client_credentials&client_id={}&client_secret={secret}",
            oauth.client_id
        );
        let headers = [(
            "content-type",
            "application/x-www-form-urlencoded".to_owned(),
        )];
        let r = send(&self.running, "POST", "/oauth/token", &headers, &form).await;
        r.json()["access_token"]
            .as_str()
            .expect("a token")
            .to_owned()
    }
}

/// `body` as text with the member at `pointer` (its parent must exist) written as `value`
/// exactly: `raw(q, "/withholding_tax_rate", "1e2")`.
pub fn raw(mut body: Value, pointer: &str, value: &str) -> String {
    let (parent, key) = pointer.rsplit_once('/').expect("a JSON pointer");
    let slot = body.pointer_mut(parent).expect("the parent member exists");
    match slot {
        Value::Object(map) => {
            map.insert(key.to_owned(), json!(SLOT));
        }
        Value::Array(items) => items[key.parse::<usize>().expect("an index")] = json!(SLOT),
        _ => panic!("{parent} is neither an object nor an array"),
    }
    body.to_string().replace(&format!("\"{SLOT}\""), value)
}

/// `body` as text with the member at `pointer` set to `value`.
pub fn with(body: Value, pointer: &str, value: Value) -> String {
    raw(body, pointer, &value.to_string())
}

async fn send(
    server: &RunningReference,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> Resp {
    let addr = server.addr();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    // Plain blocking I/O on a thread of its own (the tokio of this build has no io-util).
    let answer = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(addr).expect("the reference listens");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("a timeout");
        stream.write_all(request.as_bytes()).expect("sent");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("read");
        String::from_utf8_lossy(&answer).into_owned()
    })
    .await
    .expect("the exchange ran");
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let text = if chunked {
        unchunk(body)
    } else {
        body.to_owned()
    };
    Resp { status, text }
}

/// A chunked body's data.
fn unchunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}
