//! The behaviour diff worked out: two records compared case by case, over the shapes of their
//! answers (never a value), and gap by gap. What each side answered is said as a short value
//! (`201`, `also x (number)`, `limit 25: short 24`); the report's views word the rest.

use super::{Aspect, BehaviourDiff, Difference, GapDifference, NotCompared, Side};
use crate::catalogue::Catalogue;
use crate::report::gaps::{gap_observations, Subject};
use crate::schema;
use crate::verdict::{CaseResult, Fill, PageFill, RunRecord, Shape, Verdict};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// Compares the runs of two targets case by case and gap by gap.
pub fn behaviour_diff(a: &RunRecord, b: &RunRecord, catalogue: &Catalogue) -> BehaviourDiff {
    let mut diff = BehaviourDiff {
        a: side("A", a),
        b: side("B", b),
        differences: Vec::new(),
        gaps: gap_differences(&compared_only(a, b), &compared_only(b, a), catalogue),
        not_compared: Vec::new(),
        notes: notes(a, b),
    };
    let b_cases: BTreeMap<&str, &CaseResult> = b.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut order = BTreeMap::new();
    for (index, case) in a.cases.iter().enumerate() {
        order.insert(case.id.as_str(), index);
        let Some(other) = b_cases.get(case.id.as_str()) else {
            diff.not_compared.push(NotCompared {
                case: case.id.clone(),
                why: "run against A only".to_owned(),
            });
            continue;
        };
        match (compared(case), compared(other)) {
            (true, true) => diff.differences.extend(case_differences(case, other)),
            (false, false) if case.verdict == other.verdict => {}
            _ => diff.not_compared.push(NotCompared {
                case: case.id.clone(),
                why: format!("{} against A, {} against B", outcome(case), outcome(other)),
            }),
        }
    }
    let a_ids: BTreeSet<&str> = a.cases.iter().map(|c| c.id.as_str()).collect();
    for case in b.cases.iter().filter(|c| !a_ids.contains(c.id.as_str())) {
        diff.not_compared.push(NotCompared {
            case: case.id.clone(),
            why: "run against B only".to_owned(),
        });
    }
    let rank = |op: &str| {
        schema::operations()
            .iter()
            .position(|o| o.id.as_str() == op)
            .unwrap_or(usize::MAX)
    };
    // Stable: within an operation and case, the order the comparison found them in.
    diff.differences.sort_by_key(|d| {
        (
            rank(&d.operation),
            order.get(d.case.as_str()).copied().unwrap_or(usize::MAX),
        )
    });
    diff
}

pub(in crate::report) fn side(name: &str, run: &RunRecord) -> Side {
    Side {
        name: name.to_owned(),
        target: run.meta.target.clone(),
        seed: run.meta.seed,
        verdict: run.verdict(),
        counts: run.counts.clone(),
    }
}

pub(in crate::report) fn notes(a: &RunRecord, b: &RunRecord) -> Vec<String> {
    let mut notes = Vec::new();
    if a.meta.seed != b.meta.seed {
        notes.push(format!(
            "the runs used different seeds ({} and {}): generated cases sent other payloads, so \
             their answers may differ for that alone",
            a.meta.seed, b.meta.seed
        ));
    }
    for (name, run) in [("A", a), ("B", b)] {
        if let Some(why) = crate::report::words::incomplete(run) {
            notes.push(format!(
                "the run against {name} is INCOMPLETE ({why}): what it did not run is not compared"
            ));
        }
    }
    notes
}

/// Whether a case's answers can be compared: it ran to a verdict.
/// `run` with only the cases compared against both targets: what a case observed against one
/// target only (the other skipped it, or an interrupt cut it short there) is no difference in
/// what the two chose where the spec is silent. `run` itself when that is every case.
fn compared_only<'a>(run: &'a RunRecord, other: &RunRecord) -> Cow<'a, RunRecord> {
    let on_other: BTreeSet<&str> = other
        .cases
        .iter()
        .filter(|c| compared(c))
        .map(|c| c.id.as_str())
        .collect();
    let both = |c: &CaseResult| compared(c) && on_other.contains(c.id.as_str());
    if run.cases.iter().all(both) {
        return Cow::Borrowed(run);
    }
    Cow::Owned(RunRecord {
        meta: run.meta.clone(),
        counts: run.counts.clone(),
        cases: run.cases.iter().filter(|c| both(c)).cloned().collect(),
    })
}

