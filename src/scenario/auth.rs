//! Authentication and header cases: missing and invalid tokens on every operation, malformed
//! version and organization headers.
//!
//! Requests here name ids that do not exist wherever the operation takes one, so that a target
//! which wrongly skips authentication changes as little as possible.

use super::{absent_uuid, paths, Bodies};
use crate::runner::{case_fn, Abort, Case, CaseCx, Need, Outcome};
use crate::target::Request;
use reqwest::Method;
use serde_json::json;

/// The ten operations as harmless requests: (operation id, request without credentials).
fn harmless(cx: &CaseCx, operation: &str) -> Request {
    let none = absent_uuid("covenant-auth");
    let bodies = Bodies::new(&cx.run);
    let (method, path, body) = match operation {
        "create-receivable" => {
            let mut quote = bodies.quote();
            quote["counterpart_id"] = json!(none);
            (Method::POST, paths::RECEIVABLES.to_owned(), Some(quote))
        }
        "create-vat-id" => (
            Method::POST,
            paths::vat_ids(&none),
            Some(bodies.vat_id("DE000000000")),
        ),
        "get-vat-id" => (Method::GET, paths::vat_id(&none, &none), None),
        "update-comment" => (
            Method::PATCH,
            paths::comment(&none),
            Some(json!({ "text": "covenant" })),
        ),
        "create-mailbox-domain" => (
            Method::POST,
            paths::MAILBOX_DOMAINS.to_owned(),
            Some(json!({ "domain": bodies.domain("auth") })),
        ),
        "delete-tag" => (Method::DELETE, paths::tag(&none), None),
        "delete-bank-account" => (Method::DELETE, paths::bank_account(&none, &none), None),
        "list-events" => (Method::GET, format!("{}?limit=1", paths::EVENTS), None),
        "create-velocity-control" => (
            Method::POST,
            paths::VELOCITY_CONTROLS.to_owned(),
            Some(bodies.velocity("auth")),
        ),
        _ => (Method::GET, paths::transactions(&none), None),
    };
    let mut request = Request::new(method, path);
    if let Some(body) = body {
        request = request.json(body);
    }
    request
}

const FINANCE: [&str; 8] = [
    "create-receivable",
    "create-vat-id",
    "get-vat-id",
    "update-comment",
    "create-mailbox-domain",
    "delete-tag",
    "delete-bank-account",
    "list-events",
];
const BANKING: [&str; 2] = ["create-velocity-control", "list-transactions"];

/// Finance headers without Authorization.
fn finance_headers(cx: &CaseCx, request: Request, operation: &str) -> Request {
    let mut request = request.header("x-finops-version", cx.run.profile.finops_version());
    if let (Some(org), false) = (cx.run.finops_org(), operation == "create-mailbox-domain") {
        request = request.header("x-organization-id", org);
    }
    request
}

pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for op in FINANCE {
        cases.push(
            Case::new(
                &format!("auth.finance-missing-token.{op}"),
                op,
                &["AUTH-FIN-MISSING-401"],
                case_fn(move |cx| Box::pin(finance_auth(cx, op, None))),
            )
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.finance-invalid-token.{op}"),
                op,
                &["AUTH-FIN-INVALID-401"],
                case_fn(move |cx| Box::pin(finance_auth(cx, op, Some("covenant-invalid-token")))),
            )
            .suite("auth"),
        );
    }
    for op in BANKING {
        let rules = &["AUTH-BANK-REQUIRED", "AUTH-BANK-401"];
        cases.push(
            Case::new(
                &format!("auth.banking-missing-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_auth(cx, op, None))),
            )
            .suite("auth"),
        );
        cases.push(
            Case::new(
                &format!("auth.banking-invalid-token.{op}"),
                op,
                rules,
                case_fn(move |cx| Box::pin(banking_auth(cx, op, Some("covenant-invalid-token")))),
            )
            .suite("auth"),
        );
    }
    cases.push(
        Case::new(
            "headers.malformed-finops-version",
            "list-events",
            &["VER-FINOPS-MALFORMED"],
            case_fn(|cx| Box::pin(malformed_version(cx))),
        )
        .needs(&[Need::FinopsToken])
        .requests(2),
    );
    cases.push(
        Case::new(
            "transactions.malformed-org-header",
            "list-transactions",
            &["BANK-ORG-HEADER-MALFORMED-400"],
            case_fn(|cx| Box::pin(malformed_org_header(cx, "list-transactions"))),
        )
        .needs(&[Need::BankingToken, Need::OrgHeader, Need::BankAccount])
        .requests(2),
    );
    cases.push(
        Case::new(
            "velocity.malformed-org-header",
            "create-velocity-control",
            &["BANK-ORG-HEADER-MALFORMED-400"],
            case_fn(|cx| Box::pin(malformed_org_header(cx, "create-velocity-control"))),
        )
        .needs(&[Need::BankingToken, Need::OrgHeader])
        .requests(2),
    );
    cases
}

async fn finance_auth(cx: &mut CaseCx, operation: &'static str, token: Option<&str>) -> Outcome {
    let mut request = finance_headers(cx, harmless(cx, operation), operation);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = cx.send(operation, request).await?;
    let rule = if token.is_some() {
        "AUTH-FIN-INVALID-401"
    } else {
        "AUTH-FIN-MISSING-401"
    };
    let what = if token.is_some() {
        "a request with an invalid token"
    } else {
        "a request without a token"
    };
    cx.expect_status(&response, 401, rule, what);
    Ok(())
}

async fn banking_auth(cx: &mut CaseCx, operation: &'static str, token: Option<&str>) -> Outcome {
    let mut request = harmless(cx, operation);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = cx.send(operation, request).await?;
    let what = if token.is_some() {
        "a request with an invalid token"
    } else {
        "a request without a token"
    };
    if cx.expect_refused(&response, "AUTH-BANK-REQUIRED", what) {
        cx.expect_refused_with(&response, 401, "AUTH-BANK-401", what);
    }
    Ok(())
}

async fn malformed_version(cx: &mut CaseCx) -> Outcome {
    for bad in ["not-a-date", "2026-13-45"] {
        let request = cx
            .fin(Method::GET, &format!("{}?limit=1", paths::EVENTS))
            .with_header("x-finops-version", bad);
        let response = cx.send("list-events", request).await?;
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

async fn malformed_org_header(cx: &mut CaseCx, operation: &'static str) -> Outcome {
    let name = cx.run.org_header().ok_or(Abort::Recorded)?.to_owned();
    for bad in ["not-a-uuid", ""] {
        let request = match operation {
            "list-transactions" => {
                let account = cx
                    .run
                    .banking()
                    .and_then(|b| b.bank_account_id.clone())
                    .unwrap_or_default();
                cx.bank_without_org(Method::GET, &paths::transactions(&account))
            }
            _ => {
                let body = Bodies::new(&cx.run).velocity(&format!("badorg{}", bad.len()));
                cx.bank_without_org(Method::POST, paths::VELOCITY_CONTROLS)
                    .json(body)
            }
        };
        let response = cx.send(operation, request.header(&name, bad)).await?;
        cx.expect_status(
            &response,
            400,
            "BANK-ORG-HEADER-MALFORMED-400",
            &format!("organization header {bad:?}"),
        );
    }
    Ok(())
}
