//! What a target's profile decides about the payloads generated for it: the values a fixture
//! property takes, what is always sent, what is never generated. Plain data, handed to the engine
//! whole and compared whole (compiled schemas are shared per option set), so that a profile's
//! choices reach every schema alike.

use serde_json::Value;
use std::collections::BTreeMap;

/// What the target profile decides about generated payloads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenOptions {
    /// Property name (`counterpart_id`, `vat_rate_id`, `cardId`) -> values it takes, anywhere
    /// in any schema.
    pub fixtures: BTreeMap<String, Vec<Value>>,
    /// Stem -> properties that are always sent although the schema does not require them.
    pub always_include: BTreeMap<String, Vec<String>>,
    /// Stem -> optional properties never generated (the runner controls them).
    pub omit: BTreeMap<String, Vec<String>>,
}
