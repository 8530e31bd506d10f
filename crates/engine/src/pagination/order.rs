//! The order of a list's items, judged on every read of it, whatever case made the read: each
//! page of every read, not only the pages a case written for the order looks at.
//!
//! Events are ordered by created_at, ascending unless the first query says `order=desc`: a
//! token carries its first query's sort and order ("when present, all other query parameters
//! are ignored and taken from the first query"), so a whole read keeps one direction across
//! its pages. With `sort=created_at` the direction is stated (must); with neither sort nor
//! order, ascending by created_at is the common reading (should, the default key is not
//! stated); with `sort=updated_at`, a time events do not carry, nothing is judged.

use super::list::{item_key, Query};
use crate::schema::OperationId;
use serde_json::Value;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Which way created_at must go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Ascending,
    Descending,
}

impl Direction {
    pub fn word(self) -> &'static str {
        match self {
            Direction::Ascending => "ascending",
            Direction::Descending => "descending",
        }
    }
}

pub fn created_at_text(item: &Value) -> &str {
    item.get("created_at")
        .and_then(Value::as_str)
        .unwrap_or("?")
}

fn created_at(item: &Value) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(item.get("created_at")?.as_str()?, &Rfc3339).ok()
}

/// The index of the first item whose created_at goes the wrong way from the readable one
/// before it, and that one's index; items without a readable created_at are left out (the
/// schema check reports them).
pub fn first_out_of_order(items: &[Value], direction: Direction) -> Option<(usize, usize)> {
    let mut last: Option<(usize, OffsetDateTime)> = None;
    for (i, item) in items.iter().enumerate() {
        let Some(t) = created_at(item) else { continue };
        if let Some((j, prev)) = last {
            let wrong = match direction {
                Direction::Ascending => t < prev,
                Direction::Descending => t > prev,
            };
            if wrong {
                return Some((i, j));
            }
        }
        last = Some((i, t));
    }
    None
}

/// `id created_at` lines around `at`, as sorted (expected) and as read (actual).
pub fn order_diff(items: &[Value], direction: Direction, at: usize) -> (String, String) {
    let line = |v: &Value| format!("{} {}", item_key(v), created_at_text(v));
    let mut sorted: Vec<&Value> = items.iter().collect();
    sorted.sort_by_key(|v| created_at(v));
    if direction == Direction::Descending {
        sorted.reverse();
    }
    let (from, to) = (at.saturating_sub(5), items.len().min(at + 10));
    let expected: Vec<String> = sorted[from..to].iter().map(|v| line(v)).collect();
    let actual: Vec<String> = items[from..to].iter().map(line).collect();
    (expected.join("\n"), actual.join("\n"))
}

/// The direction a read of `operation` with first query `query` must show, and the rule that
/// states it; `None` where nothing is stated.
pub fn stated(operation: OperationId, query: &Query) -> Option<(Direction, &'static str)> {
    if operation != OperationId::ListEvents {
        return None;
    }
    let value = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    match (value("sort"), value("order")) {
        (Some("created_at"), Some("desc")) => Some((Direction::Descending, "EVT-ORDER-DESC")),
        (Some("created_at"), None | Some("asc")) => {
            Some((Direction::Ascending, "EVT-ORDER-DEFAULT-ASC"))
        }
        (None, None) => Some((Direction::Ascending, "EVT-DEFAULT-SORT-CREATED")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(times: &[&str]) -> Vec<Value> {
        times
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"id": i.to_string(), "created_at": t}))
            .collect()
    }

    #[test]
    fn ascending_allows_ties_and_finds_the_first_step_back() {
        let items = at(&[
            "2026-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
            "2026-01-01T01:00:00+02:00",
            "2026-01-01T00:30:00Z",
        ]);
        // 01:00+02:00 is 23:00Z the day before: it steps back.
        assert_eq!(
            first_out_of_order(&items, Direction::Ascending),
            Some((2, 1))
        );
        assert_eq!(first_out_of_order(&items[..2], Direction::Ascending), None);
    }

    #[test]
    fn descending_is_checked_the_other_way_and_unreadable_times_are_left_out() {
        let items = at(&["2026-01-03T00:00:00Z", "soon", "2026-01-02T00:00:00Z"]);
        assert_eq!(first_out_of_order(&items, Direction::Descending), None);
        assert_eq!(
            first_out_of_order(&items, Direction::Ascending),
            Some((2, 0))
        );
    }
}
