//! One target's fixture values exchanged for another's in what the generator built.
//!
//! A differential run sends one plan to two targets, each with the ids of its own profile. The
//! payloads differ only where a property takes a fixture value (`counterpart_id`, `cardId`), so
//! the second target's engine compiles with the first target's fixtures, shares what the first
//! built, and exchanges the values afterwards: both targets get the same payloads, and the
//! second builds none of them itself.

use super::Invalid;
use serde_json::Value;
use std::collections::BTreeMap;

/// By property name, each leader value with the value that takes its place.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Translation {
    by_property: BTreeMap<String, Vec<(Value, Value)>>,
}

impl Translation {
    /// The exchange from `leader`'s fixtures to `own`: `None` when the two do not name the same
    /// properties with as many values each (what is generated could then differ by more than
    /// the values), or when every value is the same (nothing to exchange).
    pub(super) fn between(
        leader: &BTreeMap<String, Vec<Value>>,
        own: &BTreeMap<String, Vec<Value>>,
    ) -> Option<Translation> {
        let same_shape = leader.len() == own.len()
            && leader
                .iter()
                .zip(own)
                .all(|((a, va), (b, vb))| a == b && va.len() == vb.len());
        if !same_shape || leader == own {
            return None;
        }
        let by_property = leader
            .iter()
            .zip(own.values())
            .map(|((name, from), to)| {
                let pairs = from.iter().cloned().zip(to.iter().cloned()).collect();
                (name.clone(), pairs)
            })
            .collect();
        Some(Translation { by_property })
    }

    /// This engine's own fixtures.
    pub(super) fn own_fixtures(&self) -> BTreeMap<String, Vec<Value>> {
        self.by_property
            .iter()
            .map(|(name, pairs)| {
                (
                    name.clone(),
                    pairs.iter().map(|(_, to)| to.clone()).collect(),
                )
            })
            .collect()
    }

    /// `value` with every leader fixture value, at a property of its name, replaced.
    pub(super) fn value(&self, mut value: Value) -> Value {
        self.exchange(&mut value);
        value
    }

    /// An invalid payload with its fixture values replaced; its label does not name values.
    pub(super) fn invalid(&self, mut invalid: Invalid) -> Invalid {
        self.exchange(&mut invalid.payload);
        invalid
    }

    fn exchange(&self, value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (name, field) in map.iter_mut() {
                    let pairs = self.by_property.get(name);
                    match pairs
                        .and_then(|p| p.iter().find_map(|(from, to)| respelled(field, from, to)))
                    {
                        Some(to) => *field = to,
                        None => self.exchange(field),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.exchange(item)),
            _ => {}
        }
    }
}

/// `to` in place of `field` when `field` is `from`, or `from` in upper or lower case (an id tried
/// in its other case is the other target's id in that case).
fn respelled(field: &Value, from: &Value, to: &Value) -> Option<Value> {
    if field == from {
        return Some(to.clone());
    }
    let (Value::String(field), Value::String(from), Value::String(to)) = (field, from, to) else {
        return None;
    };
    if *field == from.to_ascii_uppercase() {
        Some(Value::String(to.to_ascii_uppercase()))
    } else if *field == from.to_ascii_lowercase() {
        Some(Value::String(to.to_ascii_lowercase()))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixtures(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<Value>> {
        pairs
            .iter()
            .map(|(name, values)| (name.to_string(), values.iter().map(|v| json!(v)).collect()))
            .collect()
    }

    #[test]
    fn fixture_values_are_exchanged_by_property_and_position_at_any_depth() {
        let leader = fixtures(&[("counterpart_id", &["a1", "a2"]), ("currency", &["EUR"])]);
        let own = fixtures(&[("counterpart_id", &["b1", "b2"]), ("currency", &["EUR"])]);
        let t = Translation::between(&leader, &own).expect("same properties, other values");
        let out = t.value(json!({
            "counterpart_id": "a2",
            "currency": "EUR",
            "note": "a1",
            "lines": [{"counterpart_id": "a1"}, {"counterpart_id": 7}],
        }));
        assert_eq!(
            out,
            json!({
                "counterpart_id": "b2",
                "currency": "EUR",
                "note": "a1",
                "lines": [{"counterpart_id": "b1"}, {"counterpart_id": 7}],
            }),
            "only fixture properties change; a mutated value (7) and other fields stay"
        );
        assert_eq!(t.own_fixtures(), own);
    }

    #[test]
    fn a_fixture_value_in_its_other_case_is_the_other_value_in_that_case() {
        let leader = fixtures(&[("counterpart_id", &["aa-1", "BB-2"])]);
        let own = fixtures(&[("counterpart_id", &["cc-1", "DD-2"])]);
        let t = Translation::between(&leader, &own).expect("other values");
        let out = t.value(json!([{"counterpart_id": "AA-1"}, {"counterpart_id": "bb-2"}]));
        assert_eq!(
            out,
            json!([{"counterpart_id": "CC-1"}, {"counterpart_id": "dd-2"}])
        );
    }

    #[test]
    fn no_exchange_between_fixtures_of_other_shapes_or_the_same_values() {
        let leader = fixtures(&[("counterpart_id", &["a1"])]);
        let two = fixtures(&[("counterpart_id", &["b1", "b2"])]);
        let other = fixtures(&[("cardId", &["b1"])]);
        assert_eq!(Translation::between(&leader, &two), None);
        assert_eq!(Translation::between(&leader, &other), None);
        assert_eq!(Translation::between(&leader, &BTreeMap::new()), None);
        assert_eq!(Translation::between(&leader, &leader.clone()), None);
    }
}
