//! A client's list reads as a sequence: the page tokens the target issued, where they were
//! passed back, and what one observed page can show against the query that led to it.
//!
//! Judged only what one page and the token that led to it show whatever else the data does
//! meanwhile (real traffic writes between reads): the page size against the `limit` in force, the
//! first page's previous token, a next token that leads back to its own page. Item order and
//! repetition across pages are the pagination checker's, on data that stands still.

use super::Observed;
use crate::catalogue::Catalogue;
use crate::check::{finding, Checked};
use crate::client::Response;
use crate::schema::{Area, OperationId};
use crate::verdict::Finding;
use std::collections::{HashMap, VecDeque};

/// Tokens remembered at most; the oldest are forgotten first.
const REMEMBERED: usize = 100_000;

/// The page tokens the target issued, each with the query of the read it continues.
#[derive(Default)]
pub struct Pages {
    issued: HashMap<String, IssuedToken>,
    order: VecDeque<String>,
}

#[derive(Debug, Clone)]
struct IssuedToken {
    operation: OperationId,
    path: String,
    /// The query of the read, the token aside: what a banking client passes back with it.
    query: Vec<(String, String)>,
    /// The limit in force on the pages it leads to: an events token carries its first query's.
    limit: Option<u32>,
}

/// The rules one list operation's pages are judged under, and the fields its tokens travel
/// in: the operations table's `x-page`.
struct PageRules {
    /// The query parameter that carries a token.
    token: &'static str,
    next: &'static str,
    prev: &'static str,
    /// A page never holds more than the limit, nor more than 100.
    size: &'static str,
    /// The first page's previous token is null.
    first: &'static str,
    /// Following next tokens ends.
    ends: &'static str,
}

fn rules(operation: OperationId) -> Option<PageRules> {
    let page = operation.operation().page.as_ref()?;
    Some(PageRules {
        token: &page.token_param,
        next: &page.next,
        prev: &page.prev,
        size: &page.rules.limit_max,
        first: &page.rules.prev_first,
        ends: &page.rules.ends,
    })
}

/// The query without its page token.
fn rest(query: &[(String, String)], token: &str) -> Vec<(String, String)> {
    let mut rest: Vec<_> = query
        .iter()
        .filter(|(name, _)| name != token)
        .cloned()
        .collect();
    rest.sort();
    rest
}

fn limit_of(query: &[(String, String)]) -> Option<Option<u32>> {
    match query.iter().find(|(name, _)| name == "limit") {
        None => Some(None),
        Some((_, value)) => value.parse::<u32>().ok().map(Some),
    }
}

impl Pages {
    /// The client's slips in passing a token back: the banking area asks for it to come back
    /// exactly as issued, on the same list, with unchanged filters and `limit`.
    pub fn slips(
        &self,
        catalogue: &Catalogue,
        operation: OperationId,
        seen: &Observed,
    ) -> Vec<Finding> {
        if operation.area() != Area::Banking {
            return Vec::new();
        }
        // A token passed to an operation that is no list is still a slip: the area's lists name
        // where tokens travel.
        let lists = OperationId::lists().filter(|list| list.area() == operation.area());
        let Some(rules) = rules(operation).or_else(|| lists.filter_map(rules).next()) else {
            return Vec::new();
        };
        let query = seen.query();
        let Some((_, token)) = query.iter().find(|(n, _)| n == rules.token) else {
            return Vec::new();
        };
        let Some(issued) = self.issued.get(token) else {
            return Vec::new();
        };
        let now = rest(&query, rules.token);
        let limit = |q: &[(String, String)]| {
            q.iter()
                .find(|(n, _)| n == "limit")
                .map_or("none".to_owned(), |(_, v)| v.clone())
        };
        let why = if issued.operation != operation || issued.path != seen.path() {
            "on another list than the one that issued it".to_owned()
        } else if limit(&now) != limit(&issued.query) {
            match limit(&now).as_str() {
                "none" => format!("without its limit (limit={})", limit(&issued.query)),
                other => format!(
                    "with limit={other}, where it came with limit={}",
                    limit(&issued.query)
                ),
            }
        } else if now != issued.query {
            "with other filters than the read that issued it".to_owned()
        } else {
            return Vec::new();
        };
        vec![finding(
            catalogue,
            "BPAG-TOKEN-OPAQUE",
            format!("a page token is passed back {why}"),
        )]
    }

