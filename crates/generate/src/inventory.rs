//! The inventory of every stated constraint of every request, derived from the schemas and the
//! operations table: never written by hand, so that a field, a shape, a parameter or a limit the
//! spec states cannot be missed.
//!
//! Each [`Constraint`] (described in [`super::constraint`]) is gathered here over every
//! operation: those of each body shape of each operation with a body, and those of each
//! parameter, where a header every operation of an area carries is one constraint of the area
//! (`finance header x-finops-version format date`), broken on the first list that takes it and
//! held by any accepted request carrying it. Each has two sides a run exercises:
//! *broken* (a request breaking it alone was answered) and *held* (an accepted request keeps it at
//! its edge: a length at the limit, a bound, an item count, `null`, or simply the field present).
//! Breaks are named by the labels of invalid payloads ([`super::Label::constraint`]); holds are
//! read from every accepted body by [`Inventory::held_by`], whichever case sent it.

use super::compiled::Compiled;
use super::constraint::{of_parameter, Constraint, ParamAt};
use super::{Engine, GenerateError, SchemaSource};
use covenant_contract::schema::{Method, OperationId, Registry};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// Every constraint of every request body of the ten operations.
pub struct Inventory {
    constraints: Vec<Constraint>,
    /// Index of each constraint by operation and id.
    index: HashMap<(OperationId, String), usize>,
    /// The constraints of each body shape, a run of `constraints` each.
    groups: Vec<Group>,
    /// The parameter constraints each operation's requests can hold (an area's header under
    /// every operation carrying it).
    params: HashMap<OperationId, Vec<usize>>,
}

/// The constraints of one body shape of one operation, and the shape compiled (to tell whether a
/// body is of it).
struct Group {
    operation: OperationId,
    shape: Arc<Compiled>,
    constraints: std::ops::Range<usize>,
}

impl std::fmt::Debug for Inventory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inventory")
            .field("constraints", &self.constraints)
            .finish_non_exhaustive()
    }
}

impl Inventory {
    /// The inventory of the embedded schemas, derived once per process.
    pub fn embedded() -> &'static Inventory {
        static INVENTORY: OnceLock<Inventory> = OnceLock::new();
        INVENTORY.get_or_init(|| {
            Inventory::derive(Registry::embedded())
                .expect("the embedded schemas compile for the generator")
        })
    }

    /// The inventory of `source`'s body schemas, as `operations.json` names them.
    pub fn derive<S: SchemaSource>(source: S) -> Result<Inventory, GenerateError> {
        let engine = Engine::new(source, Default::default());
        let (mut constraints, mut groups) = (Vec::<Constraint>::new(), Vec::new());
        for operation in OperationId::with_body() {
            let Some(stem) = operation.operation().request_body.as_deref() else {
                continue;
            };
            let compiled = engine.compiled(stem)?;
            let stems = match compiled.branches.is_empty() {
                true => vec![stem.to_owned()],
                false => compiled.branches.clone(),
            };
            for shape in stems {
                let start = constraints.len();
                let own = compiled.constraints().iter().filter(|c| c.stem == shape);
                constraints.extend(own.cloned().map(|mut c| {
                    c.operation = operation;
                    c
                }));
                groups.push(Group {
                    operation,
                    shape: engine.compiled(&shape)?,
                    constraints: start..constraints.len(),
                });
            }
        }
        let mut index: HashMap<(OperationId, String), usize> = constraints
            .iter()
            .enumerate()
            .map(|(i, c)| ((c.operation, c.id.clone()), i))
            .collect();
        let mut params: HashMap<OperationId, Vec<usize>> = HashMap::new();
        for (operation, c) in parameter_constraints() {
            let at = match constraints.iter().position(|known| known.id == c.id) {
                Some(at) => at,
                None => {
                    constraints.push(c);
                    constraints.len() - 1
                }
            };
            index.insert((operation, constraints[at].id.clone()), at);
            params.entry(operation).or_default().push(at);
        }
        Ok(Inventory {
            constraints,
            index,
            groups,
            params,
        })
    }

    /// The parameter constraints a request of `operation` holds, were it accepted: `value` gives
    /// the request's value of a parameter (path, query or header), if it carries one.
    pub fn held_by_params(
        &self,
        operation: OperationId,
        value: &dyn Fn(&ParamAt) -> Option<String>,
    ) -> Vec<usize> {
        let Some(indices) = self.params.get(&operation) else {
            return Vec::new();
        };
        indices
            .iter()
            .copied()
            .filter(|&i| {
                let c = &self.constraints[i];
                let sent = c.param.as_ref().and_then(value);
                sent.is_some_and(|v| c.held_by_text(&v))
            })
            .collect()
    }

    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// The body shapes of `operation`.
    pub fn stems_of(&self, operation: OperationId) -> Vec<&str> {
        self.stems_where(|c| c.param.is_none() && c.operation == operation)
    }

    /// The body shapes, in the order of the operations.
    pub fn stems(&self) -> Vec<&str> {
        self.stems_where(|c| c.param.is_none())
    }

    /// The parameters with constraints (an area's header once), as constraints name them:
    /// `list-events query limit`.
    pub fn parameters(&self) -> Vec<&str> {
        self.stems_where(|c| c.param.is_some())
    }

    /// The stems of the constraints `keep` keeps, each once, in order.
    fn stems_where(&self, keep: impl Fn(&Constraint) -> bool) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for c in self.constraints.iter().filter(|c| keep(c)) {
            if !out.contains(&c.stem.as_str()) {
                out.push(&c.stem);
            }
        }
        out
    }

    pub fn len(&self) -> usize {
        self.constraints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }

    /// The index of the constraint named `id` for `operation`.
    pub fn index_of(&self, operation: OperationId, id: &str) -> Option<usize> {
        self.index.get(&(operation, id.to_owned())).copied()
    }

    /// The constraints `body` of `operation` holds at their edges, were it accepted: those of
    /// the body shape it is valid against.
    pub fn held_by(&self, operation: OperationId, body: &Value) -> Vec<usize> {
        let mut out = Vec::new();
        for group in self.groups.iter().filter(|g| g.operation == operation) {
            if !group.shape.oracle.is_valid(body) {
                continue;
            }
            let range = group.constraints.clone();
            let constraints = self.constraints[range.clone()].iter();
            out.extend(
                range
                    .zip(constraints)
                    .filter(|(_, c)| c.held_by(body))
                    .map(|(i, _)| i),
            );
        }
        out
    }
}

