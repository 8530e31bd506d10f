//! Tenant isolation: `x-organization-id` names the entity that owns the resource, so under the
//! profile's `other_organization_id` a request must not change or create inside the first
//! organization's resources, and the events of the first organization's writes are never listed
//! under the second. Any refusal passes (the spec does not say which status); an answer that
//! acts fails. The deletes of a tag and a bank account are judged by the delete cases
//! (`deletes.rs`), on the fixture they already take: no delete fixture is spent here.

use super::vat::vat_value;
use super::{expect_client_error, Bodies};
use crate::case::{case_fn, Case, CaseCx, Given, Outcome, Outgoing};
use crate::schema::OperationId;
use serde_json::{json, Value};

/// The rule every write under another organization is judged against.
pub(super) const WRITE: &str = "FIN-TENANT-WRITE";
/// The rule of the events listed under another organization.
const EVENTS: &str = "FIN-TENANT-EVENTS";

/// The operations that name or create a resource of the first organization through a fixture
/// of the profile, and are judged here (the deletes are judged where their fixture is taken).
const WRITES: [OperationId; 3] = [
    OperationId::UpdateComment,
    OperationId::CreateVatId,
    OperationId::CreateReceivable,
];

pub fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = WRITES
        .into_iter()
        .map(|op| {
            Case::new(
                &format!("tenant.foreign-write.{op}"),
                op,
                &[WRITE],
                case_fn(move |cx| Box::pin(foreign_write(cx, op))),
            )
            .other_organization()
            .writes()
        })
        .collect();
    cases.push(
        Case::new(
            "tenant.events-of-one-organization",
            OperationId::ListEvents,
            &[EVENTS],
            case_fn(|cx| Box::pin(events_isolated(cx))),
        )
        .also(OperationId::CreateVatId)
        .other_organization()
        .writes()
        .requests(2),
    );
    cases
}

/// The other organization of the profile (the case needs it).
pub(super) fn other_organization(cx: &CaseCx) -> Option<String> {
    cx.run
        .finops()
        .and_then(|f| f.other_organization_id.clone())
}

/// A valid request of `op` on the profile's fixtures of the first organization.
fn valid_write(cx: &CaseCx, op: OperationId, other: &str) -> Outgoing {
    let bodies = Bodies::new(&cx.run);
    let body = match op {
        OperationId::UpdateComment => {
            json!({ "text": "covenant: written under another organization" })
        }
        OperationId::CreateVatId => bodies.vat_id(&vat_value(cx, "tenant")),
        _ => bodies.quote(),
    };
    let call = cx.call(op).organization(Given::value(other));
    call.json(body)
}

async fn foreign_write(cx: &mut CaseCx, op: OperationId) -> Outcome {
    let Some(other) = other_organization(cx) else {
        return Ok(());
    };
    let request = valid_write(cx, op, &other);
    let response = cx.send(request).await?;
    let what = match op {
        OperationId::UpdateComment => "updating a comment of one organization under another",
        OperationId::CreateVatId => {
            "creating a VAT ID for a counterpart of one organization under another"
        }
        _ => "creating a receivable for a counterpart of one organization under another",
    };
    expect_client_error(cx, &response, WRITE, what);
    Ok(())
}

/// Creates a VAT ID under the first organization, then lists the events of the second: no event
/// there names the VAT ID just created.
async fn events_isolated(cx: &mut CaseCx) -> Outcome {
    let Some(other) = other_organization(cx) else {
        return Ok(());
    };
    let op = OperationId::CreateVatId;
    let body = Bodies::new(&cx.run).vat_id(&vat_value(cx, "tenant-events"));
    let created = cx.send(cx.call(op).json(body)).await?;
    let id = created.pointer("/id").and_then(Value::as_str);
    let Some(id) = id.filter(|_| created.is_success()).map(str::to_owned) else {
        return Ok(());
    };
    let list = OperationId::ListEvents;
    let request = cx
        .call(list)
        .query("limit=100&sort=created_at&order=desc")
        .organization(Given::value(&other));
    let response = cx.send(request).await?;
    if !response.is_success() {
        return Ok(());
    }
    let data = response.pointer("/data").and_then(Value::as_array);
    let leaked = data.into_iter().flatten().find(|event| names(event, &id));
    cx.ensure(leaked.is_none(), EVENTS, || {
        format!(
            "an event of a VAT ID created under one organization ({id}) was listed under another: {}",
            leaked.map(super::pretty).unwrap_or_default()
        )
    });
    Ok(())
}

/// Whether an event names `id` anywhere in its payload (as a UUID in either case).
fn names(event: &Value, id: &str) -> bool {
    match event {
        Value::String(s) => super::same_id(s, id),
        Value::Array(items) => items.iter().any(|v| names(v, id)),
        Value::Object(members) => members.values().any(|v| names(v, id)),
        _ => false,
    }
}
