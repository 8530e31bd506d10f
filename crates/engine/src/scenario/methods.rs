//! Methods the spec does not list on the paths it states. Create receivable states 405, and
//! "Operations of the service other than those listed: not shown": so whatever a target answers
//! (a refusal, or an operation of its own), every body is JSON, and an error carries the area's
//! error body. Which status a refusal takes is not judged, but a 405 lists, in `Allow`, the
//! method the spec states on the path (RFC 9110 §15.5.6).
//!
//! The requests can change nothing: reads (GET) where the spec lists only a write, and an empty
//! PATCH naming ids that name nothing where it lists only a read. A DELETE is never sent (only
//! the profile's deletable fixtures are ever deleted).

use super::absent_uuid;
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::check::{self, Checked};
use crate::client::{Request, Response};
use crate::schema::{Area, OperationId, Registry};
use reqwest::Method;
use serde_json::json;

/// The rule of an error answered to an unlisted method.
const BODY: &str = "GEN-UNLISTED-METHOD-BODY";
/// The rule every body is judged under.
const JSON: &str = "GEN-JSON-BODY";

pub fn cases() -> Vec<Case> {
    [Area::Finance, Area::Banking]
        .into_iter()
        .map(|area| {
            let (name, first) = match area {
                Area::Finance => ("finance", OperationId::CreateReceivable),
                Area::Banking => ("banking", OperationId::CreateVelocityControl),
            };
            let requests = of_area(area).count();
            Case::new(
                &format!("methods.unlisted-{name}"),
                first,
                &[BODY, JSON, check::http::ALLOW],
                case_fn(move |cx| Box::pin(unlisted(cx, area))),
            )
            .writes()
            .requests(requests)
        })
        .collect()
}

fn of_area(area: Area) -> impl Iterator<Item = OperationId> {
    OperationId::ALL
        .into_iter()
        .filter(move |op| op.area() == area)
}

/// The request of a method the spec does not list on the path of `op`: GET where it lists a
/// write (create, update, delete), an empty PATCH where it lists a read. Path ids are the
/// profile's where a GET reads a collection, ids that name nothing otherwise.
fn unlisted_request(cx: &CaseCx, op: OperationId) -> Request {
    let collection = matches!(
        op,
        OperationId::CreateReceivable
            | OperationId::CreateVatId
            | OperationId::CreateMailboxDomain
            | OperationId::CreateVelocityControl
    );
    let mut request = if collection {
        cx.call(op).request()
    } else {
        let none: Vec<String> = (0..op.path_parameters())
            .map(|i| absent_uuid(&format!("covenant-unlisted-{op}-{i}")))
            .collect();
        let none: Vec<&str> = none.iter().map(String::as_str).collect();
        cx.call(op).path(&none).request()
    };
    request.body = None;
    if op.operation().method == crate::schema::Method::Get {
        request.method = Method::PATCH;
        request = request.json(json!({}));
    } else {
        request.method = Method::GET;
    }
    request
}

async fn unlisted(cx: &mut CaseCx, area: Area) -> Outcome {
    for op in of_area(area) {
        let request = unlisted_request(cx, op);
        cx.send_unlisted(request, move |cx, request, response| {
            judge(cx, op, request, response);
        })
        .await?;
    }
    Ok(())
}

/// Every body is JSON; an error's body is the area's error body; a 405 names the method the
/// spec states on the path in its `Allow`.
fn judge(cx: &mut CaseCx, op: OperationId, request: &Request, response: &Response) {
    let area = op.area();
    let mut out = Checked::default();
    check::json_body(cx.run.catalogue, response, &mut out);
    let listed = op.operation().method.as_str();
    check::http::allow(cx.run.catalogue, listed, request, response, &mut out);
    for rule in out.judged {
        cx.judged(rule);
    }
    for finding in out.findings {
        cx.finding(&finding.rule, finding.message);
    }
    let Some(body) = response.json.as_ref().filter(|_| response.status >= 400) else {
        return;
    };
    let stem = match (area, response.status) {
        (Area::Finance, 422) => "finance-validation-error",
        (Area::Finance, _) => "finance-error",
        (Area::Banking, _) => "banking-error",
    };
    cx.judged(BODY);
    if let Err(issues) = Registry::embedded().validate(stem, body) {
        let first = issues.first().map(|i| i.message.as_str()).unwrap_or("");
        cx.finding(
            BODY,
            format!(
                "a method the spec does not list was answered {} without the area's error body ({stem}: {first}): {}",
                response.status,
                crate::client::snippet(response)
            ),
        );
    }
}
