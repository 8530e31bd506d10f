//! One command carried out against the target and judged against the model, which it then
//! updates: a post-condition of the spec after the sequence so far.
//!
//! A create the target refuses is judged by the hand-written and generated cases, not here: it
//! only leaves the model as it was. A read the target refuses is no breach here either (the
//! generic checks have judged its answer); only what an answered read holds is judged.

use super::limit;
use super::reach::{assigned, events_list, full_read, given};
use super::shape::send;
use super::{
    deep, Action, Model, Org, BOTH_ORDERS, FULL_READ, ID_FREE_AFTER_REFUSAL, ID_PER_ORGANIZATION,
    ID_UNIQUE, ISOLATION, MODEL_RULES, OTHER_PARAMS, READ_SHOWS_WRITE, TENANT_EVENTS, TOKEN_LATER,
    TOKEN_WHERE_ISSUED,
};
use crate::case::{Abort, Bodies, CaseCx, Given};
use crate::client::Response;
use crate::pagination::{item_key, List, Query};
use crate::schema::OperationId;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// What one step of a play did: its command, the exchanges it kept, and the first post-condition
/// it broke.
#[derive(Debug, Clone)]
pub struct StepRecord {
    pub command: Action,
    /// The exchanges of the step, as indices into the play's record.
    pub exchanges: std::ops::Range<usize>,
    /// Why it sent nothing (the model gave it nothing to act on).
    pub idle: Option<&'static str>,
    /// The first rule of the model it broke, and how.
    pub broke: Option<(String, String)>,
}

/// Plays `commands` in order: each step's exchanges and the first rule of the model it broke.
pub async fn play_steps(
    cx: &mut CaseCx,
    commands: &[(usize, Action)],
    model: &mut Model,
) -> Result<Vec<StepRecord>, Abort> {
    let mut steps = Vec::new();
    for (i, (origin, command)) in commands.iter().enumerate() {
        model.origin = *origin;
        model.sent = 0;
        let start = cx.exchanges.len();
        let before = cx.findings.len();
        let idle = one(cx, *command, model, i + 1).await?;
        let broke = cx.findings[before..]
            .iter()
            .find(|f| MODEL_RULES.contains(&f.rule.as_str()))
            .map(|f| (f.rule.clone(), f.message.clone()));
        steps.push(StepRecord {
            command: *command,
            exchanges: start..cx.exchanges.len(),
            idle,
            broke,
        });
    }
    Ok(steps)
}

