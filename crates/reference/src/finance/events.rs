//! List events: the seeded history plus one event per write, paged with stored tokens.

use super::{gate_org, merge, not_found, query_map};
use crate::fault::Fault;
use crate::page::{Neighbours, PageFaults, PagePlan, TokenBook, TokenFaults};
use crate::reply::{self, FieldError, Reply};
use crate::store::{rfc3339, App, Event, EventCursor};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use time::OffsetDateTime;
use uuid::Uuid;

/// The default page size of list events (the spec states none).
pub const EVENTS_DEFAULT_LIMIT: usize = 100;

pub async fn list_events_v1(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if app.faults.has(Fault::EventsPathWithoutV1) {
        return not_found(&app, "route");
    }
    merge(list_events(&app, &headers, query.as_deref()))
}

/// `/finops/events`: exists only under the `ver-events-path-without-v1` fault.
pub async fn list_events_bare(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if !app.faults.has(Fault::EventsPathWithoutV1) {
        return not_found(&app, "route");
    }
    merge(list_events(&app, &headers, query.as_deref()))
}

/// The cursor of a first query (no token).
fn first_cursor(
    app: &App,
    org: Uuid,
    q: &HashMap<String, String>,
) -> Result<EventCursor, Vec<FieldError>> {
    let f = &app.faults;
    let lenient = f.has(Fault::EventsLimitClamped);
    let mut problems = Vec::new();
    let limit = match q.get("limit").map(|s| s.parse::<i64>()) {
        None => EVENTS_DEFAULT_LIMIT,
        Some(Ok(n)) if (1..=100).contains(&n) => n as usize,
        Some(Ok(n)) if lenient => n.clamp(1, 100) as usize,
        Some(Err(_)) if lenient => EVENTS_DEFAULT_LIMIT,
        Some(_) => {
            problems.push(FieldError::query(
                "limit",
                "Input should be an integer from 1 to 100",
                "int_parsing",
            ));
            EVENTS_DEFAULT_LIMIT
        }
    };
    let unknown_ok = f.has(Fault::EventsOrderUnknownIgnored);
    let desc = match q.get("order").map(String::as_str) {
        None => f.has(Fault::EventsDefaultDesc),
        Some("asc") => false,
        Some("desc") => !f.has(Fault::EventsDescIgnored),
        Some(_) if unknown_ok => false,
        Some(_) => {
            problems.push(FieldError::query(
                "order",
                "Input should be 'asc' or 'desc'",
                "enum",
            ));
            false
        }
    };
    let by_updated = match q.get("sort").map(String::as_str) {
        None => f.has(Fault::EventsDefaultSortUpdated),
        Some("created_at") => false,
        Some("updated_at") => true,
        Some(_) if unknown_ok => false,
        Some(_) => {
            problems.push(FieldError::query(
                "sort",
                "Input should be 'created_at' or 'updated_at'",
                "enum",
            ));
            false
        }
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    let writes = match f.has(Fault::EventsTokenParamsLater) {
        true => writes_of(app, org),
        false => 0,
    };
    Ok(EventCursor {
        org,
        limit,
        desc,
        by_updated,
        offset: 0,
        sorted: q.contains_key("sort"),
        writes,
    })
}

/// The events of writes an organization has.
fn writes_of(app: &App, org: Uuid) -> usize {
    let db = app.db();
    db.events
        .iter()
        .filter(|e| e.org == org && e.written)
        .count()
}

/// Writes after a token's first query from which `evt-token-params-honoured-later` lets the
/// query's own parameters override the token's.
const LATER_WRITES: usize = 3;

/// Under `evt-token-honours-params`, the query's own limit and order override the token's.
fn override_from_query(mut cursor: EventCursor, q: &HashMap<String, String>) -> EventCursor {
    if let Some(limit) = q
        .get("limit")
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|n| (1..=100).contains(n))
    {
        cursor.limit = limit;
    }
    match q.get("order").map(String::as_str) {
        Some("asc") => cursor.desc = false,
        Some("desc") => cursor.desc = true,
        _ => {}
    }
    cursor
}

