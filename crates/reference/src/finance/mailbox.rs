//! Create mailbox domain: the one finance operation without `x-organization-id`.

use super::{gate, merge, parse_body, OrgHeader};
use crate::fault::Fault;
use crate::reply::{self, FieldError, Reply};
use crate::store::{rfc3339, App};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use std::sync::Arc;

/// Letters, digits, dots and hyphens; every dot-separated segment starts and ends with a
/// letter or digit.
fn domain_ok(app: &App, domain: &str) -> bool {
    let f = &app.faults;
    if f.has(Fault::DomainShortSegmentsRejected) && domain.split('.').any(|s| s.len() == 1) {
        return false;
    }
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if f.has(Fault::DomainAllDigitSegmentRefused) && domain.split('.').any(all_digits) {
        return false;
    }
    if f.has(Fault::DomainCharsetUnchecked) {
        return !domain.is_empty();
    }
    let edges_free = f.has(Fault::DomainSegmentEdgesUnchecked);
    let later_loose = f.has(Fault::DomainLaterSegmentsLoose);
    !domain.is_empty()
        && domain.split('.').enumerate().all(|(i, segment)| {
            let bytes = segment.as_bytes();
            let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
                return false;
            };
            bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
                && (edges_free
                    || (later_loose && i > 0)
                    || (first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric()))
        })
}

fn dns_record(app: &App, record_type: &str, name: &str, value: &str, purpose: &str) -> Value {
    let is_active = if app.faults.has(Fault::DnsIsActiveString) {
        json!("true")
    } else {
        json!(true)
    };
    json!({
        "is_active": is_active,
        "record_type": record_type,
        "valid": "unknown",
        "value": value,
        "name": name,
        "record_purpose": purpose,
    })
}

pub async fn create_mailbox_domain(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    merge(create_mailbox_inner(&app, &headers, &body))
}

fn create_mailbox_inner(app: &App, headers: &HeaderMap, body: &Bytes) -> Reply {
    gate(app, headers, OrgHeader::NotUsed)?;
    let value = parse_body(app, body)?;
    let f = &app.faults;
    let domain = match value.get("domain") {
        None => {
            return Err(reply::validation(
                f,
                &[FieldError::body("domain", "Field required", "missing")],
            ))
        }
        Some(Value::String(d)) if domain_ok(app, d) => d.clone(),
        Some(_) => {
            let msg = "domain must hold letters, digits, dots and hyphens, each segment starting and ending with a letter or digit";
            return Err(reply::validation(
                f,
                &[FieldError::body("domain", msg, "string_pattern_mismatch")],
            ));
        }
    };
    let (n, id, at) = {
        let mut db = app.db();
        db.mailbox_count += 1;
        (db.mailbox_count, db.uuid(), db.now())
    };
    let id = if f.has(Fault::MailboxIdNotUuid) {
        json!(format!("mbx_{n:04}"))
    } else {
        json!(id)
    };
    let shown = if f.has(Fault::DomainNotEchoed) {
        format!("mail.{domain}")
    } else {
        domain.clone()
    };
    let mut out = json!({
        "id": id,
        "domain": shown,
        "dns_records": {
            "receiving_dns_records": [
                dns_record(app, "MX", &domain, "10 mx.covenant.invalid", "receiving"),
            ],
            "sending_dns_records": [
                dns_record(app, "TXT", &domain, "v=spf1 include:spf.covenant.invalid ~all", "sending"),
                dns_record(app, "CNAME", &format!("dkim._domainkey.{domain}"), "dkim.covenant.invalid", "sending"),
            ],
        },
        "status": "pending",
        "dedicated_ip": if f.has(Fault::DedicatedIpHostName) {
            "outbound.mail.invalid"
        } else {
            "192.0.2.25"
        },
        "last_updated_at": rfc3339(at),
    });
    if f.has(Fault::MailboxDedicatedIpMissing) {
        out.as_object_mut().map(|m| m.remove("dedicated_ip"));
    }
    Ok(reply::json(StatusCode::CREATED, &out))
}
