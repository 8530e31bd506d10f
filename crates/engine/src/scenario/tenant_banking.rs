//! Tenant isolation in the embedded banking area: the organization header "names the
//! organization to act for", so acting for the profile's `banking.other_organization_id` a
//! request does not read the first organization's account, and a control created there without
//! `cardId` belongs to the organization acted for.
//!
//! Any refusal passes: the spec does not say which status, nor whether the token may act for the
//! second organization at all. A page of transactions with no item passes too (nothing was
//! read). A control the target accepts is the target's own concern; its id is unique to the run.
//!
//! A control on the first organization's card, acting for the other, is not judged a breach:
//! the spec scopes it to a card "which the caller can access", and whether the caller is the
//! token (which may act for both organizations) or the organization acted for is not stated.
//! Both readings pass; what the target chose is shown under GAP-CARD-ACCESS, and a control it
//! accepts is judged as any card-scoped control is (VC-CARD-SCOPE).

use super::Bodies;
use crate::case::{case_fn, Case, CaseCx, Given, Outcome};
use crate::schema::OperationId;
use serde_json::{json, Value};

/// The rule every request acting for the other organization is judged against.
const TENANT: &str = "BANK-TENANT";
/// The rule of the organization an organization-scoped control belongs to.
const ORG_SCOPE: &str = "VC-ORG-SCOPE";
/// The rule of the card a card-scoped control belongs to.
const CARD_SCOPE: &str = "VC-CARD-SCOPE";
/// The gap the foreign card's answer is shown under: which "caller" can access a card.
const CARD_ACCESS: &str = "GAP-CARD-ACCESS";

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
            &[CARD_SCOPE],
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

/// Creates a control on the first organization's card acting for the other: a refusal and an
/// acceptance both keep the contract (see the module doc); the answer is shown under
/// GAP-CARD-ACCESS, and a control accepted is scoped to that card alone.
async fn foreign_card(cx: &mut CaseCx) -> Outcome {
    let Some(other) = other_organization(cx) else {
        return Ok(());
    };
    let card = cx
        .run
        .banking()
        .and_then(|b| b.card_id.clone())
        .unwrap_or_default();
    let mut body = Bodies::new(&cx.run).velocity("tenant-card");
    body["cardId"] = json!(card);
    let call = cx.call(CREATE).organization(Given::value(&other));
    let response = cx.send(call.json(body)).await?;
    cx.refused_under(CARD_ACCESS);
    if !response.is_success() {
        return Ok(());
    }
    let got = response.pointer("/cardId").and_then(Value::as_str);
    let scoped = got.is_some_and(|got| super::same_id(got, &card));
    cx.ensure(scoped, CARD_SCOPE, || {
        format!(
            "a control created on card {card} acting for another organization was accepted \
             scoped to {}",
            got.map_or_else(|| "no card".to_owned(), |g| format!("card {g}"))
        )
    });
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
