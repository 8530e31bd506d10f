//! A cursor-paginated list as the table of operations gives it (path, token fields, shape rule)
//! and the fetch of one page of it.
//!
//! Tokens are opaque: this module never parses, builds or modifies one. It passes a token back
//! exactly as the target returned it, URL-encoded as a query value, together with the query of
//! the first page (the banking rules ask for unchanged filters and limit; the finance rules say
//! the other parameters are ignored when a token is present, so sending them is harmless).

use crate::case::{Abort, Call, CaseCx};
use crate::client::snippet;
use crate::client::Response;
use crate::schema::{OperationId, PageFields};
use serde_json::Value;

/// The first 8 hex digits of the FNV-1a hash of a token: enough to tell tokens apart in a
/// message without printing them.
pub fn short_hash(token: &str) -> String {
    format!(
        "{:08x}",
        (crate::digest::fnv1a(token.as_bytes()) >> 32) as u32
    )
}

/// Query parameters, in the order they are sent.
pub type Query = Vec<(String, String)>;

/// Builds a query from pairs of string slices.
pub fn query(pairs: &[(&str, &str)]) -> Query {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A cursor-paginated list: where it lives and how its pages name their tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    /// The operation id whose generic checks apply to every page.
    pub operation: OperationId,
    /// The values of its path (the profile's fixtures, or another bank account).
    pub values: Vec<String>,
    /// The token query parameter and page fields (the table's `x-page`).
    pub fields: &'static PageFields,
    /// The rule a page without the page shape breaks (the table's `x-success-rule`).
    pub shape_rule: &'static str,
}

impl List {
    /// The list `operation` answers at the path `values` fill. Panics on an operation the table
    /// gives no page fields: a defect of the case.
    pub fn of(operation: OperationId, values: Vec<String>) -> List {
        let op = operation.operation();
        List {
            operation,
            values,
            fields: op.page.as_ref().expect("a list operation has x-page"),
            shape_rule: &op.success_rule,
        }
    }

    /// The authenticated GET of one page with this query.
    pub fn request(&self, cx: &CaseCx, query: &[(String, String)]) -> Call<'static> {
        let values: Vec<&str> = self.values.iter().map(String::as_str).collect();
        let mut call = cx.call(self.operation).path(&values);
        if !query.is_empty() {
            let encoded = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(query)
                .finish();
            call = call.query(&encoded);
        }
        call
    }

    /// `query` with the token appended, when there is one.
    pub fn with_token(&self, query: &[(String, String)], token: Option<&str>) -> Query {
        let mut q = query.to_vec();
        if let Some(t) = token {
            q.push((self.fields.token_param.clone(), t.to_owned()));
        }
        q
    }

    /// The page an answer's body holds, its items moved out of it rather than copied (a page
    /// may hold a hundred), or `None` when it is no page (no `data` array, a token field missing
    /// or neither a string nor null): the body is then left as it was.
    pub fn take_page(&self, json: &mut Option<Value>) -> Option<ListPage> {
        let body = json.as_mut()?;
        let next = token_field(body, &self.fields.next)?;
        let prev = token_field(body, &self.fields.prev)?;
        let Value::Array(items) = body.get_mut("data")? else {
            return None;
        };
        Some(ListPage {
            items: std::mem::take(items),
            next,
            prev,
        })
    }
}

/// `Some(None)` for null, `Some(Some(t))` for a string, `None` when missing or another type.
fn token_field(body: &Value, field: &str) -> Option<Option<String>> {
    match body.get(field)? {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        _ => None,
    }
}

/// One page of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPage {
    pub items: Vec<Value>,
    pub next: Option<String>,
    pub prev: Option<String>,
}

/// What the target answered to a page request.
#[derive(Debug, Clone)]
pub enum Fetched {
    Page(ListPage),
    /// Any answer other than a 2xx (a 5xx is already a finding of the generic checks).
    Refused(Response),
}

/// Fetches one page. A 2xx that is not a page stops the case: the generic schema check has
/// recorded why (a finding under the list's shape rule is added if it somehow has not).
pub async fn fetch(
    cx: &mut CaseCx,
    list: &List,
    query: &[(String, String)],
) -> Result<Fetched, Abort> {
    let before = cx.findings.len();
    let mut response = cx.send(list.request(cx, query)).await?;
    if !response.is_success() {
        return Ok(Fetched::Refused(response));
    }
    cx.judged(list.shape_rule);
    match list.take_page(&mut response.json) {
        Some(page) => Ok(Fetched::Page(page)),
        None => {
            if cx.findings.len() == before {
                cx.finding(
                    list.shape_rule,
                    format!(
                        "the {} answer is not a page: {}",
                        response.status,
                        snippet(&response)
                    ),
                );
            }
            Err(Abort::Recorded)
        }
    }
}

/// Fetches the first page of a read. A refusal for want of credentials or fixtures (401, 403,
/// 404) skips the case; any other refusal of a valid request is a finding under `rule`.
pub async fn fetch_first(
    cx: &mut CaseCx,
    list: &List,
    query: &[(String, String)],
    rule: &str,
) -> Result<ListPage, Abort> {
    match fetch(cx, list, query).await? {
        Fetched::Page(page) => {
            cx.judged(rule);
            Ok(page)
        }
        Fetched::Refused(response) => Err(refused_first(cx, &response, rule, query)),
    }
}

