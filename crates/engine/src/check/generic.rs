//! The generic checks every answer of every case gets, so that no case can forget them: no 5xx,
//! JSON bodies with a JSON media type, the spec's error bodies, the declared status set, the
//! success schema of the operation, and a created quote's answer against its body.

use super::finding::{finding, Checked};
use super::{http, json, receivable};
use crate::catalogue::Catalogue;
use crate::client::{Body, Request, Response};
use crate::schema::{Area, OperationId, Registry};
use crate::verdict::Finding;

/// The schema a success response of `operation` to `request` must keep: the response to a quote
/// body is a quote, whose fields the spec lists; any other receivable response may be any of the
/// three shapes, since those of invoices and credit notes are not shown.
fn success_stem<'s>(operation: OperationId, declared: &'s str, request: &Request) -> &'s str {
    match quote_body(operation, request) {
        Some(_) => QUOTE_RESPONSE,
        None => declared,
    }
}

/// The quote body of a create receivable request (type quote, no based_on), if it is one.
fn quote_body(operation: OperationId, request: &Request) -> Option<&serde_json::Value> {
    let body = request.body.as_ref().and_then(Body::json)?;
    let quote = body["type"] == "quote" && body.get("based_on").is_none();
    (operation == OperationId::CreateReceivable && quote).then_some(body)
}

/// Every rule the checks of this module can judge on some answer of `operation`, whatever its
/// status and body: what [`generic`] may add to `judged` for it. `--filter RULE-ID` selects a
/// case by these as well as by the rules it names, since a rule that only a schema holds
/// (`CMT-STATUS-ENUM`) is judged on the answers of the operations whose schema carries it.
pub fn answer_rules(operation: OperationId) -> Vec<&'static str> {
    let op = operation.operation();
    let registry = Registry::embedded();
    let mut rules = vec![
        "GEN-NO-5XX",
        "GEN-JSON-BODY",
        "GEN-JSON-CONTENT-TYPE",
        json::NO_BOM,
        json::NO_NAN,
        http::CHALLENGE,
        http::ALLOW,
    ];
    if op.declared_statuses.is_some() {
        rules.push("RCV-STATUS-SET");
    }
    rules.push(op.success_rule.as_str());
    if operation == OperationId::CreateReceivable {
        rules.extend(receivable::RULES);
    }
    let success = op.success_schema.iter().map(String::as_str);
    let quote = (operation == OperationId::CreateReceivable).then_some(QUOTE_RESPONSE);
    let errors: &[&str] = match op.area {
        Area::Finance => &["ERR-FIN-BODY", "ERR-FIN-422-BODY"],
        Area::Banking => &["ERR-BANK-BODY", "ERR-BANK-STATUS-MATCH"],
    };
    rules.extend(errors);
    let error_stems = [op.error_schema.as_str()]
        .into_iter()
        .chain(op.validation_error_schema.as_deref());
    for stem in success.chain(quote).chain(error_stems) {
        rules.extend(registry.rules_of(stem).iter().map(String::as_str));
    }
    rules.retain(|r| *r != "GEN-REJECT-NOT-2XX");
    rules.sort_unstable();
    rules.dedup();
    rules
}

/// The schema of the answer to a quote body, whose fields the spec lists.
const QUOTE_RESPONSE: &str = "quote-response";

/// The checks every response of `operation` to `request` must pass.
pub fn generic(
    catalogue: &Catalogue,
    operation: OperationId,
    request: &Request,
    response: &Response,
) -> Checked {
    let mut out = Checked::default();
    let status = response.status;
    no_5xx(catalogue, status, &mut out);
    json_body(catalogue, response, &mut out);
    let op = operation.operation();
    http::challenge(catalogue, op.area, response, &mut out);
    http::allow(catalogue, op.method.as_str(), request, response, &mut out);
    declared_status(catalogue, operation, status, &mut out);
    if (200..300).contains(&status) {
        if let (Some(declared), Some(_)) = (&op.success_schema, &response.json) {
            let stem = success_stem(operation, declared, request);
            let rule = op.success_rule.as_str();
            out.judged.extend(schema_rules(catalogue, stem, rule));
            out.findings
                .extend(schema_findings(catalogue, stem, response, rule));
        }
        if let (Some(sent), Some(answer)) = (quote_body(operation, request), &response.json) {
            receivable::quote_answer(catalogue, sent, answer, &mut out);
        }
    } else if (400..500).contains(&status) {
        error_body_findings(catalogue, op.area, response, &mut out);
    }
    out
}

