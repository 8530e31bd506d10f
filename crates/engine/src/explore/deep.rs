//! The commands that go where the longer breaches live: pages walked back and forth, the
//! smallest page, ids that refused creates or another organization named, a reference to what
//! the API created, query parameters an operation does not state, and a tag's delete as the
//! detach the spec says it is.
//!
//! Each judges only what the spec states, or implies at `should` where the catalogue says so,
//! beside a control the same sequence made: a refusal is a breach only where the same request
//! without what is tried was accepted.

use super::reach::{events_list, full_read, Read};
use super::shape::send;
use super::{
    Model, Org, BOTH_ORDERS, CREATED_REFERENCE, NO_GLOBAL_ORDER, PAGES_BOTH_WAYS, TAG_DETACH,
    UNSTATED_PARAMS,
};
use crate::case::{Abort, Bodies, CaseCx, Given};
use crate::ledger::Consumable;
use crate::pagination::{item_key, List, ListPage, Query};
use crate::schema::OperationId;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// Pages of events at limit=1 a [`Action::FirstPagesOfOne`](super::Action) reads at most.
const PAGES_OF_ONE: usize = 5;

/// What a command that sent nothing to judge says of it.
type Idle = Result<Option<&'static str>, Abort>;

fn transactions(cx: &CaseCx) -> List {
    let values = cx.run.path_values(OperationId::ListTransactions, &[]);
    List::of(OperationId::ListTransactions, values)
}

fn limit_query(limit: u8) -> Query {
    vec![("limit".to_owned(), limit.to_string())]
}

/// One page of `list`; `None` when it was refused or is no page (the generic checks judge that).
async fn page(
    cx: &mut CaseCx,
    model: &mut Model,
    list: &List,
    query: &Query,
    token: Option<&str>,
) -> Result<Option<ListPage>, Abort> {
    let q = list.with_token(query, token);
    let mut response = send(cx, model, list.request(cx, &q)).await?;
    let page = list.take_page(&mut response.json);
    Ok(page.filter(|_| response.is_success()))
}

fn keys(page: &ListPage) -> Vec<String> {
    page.items.iter().map(item_key).collect()
}

/// Forward to page `depth` + 1, back to the first page by previous tokens, and forward again by
/// the next token of the first page the walk back reached.
pub async fn walk_back(cx: &mut CaseCx, model: &mut Model, limit: u8, depth: u8) -> Idle {
    let list = transactions(cx);
    let query = limit_query(limit);
    let mut forward: Vec<ListPage> = Vec::new();
    let mut token: Option<String> = None;
    while forward.len() <= usize::from(depth) {
        let Some(got) = page(cx, model, &list, &query, token.as_deref()).await? else {
            return Ok(Some("a page of the forward read was refused"));
        };
        token = got.next.clone();
        forward.push(got);
        if token.is_none() {
            break;
        }
    }
    if forward.len() < 2 {
        return Ok(Some("the transactions fit on one page at this limit"));
    }
    cx.judged(PAGES_BOTH_WAYS);
    let last = forward.len() - 1;
    let mut prev = forward[last].prev.clone();
    for place in (0..last).rev() {
        let Some(token) = prev else {
            let message = format!(
                "page {} of the transactions at limit={limit}, reached by next tokens, has no \
                 previous token: the walk back cannot reach page {}",
                place + 2,
                place + 1
            );
            cx.finding(PAGES_BOTH_WAYS, message);
            return Ok(None);
        };
        let Some(back) = page(cx, model, &list, &query, Some(token.as_str())).await? else {
            return Ok(None);
        };
        if keys(&back) != keys(&forward[place]) {
            let what = format!(
                "walking back from page {} of the transactions at limit={limit}, the previous \
                 token led to a page that is not page {} as the forward read held it",
                last + 1,
                place + 1
            );
            let (expected, actual) = (keys(&forward[place]), keys(&back));
            cx.finding_diff(
                PAGES_BOTH_WAYS,
                what,
                &expected.join("\n"),
                &actual.join("\n"),
            );
            return Ok(None);
        }
        if place + 1 == last && !forth(cx, model, &list, &query, &back, &forward, limit).await? {
            return Ok(None);
        }
        prev = back.prev;
    }
    if prev.is_some() {
        cx.finding(
            PAGES_BOTH_WAYS,
            format!(
                "the walk back by previous tokens reached the first page of the transactions at \
                 limit={limit}, and its prevPaginationToken is not null"
            ),
        );
    }
    Ok(None)
}