fn list_events(app: &App, headers: &HeaderMap, query: Option<&str>) -> Reply {
    let org = gate_org(app, headers)?;
    let f = &app.faults;
    let q = query_map(query);
    if f.has(Fault::ServerErrorOnValidRequest) && q.get("order").is_some_and(|o| o == "desc") {
        return Err(reply::internal_error());
    }
    let cursor = match q.get("pagination_token") {
        None => first_cursor(app, org, &q).map_err(|p| reply::validation(f, &p))?,
        Some(token) => {
            let found = tokens(app).redeem(&mut app.db(), token);
            let anywhere = f.has(Fault::EventsTokenAnyOrganization);
            match found.filter(|c| c.org == org || anywhere) {
                Some(c) if f.has(Fault::EventsTokenHonoursParams) => override_from_query(c, &q),
                Some(c)
                    if f.has(Fault::EventsTokenParamsLater)
                        && writes_of(app, org) >= c.writes + LATER_WRITES =>
                {
                    override_from_query(c, &q)
                }
                Some(c) => c,
                None if f.has(Fault::EventsTamperedRestarts) => {
                    first_cursor(app, org, &HashMap::new()).map_err(|p| reply::validation(f, &p))?
                }
                None => {
                    return Err(reply::finance_error(
                        f,
                        StatusCode::BAD_REQUEST,
                        "pagination_token is unknown or expired",
                    ))
                }
            }
        }
    };
    let mut page = events_page(app, cursor);
    // Under its fault, a first page at limit 1 claims to be the last.
    let first_at_one = cursor.limit == 1 && !q.contains_key("pagination_token");
    if first_at_one && f.has(Fault::EventsLimitOneFirstPageEnds) {
        page["next_pagination_token"] = Value::Null;
    }
    if !headers.contains_key(axum::http::header::ACCEPT) && f.has(Fault::NoAcceptAnsweredCsv) {
        return Ok(reply::with_type(StatusCode::OK, csv(&page), "text/csv"));
    }
    if f.has(Fault::JsonAsTextPlain) {
        let bytes = serde_json::to_vec(&page).expect("a serde_json::Value always serialises");
        return Ok(reply::with_type(
            StatusCode::OK,
            bytes,
            "text/plain; charset=utf-8",
        ));
    }
    let mut response = reply::json(StatusCode::OK, &page);
    if f.has(Fault::JsonWithoutContentType) {
        response
            .headers_mut()
            .remove(axum::http::header::CONTENT_TYPE);
    }
    Ok(response)
}

/// A page of events as CSV: a header line, then one line per event.
fn csv(page: &Value) -> Vec<u8> {
    let mut out = String::from("id,action,created_at\n");
    for event in page["data"].as_array().into_iter().flatten() {
        let field = |k: &str| event[k].as_str().unwrap_or_default().to_owned();
        out.push_str(&format!(
            "{},{},{}\n",
            field("id"),
            field("action"),
            field("created_at")
        ));
    }
    out.into_bytes()
}

/// The page tokens of list events.
fn tokens(app: &App) -> TokenBook<EventCursor> {
    let faults = TokenFaults {
        single_use: Fault::EventsTokenSingleUse,
        expires: None,
    };
    TokenBook::new(app, "events", faults, |db| &mut db.event_cursors)
}

/// Events of writes from which `evt-tenant-leak-after-eight-writes` leaks an organization's
/// newest event into the others' lists.
const LEAKING_WRITES: usize = 8;

/// The index of the newest event of each organization other than `org` that has at least
/// [`LEAKING_WRITES`] events of writes.
fn leaked_events(events: &[Event], org: Uuid) -> Vec<usize> {
    let mut writes: HashMap<Uuid, usize> = HashMap::new();
    let mut newest: HashMap<Uuid, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate().filter(|(_, e)| e.org != org) {
        *writes.entry(e.org).or_default() += usize::from(e.written);
        let newer = |j: &usize| (e.created_at, e.id) > (events[*j].created_at, events[*j].id);
        if newest.get(&e.org).is_none_or(newer) {
            newest.insert(e.org, i);
        }
    }
    let mut leaked: Vec<usize> = newest
        .into_iter()
        .filter(|(o, _)| writes.get(o).is_some_and(|n| *n >= LEAKING_WRITES))
        .map(|(_, i)| i)
        .collect();
    leaked.sort_unstable();
    leaked
}

