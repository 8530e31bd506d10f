//! The kinds of answer a case had, without their values: what the behaviour diff compares.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One kind of answer a case had from one operation, and how many responses had it: what the
/// behaviour diff compares and the spec owners' section reads. It holds the status, the JSON
/// types of the body's top-level fields (and of a page's items, and the page sizes served under
/// each limit), never a value of the body but a banking error's `errorCode`: ids, timestamps and
/// generated text differ between any two targets and say nothing of their behaviour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// The operation id, as in `operations.json`.
    pub operation: String,
    pub status: u16,
    /// What the request asked for where an operation has kinds of request: the `type` of a
    /// create receivable body (`quote`, `invoice`, `credit_note`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The rule the case judged the answer a refusal under (the condition the request was
    /// made to break), where it did; `GEN-VALID-ACCEPTED` for a valid body refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// `empty`, `object`, `array`, another JSON type (`string`, `number`, ...) or `not-json`.
    pub body: String,
    /// Top-level field name -> the JSON types it held (`string|null`), with `absent` when some
    /// responses of this shape lacked it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, String>,
    /// Fields below the top level, by path (`dns_records.sending_dns_records[].valid`; `[]`
    /// for an array's items, a page's own items left to `items`), the same way: a nested field
    /// whose type changed is a difference too. Bounded like `fields`, by depth as well.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nested: BTreeMap<String, String>,
    /// A page's items: their top-level fields, the same way, over every item.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub items: BTreeMap<String, String>,
    /// A page's size against the limit asked, per limit and fill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<PageFill>,
    /// A banking error's `errorCode` values (the first few).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<String>,
    /// Responses of this shape.
    pub count: u32,
    /// Index into the case's exchanges of the first response of this shape, where it was kept
    /// (the first of each operation, status and kind is kept as an example).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<usize>,
}

/// Pages of one fill served under one limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageFill {
    /// The `limit` asked, as sent, or `default` when none was.
    pub limit: String,
    pub fill: Fill,
    /// Pages, and the fewest and most items one held.
    pub pages: u32,
    pub min: u32,
    pub max: u32,
}

/// How full a page was against the limit asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fill {
    /// `limit` items and a next token.
    Full,
    /// Fewer than `limit` items and a next token.
    Short,
    /// A next token under the default limit (no `limit` asked).
    Next,
    /// No next token: the last (or only) page.
    Last,
    /// More items than `limit`.
    Over,
}

impl Fill {
    pub fn as_str(self) -> &'static str {
        match self {
            Fill::Full => "full",
            Fill::Short => "short",
            Fill::Next => "next",
            Fill::Last => "last",
            Fill::Over => "over",
        }
    }
}
