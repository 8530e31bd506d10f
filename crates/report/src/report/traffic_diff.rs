//! The behaviour diff where one side (or both) is real traffic (`covenant proxy`, `covenant
//! check`): a run's cases and a client's traffic never share a case, nor a seed, so both records
//! are compared by operation, over the kinds of answer both saw.
//!
//! Each record is folded into one case per operation (`traffic.<operation>`, as traffic names
//! them), holding the shapes of every case of that operation whose operation, kind of request,
//! condition and status class the other record saw too: a run provokes refusals a client's traffic never
//! shows, and a client sends requests no case sends, and neither is a difference in what the
//! targets chose. Within what both saw, what the requests decide is left out too: the fields
//! the spec lists that only one side's answers held (an optional field a client never sent),
//! whether some answers lacked a field, and the page sizes under a limit only one side asked
//! for. What is left is compared as a differential run compares it, gap by gap too: statuses,
//! bodies, the fields the spec does not list, field types, page sizes and error codes.

use super::diff::{behaviour_diff, notes, side, BehaviourDiff};
use crate::catalogue::Catalogue;
use crate::schema::{self, Registry};
use crate::verdict::{CaseResult, Counts, RunRecord, Shape, Verdict, TRAFFIC_SUITE};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// The behaviour diff of two records at least one of which is real traffic: compared by
/// operation, over what both saw. The sides and notes are the records' own.
pub fn traffic_diff(a: &RunRecord, b: &RunRecord, catalogue: &Catalogue) -> BehaviourDiff {
    let mut diff = behaviour_diff(&by_operation(a, b), &by_operation(b, a), catalogue);
    diff.a = side("A", a);
    diff.b = side("B", b);
    // Traffic has no seed: a client sent what it sent.
    diff.notes = notes(&seedless(a, b), &seedless(b, a));
    let traffic = match (a.is_traffic(), b.is_traffic()) {
        (true, true) => "A and B are",
        (true, false) => "A is",
        _ => "B is",
    };
    diff.notes.push(format!(
        "{traffic} real traffic: compared by operation, over the answers both saw (of one \
         operation, kind of request, condition and status class); what only one saw, and the \
         listed fields and page limits only one side's requests gave, are no difference"
    ));
    diff
}

/// `run` with the other's seed, where it is traffic (whose seed is no seed).
fn seedless<'a>(run: &'a RunRecord, other: &RunRecord) -> Cow<'a, RunRecord> {
    if !run.is_traffic() || run.meta.seed == other.meta.seed {
        return Cow::Borrowed(run);
    }
    let mut owned = run.clone();
    owned.meta.seed = other.meta.seed;
    Cow::Owned(owned)
}

/// What groups the shapes of answers alike: operation, kind of request, condition, and the
/// status class (a run's 404 for an id it made up is no choice beside a client's 200).
type ShapeGroup<'s> = (&'s str, Option<&'s str>, Option<&'s str>, u16);

fn group(shape: &Shape) -> ShapeGroup<'_> {
    (
        shape.operation.as_str(),
        shape.kind.as_deref(),
        shape.condition.as_deref(),
        shape.status / 100,
    )
}

/// Shapes of cases that ran to a verdict (a skipped case saw nothing, an errored one may have
/// been cut short), each with its case.
fn judged(run: &RunRecord) -> impl Iterator<Item = (&CaseResult, &Shape)> {
    run.cases
        .iter()
        .filter(|c| {
            matches!(
                c.verdict,
                Verdict::Pass | Verdict::Warn | Verdict::Fail | Verdict::Inconclusive
            )
        })
        .flat_map(|c| c.shapes.iter().map(move |s| (c, s)))
}

/// What the other record's answers of one group held: field names, item field names, limits.
#[derive(Default)]
struct TheirFields {
    fields: BTreeSet<String>,
    nested: BTreeSet<String>,
    items: BTreeSet<String>,
    limits: BTreeSet<String>,
}

/// `run` as one case per operation, with the shapes of the groups `other` saw too (their
/// example exchanges left out: they pointed into the cases folded), as [`comparable`] makes
/// them.
fn by_operation(run: &RunRecord, other: &RunRecord) -> RunRecord {
    let mut theirs: BTreeMap<ShapeGroup<'_>, TheirFields> = BTreeMap::new();
    for (_, shape) in judged(other) {
        let held = theirs.entry(group(shape)).or_default();
        held.fields.extend(shape.fields.keys().cloned());
        held.nested.extend(shape.nested.keys().cloned());
        held.items.extend(shape.items.keys().cloned());
        held.limits
            .extend(shape.pages.iter().map(|f| f.limit.clone()));
    }
    let mut folded: BTreeMap<&str, (&CaseResult, Vec<Shape>)> = BTreeMap::new();
    for (case, shape) in judged(run) {
        if let Some(held) = theirs.get(&group(shape)) {
            folded
                .entry(shape.operation.as_str())
                .or_insert((case, Vec::new()))
                .1
                .push(comparable(shape, held));
        }
    }
    let cases: Vec<CaseResult> = folded
        .into_iter()
        .map(|(operation, (frame, shapes))| folded_case(operation, frame, shapes))
        .collect();
    RunRecord {
        meta: run.meta.clone(),
        counts: Counts::of(&cases),
        cases,
    }
}