fn compared(case: &CaseResult) -> bool {
    matches!(
        case.verdict,
        Verdict::Pass | Verdict::Warn | Verdict::Fail | Verdict::Inconclusive
    )
}

fn outcome(case: &CaseResult) -> String {
    match (&case.skip_reason, &case.error) {
        (Some(why), _) => format!("skipped ({why})"),
        (None, Some(error)) => format!("an error ({error})"),
        (None, None) => case.verdict.as_str().to_owned(),
    }
}

/// What a case's answers of one operation, kind and condition hold, over its shapes.
#[derive(Default)]
struct Answers {
    statuses: BTreeSet<u16>,
    /// By status class (2 for 2xx).
    classes: BTreeMap<u16, Merged>,
}

/// Shapes of one class, merged.
#[derive(Default)]
struct Merged {
    bodies: BTreeSet<String>,
    fields: BTreeMap<String, BTreeSet<String>>,
    nested: BTreeMap<String, BTreeSet<String>>,
    items: BTreeMap<String, BTreeSet<String>>,
    /// Per limit, the page fills.
    pages: BTreeMap<String, Vec<PageFill>>,
    codes: BTreeSet<String>,
}

type AnswerGroup = (String, Option<String>, Option<String>);

fn answers(case: &CaseResult) -> BTreeMap<AnswerGroup, Answers> {
    let mut groups: BTreeMap<AnswerGroup, Answers> = BTreeMap::new();
    for shape in &case.shapes {
        let key = (
            shape.operation.clone(),
            shape.kind.clone(),
            shape.condition.clone(),
        );
        let answers = groups.entry(key).or_default();
        answers.statuses.insert(shape.status);
        answers
            .classes
            .entry(shape.status / 100)
            .or_default()
            .add(shape);
    }
    groups
}

impl Merged {
    fn add(&mut self, shape: &Shape) {
        self.bodies.insert(shape.body.clone());
        for (into, from) in [
            (&mut self.fields, &shape.fields),
            (&mut self.nested, &shape.nested),
            (&mut self.items, &shape.items),
        ] {
            for (name, types) in from {
                into.entry(name.clone())
                    .or_default()
                    .extend(types.split('|').map(str::to_owned));
            }
        }
        for fill in &shape.pages {
            self.pages
                .entry(fill.limit.clone())
                .or_default()
                .push(fill.clone());
        }
        self.codes.extend(shape.codes.iter().cloned());
    }
}

/// Where two runs of one case answered differently.
fn case_differences(a: &CaseResult, b: &CaseResult) -> Vec<Difference> {
    let (a_groups, b_groups) = (answers(a), answers(b));
    let keys: BTreeSet<&AnswerGroup> = a_groups.keys().chain(b_groups.keys()).collect();
    let case_id = &a.id;
    let mut found = Vec::new();
    for key in keys {
        // Requests of one side only: the case went on otherwise after an earlier answer (a
        // generated case stops drawing once a body was accepted). Not sent is no answer.
        let (Some(x), Some(y)) = (a_groups.get(key), b_groups.get(key)) else {
            continue;
        };
        let mut add = |aspect: Aspect, field: Option<&str>, a: String, b: String| {
            found.push(Difference {
                operation: key.0.clone(),
                case: case_id.clone(),
                kind: key.1.clone(),
                condition: key.2.clone(),
                aspect,
                field: field.map(str::to_owned),
                a,
                b,
            })
        };
        // Statuses class by class where both answered in the same classes (a 201 beside a 200),
        // else all of them (accepted by one, refused by the other).
        if x.classes.keys().ne(y.classes.keys()) {
            add(
                Aspect::Status,
                None,
                statuses(&x.statuses),
                statuses(&y.statuses),
            );
        }
        for (class, m) in &x.classes {
            let Some(n) = y.classes.get(class) else {
                continue;
            };
            if x.classes.len() == y.classes.len() {
                let of = |a: &Answers| -> BTreeSet<u16> {
                    a.statuses
                        .iter()
                        .copied()
                        .filter(|s| s / 100 == *class)
                        .collect()
                };
                let (sx, sy) = (of(x), of(y));
                if sx != sy {
                    add(Aspect::Status, None, statuses(&sx), statuses(&sy));
                }
            }
            compare_merged(m, n, &mut add);
        }
    }
    found
}