/// The next token of `back` (the page before the walk's last, reached by a previous token)
/// leads to the walk's last page: false when it did not (a finding is made).
async fn forth(
    cx: &mut CaseCx,
    model: &mut Model,
    list: &List,
    query: &Query,
    back: &ListPage,
    forward: &[ListPage],
    limit: u8,
) -> Result<bool, Abort> {
    let last = forward.len() - 1;
    let what = format!(
        "page {last} of the transactions at limit={limit}, reached back by a previous token, \
         gave a next token that does not lead to page {} as the forward read held it",
        last + 1
    );
    let expected = keys(&forward[last]);
    let actual = match &back.next {
        None => vec!["(no next token)".to_owned()],
        Some(next) => match page(cx, model, list, query, Some(next)).await? {
            Some(got) => keys(&got),
            None => return Ok(true),
        },
    };
    if actual == expected {
        return Ok(true);
    }
    cx.finding_diff(
        PAGES_BOTH_WAYS,
        what,
        &expected.join("\n"),
        &actual.join("\n"),
    );
    Ok(false)
}

/// The first organization's events at limit=1, ascending, up to [`PAGES_OF_ONE`] pages: a read
/// that ends there (no next token) holds every event an earlier full read held.
pub async fn first_pages_of_one(cx: &mut CaseCx, model: &mut Model) -> Idle {
    let known = &model.events[Org::First.index()];
    if known.len() < 2 {
        return Ok(Some("no full read of the events held two events yet"));
    }
    let list = events_list();
    let query = crate::pagination::query(&[("sort", "created_at"), ("limit", "1")]);
    let mut held = BTreeSet::new();
    let mut token: Option<String> = None;
    for pages in 1..=PAGES_OF_ONE {
        let Some(got) = page(cx, model, &list, &query, token.as_deref()).await? else {
            return Ok(None);
        };
        held.extend(keys(&got));
        token = got.next;
        if token.is_some() {
            continue;
        }
        cx.judged(BOTH_ORDERS);
        let known = &model.events[Org::First.index()];
        let missing = known.iter().filter(|id| !held.contains(*id)).count();
        if missing > 0 {
            cx.finding(
                BOTH_ORDERS,
                format!(
                    "a read of the first organization's events at limit=1 ended after {pages} \
                     page(s) (its next token null), lacking {missing} event(s) an earlier full \
                     read held"
                ),
            );
        }
        return Ok(None);
    }
    Ok(None)
}

/// A velocity control create under `org` with the id of `slot` and a usageLimit beside the
/// TRANSACTION window ("must be omitted when the window is TRANSACTION"): its refusal is judged
/// by the cases of that rule; here it only marks the id as named by a refused create.
pub async fn refused_velocity(
    cx: &mut CaseCx,
    model: &mut Model,
    org: Org,
    slot: u8,
    step: usize,
) -> Idle {
    let id = cx.run.unique(&format!("{}-vc{slot}", model.salt));
    let mut body = Bodies::new(&cx.run).velocity("explore");
    body["id"] = json!(id);
    body["name"] = json!(format!("covenant explore refused {}", model.creates));
    body["velocityWindow"] = json!("TRANSACTION");
    body["usageLimit"] = json!(5);
    model.name(&id, step);
    let call = cx
        .call(OperationId::CreateVelocityControl)
        .organization(super::reach::given(cx, org, true));
    let response = send(cx, model, call.json(body)).await?;
    let taken = &mut model.velocity[org.index()];
    match response.is_success() {
        // Accepted against the rule (judged elsewhere): the id is taken all the same.
        true => {
            taken
                .entry(slot)
                .or_insert_with(|| model.creates.to_string());
        }
        false if !taken.contains_key(&slot) => {
            model.refused_velocity[org.index()].insert(slot);
        }
        false => {}
    }
    model.creates += 1;
    Ok(None)
}

/// A quote naming the last VAT ID the sequence created (for the profile's counterpart, whom the
/// quote is for) as its counterpart_vat_id_id, judged beside the sequence's quotes without it.
pub async fn quote_with_created_vat(cx: &mut CaseCx, model: &mut Model, step: usize) -> Idle {
    let Some((vat, _)) = model.vat.last().cloned() else {
        return Ok(Some("no VAT ID created yet"));
    };
    let mut body = Bodies::new(&cx.run).quote();
    body["counterpart_vat_id_id"] = json!(vat);
    let call = cx.call(OperationId::CreateReceivable).json(body);
    let response = send(cx, model, call).await?;
    if let Some(id) = super::reach::assigned(cx, model, "receivable", &response, step) {
        model.quotes.push(id);
    }
    if !model.quote_accepted {
        return Ok(Some("no quote without it was accepted to judge it beside"));
    }
    cx.judged(CREATED_REFERENCE);
    if !response.is_success() {
        cx.finding(
            CREATED_REFERENCE,
            format!(
                "a quote naming the VAT ID {vat}, created by this sequence for its counterpart, \
                 as its counterpart_vat_id_id was refused ({}), where the sequence's quotes \
                 without it were accepted",
                response.status
            ),
        );
    }
    Ok(None)
}