/// The constraints of every parameter of every operation, each with an operation whose
/// requests can hold it. An area's header (the same name and schema under several operations)
/// is one constraint, listed under each operation: its first under the first read that takes
/// it (where it is broken), so lists come first, then the other reads: a list answers under the
/// profile's fixtures alone, so a value it wrongly takes shows.
fn parameter_constraints() -> Vec<(OperationId, Constraint)> {
    let mut operations = OperationId::ALL.to_vec();
    let lists: Vec<OperationId> = OperationId::lists().collect();
    operations.sort_by_key(|op| (!lists.contains(op), op.operation().method != Method::Get));
    let mut out = Vec::new();
    for operation in operations {
        for param in &operation.operation().parameters {
            out.extend(
                of_parameter(operation, param)
                    .into_iter()
                    .map(|c| (operation, c)),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GenOptions;
    use serde_json::json;

    fn inventory() -> &'static Inventory {
        Inventory::embedded()
    }

    #[test]
    fn every_body_shape_and_nested_field_is_inventoried_once() {
        let all = inventory().constraints();
        let stems = inventory().stems();
        for stem in [
            "quote-create",
            "invoice-create",
            "based-on-create",
            "vat-id-create",
            "comment-update",
            "mailbox-domain-create",
            "velocity-control-create",
        ] {
            assert!(stems.contains(&stem), "{stem} in {stems:?}");
        }
        for id in [
            "quote-create /line_items/*/vat_rate_id format uuid",
            "invoice-create /line_items/*/product/price/currency pattern ^[A-Z]{3}$",
            "based-on-create /tag_ids/* format uuid",
            "quote-create /withholding_tax_rate maximum 10000",
            "quote-create /withholding_tax_rate minimum 0",
            "invoice-create /deductions maxItems 10",
            "quote-create /attachments minItems 1",
            "quote-create /footer or null",
            "quote-create /purchase_order forbidden here",
        ] {
            assert!(all.iter().any(|c| c.id == id), "{id} missing");
        }
        let mut ids: Vec<(OperationId, &str)> =
            all.iter().map(|c| (c.operation, c.id.as_str())).collect();
        ids.sort();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "ids are unique");
    }

    #[test]
    fn a_body_holds_a_limit_only_at_its_edge() {
        let op = OperationId::CreateVatId;
        let limit = inventory()
            .index_of(op, "vat-id-create /value maxLength 32")
            .expect("inventoried");
        let body =
            |len: usize| json!({"value": "A".repeat(len), "country": "DE", "type": "eu_vat"});
        assert!(inventory().held_by(op, &body(32)).contains(&limit));
        assert!(!inventory().held_by(op, &body(31)).contains(&limit));
        // Not a body of the shape at all: it holds nothing.
        assert!(inventory().held_by(op, &body(33)).is_empty());
    }

    #[test]
    fn each_hold_body_holds_its_constraint_and_each_breakable_one_has_a_breach() {
        let engine = Engine::new(Registry::embedded(), GenOptions::default());
        for operation in OperationId::with_body() {
            let stem = operation
                .operation()
                .request_body
                .as_deref()
                .expect("a body");
            let breaches = engine.boundary_invalid(stem).expect("breaches");
            for c in inventory()
                .constraints()
                .iter()
                .filter(|c| c.operation == operation && c.param.is_none())
            {
                if c.unbreakable.is_none() {
                    let named = breaches
                        .iter()
                        .any(|b| b.label.constraint.as_ref() == Some(&c.id));
                    assert!(named, "no breach names {}", c.id);
                }
            }
            for shape in inventory().stems_of(operation) {
                for (id, body) in engine.holds(shape).expect("holds") {
                    // The body's own type, which a shape compiled alone states and a `oneOf`
                    // branch does not, is held by any body.
                    let Some(index) = inventory().index_of(operation, &id) else {
                        continue;
                    };
                    let held = inventory().held_by(operation, &body);
                    assert!(held.contains(&index), "{id}: {body}");
                }
            }
        }
    }
}
