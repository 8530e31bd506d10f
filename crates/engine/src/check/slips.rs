//! What one request shows of the client: the spec's asks of clients it breaks (its slips), and
//! what the target's answer to such a request must be where the spec says so. Also the status
//! checks an answer too long to keep still gets, and the stated success statuses.

use super::observed::Observed;
use super::{finding, Checked};
use crate::catalogue::Catalogue;
use crate::schema::{Area, OperationId, ParamLocation, Registry};
use crate::verdict::Finding;
use serde_json::Value;

/// One slip of the client's, and what the target must answer to it, where the spec says.
#[derive(Debug)]
pub struct Slip {
    pub finding: Finding,
    pub answer: Expected,
}

/// What the spec says the answer to a slip must be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expected {
    /// Nothing stated: the answer gets the generic checks alone.
    Unstated,
    /// Not a 2xx, under this rule.
    Refused(&'static str),
    /// This status, under this rule.
    Status(u16, &'static str),
}

/// The client's slips in `seen`, a request of `operation`.
pub fn slips(
    catalogue: &Catalogue,
    operation: OperationId,
    seen: &Observed,
    org_header: Option<&str>,
) -> Vec<Slip> {
    let mut out = Vec::new();
    credentials(catalogue, operation, seen, &mut out);
    headers(catalogue, operation, seen, org_header, &mut out);
    query(catalogue, operation, seen, &mut out);
    body(catalogue, operation, seen, &mut out);
    out
}

fn slip(catalogue: &Catalogue, rule: &str, message: String, answer: Expected) -> Slip {
    Slip {
        finding: finding(catalogue, rule, message),
        answer,
    }
}

/// A request without credentials: the spec asks for a bearer token in both areas, and says what
/// the finance area answers without one (401); the banking area must refuse it.
fn credentials(
    catalogue: &Catalogue,
    operation: OperationId,
    seen: &Observed,
    out: &mut Vec<Slip>,
) {
    let header = seen.request_header("authorization");
    // `Bearer ` with nothing after it (a client whose secret was not set) carries no token.
    let token = header.map(|v| match v.trim().split_once(' ') {
        Some((_, token)) => token.trim(),
        None if v.trim().eq_ignore_ascii_case("bearer") => "",
        None => v.trim(),
    });
    let message = match (header, token) {
        (_, Some(token)) if !token.is_empty() => return,
        (Some(v), _) if !v.trim().is_empty() => "the Authorization header carries no token",
        _ => "the request carries no Authorization header",
    };
    let (rule, answer) = match operation.area() {
        Area::Finance => (
            "AUTH-FIN-MISSING-401",
            Expected::Status(401, "AUTH-FIN-MISSING-401"),
        ),
        Area::Banking => (
            "AUTH-BANK-REQUIRED",
            Expected::Refused("AUTH-BANK-REQUIRED"),
        ),
    };
    out.push(slip(catalogue, rule, message.to_owned(), answer));
}

/// Required headers missing, and headers whose value is not of the stated format.
fn headers(
    catalogue: &Catalogue,
    operation: OperationId,
    seen: &Observed,
    org_header: Option<&str>,
    out: &mut Vec<Slip>,
) {
    for param in &operation.operation().parameters {
        if param.location != ParamLocation::Header {
            continue;
        }
        let Some(rule) = param.rule.as_deref() else {
            continue;
        };
        // The banking organization header's name is the profile's to give.
        let Some(name) = param.name.as_deref().or(org_header) else {
            continue;
        };
        let format = param.schema["format"].as_str();
        match seen.request_header(name) {
            None if param.required => out.push(slip(
                catalogue,
                rule,
                format!("the request carries no {name} header, which the spec requires"),
                Expected::Unstated,
            )),
            None => {}
            Some(value) if !of_format(format, value) => {
                // What the table says a malformed value breaks, and the status the spec states
                // for it where it states one (the banking organization header's 400).
                let answer = match (param.reject_rule.as_deref(), param.reject_status) {
                    (Some(rule), Some(status)) => Expected::Status(status, rule),
                    (Some(rule), None) => Expected::Refused(rule),
                    (None, _) => Expected::Unstated,
                };
                let rule = match answer {
                    Expected::Status(_, rule) => rule,
                    _ => rule,
                };
                out.push(slip(
                    catalogue,
                    rule,
                    format!(
                        "the {name} header is not a {} as the spec states",
                        format.unwrap_or("value")
                    ),
                    answer,
                ));
            }
            Some(_) => {}
        }
    }
}

fn of_format(format: Option<&str>, value: &str) -> bool {
    match format {
        Some("date") => crate::profile::is_iso_date(value),
        Some("uuid") => crate::profile::is_uuid(value),
        _ => true,
    }
}

/// Query values outside what the spec states for them (an order not listed, a limit out of
/// range). What the target answers is not stated; the generic checks and the page checks judge it.
fn query(catalogue: &Catalogue, operation: OperationId, seen: &Observed, out: &mut Vec<Slip>) {
    let params = &operation.operation().parameters;
    for (name, value) in seen.query() {
        let Some(param) = params.iter().find(|p| {
            p.location == ParamLocation::Query && p.name.as_deref() == Some(name.as_str())
        }) else {
            continue;
        };
        let Some(rule) = param.rule.as_deref() else {
            continue;
        };
        if let Some(why) = breaks(&param.schema, &value) {
            out.push(slip(
                catalogue,
                rule,
                format!("query parameter {name}: {why}"),
                Expected::Unstated,
            ));
        }
    }
}

/// Why `value` breaks a query parameter's `schema` (listed values, an integer's range).
fn breaks(schema: &Value, value: &str) -> Option<String> {
    if let Some(listed) = schema["enum"].as_array() {
        if !listed.iter().any(|v| v.as_str() == Some(value)) {
            return Some(format!("{value:?} is not one of {listed:?}"));
        }
    }
    if schema["type"] == "integer" {
        let Ok(n) = value.parse::<i64>() else {
            return Some(format!("{value:?} is not an integer"));
        };
        let below = schema["minimum"].as_i64().is_some_and(|min| n < min);
        let above = schema["maximum"].as_i64().is_some_and(|max| n > max);
        if below || above {
            return Some(format!(
                "{n} is outside {} to {}",
                schema["minimum"], schema["maximum"]
            ));
        }
    }
    None
}

/// A body the operation's request schema refuses (for a receivable, the shape its `type` and
/// `based_on` choose), or none where the operation takes one: the target must not accept it.
fn body(catalogue: &Catalogue, operation: OperationId, seen: &Observed, out: &mut Vec<Slip>) {
    let Some(declared) = operation.operation().request_body.as_deref() else {
        return;
    };
    let refused = Expected::Refused("GEN-REJECT-NOT-2XX");
    if seen.request_body.iter().all(u8::is_ascii_whitespace) {
        out.push(slip(
            catalogue,
            "GEN-REJECT-NOT-2XX",
            "the request has no body, where the operation takes one".to_owned(),
            refused,
        ));
        return;
    }
    let Ok(json) = serde_json::from_slice::<Value>(&seen.request_body) else {
        out.push(slip(
            catalogue,
            "GEN-REJECT-NOT-2XX",
            "the request body is not JSON".to_owned(),
            refused,
        ));
        return;
    };
    let stem = request_stem(declared, &json);
    let Err(issues) = Registry::embedded().validate(stem, &json) else {
        return;
    };
    for issue in issues.into_iter().take(10) {
        let rule = issue
            .rule
            .filter(|r| catalogue.rule(r).is_some())
            .unwrap_or_else(|| "GEN-REJECT-NOT-2XX".to_owned());
        let at = if issue.instance_path.is_empty() {
            "/"
        } else {
            issue.instance_path.as_str()
        };
        out.push(slip(
            catalogue,
            &rule,
            format!("the request body breaks {stem} at {at}: {}", issue.message),
            refused,
        ));
    }
}

/// The schema a receivable body is judged against is the shape it names; other bodies have one.
fn request_stem<'s>(declared: &'s str, body: &Value) -> &'s str {
    if declared != "receivable-create" {
        return declared;
    }
    match (body.get("based_on").is_some(), body["type"].as_str()) {
        (true, _) => "based-on-create",
        (false, Some("quote")) => "quote-create",
        (false, Some("invoice")) => "invoice-create",
        _ => declared,
    }
}

