//! What a target chose where the spec is silent: for each gap of the catalogue, what the run saw
//! the target do there, with an example exchange, for spec owners deciding what to specify next.
//!
//! Worked out from the record alone (the shapes each case recorded, its blocked baselines, the
//! redacted profile), so that `report.json`, the summaries and `covenant compare` of two saved
//! reports say the same. An observation's `value` holds only what the behaviour diff may compare
//! between two targets: statuses, field names and JSON types, page fills, error codes, the header
//! name; never a value of a body. Observations never judge: covenant fails no target on a gap.

use crate::catalogue::Catalogue;
use crate::schema::{self, Area, Method, Operation, OperationId, Registry};
use crate::verdict::{CaseResult, Fill, PageFill, RunRecord, Shape};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The condition of a valid body refused (see `CaseCx::refused_under`).
const VALID_REFUSED: &str = "GEN-VALID-ACCEPTED";
/// The condition of a control on one organization's card, created acting for another.
const CARD_ACCESS: &str = "GAP-CARD-ACCESS";

/// What a target chose in one gap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GapObservations {
    pub gap: String,
    /// The gap as the catalogue states it.
    pub text: String,
    pub observations: Vec<Observation>,
}

/// What an observation is about: an operation, the kind of request, the condition a refusal
/// was judged under; none of them for a choice of the whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Subject {
    /// The operation id, where the choice is one operation's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// What the request asked for, where the operation has kinds (`quote`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The condition the request was made to break: a rule id, for refusals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

impl std::fmt::Display for Subject {
    /// `create-vat-id (quote) under VAT-VALUE-MAX`, or `the run`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(op) = &self.operation {
            parts.push(op.clone());
        }
        if let Some(kind) = &self.kind {
            parts.push(format!("({kind})"));
        }
        if let Some(condition) = &self.condition {
            parts.push(format!("under {condition}"));
        }
        if parts.is_empty() {
            f.write_str("the run")
        } else {
            f.write_str(&parts.join(" "))
        }
    }
}

/// One choice seen: what (`success status`), its value (`201`), on how many responses, and an
/// exchange that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    #[serde(flatten)]
    pub subject: Subject,
    pub what: String,
    pub value: String,
    /// Responses (or pages, or refused baselines) that showed it.
    pub responses: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Example>,
}

/// An exchange kept in a case of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Example {
    pub case: String,
    /// Index into that case's exchanges.
    pub exchange: usize,
}

/// Observations by gap, in the catalogue's order; gaps the run saw nothing of are left out.
pub fn gap_observations(run: &RunRecord, catalogue: &Catalogue) -> Vec<GapObservations> {
    let mut seen = ObservationTally::default();
    for case in &run.cases {
        for shape in &case.shapes {
            if let Some(op) = schema::operation(&shape.operation) {
                seen.shape(case, shape, op);
            }
        }
        seen.blocked_baselines(case);
    }
    seen.shared_causes();
    seen.org_header(run);
    catalogue
        .gaps
        .iter()
        .filter_map(|gap| {
            let observations = seen.take(&gap.id);
            (!observations.is_empty()).then(|| GapObservations {
                gap: gap.id.clone(),
                text: gap.text.clone(),
                observations,
            })
        })
        .collect()
}