    /// Judges a page of a list operation and remembers the tokens it issued. `clean`: the
    /// request broke nothing the client is asked to keep, so the limit it names is in force.
    pub fn judge(
        &mut self,
        catalogue: &Catalogue,
        operation: OperationId,
        seen: &Observed,
        response: &Response,
        clean: bool,
    ) -> Checked {
        let mut out = Checked::default();
        let Some(rules) = rules(operation) else {
            return out;
        };
        let Some(json) = response.json.as_ref().filter(|_| response.is_success()) else {
            return out;
        };
        let Some(items) = json["data"].as_array().map(Vec::len) else {
            return out;
        };
        let query = seen.query();
        let token = query
            .iter()
            .find(|(n, _)| n == rules.token)
            .map(|(_, v)| v.clone());
        let issued = token.as_ref().and_then(|t| self.issued.get(t));
        // The limit in force: an events token carries its first query's, whatever the query
        // says now; a banking client passes its limit back, 25 when there is none.
        let limit = match (operation, &token) {
            (OperationId::ListEvents, Some(_)) => issued.map(|i| i.limit),
            (OperationId::ListEvents, None) => limit_of(&query),
            _ if clean => limit_of(&query).map(|l| l.or(Some(25))),
            _ => None,
        };
        out.judged.push(rules.size);
        let ceiling = match limit {
            Some(Some(l)) if (1..=100).contains(&l) => l as usize,
            _ => 100,
        };
        if items > ceiling {
            // A banking read without a limit is held to the stated default.
            let defaulted = operation == OperationId::ListTransactions
                && limit.is_some()
                && !query.iter().any(|(n, _)| n == "limit");
            let rule = if defaulted {
                "BPAG-DEFAULT-LIMIT-25"
            } else {
                rules.size
            };
            out.judged.push(rule);
            out.findings.push(
                finding(
                    catalogue,
                    rule,
                    format!("a page holds {items} items, more than the {ceiling} in force"),
                )
                .with_diff(&format!("at most {ceiling}"), &items.to_string()),
            );
        }
        let next = json[rules.next].as_str().map(str::to_owned);
        let prev = json[rules.prev].as_str();
        if operation == OperationId::ListEvents && next.is_some() {
            if let Some(Some(l @ 1..=100)) = limit {
                out.judged.push("EVT-PAGES-FULL");
                if items < l as usize {
                    out.findings.push(finding(
                        catalogue,
                        "EVT-PAGES-FULL",
                        format!(
                            "a page of events holds {items} items with a next token, fewer than \
                             its limit {l}: only the last page may be short"
                        ),
                    ));
                }
            }
        }
        match &token {
            None => {
                out.judged.push(rules.first);
                if prev.is_some() {
                    out.findings.push(finding(
                        catalogue,
                        rules.first,
                        format!("the first page (read without a token) has a {}", rules.prev),
                    ));
                }
            }
            Some(token) => {
                out.judged.push(rules.ends);
                if next.as_deref() == Some(token.as_str()) {
                    out.findings.push(finding(
                        catalogue,
                        rules.ends,
                        format!(
                            "the page's {} is the token that led to it: following it never ends",
                            rules.next
                        ),
                    ));
                }
            }
        }
        let carried = match (operation, issued) {
            (OperationId::ListEvents, Some(i)) => i.limit,
            _ => limit_of(&query).flatten(),
        };
        let remembered = IssuedToken {
            operation,
            path: seen.path().to_owned(),
            query: rest(&query, rules.token),
            limit: carried,
        };
        for token in next.into_iter().chain(prev.map(str::to_owned)) {
            self.remember(token, remembered.clone());
        }
        out
    }

    fn remember(&mut self, token: String, issued: IssuedToken) {
        if self.issued.insert(token.clone(), issued).is_none() {
            self.order.push_back(token);
        }
        while self.order.len() > REMEMBERED {
            if let Some(old) = self.order.pop_front() {
                self.issued.remove(&old);
            }
        }
    }
}