/// Every body is JSON ("All request and response bodies are JSON"): a body that does not parse
/// fails, and so does one its Content-Type labels as something else (`text/html`, `text/plain`),
/// since that label says it is not JSON. An empty body is no body at all, never a non-JSON one.
/// A JSON body with no media type, or a JSON-like one that is not `application/json` or `+json`
/// (`text/json`), only warns: the spec names no media type.
pub fn json_body(catalogue: &Catalogue, response: &Response, out: &mut Checked) {
    let status = response.status;
    if response.body.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    out.judged
        .extend(["GEN-JSON-BODY", json::NO_BOM, json::NO_NAN]);
    let label = response.header("content-type");
    if response.json.is_none() {
        // JSON but for what RFC 8259 forbids: one finding, under the rule that forbids it.
        if let Some((rule, message)) = json::near_miss(&response.body) {
            out.findings
                .push(finding(catalogue, rule, format!("{status}: {message}")));
            return;
        }
        out.findings.push(finding(
            catalogue,
            "GEN-JSON-BODY",
            format!(
                "the {status} response body is not JSON: {}",
                crate::client::snippet(response)
            ),
        ));
        return;
    }
    out.judged.push("GEN-JSON-CONTENT-TYPE");
    if labelled_not_json(label) {
        out.findings.push(finding(
            catalogue,
            "GEN-JSON-BODY",
            format!(
                "the {status} response body is labelled {:?}, which is not JSON",
                label.unwrap_or_default()
            ),
        ));
    } else if !is_json_media_type(label) {
        out.findings.push(finding(
            catalogue,
            "GEN-JSON-CONTENT-TYPE",
            format!(
                "a JSON body is served as {:?}",
                label.unwrap_or("(no content type)")
            ),
        ));
    }
}

/// Whether a Content-Type names a media type that is not JSON at all (no `json` in it):
/// `text/plain`, `text/html`, `application/octet-stream`. No label is not a label of another type.
fn labelled_not_json(value: Option<&str>) -> bool {
    let Some(value) = value else { return false };
    let essence = value.split(';').next().unwrap_or("").trim();
    !essence.is_empty() && !essence.to_ascii_lowercase().contains("json")
}

/// No 5xx: what every answer is judged on, its body aside.
pub fn no_5xx(catalogue: &Catalogue, status: u16, out: &mut Checked) {
    out.judged.push("GEN-NO-5XX");
    if status >= 500 {
        out.findings.push(finding(
            catalogue,
            "GEN-NO-5XX",
            format!("the target answered {status}"),
        ));
    }
}

