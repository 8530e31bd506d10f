//! Tenant isolation in the embedded banking area: the organization header "names the
//! organization to act for", so acting for the profile's `banking.other_organization_id` a
//! request does not read the first organization's account nor create a control on its card, and
//! a control created there without `cardId` belongs to the organization acted for.
//!
//! Any refusal passes: the spec does not say which status, nor whether the token may act for the
//! second organization at all. A page of transactions with no item passes too (nothing was
//! read). A control the target accepts is the target's own concern; its id is unique to the run.

use super::Bodies;
use crate::case::{case_fn, Case, CaseCx, Given, Outcome};
use crate::schema::OperationId;
use serde_json::{json, Value};

/// The rule every request acting for the other organization is judged against.
const TENANT: &str = "BANK-TENANT";
/// The rule of the organization an organization-scoped control belongs to.
const ORG_SCOPE: &str = "VC-ORG-SCOPE";

const LIST: OperationId = OperationId::ListTransactions;
const CREATE: OperationId = OperationId::CreateVelocityControl;

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "tenant.banking.foreign-account-transactions",
            LIST,
            &[TENANT],
            case_fn(|cx| Box::pin(foreign_account(cx))),
        )
        .other_organization(),
        Case::new(
            "tenant.banking.foreign-card-control",
            CREATE,
            &[TENANT],
            case_fn(|cx| Box::pin(foreign_card(cx))),
        )
        .other_organization()
        .full_body()
        .writes(),
        Case::new(
            "tenant.banking.org-scope-under-other-organization",
            CREATE,
            &[ORG_SCOPE],
            case_fn(|cx| Box::pin(org_scope(cx))),
        )
        .other_organization()
        .writes(),
    ]
}

/// The other organization of the profile (the cases need it).
fn other_organization(cx: &CaseCx) -> Option<String> {
    cx.run
        .banking()
        .and_then(|b| b.other_organization_id.clone())
}

/// Lists the transactions of the first organization's account acting for the other: refused, or
/// a page without items.
async fn foreign_account(cx: &mut CaseCx) -> Outcome {
    let Some(other) = other_organization(cx) else {
        return Ok(());
    };
    let request = cx.call(LIST).organization(Given::value(&other));
    let response = cx.send(request).await?;
    cx.refused_under(TENANT);
    if !response.is_success() {
        cx.judged(TENANT);
        return Ok(());
    }
    let items = response.pointer("/data").and_then(Value::as_array);
    let read = items.map_or(0, Vec::len);
    cx.ensure(read == 0, TENANT, || {
        format!(
            "acting for another organization ({other}), the transactions of the first \
             organization's bank account were listed: {read} items, answered {}",
            response.status
        )
    });
    Ok(())
}

/// Creates a control on the first organization's card acting for the other: refused.
async fn foreign_card(cx: &mut CaseCx) -> Outcome {
    let Some(other) = other_organization(cx) else {
        return Ok(());
    };
    let card = cx.run.banking().and_then(|b| b.card_id.clone());
    let mut body = Bodies::new(&cx.run).velocity("tenant-card");
    body["cardId"] = json!(card.unwrap_or_default());
    let call = cx.call(CREATE).organization(Given::value(&other));
    let response = cx.send(call.json(body)).await?;
    cx.expect_refused(
        &response,
        TENANT,
        "a control on the first organization's card, acting for another organization,",
    );
    Ok(())
}

/// Creates a control without `cardId` acting for the other organization: refused, or scoped to
/// the organization acted for (VC-ORG-SCOPE: "to the header's organization when one is sent").
async fn org_scope(cx: &mut CaseCx) -> Outcome {
    let Some(other) = other_organization(cx) else {
        return Ok(());
    };
    let body = Bodies::new(&cx.run).velocity("tenant-org");
    let call = cx.call(CREATE).organization(Given::value(&other));
    let response = cx.send(call.json(body)).await?;
    if !response.is_success() {
        return Ok(());
    }
    let got = response.pointer("/organizationId").and_then(Value::as_str);
    cx.judged(ORG_SCOPE);
    match got {
        Some(got) if super::same_id(got, &other) => {}
        Some(got) => cx.finding_diff(
            ORG_SCOPE,
            "a control created without cardId acting for another organization is scoped to \
             an organization other than the one the header names",
            &other,
            got,
        ),
        None => cx.finding(
            ORG_SCOPE,
            "a control created without cardId acting for another organization has no \
             organizationId",
        ),
    }
    Ok(())
}