/// `shape` without what the requests decide: listed fields the other's answers never held, the
/// `absent` mark, page fills under limits the other never asked for, the example.
fn comparable(shape: &Shape, theirs: &TheirFields) -> Shape {
    let op = schema::operation(&shape.operation).filter(|_| shape.status / 100 == 2);
    let stem = op.and_then(|op| op.success_schema.as_deref());
    // A page's tokens are null on a first or last page: whether a read met one depends on the
    // reads and on the list's length then. Their types are stated; they are left out.
    let tokens: Vec<&str> = op
        .and_then(|op| op.page.as_ref())
        .map_or_else(Vec::new, |p| vec![p.next.as_str(), p.prev.as_str()]);
    let keep = |fields: &BTreeMap<String, String>, held: &BTreeSet<String>, items: bool| {
        let listed = stem.map(|stem| Registry::embedded().listed_fields(stem, items));
        fields
            .iter()
            .filter(|(name, _)| items || !tokens.contains(&name.as_str()))
            .filter(|(name, _)| {
                held.contains(*name) || listed.as_ref().is_some_and(|l| !l.contains(*name))
            })
            .map(|(name, types)| (name.clone(), present(types)))
            .collect()
    };
    Shape {
        fields: keep(&shape.fields, &theirs.fields, false),
        items: keep(&shape.items, &theirs.items, true),
        nested: shape
            .nested
            .iter()
            .filter(|(path, _)| theirs.nested.contains(*path))
            .map(|(path, types)| (path.clone(), present(types)))
            .collect(),
        pages: shape
            .pages
            .iter()
            .filter(|f| theirs.limits.contains(&f.limit))
            .cloned()
            .collect(),
        exchange: None,
        ..shape.clone()
    }
}

/// A field's types without `absent`: whether some answers lacked it depends on what was asked.
fn present(types: &str) -> String {
    let kept: Vec<&str> = types.split('|').filter(|t| *t != "absent").collect();
    if kept.is_empty() {
        types.to_owned()
    } else {
        kept.join("|")
    }
}

/// The case of one operation, `shapes` its answers: `frame`, the first case folded into it,
/// with what the diff reads replaced (its id, verdict and shapes; no blocked baseline, which
/// would be an observation of the gaps, and no exchange, which no folded shape points to).
fn folded_case(operation: &str, frame: &CaseResult, shapes: Vec<Shape>) -> CaseResult {
    CaseResult {
        id: format!("{TRAFFIC_SUITE}.{operation}"),
        suite: TRAFFIC_SUITE.to_owned(),
        operation: Some(operation.to_owned()),
        verdict: Verdict::Pass,
        requests: shapes.iter().map(|s| s.count as usize).sum(),
        shapes,
        inconclusive: Vec::new(),
        exchanges: Vec::new(),
        ..frame.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A shape of create VAT ID: its status, condition and fields (each a string).
    fn shape(status: u16, condition: Option<&str>, fields: &[&str]) -> Value {
        let fields: serde_json::Map<String, Value> = fields
            .iter()
            .map(|f| ((*f).to_owned(), json!("string")))
            .collect();
        json!({"operation": "create-vat-id", "status": status, "condition": condition,
            "body": "object", "fields": fields, "items": {}, "pages": [], "codes": [],
            "count": 1, "exchange": 0})
    }

    fn record(target: &str, seed: u64, suite: &str, id: &str, shapes: Vec<Value>) -> RunRecord {
        let case = json!({"id": id, "suite": suite, "rules": [], "verdict": "pass",
            "findings": [], "exchanges": [], "duration_ms": 1.0, "shapes": shapes});
        serde_json::from_value(json!({"meta": {"covenant_version": "0", "seed": seed,
            "target": target, "profile": null, "started_at": "t", "finished_at": "t",
            "duration_ms": 1.0, "cases_per_operation": 1},
            "counts": {"pass": 1, "warn": 0, "fail": 0, "skip": 0, "error": 0, "requests": 1},
            "cases": [case]}))
        .expect("a record")
    }

    #[test]
    fn a_run_beside_traffic_differs_only_in_what_both_saw_and_the_target_chose() {
        let listed = ["id", "value", "country", "type"];
        let run = record(
            "http://a",
            7,
            "vat",
            "vat.create",
            vec![
                shape(201, None, &[&listed[..], &["counterpart_id"]].concat()),
                // A refusal the run provoked: no client sent it.
                shape(422, Some("VAT-VALUE-MAX"), &["error"]),
            ],
        );
        let traffic = record(
            "http://b",
            0,
            TRAFFIC_SUITE,
            "traffic.create-vat-id",
            vec![shape(200, None, &[&listed[..], &["vendor_note"]].concat())],
        );
        assert!(traffic.is_traffic() && !run.is_traffic());
        let diff = traffic_diff(&run, &traffic, Catalogue::embedded());
        let said: Vec<String> = diff
            .differences
            .iter()
            .map(|d| format!("{}: A {}; B {}", d.aspect.as_str(), d.a, d.b))
            .collect();
        assert_eq!(
            said,
            [
                "status: A 201; B 200",
                "fields: A no other field; B also vendor_note (string)"
            ],
            "a listed field one side's answers lacked and a refusal only the run provoked are no \
             difference"
        );
        assert!(diff.not_compared.is_empty(), "{:?}", diff.not_compared);
        assert_eq!((diff.a.seed, diff.b.seed), (7, 0));
        assert!(
            diff.notes.iter().all(|n| !n.contains("seeds")),
            "traffic has no seed: {:?}",
            diff.notes
        );
    }
}