/// What identifies an observation: the gap, then the order reports list them in.
type ObservationKey = (&'static str, usize, Subject, String, String);

/// The observations of a run as its cases are read: each counted, with an example exchange.
#[derive(Default)]
struct ObservationTally {
    found: BTreeMap<ObservationKey, (u32, Option<Example>)>,
    /// The fields each schema lists (and its items), looked up once per schema.
    listed: BTreeMap<(&'static str, bool), BTreeSet<String>>,
}

/// Where an observation comes from.
struct At<'a> {
    operation: Option<&'a Operation>,
    kind: Option<&'a str>,
    condition: Option<&'a str>,
    example: Option<Example>,
}

impl ObservationTally {
    fn add(&mut self, gap: &'static str, at: &At<'_>, what: &str, value: String, count: u32) {
        let rank = at.operation.map_or(usize::MAX, |op| rank(op.id));
        let subject = Subject {
            operation: at.operation.map(|op| op.id.as_str().to_owned()),
            kind: at.kind.map(str::to_owned),
            condition: at.condition.map(str::to_owned),
        };
        let key = (gap, rank, subject, what.to_owned(), value);
        let entry = self.found.entry(key).or_insert((0, None));
        entry.0 += count;
        if entry.1.is_none() {
            entry.1 = at.example.clone();
        }
    }

    /// The observations of one gap, in order.
    fn take(&mut self, gap: &str) -> Vec<Observation> {
        self.found
            .iter()
            .filter(|(key, _)| key.0 == gap)
            .map(
                |((_, _, subject, what, value), (responses, example))| Observation {
                    subject: subject.clone(),
                    what: what.clone(),
                    value: value.clone(),
                    responses: *responses,
                    example: example.clone(),
                },
            )
            .collect()
    }

    fn shape(&mut self, case: &CaseResult, shape: &Shape, op: &'static Operation) {
        let at = At {
            operation: Some(op),
            kind: shape.kind.as_deref(),
            condition: shape.condition.as_deref(),
            example: shape.exchange.map(|exchange| Example {
                case: case.id.clone(),
                exchange,
            }),
        };
        let count = shape.count;
        match (shape.status / 100, shape.condition.as_deref()) {
            (5, _) => {}
            (_, Some(CARD_ACCESS)) => {
                let what = "a card of the first organization, acting for the other, answered";
                let at = At {
                    condition: None,
                    example: at.example.clone(),
                    ..at
                };
                self.add(CARD_ACCESS, &at, what, shape.status.to_string(), count);
            }
            (2, None) => self.success(shape, op, &at),
            (_, Some(VALID_REFUSED)) => self.add(
                "GAP-PRECONDITIONS",
                &At {
                    condition: None,
                    example: at.example.clone(),
                    ..at
                },
                "valid body refused with",
                refusal(shape),
                count,
            ),
            (_, Some(_)) if op.id != OperationId::CreateReceivable => {
                self.add(
                    "GAP-STATUS-MAPPING",
                    &at,
                    "answered with",
                    shape.status.to_string(),
                    count,
                );
            }
            _ => {}
        }
        if op.area == Area::Banking && shape.status >= 400 && shape.status < 500 {
            self.add(
                "GAP-ERRORCODE-VALUES",
                &at,
                "errorCode",
                codes(shape),
                count,
            );
        }
    }

    /// A success the case asked for: its status, its body, the fields the spec does not list,
    /// its page sizes.
    fn success(&mut self, shape: &Shape, op: &'static Operation, at: &At<'_>) {
        let count = shape.count;
        let status = shape.status.to_string();
        if op.success_statuses.is_empty() {
            self.add("GAP-SUCCESS-STATUS", at, "success status", status, count);
        }
        if op.method == Method::Delete {
            self.add("GAP-DELETE-BODY", at, "body on success", body(shape), count);
        }
        let Some(stem) = op.success_schema.as_deref() else {
            return;
        };
        if shape.body == "object" {
            let (gap, what) = match (op.id, shape.kind.as_deref()) {
                (OperationId::CreateReceivable, Some("invoice" | "credit_note")) => (
                    "GAP-INVOICE-CREDIT-NOTE-RESPONSE",
                    "fields beyond the quote's listed ones",
                ),
                (OperationId::CreateReceivable, _) => {
                    ("GAP-QUOTE-RESPONSE-TAIL", "fields beyond the listed ones")
                }
                _ => ("GAP-EXTRA-FIELDS", "fields beyond the listed ones"),
            };
            let value = unlisted(&shape.fields, self.listed(stem, false));
            self.add(gap, at, what, value, count);
        }
        if !shape.items.is_empty() {
            let items = unlisted(&shape.items, self.listed(stem, true));
            match op.id {
                OperationId::ListEvents => {
                    let what = "item fields beyond the listed ones";
                    self.add("GAP-EVENT-PAYLOAD", at, what, items, count);
                    if let Some(types) = shape.items.get("object") {
                        let types = types.clone();
                        self.add("GAP-EVENT-PAYLOAD", at, "type of object", types, count);
                    }
                }
                OperationId::ListTransactions => {
                    self.add("GAP-TRANSACTION-ITEM", at, "item fields", items, count)
                }
                _ => {}
            }
        }
        for fill in &shape.pages {
            if let Some(value) = page_fill(fill) {
                // Under no `limit`, an operation whose table states a default was read at that
                // default: its pages are said against it, not as a default the spec leaves open.
                let (what, value) = match stated_limit(op.id.as_str()) {
                    Some(limit) if fill.limit == "default" => {
                        (format!("limit {limit}"), fill_under(&value, limit))
                    }
                    _ => (format!("limit {}", fill.limit), value),
                };
                self.add("GAP-PAGE-SIZES", at, &what, value, fill.pages);
            }
        }
    }

    /// The fields the schema `stem` lists for a response (or with `items`, for a page's items).
    fn listed(&mut self, stem: &'static str, items: bool) -> &BTreeSet<String> {
        self.listed
            .entry((stem, items))
            .or_insert_with(|| Registry::embedded().listed_fields(stem, items))
    }

    /// Baselines refused: their variants were not judged, and the answer may name a
    /// precondition the spec does not give.
    fn blocked_baselines(&mut self, case: &CaseResult) {
        let op = case.operation.as_deref().and_then(schema::operation);
        for blocked in &case.inconclusive {
            let at = At {
                operation: op,
                kind: None,
                condition: None,
                example: blocked.exchange.map(|exchange| Example {
                    case: case.id.clone(),
                    exchange,
                }),
            };
            let status = blocked.answer.split(':').next().unwrap_or("").trim();
            let value = status.to_owned();
            self.add(
                "GAP-PRECONDITIONS",
                &at,
                "valid baseline refused with",
                value,
                1,
            );
        }
    }

    /// Per operation, whether the valid requests it refused were all refused alike (one cause,
    /// likely a precondition the spec does not give) or not.
    fn shared_causes(&mut self) {
        let mut answers: BTreeMap<usize, (BTreeSet<String>, u32, Option<Example>)> =
            BTreeMap::new();
        for (key, (count, example)) in &self.found {
            if key.0 != "GAP-PRECONDITIONS" {
                continue;
            }
            let entry = answers.entry(key.1).or_default();
            entry.0.insert(key.4.clone());
            entry.1 += count;
            if entry.2.is_none() {
                entry.2 = example.clone();
            }
        }
        for (rank, (values, count, example)) in answers {
            if count < 2 {
                continue;
            }
            let value = match values.len() {
                1 => format!(
                    "yes: all {}",
                    values.iter().next().cloned().unwrap_or_default()
                ),
                _ => format!("no: {}", values.into_iter().collect::<Vec<_>>().join("; ")),
            };
            let at = At {
                operation: schema::operations().get(rank),
                kind: None,
                condition: None,
                example,
            };
            self.add(
                "GAP-PRECONDITIONS",
                &at,
                "refusals share a cause",
                value,
                count,
            );
        }
    }

    /// The name the profile gives the banking organization header, shown by the first kept
    /// banking exchange that carried it. Real traffic says it only where a client sent it: the
    /// profile names the header, but the traffic is the client's.
    fn org_header(&mut self, run: &RunRecord) {
        let name = run
            .meta
            .profile
            .pointer("/banking/org_header")
            .and_then(|v| v.as_str());
        let traffic = run.is_traffic();
        let carried = |case: &crate::verdict::CaseResult, exchange: usize| {
            !traffic
                || name.is_some_and(|name| {
                    case.exchanges.get(exchange).is_some_and(|e| {
                        e.request
                            .headers
                            .iter()
                            .any(|(h, _)| h.eq_ignore_ascii_case(name))
                    })
                })
        };
        let example = run.cases.iter().find_map(|case| {
            case.shapes
                .iter()
                .filter(|s| s.status / 100 == 2)
                .filter(|s| {
                    schema::operation(&s.operation).is_some_and(|o| o.area == Area::Banking)
                })
                .filter_map(|s| s.exchange)
                .find(|&exchange| carried(case, exchange))
                .map(|exchange| Example {
                    case: case.id.clone(),
                    exchange,
                })
        });
        if traffic && example.is_none() {
            return;
        }
        let banking = run
            .cases
            .iter()
            .flat_map(|c| &c.shapes)
            .any(|s| schema::operation(&s.operation).is_some_and(|o| o.area == Area::Banking));
        if !banking && name.is_none() {
            return;
        }
        let value = name.map_or_else(
            || "none: the profile names no banking.org_header".to_owned(),
            str::to_owned,
        );
        let at = At {
            operation: None,
            kind: None,
            condition: None,
            example,
        };
        self.add(
            "GAP-BANK-ORG-HEADER-NAME",
            &at,
            "header name sent",
            value,
            1,
        );
    }
}

/// One choice of a target in a gap, said once per operation and choice: the observations alike
/// but for the kind of request, the condition and the types of the fields they name (`null`
/// beside `string|null`), merged, with their kinds, conditions and responses gathered. The
/// summaries say these; `summary.html` and `report.json` keep every observation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub operation: Option<String>,
    pub kinds: Vec<String>,
    pub conditions: Vec<String>,
    pub what: String,
    /// The value, a list of fields with their types merged.
    pub value: String,
    pub responses: u32,
}