/// The statuses the spec allows for the request's `others` slips, or for a credential the
/// target has not shown it accepts (`trusted` false): where a request breaks several stated
/// rules, the answer any one of them states passes. A token the target never accepted may be
/// refused as invalid (401), whichever other rule the request breaks.
pub fn also_allowed<'s>(others: impl Iterator<Item = &'s Slip>, trusted: bool) -> Vec<u16> {
    let mut allowed: Vec<u16> = Vec::new();
    if !trusted {
        allowed.push(401);
    }
    for other in others {
        match other.answer {
            Expected::Status(status, _) => allowed.push(status),
            // A request its credentials fail is refused as unauthenticated.
            Expected::Refused("AUTH-BANK-REQUIRED") => allowed.extend([401, 403]),
            _ => {}
        }
    }
    allowed
}

/// The target's answer to a slip, judged where the spec states what it must be; a status
/// another cause of the request allows (`allowed`, [`also_allowed`]) passes too.
pub fn answer_to(catalogue: &Catalogue, slip: &Slip, status: u16, allowed: &[u16]) -> Checked {
    let mut out = Checked::default();
    match slip.answer {
        Expected::Unstated => {}
        Expected::Refused(rule) => {
            out.judged.push(rule);
            if (200..300).contains(&status) {
                out.findings.push(finding(
                    catalogue,
                    rule,
                    format!(
                        "the target accepted with {status} a request it must refuse ({}: {})",
                        slip.finding.rule, slip.finding.message
                    ),
                ));
            }
        }
        Expected::Status(want, rule) => {
            out.judged.push(rule);
            if status != want && !allowed.contains(&status) {
                out.findings.push(
                    finding(
                        catalogue,
                        rule,
                        format!(
                            "the target answered {status} where the spec states {want} ({})",
                            slip.finding.message
                        ),
                    )
                    .with_diff(&want.to_string(), &status.to_string()),
                );
            }
        }
    }
    out
}