/// Carries out one command; `Some(why)` when the model gave it nothing to act on.
async fn one(
    cx: &mut CaseCx,
    command: Action,
    model: &mut Model,
    step: usize,
) -> Result<Option<&'static str>, Abort> {
    let bodies = Bodies::new(&cx.run);
    match command {
        Action::CreateVelocity { org, slot } => {
            create_velocity(cx, model, org, slot, step).await?;
            Ok(None)
        }
        Action::CreateVat => {
            model.creates += 1;
            let salt = format!("{}-vat{}", model.salt, model.creates);
            let body = bodies.vat_id(&format!(
                "DE{:09}",
                cx.run.unique_number(&salt, 1_000_000_000)
            ));
            let body = limit::drawn(model, OperationId::CreateVatId, body);
            let call = cx.call(OperationId::CreateVatId).json(body.clone());
            let response = send(cx, model, call).await?;
            if let Some(id) = assigned(cx, model, "VAT ID", &response, step) {
                model.vat.push((id, body));
            }
            Ok(None)
        }
        Action::ReadVat { org, nth } => read_vat(cx, model, org, nth).await,
        Action::CreateQuote => {
            let body = limit::drawn(model, OperationId::CreateReceivable, bodies.quote());
            let response = receivable(cx, model, body).await?;
            if let Some(id) = assigned(cx, model, "receivable", &response, step) {
                model.quote_accepted = true;
                model.quotes.push(id);
            }
            Ok(None)
        }
        Action::InvoiceFromQuote => based_on(cx, model, "invoice", step).await,
        Action::CreditNoteFromInvoice => based_on(cx, model, "credit_note", step).await,
        Action::CreateMailbox => {
            model.creates += 1;
            let domain = bodies.domain(&format!("{}-m{}", model.salt, model.creates));
            let call = cx.call(OperationId::CreateMailboxDomain);
            let body = limit::drawn(
                model,
                OperationId::CreateMailboxDomain,
                json!({ "domain": domain }),
            );
            let response = send(cx, model, call.json(body)).await?;
            assigned(cx, model, "mailbox domain", &response, step);
            Ok(None)
        }
        Action::UpdateComment => {
            let text = format!("covenant explore {}", model.salt);
            let call = cx.call(OperationId::UpdateComment);
            let body = limit::drawn(model, OperationId::UpdateComment, json!({ "text": text }));
            send(cx, model, call.json(body)).await?;
            Ok(None)
        }
        Action::ReadEvents { org, limit, desc } => {
            read_events(cx, model, org, limit, desc).await?;
            Ok(None)
        }
        Action::ReadTransactions { limit } => read_transactions(cx, model, limit).await,
        Action::CarryToken { nth } => carry_token(cx, model, nth).await,
        Action::IssueToken { limit } => issue_token(cx, model, limit).await,
        Action::TokenWithParams { nth, kind } => token_with_params(cx, model, nth, kind).await,
        Action::UnknownProperty { shape, kind } => {
            super::refusal::unknown_property(cx, model, shape, kind).await
        }
        Action::TwoBreaches { kind } => super::refusal::two_breaches(cx, model, kind).await,
        Action::LargeBody => super::refusal::large_body(cx, model).await,
        Action::WalkBack { limit, depth } => deep::walk_back(cx, model, limit, depth).await,
        Action::FirstPagesOfOne => deep::first_pages_of_one(cx, model).await,
        Action::RefusedVelocity { org, slot } => {
            deep::refused_velocity(cx, model, org, slot, step).await
        }
        Action::QuoteWithCreatedVat => deep::quote_with_created_vat(cx, model, step).await,
        Action::ReadTransactionsWith { limit, kind } => {
            deep::read_transactions_with(cx, model, limit, kind).await
        }
        Action::DetachTag => deep::detach_tag(cx, model, step).await,
    }
}

/// A document based on the last one the sequence created of its source kind (quote to invoice,
/// invoice to credit note, the transitions the spec lists); the invoices are kept as sources.
async fn based_on(
    cx: &mut CaseCx,
    model: &mut Model,
    kind: &'static str,
    step: usize,
) -> Result<Option<&'static str>, Abort> {
    let (sources, idle) = match kind {
        "invoice" => (&model.quotes, "no quote created yet"),
        _ => (&model.invoices, "no invoice created from a quote yet"),
    };
    let Some(source) = sources.last().cloned() else {
        return Ok(Some(idle));
    };
    let body = Bodies::new(&cx.run).based_on(kind, &source);
    let response = receivable(cx, model, body).await?;
    let id = assigned(cx, model, "receivable", &response, step);
    if let (Some(id), "invoice") = (id, kind) {
        model.invoices.push(id);
    }
    Ok(None)
}

async fn receivable(cx: &mut CaseCx, model: &mut Model, body: Value) -> Result<Response, Abort> {
    let call = cx.call(OperationId::CreateReceivable).json(body);
    send(cx, model, call).await
}

