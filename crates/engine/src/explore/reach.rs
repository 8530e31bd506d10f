//! How a command reaches the target and what it keeps of the answer: the organization header
//! for an organization, full reads of a list, and the ids creates were answered with.

use super::shape::send;
use super::{Model, Org, ID_UNIQUE};
use crate::case::{Abort, CaseCx, Given};
use crate::client::Response;
use crate::pagination::{item_key, List, Query};
use crate::schema::OperationId;
use serde_json::Value;
use std::collections::BTreeSet;

/// Pages a full read follows at most (a read that does not end is judged by the pagination
/// cases; here it only stops).
const MAX_PAGES: usize = 400;

/// Events older than this may have left the list (the spec keeps three months): the model
/// does not expect them.
const KEPT_DAYS: i64 = 80;

/// The organization header's value for `org`: the profile's own, or its other organization of
/// the area.
pub fn given(cx: &CaseCx, org: Org, banking: bool) -> Given {
    let other = match (org, banking) {
        (Org::First, _) => return Given::Profile,
        (Org::Other, false) => cx
            .run
            .finops()
            .and_then(|f| f.other_organization_id.clone()),
        (Org::Other, true) => cx
            .run
            .banking()
            .and_then(|b| b.other_organization_id.clone()),
    };
    other.map(Given::Value).unwrap_or_default()
}

/// The id a create answered, when it succeeded: it must name no resource of its kind the
/// sequence saw before.
pub fn assigned(
    cx: &mut CaseCx,
    model: &mut Model,
    kind: &'static str,
    response: &Response,
    step: usize,
) -> Option<String> {
    if !response.is_success() {
        return None;
    }
    let id = response.pointer("/id")?.as_str()?.to_owned();
    cx.judged(ID_UNIQUE);
    let seen = model.assigned.entry(kind).or_default();
    if !seen.insert(id.clone()) {
        cx.finding(
            ID_UNIQUE,
            format!("a new {kind} was answered with the id {id}, which an earlier {kind} of this sequence had"),
        );
    }
    model.name(&id, step);
    Some(id)
}

/// What a full read held.
pub struct Read {
    pub ids: Vec<String>,
    /// Ids of items recent enough that the spec keeps them (events).
    pub kept: Vec<String>,
    /// The next token of the first page.
    pub first_next: Option<String>,
    pub pages: usize,
}

/// Follows a list from its first page with `query` under `org` to the page without a next
/// token; `None` when a page was refused, is no page, or a token came again.
pub async fn full_read(
    cx: &mut CaseCx,
    model: &mut Model,
    list: &List,
    query: &Query,
    org: Given,
) -> Result<Option<Read>, Abort> {
    let mut read = Read {
        ids: Vec::new(),
        kept: Vec::new(),
        first_next: None,
        pages: 0,
    };
    let mut tokens = BTreeSet::new();
    let mut token: Option<String> = None;
    let oldest = time::OffsetDateTime::now_utc() - time::Duration::days(KEPT_DAYS);
    while read.pages < MAX_PAGES {
        let q = list.with_token(query, token.as_deref());
        let call = list.request(cx, &q).organization(org.clone());
        let mut response = send(cx, model, call).await?;
        let page = list.take_page(&mut response.json);
        let (true, Some(page)) = (response.is_success(), page) else {
            return Ok(None);
        };
        read.pages += 1;
        for item in &page.items {
            let key = item_key(item);
            let at = item.get("created_at").and_then(Value::as_str);
            let at = at.and_then(|s| {
                time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()
            });
            if at.is_some_and(|at| at >= oldest) {
                read.kept.push(key.clone());
            }
            read.ids.push(key);
        }
        if read.pages == 1 {
            read.first_next = page.next.clone();
        }
        match page.next {
            None => return Ok(Some(read)),
            Some(next) if !tokens.insert(next.clone()) => return Ok(None),
            Some(next) => token = Some(next),
        }
    }
    Ok(None)
}

pub fn events_list() -> List {
    List::of(OperationId::ListEvents, Vec::new())
}
