//! Authentication and header cases: missing, invalid and tampered tokens on every operation,
//! malformed version and organization headers.
//!
//! Requests name ids that do not exist wherever the operation takes one, so that a target which
//! wrongly skips authentication changes as little as possible; only a read whose path the
//! profile's fixtures fill whole (the list of transactions) names them (see [`harmless`]). The tampered tokens are the
//! profile's real ones with characters appended, the last changed, or truncated (see
//! [`Tamper`]): a target that compares tokens by prefix accepts some of them.

use super::{absent_uuid, Bodies};
use crate::case::{case_fn, Abort, Case, CaseCx, Given, Outcome, Outgoing, Tamper};
use crate::client::Response;
use crate::schema::{Area, OperationId};
use serde_json::json;

/// A harmless request of `operation` with `token` (the finance headers as the table gives them,
/// no banking organization header): ids that name nothing, and a body that would be valid. A
/// read whose path the profile's fixtures fill whole (listing transactions) names them: a read
/// changes nothing, and a target that wrongly accepts the token then answers 200, where an
/// account that names nothing would give a 404 that looks like a refusal.
fn harmless(cx: &CaseCx, operation: OperationId, token: Given) -> Outgoing {
    let organization = match operation.area() {
        Area::Finance => Given::Profile,
        Area::Banking => Given::Omitted,
    };
    harmless_under(cx, operation, token, organization)
}

/// [`harmless`] with the organization header given as `organization`.
fn harmless_under(
    cx: &CaseCx,
    operation: OperationId,
    token: Given,
    organization: Given,
) -> Outgoing {
    let none = absent_uuid("covenant-auth");
    let bodies = Bodies::new(&cx.run);
    let body = match operation {
        OperationId::CreateReceivable => {
            let mut quote = bodies.quote();
            quote["counterpart_id"] = json!(none);
            Some(quote)
        }
        OperationId::CreateVatId => Some(bodies.vat_id("DE000000000")),
        OperationId::UpdateComment => Some(json!({ "text": "covenant" })),
        OperationId::CreateMailboxDomain => Some(json!({ "domain": bodies.domain("auth") })),
        OperationId::CreateVelocityControl => Some(bodies.velocity("auth")),
        OperationId::GetVatId
        | OperationId::DeleteTag
        | OperationId::DeleteBankAccount
        | OperationId::ListEvents
        | OperationId::ListTransactions => None,
    };
    let fixtures = cx.run.path_values(operation, &[]);
    let read = operation.operation().method == crate::schema::Method::Get;
    let values = match fixtures.iter().all(|v| !v.is_empty()) {
        true if read => fixtures,
        _ => vec![none; operation.path_parameters()],
    };
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    let mut call = cx.call(operation).path(&values).token(token);
    if operation == OperationId::ListEvents {
        call = call.query("limit=1");
    }
    let mut request = Outgoing::from(call.organization(organization));
    if let Some(body) = body {
        request = request.json(body);
    }
    request
}

/// The operations of an area, in the order of `operations.json`.
fn of_area(area: Area) -> impl Iterator<Item = OperationId> {
    OperationId::ALL
        .into_iter()
        .filter(move |op| op.area() == area)
}

pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for op in of_area(Area::Finance) {
        cases.push(
            Case::new(
                &format!("auth.finance-missing-token.{op}"),
                op,
                &["AUTH-FIN-MISSING-401"],
                case_fn(move |cx| Box::pin(finance_auth(cx, op, None))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.finance-invalid-token.{op}"),
                op,
                &["AUTH-FIN-INVALID-401"],
                case_fn(move |cx| Box::pin(finance_auth(cx, op, Some("covenant-invalid-token")))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.finance-tampered-token.{op}"),
                op,
                &["AUTH-FIN-INVALID-401"],
                case_fn(move |cx| Box::pin(finance_tampered(cx, op))),
            )
            .token_only()
            .requests(Tamper::ALL.len())
            .suite("auth"),
        );
    }
    for op in of_area(Area::Finance) {
        cases.push(
            Case::new(
                &format!("auth.finance-banking-token.{op}"),
                op,
                &["AUTH-CROSS-FIN-401"],
                case_fn(move |cx| Box::pin(cross_area(cx, op))),
            )
            .token_only()
            .with_token(Area::Banking)
            .suite("auth"),
        );
    }
    for op in of_area(Area::Banking) {
        cases.push(
            Case::new(
                &format!("auth.banking-finance-token.{op}"),
                op,
                &["AUTH-CROSS-BANK-REFUSED", "AUTH-BANK-401"],
                case_fn(move |cx| Box::pin(cross_area(cx, op))),
            )
            .token_only()
            .with_token(Area::Finance)
            .requests(2)
            .suite("auth"),
        );
    }
    for op in of_area(Area::Banking) {
        let rules = &["AUTH-BANK-REQUIRED", "AUTH-BANK-401"];
        cases.push(
            Case::new(
                &format!("auth.banking-missing-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_auth(cx, op, None))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.banking-invalid-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_auth(cx, op, Some("covenant-invalid-token")))),
            )
            .anonymous()
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.banking-tampered-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_tampered(cx, op))),
            )
            .token_only()
            .requests(Tamper::ALL.len())
            .suite("auth"),
        );
    }
    cases.push(
        Case::new(
            "headers.malformed-finops-version",
            OperationId::ListEvents,
            &["VER-FINOPS-MALFORMED"],
            case_fn(|cx| Box::pin(malformed_version(cx))),
        )
        .token_only()
        .requests(2),
    );
    cases.push(
        Case::new(
            "transactions.malformed-org-header",
            OperationId::ListTransactions,
            &["BANK-ORG-HEADER-MALFORMED-400"],
            case_fn(|cx| Box::pin(malformed_org_header(cx, OperationId::ListTransactions))),
        )
        .org_header()
        .requests(2),
    );
    cases.push(
        Case::new(
            "velocity.malformed-org-header",
            OperationId::CreateVelocityControl,
            &["BANK-ORG-HEADER-MALFORMED-400"],
            case_fn(|cx| Box::pin(malformed_org_header(cx, OperationId::CreateVelocityControl))),
        )
        .org_header()
        .requests(2),
    );
    cases
}

async fn finance_auth(cx: &mut CaseCx, operation: OperationId, token: Option<&str>) -> Outcome {
    let request = harmless(cx, operation, token.map_or(Given::Omitted, Given::value));
    let response = cx.send(request).await?;
    let (rule, what) = match token {
        Some(_) => ("AUTH-FIN-INVALID-401", "a request with an invalid token"),
        None => ("AUTH-FIN-MISSING-401", "a request without a token"),
    };
    cx.expect_status(&response, 401, rule, what);
    Ok(())
}

async fn banking_auth(cx: &mut CaseCx, operation: OperationId, token: Option<&str>) -> Outcome {
    let request = harmless(cx, operation, token.map_or(Given::Omitted, Given::value));
    let response = cx.send(request).await?;
    let what = if token.is_some() {
        "a request with an invalid token"
    } else {
        "a request without a token"
    };
    banking_refused(cx, &response, what);
    Ok(())
}

/// A banking request without a valid token must be refused, and should be with 401.
fn banking_refused(cx: &mut CaseCx, response: &Response, what: &str) {
    if cx.expect_refused(response, "AUTH-BANK-REQUIRED", what) {
        cx.expect_refused_with(response, 401, "AUTH-BANK-401", what);
    }
}

