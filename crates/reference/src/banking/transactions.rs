//! List transactions: the first page's cursor from the query, later pages' from their stored
//! tokens, and the page itself in the banking page shape.

use super::{error, gate};
use crate::fault::Fault;
use crate::finance::query_map;
use crate::page::{Neighbours, PageFaults, PagePlan, TokenBook, TokenFaults};
use crate::receivable::parse_uuid;
use crate::reply::{self, Reply};
use crate::store::{App, Transaction, TxCursor};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// The default page size of the banking lists (pagination rule 1).
pub const DEFAULT_LIMIT: usize = 25;

pub async fn list_transactions(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    uri: Uri,
    Path(account): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    list_transactions_inner(&app, &headers, &uri, &account, query.as_deref()).unwrap_or_else(|e| e)
}

fn first_tx_cursor(
    app: &App,
    account: Uuid,
    q: &HashMap<String, String>,
    uri: &Uri,
) -> Result<TxCursor, Response> {
    let f = &app.faults;
    let default = if f.has(Fault::BankingDefaultLimit30) {
        30
    } else {
        DEFAULT_LIMIT
    };
    let limit = match q.get("limit").map(|s| s.parse::<i64>()) {
        None => default,
        // The faulty server's range ends at 99: its limit applied one too tight.
        Some(Ok(n))
            if (1..=100).contains(&n) && !(n == 100 && f.has(Fault::BankingLimit100Refused)) =>
        {
            n as usize
        }
        Some(Ok(101)) if f.has(Fault::BankingLimit101Served) => 101,
        Some(Ok(n)) if f.has(Fault::BankingLimitClamped) => n.clamp(1, 100) as usize,
        Some(_) => {
            let detail = "limit must be an integer from 1 to 100";
            return Err(error(
                app,
                StatusCode::BAD_REQUEST,
                Some("INVALID_LIMIT"),
                detail,
                uri,
            ));
        }
    };
    Ok(TxCursor {
        account,
        limit,
        offset: 0,
        defaulted: !q.contains_key("limit"),
        via_prev: false,
    })
}

fn list_transactions_inner(
    app: &App,
    headers: &HeaderMap,
    uri: &Uri,
    account: &str,
    query: Option<&str>,
) -> Reply {
    let f = &app.faults;
    let caller = gate(app, headers, uri)?;
    let not_found = || {
        error(
            app,
            StatusCode::NOT_FOUND,
            Some("BANK_ACCOUNT_NOT_FOUND"),
            "no such bank account",
            uri,
        )
    };
    let account = parse_uuid(account).ok_or_else(not_found)?;
    let owned = app
        .db()
        .bank_accounts
        .get(&account)
        .is_some_and(|a| a.org == caller.owner(app));
    if !owned {
        if f.has(Fault::UnknownAccountEmpty) {
            return Ok(page_json(app, &[], None, None));
        }
        return Err(not_found());
    }
    let q = query_map(query);
    let cursor = match q.get("pagination_token") {
        None => first_tx_cursor(app, account, &q, uri)?,
        Some(token) => {
            let found = tokens(app).redeem(&mut app.db(), token);
            match found.filter(|c| c.account == account) {
                Some(c) => c,
                None if f.has(Fault::BankingTamperedRestarts) => {
                    first_tx_cursor(app, account, &HashMap::new(), uri)?
                }
                None => {
                    let detail = "pagination_token is unknown, expired or for another list";
                    return Err(error(
                        app,
                        StatusCode::BAD_REQUEST,
                        Some("INVALID_PAGINATION_TOKEN"),
                        detail,
                        uri,
                    ));
                }
            }
        }
    };
    let via_token = q.contains_key("pagination_token");
    // Under their faults, a first page, or a page a token led to, honours an order the spec
    // says this area does not have.
    let honoured = match via_token {
        false => f.has(Fault::TransactionsOrderHonoured),
        true => f.has(Fault::TransactionsOrderBesideToken),
    };
    let descending = honoured && q.get("order").is_some_and(|o| o == "desc");
    Ok(transactions_page(app, cursor, via_token, descending))
}

/// The page tokens of list transactions.
fn tokens(app: &App) -> TokenBook<TxCursor> {
    let faults = TokenFaults {
        single_use: Fault::BankingTokenSingleUse,
        expires: Some(Fault::BankingTokenExpires),
    };
    TokenBook::new(app, "transactions", faults, |db| &mut db.tx_cursors)
}

