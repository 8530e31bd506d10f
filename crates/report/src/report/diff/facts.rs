//! The diff as data (what the JSON of a diff holds), and its facts grouped: each fact once by
//! operation, with everywhere it showed, and the gaps no difference already says. Apart from
//! [`compute`](super::compute), which works the facts out, so that a view reads them without
//! knowing how two records were compared.

use crate::report::gaps::Subject;
use crate::verdict::{Counts, RunVerdict};
use serde::Serialize;

/// Where two runs of one plan against two targets answered differently.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BehaviourDiff {
    pub a: Side,
    pub b: Side,
    /// Per case, ordered by operation (as in `operations.json`), then case.
    pub differences: Vec<Difference>,
    /// Gaps where the two chose differently, in the catalogue's order.
    pub gaps: Vec<GapDifference>,
    /// Cases not compared: run against one target only, or skipped or errored on one.
    pub not_compared: Vec<NotCompared>,
    /// What limits the comparison (different seeds, an incomplete run).
    pub notes: Vec<String>,
}

/// One of the two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// `A` or `B`.
    pub name: String,
    pub target: String,
    pub seed: u64,
    pub verdict: RunVerdict,
    pub counts: Counts,
}

/// What of an answer differed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aspect {
    /// The statuses answered.
    Status,
    /// The kind of body (empty, an object, not JSON).
    Body,
    /// The set of top-level fields.
    Fields,
    /// The JSON types of a field both answered.
    Types,
    /// The set of a page's item fields.
    ItemFields,
    /// The JSON types of an item field both answered.
    ItemTypes,
    /// How full pages were under a limit.
    PageSizes,
    /// A banking error's `errorCode`s.
    ErrorCodes,
}

impl Aspect {
    pub fn as_str(self) -> &'static str {
        match self {
            Aspect::Status => "status",
            Aspect::Body => "body",
            Aspect::Fields => "fields",
            Aspect::Types => "field types",
            Aspect::ItemFields => "item fields",
            Aspect::ItemTypes => "item field types",
            Aspect::PageSizes => "page sizes",
            Aspect::ErrorCodes => "errorCode",
        }
    }
}

/// One way one case's answers from one operation differed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub operation: String,
    pub case: String,
    /// What the request asked for, where the operation has kinds (`quote`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The condition the request was made to break (a rule id), for refusals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    pub aspect: Aspect,
    /// The field, for field types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What A answered, and B.
    pub a: String,
    pub b: String,
}

impl Difference {
    /// The same fact, maybe of another case, kind or condition: said once, with them all.
    fn same_fact(&self, other: &Difference) -> bool {
        (&self.operation, self.aspect, &self.field, &self.a, &self.b)
            == (
                &other.operation,
                other.aspect,
                &other.field,
                &other.a,
                &other.b,
            )
    }
}

/// The differences of one operation, each fact once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationDifferences {
    pub operation: String,
    pub alike: Vec<Alike>,
}

/// One fact (what differed, and what each answered), and everywhere it showed: the cases, the
/// kinds of request, the conditions refusals were judged under, and the gaps of the spec it
/// falls in (said here, not again among the gaps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alike {
    pub difference: Difference,
    pub cases: Vec<String>,
    pub kinds: Vec<String>,
    pub conditions: Vec<String>,
    pub gaps: Vec<String>,
}

impl Alike {
    fn add(&mut self, d: &Difference) {
        for (list, item) in [
            (&mut self.cases, Some(&d.case)),
            (&mut self.kinds, d.kind.as_ref()),
            (&mut self.conditions, d.condition.as_ref()),
        ] {
            if let Some(item) = item.filter(|i| !list.contains(i)) {
                list.push(item.clone());
            }
        }
    }
}

/// A gap where the two targets chose differently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GapDifference {
    pub gap: String,
    #[serde(flatten)]
    pub subject: Subject,
    pub what: String,
    /// What each target showed (`none` when it showed nothing of it).
    pub a: Vec<String>,
    pub b: Vec<String>,
}

/// A case whose answers were not compared, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotCompared {
    pub case: String,
    pub why: String,
}

impl BehaviourDiff {
    /// Whether the two targets answered alike, as far as both ran.
    pub fn is_empty(&self) -> bool {
        self.differences.is_empty() && self.gaps.is_empty()
    }

    /// Each fact once, by operation: differences alike but for their case, kind or condition
    /// as one, with the gaps of the spec that say the same fact.
    pub fn grouped(&self) -> Vec<OperationDifferences> {
        let mut operations: Vec<OperationDifferences> = Vec::new();
        for d in &self.differences {
            if operations.last().is_none_or(|o| o.operation != d.operation) {
                operations.push(OperationDifferences {
                    operation: d.operation.clone(),
                    alike: Vec::new(),
                });
            }
            let groups = &mut operations.last_mut().expect("pushed above").alike;
            let at = match groups.iter().position(|g| g.difference.same_fact(d)) {
                Some(at) => at,
                None => {
                    groups.push(Alike {
                        difference: d.clone(),
                        cases: Vec::new(),
                        kinds: Vec::new(),
                        conditions: Vec::new(),
                        gaps: Vec::new(),
                    });
                    groups.len() - 1
                }
            };
            groups[at].add(d);
            for gap in self.gaps.iter().filter(|g| restates(g, d)) {
                if !groups[at].gaps.contains(&gap.gap) {
                    groups[at].gaps.push(gap.gap.clone());
                }
            }
        }
        operations
    }

    /// The gaps chosen differently that no difference already says.
    pub fn gaps_apart(&self) -> Vec<&GapDifference> {
        self.gaps
            .iter()
            .filter(|g| !self.differences.iter().any(|d| restates(g, d)))
            .collect()
    }
}

/// Whether a gap difference says what a difference of answers says: the same operation, kind
/// and condition, the same aspect of the answers. A gap of successes (their status, body,
/// fields, pages) says nothing of a refusal, a request made to break a condition: a refusal's
/// status, body and fields are the refusal gap's (the status a condition is answered with).
fn restates(gap: &GapDifference, d: &Difference) -> bool {
    let s = &gap.subject;
    let same_place = s.operation.as_deref() == Some(d.operation.as_str())
        && (s.kind.is_none() || s.kind == d.kind)
        && (s.condition.is_none() || s.condition == d.condition);
    let refusal = d.condition.is_some();
    let aspects: &[Aspect] = match gap.what.as_str() {
        "answered with" => &[Aspect::Status, Aspect::Body, Aspect::Fields, Aspect::Types],
        "errorCode" => &[Aspect::ErrorCodes],
        _ if refusal => &[],
        "success status" => &[Aspect::Status],
        "body on success" => &[Aspect::Body],
        "item fields" | "item fields beyond the listed ones" => &[Aspect::ItemFields],
        w if w.starts_with("fields beyond") => &[Aspect::Fields],
        w if w.starts_with("limit ") => &[Aspect::PageSizes],
        _ => &[],
    };
    // A success beside a refusal is no choice of success status: a refusal's status is not
    // the success gap's.
    let successes = |v: &str| v.split(", ").all(|status| status.starts_with('2'));
    let success_status = gap.what != "success status" || (successes(&d.a) && successes(&d.b));
    same_place && success_status && aspects.contains(&d.aspect)
}
