//! What an invalid payload says of itself: the kind of constraint it breaks, where, under which
//! rule, and which inventoried constraint that is. A finding names its rule from the label, so a
//! label is plain serialisable data, set by the generator when it makes the payload and never
//! from what a target answers.

use serde::Serialize;
use serde_json::Value;

/// The kind of constraint an invalid payload breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ConstraintKind {
    MissingRequired,
    ExtraProperty,
    WrongType,
    OutOfRange,
    TooLong,
    TooShort,
    BadFormat,
    BadPattern,
    NotInEnum,
    TooManyItems,
    TooFewItems,
    UnexpectedNull,
    WrongConst,
    /// An `if`/`then` broken (e.g. `usageLimit` with the `TRANSACTION` window).
    ForbiddenCombination,
    /// A fraction where an integer is stated (`100.5`): judged under a `should` rule of its own,
    /// since common binders truncate it silently.
    Fraction,
    /// A value a common lax binder reads as the stated type (`"3"` for an integer, `"true"` for
    /// a boolean, a number for a string): judged under a `should` rule of its own, and no
    /// stated constraint of the inventory.
    LaxType,
}

/// Why an invalid payload is invalid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    pub kind: ConstraintKind,
    /// JSON pointer of the broken spot (for a missing or extra property: that property).
    pub pointer: String,
    /// The nearest `x-rule` above the broken spot, else [`DEFAULT_RULE`](crate::DEFAULT_RULE).
    pub rule: String,
    /// For people: `trade_name of 256 chars (max 255)`.
    pub detail: String,
    /// The id of the inventoried constraint it breaks (see [`Inventory`](crate::Inventory)),
    /// where the schema compiled is a body schema of its own (not a parameter's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraint: Option<String>,
}

/// A payload that breaks exactly one constraint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Invalid {
    pub payload: Value,
    pub label: Label,
}