impl std::fmt::Display for Choice {
    /// `create-vat-id under AUTH-A, AUTH-B: answered with 401`, without the value's quoting.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.operation.as_deref().unwrap_or("the run"))?;
        if !self.kinds.is_empty() {
            write!(f, " ({})", self.kinds.join(", "))?;
        }
        if !self.conditions.is_empty() {
            write!(f, " under {}", self.conditions.join(", "))?;
        }
        Ok(())
    }
}

/// The fields of a choice of fields, each with the types seen of it (merged across answers).
type ChoiceFieldTypes = Vec<(String, Vec<String>)>;

/// The observations of one gap as choices, once per operation and choice, in the order first
/// observed.
pub fn choices(observations: &[Observation]) -> Vec<Choice> {
    let mut found: Vec<(Choice, ChoiceFieldTypes)> = Vec::new();
    for o in observations {
        let fields = field_list(&o.value);
        let names: Option<Vec<&str>> = fields
            .as_ref()
            .map(|f| f.iter().map(|(n, _)| n.as_str()).collect());
        let at = found.iter().position(|(c, f)| {
            c.operation == o.subject.operation
                && c.what == o.what
                && match &names {
                    Some(names) => f.iter().map(|(n, _)| n.as_str()).eq(names.iter().copied()),
                    None => f.is_empty() && c.value == o.value,
                }
        });
        let at = at.unwrap_or_else(|| {
            let choice = Choice {
                operation: o.subject.operation.clone(),
                kinds: Vec::new(),
                conditions: Vec::new(),
                what: o.what.clone(),
                value: o.value.clone(),
                responses: 0,
            };
            let fields = fields.clone().unwrap_or_default();
            let fields = fields.into_iter().map(|(n, _)| (n, Vec::new())).collect();
            found.push((choice, fields));
            found.len() - 1
        });
        let (choice, merged) = &mut found[at];
        choice.responses += o.responses;
        for (list, item) in [
            (&mut choice.kinds, &o.subject.kind),
            (&mut choice.conditions, &o.subject.condition),
        ] {
            if let Some(item) = item.as_ref().filter(|i| !list.contains(i)) {
                list.push(item.clone());
            }
        }
        for ((_, types), (_, seen)) in fields
            .unwrap_or_default()
            .into_iter()
            .zip(merged.iter_mut())
        {
            for t in types.split('|') {
                if !seen.iter().any(|s| s == t) {
                    seen.push(t.to_owned());
                }
            }
        }
    }
    found
        .into_iter()
        .map(|(mut choice, fields)| {
            if !fields.is_empty() {
                let said: Vec<String> = fields
                    .iter()
                    .map(|(name, types)| format!("{name} ({})", merged_types(types)))
                    .collect();
                choice.value = said.join(", ");
            }
            choice
        })
        .collect()
}