/// A request of one area carrying the other area's token: an invalid token there. Skipped when
/// the profile's two tokens are one credential (then it is no other area's token).
async fn cross_area(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let finance = cx.run.finops_token().unwrap_or_default().to_owned();
    let banking = cx.run.banking_token.as_ref().map(|t| t.expose().to_owned());
    let banking = banking.unwrap_or_default();
    if finance == banking {
        let reason = "the profile's finance and banking tokens are the same credential";
        return Err(Abort::Skip(reason.to_owned()));
    }
    let (token, what) = match operation.area() {
        Area::Finance => (banking, "a finance request with the banking area's token"),
        Area::Banking => (finance, "a banking request with the finance token"),
    };
    let request = harmless(cx, operation, Given::value(token.clone()));
    let response = cx.send(request).await?;
    match operation.area() {
        Area::Finance => {
            cx.expect_status(&response, 401, "AUTH-CROSS-FIN-401", what);
        }
        Area::Banking => {
            if cx.expect_refused(&response, "AUTH-CROSS-BANK-REFUSED", what) {
                cx.expect_refused_with(&response, 401, "AUTH-BANK-401", what);
            }
            // The same under the profile's organization header: a target may resolve the
            // organization before it looks at whose token it was given.
            if cx
                .run
                .banking()
                .is_some_and(|b| b.org_header.is_some() && b.organization_id.is_some())
            {
                let under = harmless_under(cx, operation, Given::value(token), Given::Profile);
                let response = cx.send(under).await?;
                let what = format!("{what}, under the organization header");
                cx.expect_refused(&response, "AUTH-CROSS-BANK-REFUSED", &what);
            }
        }
    }
    Ok(())
}

async fn finance_tampered(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let token = cx.run.finops_token().unwrap_or_default().to_owned();
    let request = harmless(cx, operation, Given::Omitted);
    tampered(cx, &token, request, |cx, response, what| {
        cx.expect_status(response, 401, "AUTH-FIN-INVALID-401", what);
    })
    .await
}

async fn banking_tampered(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let token = cx.run.banking_token.as_ref().map(|t| t.expose().to_owned());
    let request = harmless(cx, operation, Given::Omitted);
    tampered(cx, &token.unwrap_or_default(), request, banking_refused).await
}

/// Sends `request` once with each tampered form of `token`, all at once, and judges each
/// answer in turn. The findings name the form, never the token.
async fn tampered(
    cx: &mut CaseCx,
    token: &str,
    request: Outgoing,
    judge: impl Fn(&mut CaseCx, &Response, &str),
) -> Outcome {
    let sending = Tamper::ALL.map(|tamper| {
        let bearer = format!("Bearer {}", tamper.apply(token));
        cx.dispatch(request.request.clone().header("authorization", bearer))
    });
    let dispatched = futures_util::future::join_all(sending).await;
    for (tamper, sent) in Tamper::ALL.into_iter().zip(dispatched) {
        let response = cx.record(request.operation, sent)?;
        judge(
            cx,
            &response,
            &format!("a request with {}", tamper.describe()),
        );
    }
    Ok(())
}

async fn malformed_version(cx: &mut CaseCx) -> Outcome {
    for bad in ["not-a-date", "2026-13-45"] {
        let request = cx
            .call(OperationId::ListEvents)
            .query("limit=1")
            .with_header("x-finops-version", bad);
        let response = cx.send(request).await?;
        cx.judged("VER-FINOPS-MALFORMED");
        if response.is_success() {
            cx.finding(
                "VER-FINOPS-MALFORMED",
                format!(
                    "x-finops-version {bad:?} was accepted with {}",
                    response.status
                ),
            );
        }
    }
    Ok(())
}

async fn malformed_org_header(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    cx.run.org_header().ok_or(Abort::Recorded)?;
    for bad in ["not-a-uuid", ""] {
        let mut request = Outgoing::from(cx.call(operation).organization(Given::value(bad)));
        if operation == OperationId::CreateVelocityControl {
            let body = Bodies::new(&cx.run).velocity(&format!("badorg{}", bad.len()));
            request = request.json(body);
        }
        let response = cx.send(request).await?;
        cx.expect_status(
            &response,
            400,
            "BANK-ORG-HEADER-MALFORMED-400",
            &format!("organization header {bad:?}"),
        );
    }
    Ok(())
}
