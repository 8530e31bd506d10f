//! Where the spec is silent: each place (a gap, and what was looked at there) with what each
//! implementation chose, ranked by how many different choices were made. An implementation that
//! showed nothing at a place made no choice there; it does not count as one.

use super::{Choice, Run, Seen};
use crate::catalogue::Catalogue;
use crate::report::Subject;
use std::collections::{BTreeMap, BTreeSet};

/// A place where the spec is silent: a gap, and what was looked at there.
type Place = (String, Subject, String);

fn place(seen: &Seen) -> Place {
    (seen.gap.clone(), seen.subject.clone(), seen.what.clone())
}

/// Every place any run showed something of, the most divergent first, then in gap order.
pub fn rank(runs: &[Run], names: &[String], catalogue: &Catalogue) -> Vec<Choice> {
    let mut places: BTreeMap<Place, Vec<BTreeSet<String>>> = BTreeMap::new();
    for (column, run) in runs.iter().enumerate() {
        for seen in &run.seen {
            places
                .entry(place(seen))
                .or_insert_with(|| vec![BTreeSet::new(); runs.len()])[column]
                .insert(seen.value.clone());
        }
    }
    let mut choices: Vec<Choice> = places
        .into_iter()
        .map(|((gap, subject, what), values)| {
            let made: Vec<(String, Vec<String>)> = names
                .iter()
                .zip(values)
                .filter(|(_, values)| !values.is_empty())
                .map(|(name, values)| (name.clone(), values.into_iter().collect()))
                .collect();
            let distinct: BTreeSet<&Vec<String>> = made.iter().map(|(_, v)| v).collect();
            Choice {
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