/// The status is one the spec declares, where it declares the operation's whole set.
pub fn declared_status(
    catalogue: &Catalogue,
    operation: OperationId,
    status: u16,
    out: &mut Checked,
) {
    let Some(declared) = &operation.operation().declared_statuses else {
        return;
    };
    out.judged.push("RCV-STATUS-SET");
    if !declared.contains(&status) {
        out.findings.push(
            finding(
                catalogue,
                "RCV-STATUS-SET",
                format!(
                    "{status} where the spec states one of {}",
                    declared
                        .iter()
                        .map(u16::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .with_diff(&format!("{declared:?}"), &status.to_string()),
        );
    }
}

fn error_body_findings(catalogue: &Catalogue, area: Area, response: &Response, out: &mut Checked) {
    let (stem, rule) = match (area, response.status) {
        (Area::Finance, 422) => ("finance-validation-error", "ERR-FIN-422-BODY"),
        (Area::Finance, _) => ("finance-error", "ERR-FIN-BODY"),
        (Area::Banking, _) => ("banking-error", "ERR-BANK-BODY"),
    };
    out.judged.extend(schema_rules(catalogue, stem, rule));
    if response.json.is_none() {
        out.findings.push(finding(
            catalogue,
            rule,
            format!("the {} response has no JSON error body", response.status),
        ));
        return;
    }
    out.findings
        .extend(schema_findings(catalogue, stem, response, rule));
    if area == Area::Banking {
        if let Some(body_status) = response.pointer("/status").and_then(|v| v.as_u64()) {
            out.judged.push("ERR-BANK-STATUS-MATCH");
            if body_status != u64::from(response.status) {
                out.findings.push(
                    finding(
                        catalogue,
                        "ERR-BANK-STATUS-MATCH",
                        "the error body's status differs from the HTTP status",
                    )
                    .with_diff(&response.status.to_string(), &body_status.to_string()),
                );
            }
        }
    }
}

/// The rules a validation against `stem` judges (see [`schema_findings`]): `fallback_rule` and
/// every catalogue rule the schema names, request-side rejection aside.
pub fn schema_rules<'f>(catalogue: &Catalogue, stem: &str, fallback_rule: &'f str) -> Vec<&'f str> {
    let named = Registry::embedded()
        .rules_of(stem)
        .iter()
        .map(String::as_str)
        .filter(|r| *r != "GEN-REJECT-NOT-2XX" && catalogue.rule(r).is_some());
    std::iter::once(fallback_rule).chain(named).collect()
}

/// Schema validation of a response body, one finding per issue, under the nearest `x-rule`
/// (else `fallback_rule`).
pub fn schema_findings(
    catalogue: &Catalogue,
    stem: &str,
    response: &Response,
    fallback_rule: &str,
) -> Vec<Finding> {
    let Some(json) = &response.json else {
        return vec![finding(
            catalogue,
            fallback_rule,
            format!("expected a JSON body valid against {stem}"),
        )];
    };
    match Registry::embedded().validate(stem, json) {
        Ok(()) => Vec::new(),
        Err(issues) => issues
            .into_iter()
            .take(10)
            .map(|issue| {
                let rule = issue
                    .rule
                    .filter(|r| catalogue.rule(r).is_some() && r.as_str() != "GEN-REJECT-NOT-2XX")
                    .unwrap_or_else(|| fallback_rule.to_owned());
                let at = if issue.instance_path.is_empty() {
                    "/".to_owned()
                } else {
                    issue.instance_path
                };
                finding(
                    catalogue,
                    &rule,
                    format!("{stem} at {at}: {}", issue.message),
                )
            })
            .collect(),
    }
}

/// `application/json` or any `+json` type, parameters aside.
pub fn is_json_media_type(value: Option<&str>) -> bool {
    let Some(value) = value else { return false };
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, content_type: Option<&str>, body: &str) -> Response {
        Response {
            status,
            headers: content_type
                .map(|c| vec![("content-type".to_owned(), c.to_owned())])
                .unwrap_or_default(),
            body: body.as_bytes().to_vec(),
            json: serde_json::from_str(body).ok(),
        }
    }

    fn get() -> Request {
        Request::new(reqwest::Method::GET, "/")
    }

    fn generic_findings(c: &Catalogue, op: OperationId, r: &Response) -> Vec<Finding> {
        generic(c, op, &get(), r).findings
    }

    fn rules(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn json_media_types_are_recognised() {
        assert!(is_json_media_type(Some("application/json; charset=utf-8")));
        assert!(is_json_media_type(Some("application/problem+json")));
        assert!(!is_json_media_type(Some("text/plain")));
        assert!(!is_json_media_type(None));
    }

    #[test]
    fn a_5xx_and_a_non_json_body_are_findings() {
        let c = Catalogue::embedded();
        let f = generic_findings(
            c,
            OperationId::GetVatId,
            &response(503, Some("text/html"), "<html>"),
        );
        assert!(rules(&f).contains(&"GEN-NO-5XX"));
        assert!(rules(&f).contains(&"GEN-JSON-BODY"));
    }

    #[test]
    fn json_labelled_as_text_fails_and_json_without_a_label_only_warns() {
        let c = Catalogue::embedded();
        for label in ["text/plain", "text/html; charset=utf-8"] {
            let f = generic_findings(c, OperationId::DeleteTag, &response(200, Some(label), "{}"));
            assert_eq!(rules(&f), vec!["GEN-JSON-BODY"], "{label}");
            assert_eq!(f[0].level, crate::catalogue::Level::Must);
        }
        for label in [None, Some("text/json")] {
            let f = generic_findings(c, OperationId::DeleteTag, &response(200, label, "{}"));
            assert_eq!(rules(&f), vec!["GEN-JSON-CONTENT-TYPE"], "{label:?}");
            assert_eq!(f[0].level, crate::catalogue::Level::Should);
        }
    }

    #[test]
    fn an_empty_body_is_never_a_non_json_body() {
        let c = Catalogue::embedded();
        for (status, label) in [
            (204, Some("text/plain")),
            (405, Some("text/html")),
            (405, None),
        ] {
            let mut out = Checked::default();
            json_body(c, &response(status, label, " "), &mut out);
            assert!(
                out.findings.is_empty(),
                "{status} {label:?}: {:?}",
                out.findings
            );
        }
    }

    #[test]
    fn finance_error_without_the_error_body_is_a_finding() {
        let c = Catalogue::embedded();
        let f = generic_findings(
            c,
            OperationId::GetVatId,
            &response(404, Some("application/json"), r#"{"message":"no"}"#),
        );
        assert!(rules(&f).contains(&"ERR-FIN-BODY"), "{f:?}");
        let ok = generic_findings(
            c,
            OperationId::GetVatId,
            &response(
                404,
                Some("application/json"),
                r#"{"error":{"message":"no"}}"#,
            ),
        );
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn every_rule_a_response_was_judged_against_is_evidence() {
        let c = Catalogue::embedded();
        let error = response(
            404,
            Some("application/json"),
            r#"{"error":{"message":"no"}}"#,
        );
        let judged = generic(c, OperationId::GetVatId, &get(), &error).judged;
        for rule in [
            "GEN-NO-5XX",
            "GEN-JSON-BODY",
            "GEN-JSON-CONTENT-TYPE",
            "ERR-FIN-BODY",
        ] {
            assert!(judged.contains(&rule), "{rule} missing from {judged:?}");
        }
        assert!(!judged.contains(&"VAT-RESPONSE"), "{judged:?}");
        let empty = generic(c, OperationId::DeleteTag, &get(), &response(204, None, "")).judged;
        assert_eq!(empty, vec!["GEN-NO-5XX"]);
        let bank = response(
            400,
            Some("application/json"),
            r#"{"detail":"d","errorCode":"e","instance":"i","status":400,"title":"t","type":"x"}"#,
        );
        let judged = generic(c, OperationId::ListTransactions, &get(), &bank).judged;
        assert!(judged.contains(&"ERR-BANK-BODY") && judged.contains(&"ERR-BANK-STATUS-MATCH"));
    }

    #[test]
    fn a_success_body_is_evidence_for_every_rule_its_schema_names() {
        let c = Catalogue::embedded();
        let rules = schema_rules(c, "vat-id", "VAT-RESPONSE");
        for rule in [
            "VAT-RESPONSE",
            "VAT-COUNTRY-ENUM",
            "VAT-TYPE-ENUM",
            "GEN-IDS-UUID",
        ] {
            assert!(rules.contains(&rule), "{rule} missing from {rules:?}");
        }
        let page = schema_rules(c, "events-page", "EVT-PAGE-SHAPE");
        assert!(page.contains(&"EVT-ITEM"), "$refs are followed: {page:?}");
    }

    #[test]
    fn create_receivable_status_outside_the_declared_set_fails() {
        let c = Catalogue::embedded();
        let f = generic_findings(
            c,
            OperationId::CreateReceivable,
            &response(
                418,
                Some("application/json"),
                r#"{"error":{"message":"x"}}"#,
            ),
        );
        assert!(rules(&f).contains(&"RCV-STATUS-SET"), "{f:?}");
    }

    #[test]
    fn an_iso_8601_date_time_without_offset_only_warns_and_one_that_is_none_fails() {
        let c = Catalogue::embedded();
        let comment = |created_at: &str| {
            response(
                200,
                Some("application/json"),
                &serde_json::json!({"id": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "created_at": created_at})
                    .to_string(),
            )
        };
        // The rules of the findings at created_at (the rest of the comment is left out).
        let found = |at: &str| {
            generic_findings(c, OperationId::UpdateComment, &comment(at))
                .into_iter()
                .filter(|f| f.message.contains("/created_at"))
                .map(|f| f.rule)
                .collect::<Vec<_>>()
        };
        assert!(found("2026-09-24T10:15:30.123Z").is_empty());
        assert!(found("2026-09-24T10:15:30+02:00").is_empty());
        assert_eq!(found("2026-09-24T10:15:30.123"), ["GEN-DATE-TIME-RFC3339"]);
        let none = found("yesterday");
        assert!(none.contains(&"CMT-RESPONSE".to_string()), "{none:?}");
        let level = c.rule("GEN-DATE-TIME-RFC3339").map(|r| r.level);
        assert_eq!(level, Some(crate::catalogue::Level::Should));
    }

    #[test]
    fn the_response_to_a_quote_body_must_be_a_quote_and_others_may_be_any_shape() {
        let c = Catalogue::embedded();
        let created = response(
            201,
            Some("application/json"),
            r#"{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6","created_at":"2026-09-24T10:15:30Z",
                "updated_at":"2026-09-24T10:15:30Z","counterpart_id":"6b1e2f0a-9c4d-4e8b-a1f2-3c4d5e6f7a8b",
                "currency":"EUR","line_items":[],"expiry_date":"31/12/2026"}"#,
        );
        let findings = |body: serde_json::Value| {
            let request = Request::post("/finops/v1/receivables", body);
            generic(c, OperationId::CreateReceivable, &request, &created).findings
        };
        let quote = findings(serde_json::json!({"type": "quote", "expiry_date": "2026-12-31"}));
        assert_eq!(rules(&quote), ["RCV-QUOTE-RESPONSE"], "{quote:?}");
        assert!(quote[0].message.contains("expiry_date"), "{quote:?}");
        // An invoice's and a based-on document's shapes are not shown: any object is one.
        assert!(findings(serde_json::json!({"type": "invoice"})).is_empty());
        let based_on = serde_json::json!({"type": "quote", "based_on": "3fa85f64-5717-4562-b3fc-2c963f66afa6"});
        assert!(findings(based_on).is_empty());
    }
}