/// One page of events and its tokens (registered so that they can be used again).
fn events_page(app: &App, cursor: EventCursor) -> Value {
    let f = &app.faults;
    let mut db = app.db();
    // Indices, not clones: only the page's own events are copied out of the store.
    let mut order: Vec<usize> = (0..db.events.len())
        .filter(|i| db.events[*i].org == cursor.org || f.has(Fault::EventsOfEveryOrganization))
        .collect();
    // Under its fault, another organization with eight events of writes shows its newest event.
    let leaked = leaked_events(&db.events, cursor.org);
    if !leaked.is_empty() && f.has(Fault::EventsLeakAfterEightWrites) {
        let unlisted: Vec<usize> = leaked.into_iter().filter(|i| !order.contains(i)).collect();
        order.extend(unlisted);
    }
    let key = |e: &Event| {
        let at = if cursor.by_updated {
            e.updated_at
        } else {
            e.created_at
        };
        (at, e.id)
    };
    order.sort_by_key(|i| key(&db.events[*i]));
    if cursor.desc {
        order.reverse();
        // Under its fault, the oldest event of a write is left out once there are six.
        let written: Vec<usize> = order
            .iter()
            .copied()
            .filter(|i| db.events[*i].written)
            .collect();
        if written.len() >= 6 && f.has(Fault::EventsDescDropsEarlyWrite) {
            let oldest = written.last().copied();
            order.retain(|i| Some(*i) != oldest);
        }
    }
    let plan = PagePlan::new(
        cursor.offset,
        cursor.limit,
        order.len(),
        PageFaults {
            short: f.has(Fault::EventsPageShort),
            plus_one: f.has(Fault::EventsLimitPlusOne),
            repeat: f.has(Fault::EventsItemRepeated),
            skip: f.has(Fault::EventsItemSkipped)
                || (cursor.sorted && f.has(Fault::EventsSortedItemSkipped)),
            cycle: f.has(Fault::EventsNextCycles),
            prev_on_first: f.has(Fault::EventsPrevOnFirst),
            prev_off_by_one: false,
        },
    );
    let Neighbours { next, prev } =
        tokens(app).issue(&mut db, &plan, |offset| EventCursor { offset, ..cursor });
    let mut events: Vec<Event> = order[plan.start..plan.end]
        .iter()
        .map(|i| db.events[*i].clone())
        .collect();
    drop(db);
    if plan.start >= 2 * cursor.limit && f.has(Fault::EventsThirdPageReversed) {
        events.reverse();
    }
    let old = OffsetDateTime::now_utc() - time::Duration::days(30);
    let data: Vec<Value> = events
        .iter()
        .map(|e| {
            let object_type = if f.has(Fault::EventObjectTypeOutsideEnum) && e.object_type == "counterpart_tax_id" {
                "vat_id"
            } else {
                e.object_type
            };
            let mut item = json!({
                "id": e.id,
                "action": e.action,
                "api_version": covenant_contract::schema::DEFAULT_FINOPS_VERSION,
                "description": format!("{} {}", object_type, e.action.rsplit('.').next().unwrap_or("changed")),
                "entity_id": e.org,
                "object_type": object_type,
                "created_at": if e.written && f.has(Fault::WrittenEventTimeNotDateTime) {
                    json!(e.created_at.unix_timestamp().to_string())
                } else if e.created_at < old && f.has(Fault::EventsOldTimesWithoutOffset) {
                    json!(rfc3339(e.created_at)[..19])
                } else {
                    json!(rfc3339(e.created_at))
                },
                "object": e.object,
            });
            if f.has(Fault::EventDescriptionMissing) {
                item.as_object_mut().map(|m| m.remove("description"));
            }
            item
        })
        .collect();
    let mut page =
        json!({ "data": data, "next_pagination_token": next, "prev_pagination_token": prev });
    if f.has(Fault::EventsPrevKeyMissing) {
        page.as_object_mut()
            .map(|m| m.remove("prev_pagination_token"));
    }
    page
}