/// `name (types), ...` as names and types; `None` for a value that is no list of fields.
pub fn field_list(value: &str) -> Option<Vec<(String, String)>> {
    value
        .split(", ")
        .map(|part| {
            let (name, rest) = part.split_once(" (")?;
            let types = rest.strip_suffix(')')?;
            (!name.contains(' ') && !types.contains(['(', ' ']))
                .then(|| (name.to_owned(), types.to_owned()))
        })
        .collect()
}

/// Types seen of one field, `null` last: `string|null`.
pub fn merged_types(types: &[String]) -> String {
    let mut kept: Vec<&str> = types
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "null")
        .collect();
    kept.extend(types.iter().map(String::as_str).filter(|t| *t == "null"));
    kept.join("|")
}

/// An operation's place in `operations.json`.
fn rank(id: OperationId) -> usize {
    schema::operations()
        .iter()
        .position(|op| op.id == id)
        .unwrap_or(usize::MAX)
}

/// `name (type), ...` of the fields not listed, or `none`.
fn unlisted(fields: &BTreeMap<String, String>, listed: &BTreeSet<String>) -> String {
    let extra: Vec<String> = fields
        .iter()
        .filter(|(name, _)| !listed.contains(*name))
        .map(|(name, types)| format!("{name} ({types})"))
        .collect();
    if extra.is_empty() {
        "none".to_owned()
    } else {
        extra.join(", ")
    }
}

/// A body in a few words: `empty`, `object: deleted (boolean)`, `not-json`.
fn body(shape: &Shape) -> String {
    if shape.body != "object" {
        return shape.body.clone();
    }
    let fields: Vec<String> = shape
        .fields
        .iter()
        .map(|(name, types)| format!("{name} ({types})"))
        .collect();
    format!("object: {}", fields.join(", "))
}

/// A refusal's status, with its error codes where it has any.
fn refusal(shape: &Shape) -> String {
    match shape.codes.as_slice() {
        [] => shape.status.to_string(),
        codes => format!("{} {}", shape.status, codes.join("|")),
    }
}