async fn create_velocity(
    cx: &mut CaseCx,
    model: &mut Model,
    org: Org,
    slot: u8,
    step: usize,
) -> Result<(), Abort> {
    let id = cx.run.unique(&format!("{}-vc{slot}", model.salt));
    let mut body = Bodies::new(&cx.run).velocity("explore");
    body["id"] = json!(id);
    // A name of its own: an identical create sent again may be answered as a replay of the
    // first, creating nothing; only a second control under one id breaks the rule.
    body["name"] = json!(format!("covenant explore {}", model.creates));
    let body = limit::drawn(model, OperationId::CreateVelocityControl, body);
    model.name(&id, step);
    let call = cx
        .call(OperationId::CreateVelocityControl)
        .organization(given(cx, org, true));
    let response = send(cx, model, call.json(body)).await?;
    let taken = model.velocity[org.index()].get(&slot).cloned();
    if taken.is_none() {
        free_id_refused(cx, model, org, slot, &id, &response);
    }
    match taken {
        Some(at) => {
            cx.judged(ID_UNIQUE);
            cx.refused_under(ID_UNIQUE);
            if response.is_success() {
                let others = model.creates - at.parse::<usize>().unwrap_or(0);
                cx.finding(
                    ID_UNIQUE,
                    format!(
                        "the velocity control id {id}, taken in {} {others} creates before, was \
                         accepted again ({}): an id is unique within its organization",
                        org.name(),
                        response.status
                    ),
                );
            }
        }
        None if response.is_success() => {
            let fresh = !model.refused_velocity[org.index()].contains(&slot)
                && !model.velocity[org.other().index()].contains_key(&slot);
            model.fresh_velocity[org.index()] |= fresh;
            model.velocity[org.index()].insert(slot, model.creates.to_string());
        }
        None => {}
    }
    model.creates += 1;
    Ok(())
}

/// A create of an id free in `org` that only a refused create of `org` or another organization
/// named before, judged beside the sequence's creates of fresh ids there: refused where those
/// were accepted, it breaks the rule of what named it.
fn free_id_refused(
    cx: &mut CaseCx,
    model: &Model,
    org: Org,
    slot: u8,
    id: &str,
    response: &Response,
) {
    let refused_before = model.refused_velocity[org.index()].contains(&slot);
    let elsewhere = model.velocity[org.other().index()].contains_key(&slot);
    let rule = match (refused_before, elsewhere) {
        (true, _) => ID_FREE_AFTER_REFUSAL,
        (false, true) => ID_PER_ORGANIZATION,
        (false, false) => return,
    };
    if !model.fresh_velocity[org.index()] {
        return;
    }
    cx.judged(rule);
    if response.is_success() {
        return;
    }
    let named = match rule {
        ID_FREE_AFTER_REFUSAL => format!("only a refused create of {} named", org.name()),
        _ => format!("only {} took", org.other().name()),
    };
    cx.finding(
        rule,
        format!(
            "the velocity control id {id}, which {named}, was refused ({}) under {}, where \
             creates of fresh ids there were accepted",
            response.status,
            org.name()
        ),
    );
}

async fn read_vat(
    cx: &mut CaseCx,
    model: &mut Model,
    org: Org,
    nth: u8,
) -> Result<Option<&'static str>, Abort> {
    if model.vat.is_empty() {
        return Ok(Some("no VAT ID created yet"));
    }
    let (id, body) = model.vat[nth as usize % model.vat.len()].clone();
    let call = cx
        .call(OperationId::GetVatId)
        .ids(&[&id])
        .organization(given(cx, org, false));
    let response = send(cx, model, call).await?;
    if org == Org::Other {
        cx.expect().refused(
            &response,
            ISOLATION,
            "a VAT ID created under the first organization, read under the other",
        );
        return Ok(None);
    }
    // A success whose body is not JSON shows nothing of what was written: the generic checks
    // have judged it (GEN-JSON-BODY), and one cause is one finding.
    if response.is_success() && response.json.is_none() {
        return Ok(Some("the read's body is not JSON"));
    }
    cx.judged(READ_SHOWS_WRITE);
    let fields = ["value", "country", "type"];
    let wrote: Value = fields
        .iter()
        .map(|f| (f.to_string(), body[f].clone()))
        .collect();
    let read: Value = fields
        .iter()
        .map(|f| {
            let got = response.pointer(&format!("/{f}")).cloned();
            (f.to_string(), got.unwrap_or(Value::Null))
        })
        .collect();
    if !response.is_success() {
        cx.finding(
            READ_SHOWS_WRITE,
            format!(
                "a VAT ID this sequence created ({id}) was refused when read back: {}",
                response.status
            ),
        );
    } else if wrote != read {
        cx.finding_diff(
            READ_SHOWS_WRITE,
            format!("the VAT ID {id} read back after later writes is not what was written"),
            &wrote.to_string(),
            &read.to_string(),
        );
    }
    Ok(None)
}

