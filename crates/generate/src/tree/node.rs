//! The shape the generators walk: a schema compiled into one [`SchemaNode`] tree, whose kinds
//! carry only the constraints the generator honours, and the [`Step`]s of a path into it. Kept
//! apart from the passes that build it (inlining, merging, compiling), so that what reads the
//! shape reads none of their workings.

use serde_json::Value;

#[derive(Debug, Clone)]
pub(crate) struct SchemaNode {
    /// The `x-rule` written on this subschema.
    pub rule: Option<String>,
    /// `x-keyword-rules`: the rule one keyword of this subschema stands for (`required` ->
    /// `RCV-REQUIRED`); deeper than `rule`, so it wins for that keyword.
    pub keyword_rules: std::collections::BTreeMap<String, String>,
    /// `null` is allowed besides the kind.
    pub nullable: bool,
    /// `x-null: "not shown"`: the spec does not say whether `null` is allowed (an optional field
    /// of a body described in prose), so null is sent neither as valid nor as a breach.
    pub null_unstated: bool,
    /// `x-case: "exact"`: the listed values are spelled as a standard fixes them (ISO 3166-1
    /// alpha-2 codes are upper case), so another case of one is not a listed value.
    pub case_exact: bool,
    /// The types the schema declares (without `null`); empty when it declares none.
    pub declared: Vec<JsonType>,
    /// The value the spec states the field takes when it is omitted (`default`), if it states
    /// one: sent explicitly, it must be accepted.
    pub default: Option<Value>,
    pub kind: ShapeKind,
}

impl SchemaNode {
    /// Types the node admits besides null: declared, or implied by its kind (none for an
    /// untyped `enum`, `const` or union).
    pub fn admitted(&self) -> Vec<JsonType> {
        if !self.declared.is_empty() {
            return self.declared.clone();
        }
        match &self.kind {
            ShapeKind::String(_) => vec![JsonType::String],
            ShapeKind::Integer(_) => vec![JsonType::Integer],
            ShapeKind::Number(_) => vec![JsonType::Number],
            ShapeKind::Boolean => vec![JsonType::Boolean],
            ShapeKind::Array(_) => vec![JsonType::Array],
            ShapeKind::Object(_) => vec![JsonType::Object],
            _ => Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

impl JsonType {
    pub(super) fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "string" => JsonType::String,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "boolean" => JsonType::Boolean,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }

    /// Its name in JSON Schema: `string`, `integer`.
    pub fn name(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Integer => "integer",
            JsonType::Number => "number",
            JsonType::Boolean => "boolean",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }

    /// Whether a JSON value is of this type (an integral number is also a `number`).
    pub fn admits(self, value: &Value) -> bool {
        match self {
            JsonType::String => value.is_string(),
            JsonType::Integer => value.as_i64().is_some() || value.as_u64().is_some(),
            JsonType::Number => value.is_number(),
            JsonType::Boolean => value.is_boolean(),
            JsonType::Array => value.is_array(),
            JsonType::Object => value.is_object(),
        }
    }
}

/// What a shape allows besides `null` (which [`SchemaNode`] carries apart): its type and constraints.
#[derive(Debug, Clone)]
pub(crate) enum ShapeKind {
    /// No constraint: any JSON value.
    Any,
    Const(Value),
    /// Allowed values other than `null`.
    Enum(Vec<Value>),
    Boolean,
    Integer(Bounds<i64>),
    Number(Bounds<f64>),
    String(StringSpec),
    Array(ArraySpec),
    Object(ObjectSpec),
    OneOf(Vec<SchemaNode>),
    AnyOf(Vec<SchemaNode>),
}

/// Inclusive bounds (exclusive ones are folded in for integers, nudged for numbers).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bounds<T> {
    pub min: Option<T>,
    pub max: Option<T>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct StringSpec {
    pub min_len: usize,
    pub max_len: Option<usize>,
    pub pattern: Option<String>,
    pub format: Option<Format>,
    /// `x-dates: "past, present or future"`: the spec says any date is valid here, far past and
    /// far future included.
    pub any_date: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Uuid,
    Date,
    DateTime,
    Uri,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Uuid => "uuid",
            Format::Date => "date",
            Format::DateTime => "date-time",
            Format::Uri => "uri",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct ArraySpec {
    pub min_items: usize,
    pub max_items: Option<usize>,
    pub unique: bool,
    pub items: Box<SchemaNode>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct ObjectSpec {
    pub props: Vec<Prop>,
    /// `additionalProperties: false`.
    pub closed: bool,
    pub conditionals: Vec<Conditional>,
    /// Properties that must never be present (`not: {anyOf: [{required: [p]}, ...]}`), with
    /// the rule written on that `not`.
    pub forbidden: Vec<String>,
    pub forbidden_rule: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Prop {
    pub name: String,
    pub shape: SchemaNode,
    pub required: bool,
    /// Not required by the schema, but always sent (`GenOptions::always_include`, or named by a
    /// conditional's `then.required`).
    pub forced: bool,
    /// Values from the profile that valid instances take.
    pub fixtures: Option<Vec<Value>>,
}

/// `if: {properties: {when: {const|enum}}} then: {...}`.
#[derive(Debug, Clone)]
pub(crate) struct Conditional {
    pub when: String,
    pub values: Vec<Value>,
    /// Properties that must be absent when the condition holds.
    pub forbid: Vec<String>,
    /// Properties that must be present when the condition holds.
    pub require: Vec<String>,
    pub rule: Option<String>,
}

/// One step of a path into a shape (see `generate::path`): a property, the first array item, or
/// a union branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Prop(String),
    Item,
    Branch(usize),
}