/// The `errorCode`s of a banking error, or that it had none.
fn codes(shape: &Shape) -> String {
    if shape.codes.is_empty() {
        "omitted".to_owned()
    } else {
        shape.codes.join(", ")
    }
}

/// What one fill of pages says about the target's choice; nothing for a last page, which every
/// list has.
/// The default of `operation`'s `limit` query parameter, where the operations table states one.
pub fn stated_limit(operation: &str) -> Option<u64> {
    schema::operation(operation)?
        .parameters
        .iter()
        .find(|p| p.name.as_deref() == Some("limit"))?
        .schema
        .get("default")?
        .as_u64()
}

/// `pages of N items with a next token` under no limit, said against the stated default.
pub fn fill_under(value: &str, limit: u64) -> String {
    let items = value
        .strip_prefix("pages of ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok());
    match items {
        Some(n) if n == limit => "full pages".to_owned(),
        Some(n) if n < limit => "short pages with a next token".to_owned(),
        Some(_) => "pages over the limit".to_owned(),
        None => value.to_owned(),
    }
}

fn page_fill(fill: &PageFill) -> Option<String> {
    match fill.fill {
        Fill::Full => Some("full pages".to_owned()),
        Fill::Short => Some("short pages with a next token".to_owned()),
        Fill::Next => Some(format!("pages of {} items with a next token", fill.max)),
        Fill::Over => Some("pages over the limit".to_owned()),
        Fill::Last => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed(kind: Option<&str>, condition: Option<&str>, value: &str) -> Observation {
        Observation {
            subject: Subject {
                operation: Some("create-receivable".to_owned()),
                kind: kind.map(str::to_owned),
                condition: condition.map(str::to_owned),
            },
            what: "fields beyond the listed ones".to_owned(),
            value: value.to_owned(),
            responses: 2,
            example: None,
        }
    }

    #[test]
    fn one_choice_of_one_operation_is_said_once_with_its_types_merged() {
        let said = choices(&[
            observed(Some("quote"), None, "status (string), note (null)"),
            observed(Some("invoice"), None, "status (string), note (string|null)"),
            observed(Some("quote"), None, "none"),
        ]);
        let lines: Vec<String> = said
            .iter()
            .map(|c| format!("{c}: {} ({})", c.value, c.responses))
            .collect();
        assert_eq!(
            lines,
            [
                "create-receivable (quote, invoice): status (string), note (string|null) (4)",
                "create-receivable (quote): none (2)"
            ]
        );
    }

    /// A list read with no `limit`, as the pagination cases read it, under one operation.
    fn read_without_limit(operation: &str) -> CaseResult {
        let text = format!(
            r#"{{"id":"{operation}","suite":"s","rules":[],"verdict":"pass","findings":[],
                "exchanges":[],"requests":3,"duration_ms":1.0}}"#
        );
        let mut case: CaseResult = serde_json::from_str(&text).expect("a case");
        case.shapes.push(Shape {
            operation: operation.to_owned(),
            status: 200,
            kind: None,
            condition: None,
            body: "object".to_owned(),
            fields: BTreeMap::new(),
            nested: BTreeMap::new(),
            items: BTreeMap::new(),
            pages: vec![PageFill {
                limit: "default".to_owned(),
                fill: Fill::Next,
                pages: 3,
                min: 25,
                max: 25,
            }],
            codes: Vec::new(),
            count: 3,
            exchange: None,
        });
        case
    }

    #[test]
    fn pages_under_a_default_the_table_states_are_said_against_it_not_as_silent() {
        let run = RunRecord::of_cases(vec![
            read_without_limit("list-transactions"),
            read_without_limit("list-events"),
        ]);
        let seen = gap_observations(&run, Catalogue::embedded());
        let pages: Vec<(String, String, String)> = seen
            .iter()
            .filter(|g| g.gap == "GAP-PAGE-SIZES")
            .flat_map(|g| &g.observations)
            .map(|o| {
                let operation = o.subject.operation.clone().unwrap_or_default();
                (operation, o.what.clone(), o.value.clone())
            })
            .collect();
        assert!(
            pages.contains(&(
                "list-transactions".into(),
                "limit 25".into(),
                "full pages".into()
            )),
            "the table states limit 25 for transactions: {pages:?}"
        );
        assert!(
            pages.contains(&(
                "list-events".into(),
                "limit default".into(),
                "pages of 25 items with a next token".into()
            )),
            "the table states no default for events: {pages:?}"
        );
        assert!(!pages
            .iter()
            .any(|(op, what, _)| op == "list-transactions" && what == "limit default"));
    }
}