async fn read_events(
    cx: &mut CaseCx,
    model: &mut Model,
    org: Org,
    limit: u8,
    desc: bool,
) -> Result<(), Abort> {
    let list = events_list();
    let mut query: Query = vec![("limit".to_owned(), limit.to_string())];
    if desc {
        query.push(("sort".to_owned(), "created_at".to_owned()));
        query.push(("order".to_owned(), "desc".to_owned()));
    }
    let Some(read) = full_read(cx, model, &list, &query, given(cx, org, false)).await? else {
        return Ok(());
    };
    let held: BTreeSet<&String> = read.ids.iter().collect();
    let order = if desc { "descending" } else { "ascending" };
    cx.judged(BOTH_ORDERS);
    let missing: Vec<&String> = model.events[org.index()]
        .iter()
        .filter(|id| !held.contains(id))
        .collect();
    if let Some(first) = missing.first() {
        cx.finding(
            BOTH_ORDERS,
            format!(
                "this {order} full read of the events of {} at limit={limit} ({} pages) lacks \
                 {} event(s) an earlier full read held, {first} first",
                org.name(),
                read.pages,
                missing.len()
            ),
        );
    }
    let other = org.other();
    cx.judged(TENANT_EVENTS);
    let leaked = model.events[other.index()]
        .iter()
        .filter(|id| held.contains(id))
        .count();
    if leaked > 0 {
        cx.finding(
            TENANT_EVENTS,
            format!(
                "{leaked} event(s) of a full read of the events of {} were also in a full read \
                 of those of {}: an event is one organization's",
                org.name(),
                other.name()
            ),
        );
    }
    model.events[org.index()].extend(read.kept);
    if let (Org::First, Some(next)) = (org, read.first_next) {
        model.tokens.push(next);
    }
    Ok(())
}

/// The first page of the first organization's events sorted by `created_at` (ascending, the
/// order the spec states when `sort` comes without `order`) at `limit`: its next token is kept.
/// The default order without `sort` is not stated, so no read without it issues such a token.
async fn issue_token(
    cx: &mut CaseCx,
    model: &mut Model,
    limit: u8,
) -> Result<Option<&'static str>, Abort> {
    let list = events_list();
    let query = crate::pagination::query(&[("sort", "created_at"), ("limit", &limit.to_string())]);
    let mut response = send(cx, model, list.request(cx, &query)).await?;
    let page = list.take_page(&mut response.json);
    match page.and_then(|p| p.next).filter(|_| response.is_success()) {
        Some(next) => {
            model.ascending.push((next.clone(), limit));
            model.tokens.push(next);
            Ok(None)
        }
        None => Ok(Some("the first page gave no next token")),
    }
}

/// An ascending events token kept earlier, sent alone and then with other query parameters:
/// the spec ignores every other parameter when a token is present, so both pages hold the
/// same events. New events come after every kept one in ascending order, so a full page is
/// the same whatever the run writes between the two requests; a shorter one may only grow.
async fn token_with_params(
    cx: &mut CaseCx,
    model: &mut Model,
    nth: u8,
    kind: u8,
) -> Result<Option<&'static str>, Abort> {
    if model.ascending.is_empty() {
        return Ok(Some("no ascending events token kept yet"));
    }
    let (token, limit) = model.ascending[nth as usize % model.ascending.len()].clone();
    let pairs = OTHER_PARAMS[kind as usize % OTHER_PARAMS.len()];
    let list = events_list();
    let mut pages = Vec::new();
    for query in [Vec::new(), crate::pagination::query(pairs)] {
        let query = list.with_token(&query, Some(&token));
        let mut response = send(cx, model, list.request(cx, &query)).await?;
        let page = list.take_page(&mut response.json);
        match page.filter(|_| response.is_success()) {
            Some(page) => pages.push(page.items.iter().map(item_key).collect::<Vec<_>>()),
            // A refusal is judged by the generic checks and the pagination cases.
            None => return Ok(None),
        }
    }
    let (alone, with) = (&pages[0], &pages[1]);
    cx.judged(TOKEN_LATER);
    let full = alone.len() >= usize::from(limit);
    let same = match full {
        true => alone == with,
        false => alone.starts_with(with) || with.starts_with(alone),
    };
    if !same {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        cx.finding_diff(
            TOKEN_LATER,
            format!(
                "an events token of a limit={limit} read, used later with {} ({} items), gave \
                 another page than alone ({} items): with a token every other query parameter \
                 is ignored",
                query.join("&"),
                with.len(),
                alone.len()
            ),
            &alone.join("\n"),
            &with.join("\n"),
        );
    }
    Ok(None)
}