/// The page `cursor` names; `via_token` when a pagination token led to it; `descending` when
/// its items are counted from the newest (a faulty order).
fn transactions_page(app: &App, cursor: TxCursor, via_token: bool, descending: bool) -> Response {
    let f = &app.faults;
    let mut db = app.db();
    let total = db
        .bank_accounts
        .get(&cursor.account)
        .map_or(0, |a| a.transactions.len());
    let mut plan = PagePlan::new(
        cursor.offset,
        cursor.limit,
        total,
        PageFaults {
            short: false,
            plus_one: false,
            repeat: f.has(Fault::BankingItemRepeated),
            skip: f.has(Fault::BankingItemSkipped),
            cycle: f.has(Fault::BankingNextCycles),
            prev_on_first: f.has(Fault::BankingPrevOnFirst),
            prev_off_by_one: f.has(Fault::BankingPrevWrongPage),
        },
    );
    // Under its fault, deep in a read at a limit from 8 to 24, each next token skips a page.
    let deep = cursor.offset >= 8 * cursor.limit && (8..=24).contains(&cursor.limit);
    if deep && f.has(Fault::BankingDeepPageSkipped) {
        plan.next = plan.next.map(|n| n + cursor.limit).filter(|n| *n < total);
    }
    // Under its fault, a page a previous token led to has a next token that skips a page (the
    // flag is set only under the fault, so the clean server's tokens are one per page).
    if cursor.via_prev && f.has(Fault::BankingPrevPageNextSkips) {
        plan.next = plan.next.map(|n| n + cursor.limit).filter(|n| *n < total);
    }
    // Under its fault, a full page at limit 100 shows its first 99 items; its next token still
    // leads past the 100th.
    let full = cursor.limit == 100 && plan.end - plan.start == 100;
    if full && f.has(Fault::BankingLimit100DropsLast) {
        plan.end -= 1;
    }
    if total == 0 && f.has(Fault::BankingEmptyReadEndless) {
        plan.next = Some(0);
    }
    if cursor.offset == 0 && via_token && f.has(Fault::BankingPrevOnFirstViaToken) {
        plan.prev = Some(0);
    }
    // The default limit kept for the first page only: the pages its tokens lead to hold twice
    // as many.
    let later_limit = match cursor.defaulted && f.has(Fault::BankingDefaultLimitFirstPageOnly) {
        true => DEFAULT_LIMIT * 2,
        false => cursor.limit,
    };
    let at = |offset, via_prev| TxCursor {
        offset,
        limit: later_limit,
        via_prev,
        ..cursor
    };
    let marked = f.has(Fault::BankingPrevPageNextSkips);
    let Neighbours { next, prev } =
        tokens(app).issue_apart(&mut db, &plan, |o| at(o, false), |o| at(o, marked));
    let data = db
        .bank_accounts
        .get(&cursor.account)
        .map(|a| match descending {
            true => a
                .transactions
                .iter()
                .rev()
                .skip(plan.start)
                .take(plan.end - plan.start)
                .cloned()
                .collect(),
            false => a.transactions[plan.start..plan.end].to_vec(),
        })
        .unwrap_or_default();
    drop(db);
    page_json(app, &data, next, prev)
}

/// A page of transactions, serialised straight from the stored items.
#[derive(serde::Serialize)]
struct Page<'a> {
    data: &'a [Transaction],
    #[serde(rename = "nextPaginationToken")]
    next: Option<String>,
    #[serde(rename = "prevPaginationToken")]
    prev: Option<String>,
}

/// The page as the `bpag-page-snake-case-tokens` fault names its members.
#[derive(serde::Serialize)]
struct SnakePage<'a> {
    data: &'a [Transaction],
    next_pagination_token: Option<String>,
    prev_pagination_token: Option<String>,
}

fn page_json(
    app: &App,
    data: &[Transaction],
    next: Option<String>,
    prev: Option<String>,
) -> Response {
    let bytes = if app.faults.has(Fault::BankingSnakeCaseTokens) {
        serde_json::to_vec(&SnakePage {
            data,
            next_pagination_token: next,
            prev_pagination_token: prev,
        })
    } else {
        serde_json::to_vec(&Page { data, next, prev })
    };
    let bytes = bytes.expect("a page of plain data always serialises");
    reply::with_type(StatusCode::OK, bytes, "application/json")
}
