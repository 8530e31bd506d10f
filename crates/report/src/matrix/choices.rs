//! Where the spec is silent: each place (a gap, and what was looked at there) with what each
//! implementation chose, ranked by how many different choices were made. An implementation that
//! showed nothing at a place made no choice there; it does not count as one.
//!
//! Each choice is named once: an implementation's values at a place are merged (a list split
//! into its items, the fields of its answers joined with their types), since the fields one
//! answer held and another lacked depend on what each request sent. What the spec states is no
//! choice: a page size under the default `limit` the operations table states is the page size
//! under that limit.

use super::{Run, SilentChoice, SilentPlace};
use crate::catalogue::Catalogue;
use crate::report::{field_list, fill_under, merged_types, stated_limit, Subject};
use std::collections::{BTreeMap, BTreeSet};

/// A place where the spec is silent: a gap, and what was looked at there.
type SilentPlaceKey = (String, Subject, String);

/// Where `seen` belongs and the value it shows, with what the spec states put back: the page
/// fill under no `limit` of an operation whose `limit` has a stated default is the fill under
/// that default (a report now says so itself; one written before did not).
fn place(seen: &SilentChoice) -> (SilentPlaceKey, String) {
    let stated = seen
        .subject
        .operation
        .as_deref()
        .filter(|_| seen.what == "limit default")
        .and_then(stated_limit);
    match stated {
        Some(limit) => (
            (
                seen.gap.clone(),
                seen.subject.clone(),
                format!("limit {limit}"),
            ),
            fill_under(&seen.value, limit),
        ),
        None => (
            (seen.gap.clone(), seen.subject.clone(), seen.what.clone()),
            seen.value.clone(),
        ),
    }
}

/// One implementation's values at one place, each choice once: lists split into their items,
/// fields merged by name with their types joined, `none` dropped beside fields. Sorted, so that
/// two implementations that chose alike show alike.
pub fn merged(values: &BTreeSet<String>) -> Vec<String> {
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut items: BTreeSet<String> = BTreeSet::new();
    for value in values {
        match field_list(value) {
            Some(list) => {
                for (name, types) in list {
                    let seen = fields.entry(name).or_default();
                    for t in types.split('|') {
                        if !seen.iter().any(|s| s == t) {
                            seen.push(t.to_owned());
                        }
                    }
                }
            }
            None if !value.contains([':', ';', '(']) => {
                items.extend(value.split(", ").map(str::to_owned));
            }
            None => {
                items.insert(value.clone());
            }
        }
    }
    if !fields.is_empty() {
        items.remove("none");
    }
    items
        .into_iter()
        .chain(
            fields
                .iter()
                .map(|(name, types)| format!("{name} ({})", merged_types(types))),
        )
        .collect()
}

/// Every place any run showed something of, the most divergent first, then in gap order.
pub fn rank(runs: &[Run], names: &[String], catalogue: &Catalogue) -> Vec<SilentPlace> {
    let mut places: BTreeMap<SilentPlaceKey, Vec<BTreeSet<String>>> = BTreeMap::new();
    for (column, run) in runs.iter().enumerate() {
        for seen in &run.seen {
            let (place, value) = place(seen);
            places
                .entry(place)
                .or_insert_with(|| vec![BTreeSet::new(); runs.len()])[column]
                .insert(value);
        }
    }
    let mut choices: Vec<SilentPlace> = places
        .into_iter()
        .map(|((gap, subject, what), values)| {
            let made: Vec<(String, Vec<String>)> = names
                .iter()
                .zip(values)
                .filter(|(_, values)| !values.is_empty())
                .map(|(name, values)| (name.clone(), merged(&values)))
                .collect();
            let distinct: BTreeSet<&Vec<String>> = made.iter().map(|(_, v)| v).collect();
            SilentPlace {
                text: text(&gap, runs, catalogue),
                distinct: distinct.len(),
                gap,
                subject,
                what,
                choices: made,
            }
        })
        .collect();
    let order = |gap: &str| catalogue.gaps.iter().position(|g| g.id == gap);
    choices.sort_by(|a, b| {
        b.distinct
            .cmp(&a.distinct)
            .then_with(|| order(&a.gap).cmp(&order(&b.gap)))
            .then_with(|| a.gap.cmp(&b.gap))
    });
    choices
}

/// The gap as this catalogue states it, else as the first report that names it does.
fn text(gap: &str, runs: &[Run], catalogue: &Catalogue) -> String {
    catalogue
        .gaps
        .iter()
        .find(|g| g.id == gap)
        .map(|g| g.text.clone())
        .or_else(|| runs.iter().find_map(|r| r.gap_texts.get(gap).cloned()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(values: &[&str]) -> BTreeSet<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    #[test]
    fn an_implementations_values_name_each_choice_once() {
        assert_eq!(
            merged(&set(&[
                "UNAUTHORIZED, VALIDATION_ERROR",
                "VALIDATION_ERROR"
            ])),
            ["UNAUTHORIZED", "VALIDATION_ERROR"]
        );
        assert_eq!(
            merged(&set(&[
                "a (string), b (null)",
                "b (string), c (number)",
                "none"
            ])),
            ["a (string)", "b (string|null)", "c (number)"]
        );
        assert_eq!(merged(&set(&["no: 401; 422"])), ["no: 401; 422"]);
    }

    #[test]
    fn the_page_fill_under_a_stated_default_limit_is_the_fill_under_that_limit() {
        assert_eq!(stated_limit("list-transactions"), Some(25));
        assert_eq!(stated_limit("list-events"), None, "the spec gives none");
        let seen = |operation: &str, value: &str| SilentChoice {
            gap: "GAP-PAGE-SIZES".to_owned(),
            subject: Subject {
                operation: Some(operation.to_owned()),
                kind: None,
                condition: None,
            },
            what: "limit default".to_owned(),
            value: value.to_owned(),
        };
        let ((_, _, what), value) = place(&seen(
            "list-transactions",
            "pages of 25 items with a next token",
        ));
        assert_eq!((what.as_str(), value.as_str()), ("limit 25", "full pages"));
        let ((_, _, what), _) = place(&seen("list-events", "pages of 100 items with a next token"));
        assert_eq!(what, "limit default", "a default the spec does not state");
    }
}