async fn carry_token(
    cx: &mut CaseCx,
    model: &mut Model,
    nth: u8,
) -> Result<Option<&'static str>, Abort> {
    if model.tokens.is_empty() {
        return Ok(Some(
            "no events token issued under the first organization yet",
        ));
    }
    let token = model.tokens[nth as usize % model.tokens.len()].clone();
    let list = events_list();
    let query = list.with_token(&[], Some(&token));
    let call = list
        .request(cx, &query)
        .organization(given(cx, Org::Other, false));
    let mut response = send(cx, model, call).await?;
    cx.judged(TOKEN_WHERE_ISSUED);
    let page = list.take_page(&mut response.json);
    let (true, Some(page)) = (response.is_success(), page) else {
        return Ok(None);
    };
    let first = &model.events[Org::First.index()];
    let leaked = page
        .items
        .iter()
        .filter(|item| first.contains(&item_key(item)))
        .count();
    if leaked > 0 {
        cx.finding(
            TOKEN_WHERE_ISSUED,
            format!(
                "an events token issued under the first organization, sent under the other, was \
                 answered {} with {leaked} of the first organization's events",
                response.status
            ),
        );
    }
    Ok(None)
}

async fn read_transactions(
    cx: &mut CaseCx,
    model: &mut Model,
    limit: u8,
) -> Result<Option<&'static str>, Abort> {
    let values = cx.run.path_values(OperationId::ListTransactions, &[]);
    let list = List::of(OperationId::ListTransactions, values);
    let limit_query = |n: u8| vec![("limit".to_owned(), n.to_string())];
    if model.transactions.is_none() {
        match full_read(cx, model, &list, &limit_query(100), Given::Profile).await? {
            Some(base) => model.transactions = Some(base.ids),
            None => return Ok(Some("the read at limit=100 did not end")),
        }
    }
    let Some(read) = full_read(cx, model, &list, &limit_query(limit), Given::Profile).await? else {
        return Ok(None);
    };
    let base = model.transactions.clone().unwrap_or_default();
    cx.judged(FULL_READ);
    let held: BTreeSet<&String> = read.ids.iter().collect();
    let missing: Vec<(usize, &String)> = base
        .iter()
        .enumerate()
        .filter(|(_, id)| !held.contains(id))
        .collect();
    let repeated = read.ids.len() - held.len();
    let in_base: BTreeSet<&String> = base.iter().collect();
    let beyond: Vec<&String> = read.ids.iter().filter(|id| !in_base.contains(id)).collect();
    if let (true, 0, Some(first)) = (missing.is_empty(), repeated, beyond.first()) {
        // The read at limit=100 (the largest page) is the one that lacks items.
        cx.finding(
            FULL_READ,
            format!(
                "a full read of the transactions at limit=100 lacks {} of the items a full read \
                 at limit={limit} ({} pages) held, {first} first",
                beyond.len(),
                read.pages
            ),
        );
        return Ok(None);
    }
    if missing.is_empty() && repeated == 0 {
        return Ok(None);
    }
    let first = missing.first().map_or(String::new(), |(at, id)| {
        format!(
            "; the first missing, {id}, is item {} of the account: page {} at this limit",
            at + 1,
            at / limit.max(1) as usize + 1
        )
    });
    cx.finding(
        FULL_READ,
        format!(
            "a full read of the transactions at limit={limit} ({} pages) misses {} of the {} \
             items a full read at limit=100 held and repeats {repeated}{first}",
            read.pages,
            missing.len(),
            base.len()
        ),
    );
    Ok(None)
}