/// Why a case stops when its first page is refused.
pub fn refused_first(
    cx: &mut CaseCx,
    response: &Response,
    rule: &str,
    query: &[(String, String)],
) -> Abort {
    if matches!(response.status, 401 | 403 | 404) {
        return Abort::Skip(format!(
            "the first page was refused with {} (check the profile's credentials and ids): {}",
            response.status,
            snippet(response)
        ));
    }
    if response.status < 500 {
        cx.finding(
            rule,
            format!(
                "the first page with a valid query {} was refused with {}: {}",
                describe_query(query),
                response.status,
                snippet(response)
            ),
        );
    }
    Abort::Recorded
}

/// `limit=7&order=desc`, or `(no parameters)`; tokens are never shown.
pub fn describe_query(query: &[(String, String)]) -> String {
    if query.is_empty() {
        return "(no parameters)".to_owned();
    }
    query
        .iter()
        .map(|(k, v)| {
            if k == "pagination_token" {
                format!("{k}={}", short_hash(v))
            } else {
                format!("{k}={v}")
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// What identifies an item: its `id` (string or number), else the whole item as JSON.
pub fn item_key(item: &Value) -> String {
    match item.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => item.to_string(),
    }
}

/// The first page at a small limit and its next token; skips when the list fits in one page.
pub(super) async fn first_with_next(
    cx: &mut CaseCx,
    list: &List,
    first: &Query,
    rule: &str,
) -> Result<(ListPage, String), Abort> {
    let page = fetch_first(cx, list, first, rule).await?;
    match page.next.clone() {
        Some(next) => Ok((page, next)),
        None => Err(Abort::Skip(format!(
            "the list fits in one page of {} items; there is no token to test",
            page.items.len()
        ))),
    }
}

/// Fetches the page of a token the target returned; a refusal is a finding under `rule`.
pub(super) async fn follow(
    cx: &mut CaseCx,
    list: &List,
    first: &Query,
    token: &str,
    rule: &str,
    what: &str,
) -> Result<Option<ListPage>, Abort> {
    match fetch(cx, list, &list.with_token(first, Some(token))).await? {
        Fetched::Page(page) => {
            cx.judged(rule);
            Ok(Some(page))
        }
        Fetched::Refused(response) => {
            if response.status < 500 {
                cx.finding(
                    rule,
                    format!(
                        "{what} (token {}) was refused with {}: {}",
                        short_hash(token),
                        response.status,
                        snippet(&response)
                    ),
                );
            }
            Ok(None)
        }
    }
}

/// The keys of a page, one a line.
pub(super) fn keys(page: &ListPage) -> Vec<String> {
    page.items.iter().map(item_key).collect()
}

/// A finding with a diff when two pages do not hold the same items in the same order.
pub(super) fn expect_same_items(
    cx: &mut CaseCx,
    rule: &str,
    expected: &ListPage,
    actual: &ListPage,
    message: impl FnOnce() -> String,
) {
    expect_same_keys(cx, rule, &keys(expected), &keys(actual), message);
}

/// A finding with a diff when two key lists differ.
pub(super) fn expect_same_keys(
    cx: &mut CaseCx,
    rule: &str,
    expected: &[String],
    actual: &[String],
    message: impl FnOnce() -> String,
) {
    cx.judged(rule);
    if expected != actual {
        cx.finding_diff(rule, message(), &expected.join("\n"), &actual.join("\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_is_read_with_the_configured_token_fields() {
        let list = List::of(OperationId::ListTransactions, vec!["a".into()]);
        let page = list
            .take_page(&mut Some(json!({
                "data": [1], "nextPaginationToken": "n", "prevPaginationToken": null
            })))
            .unwrap();
        assert_eq!(page.items, [json!(1)]);
        assert_eq!(page.next.as_deref(), Some("n"));
        assert_eq!(page.prev, None);
        assert!(List::of(OperationId::ListEvents, Vec::new())
            .take_page(&mut Some(json!({
                "data": [1], "nextPaginationToken": "n", "prevPaginationToken": null
            })))
            .is_none());
    }

    #[test]
    fn a_token_that_is_not_a_string_or_null_is_not_a_page() {
        let list = List::of(OperationId::ListEvents, Vec::new());
        let body = json!({"data": [1], "next_pagination_token": 3, "prev_pagination_token": null});
        let mut answer = Some(body.clone());
        assert!(list.take_page(&mut answer).is_none());
        assert_eq!(
            answer,
            Some(body),
            "a body that is no page is left as it was"
        );
    }

    #[test]
    fn tokens_are_passed_back_url_encoded_and_unchanged() {
        let list = List::of(OperationId::ListEvents, Vec::new());
        let q = list.with_token(&query(&[("limit", "7")]), Some("a+b/c=="));
        let encoded = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&q)
            .finish();
        assert_eq!(encoded, "limit=7&pagination_token=a%2Bb%2Fc%3D%3D");
        let back: Vec<(String, String)> = url::form_urlencoded::parse(encoded.as_bytes())
            .into_owned()
            .collect();
        assert_eq!(back[1].1, "a+b/c==");
    }
}