fn compare_merged(
    a: &Merged,
    b: &Merged,
    add: &mut impl FnMut(Aspect, Option<&str>, String, String),
) {
    // Bodies of other kinds (empty beside an object) differ in their fields for that alone.
    if a.bodies != b.bodies {
        add(Aspect::Body, None, joined(&a.bodies), joined(&b.bodies));
    } else if a.pages.is_empty() && b.pages.is_empty() {
        compare_fields(&a.fields, &b.fields, Aspect::Fields, Aspect::Types, add);
    } else {
        // A page's tokens are null on a first or last page: whether a read met one depends on
        // how many items the list held then, which writers running beside it change. The page
        // sizes say what the target chose.
        let (x, y) = (without_null(&a.fields), without_null(&b.fields));
        compare_fields(&x, &y, Aspect::Fields, Aspect::Types, add);
    }
    if a.bodies == b.bodies {
        compare_nested(&a.nested, &b.nested, add);
    }
    compare_fields(
        &a.items,
        &b.items,
        Aspect::ItemFields,
        Aspect::ItemTypes,
        add,
    );
    let limits: BTreeSet<&String> = a.pages.keys().chain(b.pages.keys()).collect();
    for limit in limits {
        let (x, y) = (a.pages.get(limit), b.pages.get(limit));
        if page_facts(x) != page_facts(y) {
            add(Aspect::PageSizes, None, pages(limit, x), pages(limit, y));
        }
    }
    if a.codes != b.codes {
        add(Aspect::ErrorCodes, None, codes(&a.codes), codes(&b.codes));
    }
}

type FieldTypes = BTreeMap<String, BTreeSet<String>>;

fn compare_fields(
    a: &FieldTypes,
    b: &FieldTypes,
    set: Aspect,
    types: Aspect,
    add: &mut impl FnMut(Aspect, Option<&str>, String, String),
) {
    let only = |x: &FieldTypes, y: &FieldTypes| -> String {
        let names: Vec<String> = x
            .iter()
            .filter(|(name, _)| !y.contains_key(*name))
            .map(|(name, t)| format!("{name} ({})", type_text(t)))
            .collect();
        if names.is_empty() {
            "no other field".to_owned()
        } else {
            format!("also {}", names.join(", "))
        }
    };
    if a.keys().ne(b.keys()) {
        add(set, None, only(a, b), only(b, a));
    }
    for (name, x) in a {
        if let Some(y) = b.get(name) {
            if x != y {
                add(types, Some(name), type_text(x), type_text(y));
            }
        }
    }
}

/// The types of the nested fields both answered held: a nested `valid` that was a boolean and
/// is a string. Whether a nested field showed at all depends on the values (an empty list has
/// no item, an optional object was left out), so neither the set of nested fields nor
/// `absent` is compared.
fn compare_nested(
    a: &FieldTypes,
    b: &FieldTypes,
    add: &mut impl FnMut(Aspect, Option<&str>, String, String),
) {
    let present = |types: &BTreeSet<String>| -> BTreeSet<String> {
        types.iter().filter(|t| *t != "absent").cloned().collect()
    };
    for (path, x) in a {
        if let Some(y) = b.get(path) {
            let (x, y) = (present(x), present(y));
            if x != y && !x.is_empty() && !y.is_empty() {
                add(Aspect::Types, Some(path), type_text(&x), type_text(&y));
            }
        }
    }
}

/// Fields with `null` taken out of their types (a field only ever null keeps it).
fn without_null(fields: &FieldTypes) -> FieldTypes {
    fields
        .iter()
        .map(|(name, types)| {
            let mut types = types.clone();
            if types.len() > 1 {
                types.remove("null");
            }
            (name.clone(), types)
        })
        .collect()
}

/// The types of a field in the order shapes write them (`string|null`).
fn type_text(types: &BTreeSet<String>) -> String {
    const ORDER: [&str; 7] = [
        "object", "array", "string", "number", "boolean", "null", "absent",
    ];
    let mut known: Vec<&str> = ORDER
        .iter()
        .copied()
        .filter(|t| types.contains(*t))
        .collect();
    known.extend(
        types
            .iter()
            .map(String::as_str)
            .filter(|t| !ORDER.contains(t)),
    );
    known.join("|")
}

