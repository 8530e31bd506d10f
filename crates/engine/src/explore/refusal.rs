//! The explorer's requests at the edges of what the spec allows: unknown properties of every
//! JSON type in every receivable body shape, requests that break two stated rules at once, and a
//! body far larger than any the other cases send.
//!
//! None of them changes the model. Their answers are judged by the rules the spec states for
//! them (the same ids as elsewhere) and by the generic checks: a refusal carries its area's error
//! body. Two breaches at once are judged as the traffic judge judges a client's slips
//! ([`crate::check::slips`]): where the spec names one outcome for a cause (401 for a missing
//! or invalid finance token, 400 for a malformed banking organization header) the answer must be
//! it, unless another stated cause of the same request names another; any other cause only asks
//! for a refusal. It must never fail an answer the spec allows for one of the causes.

use super::shape::{send, RequestForm};
use super::{Model, BREACHES, UNKNOWN_PROPS};
use crate::case::{absent_uuid, Abort, Bodies, CaseCx, Given, Outgoing};
use crate::check::{also_allowed, answer_to, slips, Answer, Expected, Observed, Slip};
use crate::client::{Body, Request, Response};
use crate::schema::OperationId;
use serde_json::{json, Value};

/// The length of the large body's name: a mebibyte.
const LARGE: usize = 1 << 20;

/// An unknown property's value, by JSON type.
fn unknown_value(kind: u8) -> Value {
    match kind % 6 {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(7),
        3 => json!("covenant"),
        4 => json!([1]),
        _ => json!({ "a": 1 }),
    }
}

pub async fn unknown_property(
    cx: &mut CaseCx,
    model: &mut Model,
    shape: u8,
    kind: u8,
) -> Result<Option<&'static str>, Abort> {
    let bodies = Bodies::new(&cx.run);
    let mut body = match shape % 3 {
        0 => bodies.quote(),
        1 => bodies.invoice(),
        _ => {
            // A quote the sequence made, else the profile's: only the unknown property stands
            // between the body and a 201.
            let profile = cx.run.finops().and_then(|f| f.quote_id.clone());
            let source = model.quotes.last().cloned().or(profile);
            let source = source.unwrap_or_else(|| absent_uuid("covenant-explore-unknown"));
            bodies.based_on("invoice", &source)
        }
    };
    body["covenant_unknown_property"] = unknown_value(kind);
    let call = cx.call(OperationId::CreateReceivable).json(body);
    let response = send(cx, model, call).await?;
    let what = super::Action::UnknownProperty { shape, kind }.describe();
    cx.expect().refused(&response, UNKNOWN_PROPS, &what);
    Ok(None)
}

pub async fn two_breaches(
    cx: &mut CaseCx,
    model: &mut Model,
    kind: u8,
) -> Result<Option<&'static str>, Abort> {
    let bodies = Bodies::new(&cx.run);
    let malformed = Given::value("not-a-uuid");
    // A body the schema refuses: a quote without its line items, a velocity control whose
    // amount is no integer.
    let mut quote = bodies.quote();
    quote.as_object_mut().map(|q| q.remove("line_items"));
    let mut control = bodies.velocity(&format!("{}-two{}", model.salt, model.creates));
    control["amountLimit"] = json!("a lot");
    let receivable = |cx: &CaseCx, token: Given| {
        cx.call(OperationId::CreateReceivable)
            .token(token)
            .json(quote.clone())
    };
    let (out, invalid_token): (Outgoing, bool) = match kind as usize % BREACHES.len() {
        0 => (receivable(cx, Given::Omitted), false),
        1 => (receivable(cx, Given::value("covenant-invalid-token")), true),
        2 => {
            let call = cx.call(OperationId::CreateVelocityControl);
            (call.organization(malformed).json(control), false)
        }
        _ => {
            let call = cx.call(OperationId::CreateVelocityControl);
            let call = call.token(Given::Omitted).organization(malformed);
            (call.json(bodies.velocity("two-breaches")), false)
        }
    };
    let operation = out.operation;
    let shaped = RequestForm::next(model).apply(out);
    let what = BREACHES[kind as usize % BREACHES.len()];
    cx.send_judged(shaped, |cx, request, response| {
        judge_breaches(cx, operation, request, response, invalid_token, what);
    })
    .await?;
    Ok(None)
}

/// Judges the answer to a request that breaks several stated rules, as the traffic judge does.
fn judge_breaches(
    cx: &mut CaseCx,
    operation: OperationId,
    request: &Request,
    response: &Response,
    invalid_token: bool,
    what: &str,
) {
    let catalogue = cx.run.catalogue;
    let seen = observed(request, response);
    let org_header = cx.run.banking().and_then(|b| b.org_header.clone());
    let mut found = slips(catalogue, operation, &seen, org_header.as_deref());
    if invalid_token {
        // A token is present: only the sender knows it is no valid one.
        let rule = "AUTH-FIN-INVALID-401";
        found.push(Slip {
            finding: crate::check::finding(catalogue, rule, "the token is no valid token"),
            answer: Expected::Status(401, rule),
        });
    }
    for (i, slip) in found.iter().enumerate() {
        let others = found
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, s)| s);
        let allowed = also_allowed(others, true);
        let checked = answer_to(catalogue, slip, response.status, &allowed);
        for rule in checked.judged {
            cx.judged(rule);
        }
        for mut finding in checked.findings {
            finding.message = format!("{what}: {}", finding.message);
            cx.findings.push(finding);
        }
    }
}

/// The exchange as the traffic judge reads a client's.
fn observed(request: &Request, response: &Response) -> Observed {
    let body = match &request.body {
        None => Vec::new(),
        Some(Body::Json(v)) => v.to_string().into_bytes(),
        Some(Body::Raw { bytes, .. } | Body::Spelled { bytes, .. }) => bytes.clone(),
    };
    Observed {
        method: request.method.to_string(),
        target: request.path.clone(),
        request_headers: request.headers.clone(),
        request_body: body,
        answer: Some(Answer {
            status: response.status,
            headers: response.headers.clone(),
            body: response.body.clone(),
            cut: false,
            unrecorded: false,
        }),
        failure: None,
        origin: None,
        outside: false,
        duration_ms: 0.0,
    }
}

pub async fn large_body(cx: &mut CaseCx, model: &mut Model) -> Result<Option<&'static str>, Abort> {
    model.creates += 1;
    let mut body = Bodies::new(&cx.run).velocity(&format!("{}-large{}", model.salt, model.creates));
    body["name"] = json!("covenant ".repeat(LARGE / 9));
    let call = cx.call(OperationId::CreateVelocityControl).json(body);
    // Accepted or refused, the generic checks judge the answer: a refusal's error body, no 5xx.
    send(cx, model, call).await?;
    Ok(None)
}
