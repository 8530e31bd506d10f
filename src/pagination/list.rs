//! A cursor-paginated list as configuration (path, area, token field names) and the fetch of
//! one page of it.
//!
//! Tokens are opaque: this module never parses, builds or modifies one. It passes a token back
//! exactly as the target returned it, URL-encoded as a query value, together with the query of
//! the first page (the banking rules ask for unchanged filters and limit; the finance rules say
//! the other parameters are ignored when a token is present, so sending them is harmless).

use crate::case::{Abort, CaseCx};
use crate::client::snippet;
use crate::client::{Request, Response};
use crate::schema::{Area, OperationId};
use reqwest::Method;
use serde_json::Value;

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
    pub path: String,
    /// The query parameter that carries a token.
    pub token_param: &'static str,
    /// The page fields that hold the next and previous tokens.
    pub next_field: &'static str,
    pub prev_field: &'static str,
    /// The rule a page without the page shape breaks.
    pub shape_rule: &'static str,
}

impl List {
    /// `GET /finops/v1/events`.
    pub fn events() -> List {
        List {
            operation: OperationId::ListEvents,
            path: OperationId::ListEvents.path(&[]),
            token_param: "pagination_token",
            next_field: "next_pagination_token",
            prev_field: "prev_pagination_token",
            shape_rule: "EVT-PAGE-SHAPE",
        }
    }

    /// `GET /embedded-banking/v1/bank-accounts/{account}/transactions`.
    pub fn transactions(account: &str) -> List {
        List {
            operation: OperationId::ListTransactions,
            path: OperationId::ListTransactions.path(&[account]),
            token_param: "pagination_token",
            next_field: "nextPaginationToken",
            prev_field: "prevPaginationToken",
            shape_rule: "BPAG-PAGE-SHAPE",
        }
    }

    /// The authenticated GET of one page with this query.
    pub fn request(&self, cx: &CaseCx, query: &[(String, String)]) -> Request {
        let path = if query.is_empty() {
            self.path.clone()
        } else {
            let encoded = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(query)
                .finish();
            format!("{}?{encoded}", self.path)
        };
        match self.operation.area() {
            Area::Finance => cx.fin(Method::GET, &path),
            Area::Banking => cx.bank(Method::GET, &path),
        }
    }

    /// `query` with the token appended, when there is one.
    pub fn with_token(&self, query: &[(String, String)], token: Option<&str>) -> Query {
        let mut q = query.to_vec();
        if let Some(t) = token {
            q.push((self.token_param.to_owned(), t.to_owned()));
        }
        q
    }

    /// The page a JSON body holds, or `None` when it is not a page (no `data` array, a token
    /// field missing or neither a string nor null).
    pub fn parse_page(&self, body: &Value) -> Option<Page> {
        let items = body.get("data")?.as_array()?.clone();
        Some(Page {
            items,
            next: token_field(body, self.next_field)?,
            prev: token_field(body, self.prev_field)?,
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
pub struct Page {
    pub items: Vec<Value>,
    pub next: Option<String>,
    pub prev: Option<String>,
}

/// What the target answered to a page request.
#[derive(Debug, Clone)]
pub enum Fetched {
    Page(Page),
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
    let response = cx.send(list.operation, list.request(cx, query)).await?;
    if !response.is_success() {
        return Ok(Fetched::Refused(response));
    }
    cx.judged(list.shape_rule);
    match response.json.as_ref().and_then(|j| list.parse_page(j)) {
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
) -> Result<Page, Abort> {
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
                format!("{k}={}", super::read::short_hash(v))
            } else {
                format!("{k}={v}")
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_is_read_with_the_configured_token_fields() {
        let list = List::transactions("a");
        let page = list
            .parse_page(
                &json!({"data": [1], "nextPaginationToken": "n", "prevPaginationToken": null}),
            )
            .unwrap();
        assert_eq!(page.next.as_deref(), Some("n"));
        assert_eq!(page.prev, None);
        assert!(List::events()
            .parse_page(
                &json!({"data": [1], "nextPaginationToken": "n", "prevPaginationToken": null})
            )
            .is_none());
    }

    #[test]
    fn a_token_that_is_not_a_string_or_null_is_not_a_page() {
        let list = List::events();
        let body = json!({"data": [], "next_pagination_token": 3, "prev_pagination_token": null});
        assert!(list.parse_page(&body).is_none());
    }

    #[test]
    fn tokens_are_passed_back_url_encoded_and_unchanged() {
        let list = List::events();
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
