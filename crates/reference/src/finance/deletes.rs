//! Delete tag (detaching it from receivables) and delete counterpart bank account.

use super::{gate_org, merge, not_found, owns, path_uuid};
use crate::fault::Fault;
use crate::reply::{self, Reply};
use crate::store::{App, Receivable, ReceivableKind};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::json;
use std::collections::HashSet;
use std::sync::Arc;
use uuid::Uuid;

pub async fn delete_tag(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(tag): Path<String>,
) -> Response {
    merge(delete_tag_inner(&app, &headers, &tag))
}

fn delete_tag_inner(app: &App, headers: &HeaderMap, tag: &str) -> Reply {
    let org = gate_org(app, headers)?;
    let f = &app.faults;
    let id = match path_uuid(app, "tag_id", tag) {
        Ok(id) => id,
        Err(_) if f.has(Fault::TagDeleteMalformedId) => return Ok(reply::no_content()),
        Err(refused) => return Err(refused),
    };
    let mut db = app.db();
    let exists = db.tags.get(&id).is_some_and(|owner| owns(app, *owner, org))
        && !f.has(Fault::TagDeleteNotFound);
    if !exists {
        drop(db);
        return if f.has(Fault::TagDeleteIdempotent) {
            Ok(reply::no_content())
        } else {
            Err(not_found(app, "tag"))
        };
    }
    db.tags.remove(&id);
    if f.has(Fault::TagDeleteDeletesTagged) {
        db.receivables
            .retain(|_, r| r.org != org || !r.tag_ids.contains(&id));
    }
    // Under its fault, the invoices based on a quote that carries the tag go with it.
    if f.has(Fault::TagDeleteDeletesDerivedInvoices) {
        let tagged: HashSet<Uuid> = db
            .receivables
            .iter()
            .filter(|(_, r)| r.org == org && r.kind == ReceivableKind::Quote)
            .filter(|(_, r)| r.tag_ids.contains(&id))
            .map(|(quote, _)| *quote)
            .collect();
        let derived = |r: &Receivable| r.based_on.is_some_and(|q| tagged.contains(&q));
        db.receivables
            .retain(|_, r| r.org != org || r.kind != ReceivableKind::Invoice || !derived(r));
    }
    for r in db.receivables.values_mut().filter(|r| r.org == org) {
        r.tag_ids.retain(|t| *t != id);
    }
    db.record(org, "tag", "tag.deleted", json!({ "id": id }));
    Ok(reply::no_content())
}

pub async fn delete_bank_account(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((counterpart, account)): Path<(String, String)>,
) -> Response {
    merge(delete_bank_account_inner(
        &app,
        &headers,
        &counterpart,
        &account,
    ))
}

fn delete_bank_account_inner(
    app: &App,
    headers: &HeaderMap,
    counterpart: &str,
    account: &str,
) -> Reply {
    let org = gate_org(app, headers)?;
    let counterpart_id = path_uuid(app, "counterpart_id", counterpart)?;
    let account_id = path_uuid(app, "bank_account_id", account)?;
    let f = &app.faults;
    let mut db = app.db();
    let removed = !f.has(Fault::BankAccountDeleteNotFound)
        && db
            .counterparts
            .get_mut(&counterpart_id)
            .filter(|c| owns(app, c.org, org))
            .is_some_and(|c| c.bank_accounts.remove(&account_id));
    if !removed {
        drop(db);
        return if f.has(Fault::BankAccountDeleteIdempotent) {
            Ok(reply::no_content())
        } else {
            Err(not_found(app, "counterpart bank account"))
        };
    }
    db.record(
        org,
        "counterpart_bank_account",
        "counterpart_bank_account.deleted",
        json!({ "id": account_id, "counterpart_id": counterpart_id }),
    );
    Ok(reply::no_content())
}