/// The checks an answer gets whose body was too long to keep: its status alone.
pub fn status_only(catalogue: &Catalogue, operation: OperationId, status: u16) -> Checked {
    let mut out = Checked::default();
    crate::check::no_5xx(catalogue, status, &mut out);
    crate::check::declared_status(catalogue, operation, status, &mut out);
    out
}

/// A success of an operation whose success status the spec states (201 for a receivable and a
/// velocity control) must be that status.
pub fn stated_success(catalogue: &Catalogue, operation: OperationId, status: u16) -> Checked {
    let mut out = Checked::default();
    let rule = match operation {
        OperationId::CreateReceivable => "RCV-CREATE-201",
        OperationId::CreateVelocityControl => "VC-CREATE-201",
        _ => return out,
    };
    let stated = &operation.operation().success_statuses;
    if !(200..300).contains(&status) || stated.is_empty() {
        return out;
    }
    out.judged.push(rule);
    if !stated.contains(&status) {
        out.findings.push(
            finding(
                catalogue,
                rule,
                format!("a success answered {status} where the spec states {stated:?}"),
            )
            .with_diff(&format!("{stated:?}"), &status.to_string()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Observed {
        Observed {
            method: method.to_owned(),
            target: target.to_owned(),
            request_headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            request_body: body.as_bytes().to_vec(),
            answer: None,
            failure: None,
            origin: None,
            outside: false,
            duration_ms: 0.0,
        }
    }

    fn rules(slips: &[Slip]) -> Vec<&str> {
        slips.iter().map(|s| s.finding.rule.as_str()).collect()
    }

    const FINANCE: [(&str, &str); 3] = [
        ("Authorization", "Bearer t0ken"),
        ("x-finops-version", "2026-09-24"),
        ("x-organization-id", "3fa85f64-5717-4562-b3fc-2c963f66afa6"),
    ];

    #[test]
    fn a_request_that_keeps_the_spec_is_no_slip() {
        let c = Catalogue::embedded();
        let s = seen("GET", "/finops/v1/events?limit=2&order=desc", &FINANCE, "");
        assert!(slips(c, OperationId::ListEvents, &s, None).is_empty());
        let body = r#"{"text":"hi","vendor":"x"}"#;
        let s = seen("PATCH", "/finops/v1/comments/c", &FINANCE, body);
        let found = slips(c, OperationId::UpdateComment, &s, None);
        assert!(
            found.is_empty(),
            "unknown properties of a comment update are left open: {found:?}"
        );
    }

    #[test]
    fn a_missing_version_header_and_an_unknown_receivable_property_are_slips() {
        let c = Catalogue::embedded();
        let s = seen("GET", "/finops/v1/events", &FINANCE[..1], "");
        let found = slips(c, OperationId::ListEvents, &s, None);
        assert_eq!(rules(&found), ["VER-FINOPS-HEADER", "FIN-ORG-ISOLATION"]);
        let body = r#"{"based_on":"3fa85f64-5717-4562-b3fc-2c963f66afa6","type":"invoice","colour":"red"}"#;
        let s = seen("POST", "/finops/v1/receivables", &FINANCE, body);
        let found = slips(c, OperationId::CreateReceivable, &s, None);
        assert!(rules(&found).contains(&"RCV-UNKNOWN-PROPS"), "{found:?}");
        assert_eq!(found[0].answer, Expected::Refused("GEN-REJECT-NOT-2XX"));
    }

    #[test]
    fn the_answer_to_a_slip_is_judged_only_where_the_spec_states_it() {
        let c = Catalogue::embedded();
        let s = seen("GET", "/finops/v1/events?limit=0", &FINANCE[1..], "");
        let found = slips(c, OperationId::ListEvents, &s, None);
        assert_eq!(
            rules(&found),
            ["AUTH-FIN-MISSING-401", "EVT-LIMIT-RANGE-REJECT"]
        );
        assert_eq!(answer_to(c, &found[0], 401, &[]).findings, []);
        assert_eq!(answer_to(c, &found[0], 403, &[]).findings.len(), 1);
        assert!(answer_to(c, &found[1], 200, &[]).findings.is_empty());
        let org = [("Authorization", "Bearer t"), ("x-org", "not-a-uuid")];
        let s = seen(
            "GET",
            "/embedded-banking/v1/bank-accounts/a/transactions",
            &org,
            "",
        );
        let found = slips(c, OperationId::ListTransactions, &s, Some("x-org"));
        assert_eq!(rules(&found), ["BANK-ORG-HEADER-MALFORMED-400"]);
        assert_eq!(answer_to(c, &found[0], 400, &[]).findings, []);
        assert_eq!(answer_to(c, &found[0], 401, &[]).findings.len(), 1);
        let allowed = also_allowed(std::iter::empty(), false);
        assert_eq!(answer_to(c, &found[0], 401, &allowed).findings, []);
        let empty = [("Authorization", "Bearer "), ("x-org", "{}")];
        let s = seen(
            "GET",
            "/embedded-banking/v1/bank-accounts/a/transactions",
            &empty,
            "",
        );
        let found = slips(c, OperationId::ListTransactions, &s, Some("x-org"));
        assert_eq!(
            rules(&found),
            ["AUTH-BANK-REQUIRED", "BANK-ORG-HEADER-MALFORMED-400"]
        );
        let allowed = also_allowed(found.iter().take(1), true);
        assert_eq!(answer_to(c, &found[1], 401, &allowed).findings, []);
    }

    #[test]
    fn a_success_of_a_create_whose_status_the_spec_states_must_be_that_status() {
        let c = Catalogue::embedded();
        let vc = OperationId::CreateVelocityControl;
        assert_eq!(stated_success(c, vc, 201).findings, []);
        assert_eq!(stated_success(c, vc, 200).findings[0].rule, "VC-CREATE-201");
        assert!(stated_success(c, OperationId::CreateVatId, 200)
            .judged
            .is_empty());
        assert!(stated_success(c, vc, 409).judged.is_empty());
    }
}