/// What page sizes under one limit show of a target's choice: whether it served short pages
/// with a next token, pages over the limit, and under the default limit the largest page with a
/// next token. Full and last pages are left out: how many a read meets depends on how many
/// items the list holds at that moment, which writers running beside it change.
fn page_facts(fills: Option<&Vec<PageFill>>) -> (bool, bool, Option<u32>) {
    let fills = fills.map(Vec::as_slice).unwrap_or_default();
    let has = |fill: Fill| fills.iter().any(|f| f.fill == fill);
    let next = fills
        .iter()
        .filter(|f| f.fill == Fill::Next)
        .map(|f| f.max)
        .max();
    (has(Fill::Short), has(Fill::Over), next)
}

/// `limit 25: full 25, short 24` (last pages left out).
fn pages(limit: &str, fills: Option<&Vec<PageFill>>) -> String {
    let mut parts: Vec<String> = fills
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|f| f.fill != Fill::Last)
        .map(|f| {
            let sizes = if f.min == f.max {
                f.max.to_string()
            } else {
                format!("{}-{}", f.min, f.max)
            };
            format!("{} {sizes}", f.fill.as_str())
        })
        .collect();
    parts.dedup();
    if parts.is_empty() {
        parts.push("last pages only".to_owned());
    }
    format!("limit {limit}: {}", parts.join(", "))
}