/// Full reads of the transactions at `limit` without and with parameters list transactions
/// does not state, sent on every page: the same items in the same order. A refusal of the
/// parameters passes (the spec does not say unknown query parameters are ignored).
pub async fn read_transactions_with(
    cx: &mut CaseCx,
    model: &mut Model,
    limit: u8,
    kind: u8,
) -> Idle {
    let list = transactions(cx);
    let plain = limit_query(limit);
    let pairs = UNSTATED_PARAMS[kind as usize % UNSTATED_PARAMS.len()];
    let mut with = plain.clone();
    with.extend(crate::pagination::query(pairs));
    let Some(alone) = full_read(cx, model, &list, &plain, Given::Profile).await? else {
        return Ok(Some("the read without the parameters did not end"));
    };
    let Some(read) = full_read(cx, model, &list, &with, Given::Profile).await? else {
        return Ok(None);
    };
    cx.judged(NO_GLOBAL_ORDER);
    if alone.ids != read.ids {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        cx.finding_diff(
            NO_GLOBAL_ORDER,
            unordered(&alone, &read, limit, &query.join("&")),
            &alone.ids.join("\n"),
            &read.ids.join("\n"),
        );
    }
    Ok(None)
}

fn unordered(alone: &Read, with: &Read, limit: u8, query: &str) -> String {
    format!(
        "a full read of the transactions at limit={limit} with {query} on every page ({} items \
         in {} pages) is not the read without them ({} items in {} pages): the area has no sort \
         or order parameters, and an endpoint without them keeps its default order",
        with.ids.len(),
        with.pages,
        alone.ids.len(),
        alone.pages
    )
}

/// A tag's delete as the spec states it: detached from every resource, nothing else deleted.
/// Quotes with and without the tag, an invoice based on each, the delete, then a credit note
/// based on each invoice: the tagged chain's refused as if gone (404) where the other's was
/// accepted breaks TAG-DETACH. A deletable tag is taken only in a sequence's first play, and
/// only while the profile keeps another for the next run's delete cases.
pub async fn detach_tag(cx: &mut CaseCx, model: &mut Model, step: usize) -> Idle {
    if model.replay {
        return Ok(Some(
            "a deletable tag is taken in a sequence's first play only",
        ));
    }
    if cx
        .run
        .ledger
        .free(Consumable::DeletableTags, &cx.run.profile)
        < 2
    {
        return Ok(Some(
            "the profile keeps fewer than two deletable tags not used up",
        ));
    }
    let tag = match cx.take_fixture(Consumable::DeletableTags) {
        Ok(taken) => taken.id,
        Err(Abort::Skip(_)) => return Ok(Some("no deletable tag left")),
        Err(other) => return Err(other),
    };
    let run = cx.run.clone();
    let bodies = Bodies::new(&run);
    let mut tagged = bodies.quote();
    tagged["tag_ids"] = json!([tag]);
    let Some(quotes) = created(cx, model, [tagged, bodies.quote()], step).await? else {
        return Ok(Some("a quote was refused"));
    };
    let invoices = quotes.map(|q| bodies.based_on("invoice", &q));
    let Some(invoices) = created(cx, model, invoices, step).await? else {
        return Ok(Some("an invoice based on a quote was refused"));
    };
    let delete = cx.call(OperationId::DeleteTag).ids(&[&tag]);
    if !send(cx, model, delete).await?.is_success() {
        return Ok(Some("the tag's delete was refused"));
    }
    let [tagged, control] = invoices.map(|i| bodies.based_on("credit_note", &i));
    let control = send(
        cx,
        model,
        cx.call(OperationId::CreateReceivable).json(control),
    )
    .await?;
    let tagged = send(
        cx,
        model,
        cx.call(OperationId::CreateReceivable).json(tagged),
    )
    .await?;
    if !control.is_success() {
        return Ok(Some(
            "the credit note of the chain without the tag was refused",
        ));
    }
    cx.judged(TAG_DETACH);
    if tagged.status == 404 {
        cx.finding(
            TAG_DETACH,
            "after the tag was deleted, a credit note based on an invoice made from the quote \
             that carried it was refused 404, as if the invoice were gone, where one based on \
             the invoice of the quote without the tag was accepted: deleting a tag detaches it \
             and deletes nothing else"
                .to_owned(),
        );
    }
    Ok(None)
}

/// Creates the two receivables `bodies` in order; their ids, or `None` when one was refused.
async fn created(
    cx: &mut CaseCx,
    model: &mut Model,
    bodies: [Value; 2],
    step: usize,
) -> Result<Option<[String; 2]>, Abort> {
    let mut ids = Vec::new();
    for body in bodies {
        let call = cx.call(OperationId::CreateReceivable).json(body);
        let response = send(cx, model, call).await?;
        match super::reach::assigned(cx, model, "receivable", &response, step) {
            Some(id) => ids.push(id),
            None => return Ok(None),
        }
    }
    Ok(<[String; 2]>::try_from(ids).ok())
}
