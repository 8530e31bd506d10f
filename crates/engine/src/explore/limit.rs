//! Bodies at the limits the spec states: a write of the explorer is sent, one time in
//! [`ONE_IN`], with one stated limit of its body's shape met (a string of its longest or
//! shortest length, a least or greatest value, a count of items), drawn from the seed for the
//! step being played, so that an answer that changes only at a limit, and only after some
//! sequence of writes, is met by some sequence, and a shrunk replay meets it again.
//!
//! The limits are derived, not listed: [`Engine::limits`] reads them from the body's schema, as
//! the inventory of constraints does. A string set to its longest length keeps the body's own
//! characters first, so that values a sequence made unique stay unique. A body the validator
//! does not accept with the limit met is sent as it was: the limit is then met by the generated
//! cases alone. The spec allows every value at its limit, so an answer is judged by the same
//! rules as any other; a refusal of a valid body is no finding of the explorer.

use super::Model;
use crate::generate::{rng_for, Engine, GenOptions};
use crate::schema::{OperationId, Registry};
use proptest::prelude::Rng;
use serde_json::Value;

/// One write in this many is sent at a limit.
const ONE_IN: u32 = 2;

/// `body` of `op`, or the same body with one stated limit met (see the module doc).
pub fn drawn(model: &Model, op: OperationId, body: Value) -> Value {
    let stream = format!("explore-{}-limit-{}", model.k, model.origin);
    let mut rng = rng_for(model.seed, &stream);
    let Some(stem) = op.operation().request_body.as_deref() else {
        return body;
    };
    if !rng.next_u32().is_multiple_of(ONE_IN) {
        return body;
    }
    let engine = Engine::new(Registry::embedded(), GenOptions::default());
    let limits = engine.limits(stem).unwrap_or_default();
    if limits.is_empty() {
        return body;
    }
    let (_, at, value) = &limits[rng.next_u32() as usize % limits.len()];
    let valid = |candidate: &Value| engine.is_valid(stem, candidate).unwrap_or(false);
    [true, false]
        .into_iter()
        .filter_map(|keep_own| met(&body, at, value, keep_own))
        .find(valid)
        .unwrap_or(body)
}

/// `body` with the value at the JSON pointer `at` set to `limit` (a string made of the body's
/// own string first when `keep_own`), or `None` when `at` names no place in it.
fn met(body: &Value, at: &str, limit: &Value, keep_own: bool) -> Option<Value> {
    let (parent, key) = at.rsplit_once('/')?;
    let key = key.replace("~1", "/").replace("~0", "~");
    let mut out = body.clone();
    let slot = match out.pointer_mut(parent)? {
        Value::Object(fields) => fields.entry(key).or_insert(Value::Null),
        Value::Array(items) => items.get_mut(key.parse::<usize>().ok()?)?,
        _ => return None,
    };
    *slot = match (&*slot, limit) {
        (Value::String(own), Value::String(at_limit)) if keep_own => {
            let n = at_limit.chars().count();
            if own.chars().count() >= n {
                return None;
            }
            Value::String(own.chars().chain(at_limit.chars()).take(n).collect())
        }
        _ => limit.clone(),
    };
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_string_at_its_longest_keeps_the_bodys_own_characters_first() {
        let body = json!({"value": "DE123", "country": "DE"});
        let limit = json!("V".repeat(32));
        let met = met(&body, "/value", &limit, true).expect("a place");
        assert_eq!(met["value"], json!(format!("DE123{}", "V".repeat(27))));
        assert_eq!(met["country"], "DE");
        assert_eq!(
            super::met(&body, "/value", &limit, false).expect("a place")["value"],
            limit
        );
        assert!(super::met(&body, "/missing/deeper", &limit, true).is_none());
    }

    #[test]
    fn every_vat_id_body_drawn_at_a_limit_is_valid_and_half_are_drawn_so() {
        let engine = Engine::new(Registry::embedded(), GenOptions::default());
        let body = json!({"value": "DE123456789", "country": "DE", "type": "eu_vat"});
        let mut at_limit = 0;
        for origin in 0..40 {
            let model = Model {
                seed: 3,
                k: 1,
                origin,
                ..Model::default()
            };
            let drawn = drawn(&model, OperationId::CreateVatId, body.clone());
            assert!(
                engine.is_valid("vat-id-create", &drawn).unwrap_or(false),
                "{drawn}"
            );
            if drawn != body {
                assert_eq!(drawn["value"].as_str().map(str::len), Some(32), "{drawn}");
                assert!(drawn["value"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("DE123456789")));
                at_limit += 1;
            }
        }
        assert!((10..=30).contains(&at_limit), "{at_limit} of 40 at a limit");
    }
}