fn statuses(statuses: &BTreeSet<u16>) -> String {
    if statuses.is_empty() {
        "no answer".to_owned()
    } else {
        statuses
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn joined(values: &BTreeSet<String>) -> String {
    values.iter().cloned().collect::<Vec<_>>().join(", ")
}

fn codes(values: &BTreeSet<String>) -> String {
    if values.is_empty() {
        "none".to_owned()
    } else {
        joined(values)
    }
}

/// The gaps where the two chose differently: per gap and subject, the values each showed.
fn gap_differences(a: &RunRecord, b: &RunRecord, catalogue: &Catalogue) -> Vec<GapDifference> {
    type Topic = (String, Subject, String);
    let values = |run: &RunRecord| {
        let mut found: Vec<(Topic, BTreeSet<String>)> = Vec::new();
        for gap in gap_observations(run, catalogue) {
            for o in gap.observations {
                let topic = (gap.gap.clone(), o.subject, o.what);
                match found.iter_mut().find(|(t, _)| *t == topic) {
                    Some((_, set)) => {
                        set.insert(o.value);
                    }
                    None => found.push((topic, BTreeSet::from([o.value]))),
                }
            }
        }
        found
    };
    let (x, y) = (values(a), values(b));
    let mut topics: Vec<&Topic> = x.iter().map(|(t, _)| t).collect();
    for (t, _) in &y {
        if !topics.contains(&t) {
            topics.push(t);
        }
    }
    let gap_rank = |gap: &str| catalogue.gaps.iter().position(|g| g.id == gap);
    topics.sort_by_key(|t| gap_rank(&t.0));
    let of = |list: &[(Topic, BTreeSet<String>)], topic: &Topic| {
        list.iter()
            .find(|(t, _)| t == topic)
            .map(|(_, v)| v.iter().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    topics
        .into_iter()
        .filter_map(|topic| {
            let (in_a, in_b) = (of(&x, topic), of(&y, topic));
            (in_a != in_b).then(|| GapDifference {
                gap: topic.0.clone(),
                subject: topic.1.clone(),
                what: topic.2.clone(),
                a: in_a,
                b: in_b,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Counts, RunMeta};

    fn shape(operation: &str, status: u16, fields: &[(&str, &str)], count: u32) -> Shape {
        Shape {
            operation: operation.to_owned(),
            status,
            kind: None,
            condition: None,
            body: "object".to_owned(),
            fields: fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            nested: BTreeMap::new(),
            items: BTreeMap::new(),
            pages: Vec::new(),
            codes: Vec::new(),
            count,
            exchange: None,
        }
    }

    fn case(id: &str, verdict: Verdict, shapes: Vec<Shape>) -> CaseResult {
        CaseResult {
            id: id.to_owned(),
            suite: "vat".to_owned(),
            operation: Some("create-vat-id".to_owned()),
            rules: Vec::new(),
            verdict,
            findings: Vec::new(),
            exchanges: Vec::new(),
            skip_reason: (verdict == Verdict::Skip).then(|| "no fixture".to_owned()),
            error: None,
            payload: None,
            inconclusive: Vec::new(),
            requests: 1,
            evidence: Vec::new(),
            statuses: Vec::new(),
            expected_statuses: Vec::new(),
            shapes,
            duration_ms: 1.0,
        }
    }

    fn run(target: &str, cases: Vec<CaseResult>) -> RunRecord {
        RunRecord {
            meta: RunMeta {
                covenant_version: "0".to_owned(),
                started_at: "2026-01-01T00:00:00Z".to_owned(),
                finished_at: "2026-01-01T00:00:01Z".to_owned(),
                duration_ms: 1.0,
                cases_per_operation: 1,
                ..RunMeta::bare(target, serde_json::Value::Null, 7)
            },
            counts: Counts::of(&cases),
            cases,
        }
    }

    /// `vat.create`, whose answers from create VAT ID had one shape.
    fn vat(verdict: Verdict, status: u16, fields: &[(&str, &str)], count: u32) -> CaseResult {
        case(
            "vat.create",
            verdict,
            vec![shape("create-vat-id", status, fields, count)],
        )
    }

    fn diff(a: Vec<CaseResult>, b: Vec<CaseResult>) -> BehaviourDiff {
        let catalogue = Catalogue::parse("[[rule]]\nid = \"X-1\"\nsection = \"s\"\ntext = \"t\"\nlevel = \"must\"\nobservable = false\nwhy_not = \"n\"\n").expect("a catalogue");
        behaviour_diff(&run("http://a", a), &run("http://b", b), &catalogue)
    }

    #[test]
    fn the_same_answers_in_other_numbers_are_no_difference() {
        let a = vat(Verdict::Pass, 201, &[("id", "string")], 3);
        let b = vat(Verdict::Pass, 201, &[("id", "string")], 9);
        assert!(diff(vec![a], vec![b]).is_empty());
    }

    #[test]
    fn a_nested_field_of_another_type_is_a_difference_one_only_one_side_held_is_not() {
        let nested = |pairs: &[(&str, &str)]| {
            let mut shape = shape(
                "create-mailbox-domain",
                201,
                &[("dns_records", "object")],
                1,
            );
            shape.nested = pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            case("mbx.create", Verdict::Pass, vec![shape])
        };
        let valid = "dns_records.receiving_dns_records[].valid";
        let a = nested(&[(valid, "boolean"), ("dns_records.extra", "string")]);
        let b = nested(&[(valid, "string|absent")]);
        let found = diff(vec![a], vec![b]).differences;
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].aspect, Aspect::Types);
        assert_eq!(found[0].field.as_deref(), Some(valid));
        assert_eq!(
            (found[0].a.as_str(), found[0].b.as_str()),
            ("boolean", "string")
        );
    }

    #[test]
    fn another_success_status_and_an_extra_field_are_two_differences() {
        let a = vat(Verdict::Pass, 201, &[("id", "string")], 1);
        let b = case(
            "vat.create",
            Verdict::Pass,
            vec![shape(
                "create-vat-id",
                200,
                &[("id", "string"), ("x", "number")],
                1,
            )],
        );
        let d = diff(vec![a], vec![b]);
        let found: Vec<(Aspect, &str, &str)> = d
            .differences
            .iter()
            .map(|d| (d.aspect, d.a.as_str(), d.b.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Aspect::Status, "201", "200"),
                (Aspect::Fields, "no other field", "also x (number)")
            ]
        );
        let grouped = d.grouped();
        assert_eq!(
            (grouped.len(), grouped[0].alike.len()),
            (1, 2),
            "{grouped:?}"
        );
    }

    #[test]
    fn accepted_by_one_and_refused_by_the_other_is_one_status_difference() {
        let a = vat(Verdict::Pass, 201, &[("id", "string")], 1);
        let b = vat(Verdict::Fail, 422, &[("detail", "array")], 1);
        let d = diff(vec![a], vec![b]);
        assert_eq!(d.differences.len(), 1, "{:?}", d.differences);
        assert_eq!(
            (d.differences[0].a.as_str(), d.differences[0].b.as_str()),
            ("201", "422")
        );
    }

    #[test]
    fn what_a_case_observed_against_one_target_only_is_no_gap_difference() {
        let catalogue = Catalogue::parse(
            "[[rule]]\nid = \"X-1\"\nsection = \"s\"\ntext = \"t\"\nlevel = \"must\"\n\
             observable = false\nwhy_not = \"n\"\n\
             [[gap]]\nid = \"GAP-SUCCESS-STATUS\"\nsection = \"s\"\ntext = \"t\"\n",
        )
        .expect("a catalogue");
        let gaps = |b: CaseResult| {
            let a = vat(Verdict::Pass, 201, &[], 1);
            behaviour_diff(
                &run("http://a", vec![a]),
                &run("http://b", vec![b]),
                &catalogue,
            )
            .gaps
        };
        // Compared on both: another success status is a gap difference.
        let found = gaps(vat(Verdict::Pass, 200, &[], 1));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].a.as_slice(), found[0].b.as_slice()),
            (&["201".to_owned()][..], &["200".to_owned()][..])
        );
        // Cut short against B (an interrupt): A's observation has nothing to be compared with.
        assert!(gaps(case("vat.create", Verdict::Skip, Vec::new())).is_empty());
    }

    #[test]
    fn one_fact_of_several_kinds_and_conditions_is_said_once_with_its_gap() {
        let refused = |kind: &str, condition: &str| Shape {
            kind: Some(kind.to_owned()),
            condition: Some(condition.to_owned()),
            ..shape("create-vat-id", 422, &[("detail", "array")], 1)
        };
        let b_refused = |kind: &str, condition: &str| Shape {
            status: 400,
            ..refused(kind, condition)
        };
        let a = case(
            "vat.refusals",
            Verdict::Pass,
            vec![
                refused("quote", "R-1"),
                refused("invoice", "R-2"),
                // Sent to A only: the case went on otherwise against B.
                refused("quote", "R-3"),
            ],
        );
        let b = case(
            "vat.refusals",
            Verdict::Warn,
            vec![b_refused("quote", "R-1"), b_refused("invoice", "R-2")],
        );
        let mut d = diff(vec![a], vec![b]);
        assert_eq!(d.differences.len(), 2, "{:?}", d.differences);
        d.gaps.push(GapDifference {
            gap: "GAP-STATUS-MAPPING".to_owned(),
            subject: Subject {
                operation: Some("create-vat-id".to_owned()),
                kind: Some("quote".to_owned()),
                condition: Some("R-1".to_owned()),
            },
            what: "answered with".to_owned(),
            a: vec!["422".to_owned()],
            b: vec!["400".to_owned()],
        });
        let grouped = d.grouped();
        assert_eq!(grouped[0].alike.len(), 1);
        let fact = &grouped[0].alike[0];
        assert_eq!(
            (&fact.kinds[..], &fact.conditions[..], &fact.gaps[..]),
            (
                &["invoice".to_owned(), "quote".to_owned()][..],
                &["R-2".to_owned(), "R-1".to_owned()][..],
                &["GAP-STATUS-MAPPING".to_owned()][..]
            )
        );
        assert_eq!(
            (fact.difference.a.as_str(), fact.difference.b.as_str()),
            ("422", "400")
        );
        assert!(d.gaps_apart().is_empty(), "said with the difference");
    }

    #[test]
    fn a_case_skipped_against_one_target_is_not_compared() {
        let a = vat(Verdict::Pass, 201, &[], 1);
        let b = case("vat.create", Verdict::Skip, Vec::new());
        let d = diff(vec![a], vec![b]);
        assert!(d.is_empty());
        assert_eq!(d.not_compared.len(), 1);
        assert!(
            d.not_compared[0]
                .why
                .contains("skipped (no fixture) against B"),
            "{:?}",
            d.not_compared
        );
    }

    #[test]
    fn differences_are_ordered_by_operation_then_case() {
        let comment = |id: &str, status| {
            let mut c = case(
                id,
                Verdict::Pass,
                vec![shape("update-comment", status, &[], 1)],
            );
            c.operation = Some("update-comment".to_owned());
            c
        };
        let vat = |status| {
            case(
                "vat.z",
                Verdict::Pass,
                vec![shape("create-vat-id", status, &[], 1)],
            )
        };
        let d = diff(
            vec![comment("comment.a", 200), vat(201)],
            vec![comment("comment.a", 202), vat(200)],
        );
        let order: Vec<&str> = d.differences.iter().map(|d| d.operation.as_str()).collect();
        assert_eq!(order, ["create-vat-id", "update-comment"]);
    }
}
