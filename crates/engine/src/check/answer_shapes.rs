//! What a target chose, in a form two targets can be compared by: the distinct kinds of answer
//! ([`Shape`]s) a case had, each an operation, a status, the JSON types of the body's top-level
//! fields, a page's item fields and sizes against the limit asked, and a banking error's code.
//!
//! Reports keep full exchanges only where a finding points, so the behaviour diff (also between
//! two saved reports) and the spec owners' section read these instead. They must stay small and
//! safe: bounded (distinct shapes per case, fields per shape, name lengths), and made of field
//! names and JSON types only, never a value of a body (ids, timestamps and generated text differ
//! between any two targets), but statuses, page sizes and `errorCode`.
//!
//! A run's case keeps one in its `CaseCx`; the judge of real traffic keeps one per operation
//! (`traffic.<operation>`), so that traffic shows what a target chose as a run does.

use crate::client::{Body, Request, Response};
use crate::schema::{Area, OperationId};
use crate::verdict::{Fill, PageFill, Shape};
use serde_json::Value;
use std::collections::BTreeMap;

/// Distinct shapes kept per case; answers of further shapes are counted in the statuses only.
const MAX_SHAPES: usize = 48;
/// Fields kept per map; a body with more notes them as one entry, [`MORE`].
const MAX_FIELDS: usize = 64;
/// The longest field name kept, in bytes; longer ones are cut and end in `…`.
const MAX_NAME: usize = 64;
/// `errorCode` values kept per shape, and their length.
const MAX_CODES: usize = 4;
const MAX_CODE: usize = 64;
/// How deep below the top level nested fields are followed (each object or array a level).
const MAX_DEPTH: usize = 6;
/// Limit and fill entries kept per shape.
const MAX_PAGE_FILLS: usize = 16;
/// The entry that stands for the fields beyond [`MAX_FIELDS`].
const MORE: &str = "…";

/// JSON types as bits, so that the types a field held merge with `|`.
const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const NUMBER: u8 = 4;
const STRING: u8 = 8;
const ARRAY: u8 = 16;
const OBJECT: u8 = 32;
/// Some responses (or items) of the shape lacked the field.
const ABSENT: u8 = 64;
const TYPE_NAMES: [(u8, &str); 7] = [
    (OBJECT, "object"),
    (ARRAY, "array"),
    (STRING, "string"),
    (NUMBER, "number"),
    (BOOLEAN, "boolean"),
    (NULL, "null"),
    (ABSENT, "absent"),
];

type Fields = BTreeMap<String, u8>;

/// What identifies a shape within a case.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ShapeKey {
    operation: OperationId,
    status: u16,
    kind: Option<&'static str>,
    condition: Option<String>,
}

/// One shape as it is built.
#[derive(Debug, Clone)]
struct Building {
    key: ShapeKey,
    body: &'static str,
    fields: Fields,
    nested: Fields,
    items: Fields,
    /// Items merged so far, so that a field new to a later item is marked absent.
    item_count: u32,
    pages: Vec<PageFill>,
    codes: Vec<String>,
    count: u32,
    exchange: Option<usize>,
}

/// The answer being judged: merged into its shape once the next one arrives (or the case
/// ends), so that a check judging it a refusal can still name the condition.
#[derive(Debug, Clone)]
struct PendingAnswer {
    key: ShapeKey,
    body: &'static str,
    /// `None`: exactly the fields of the shape `same_as` (most answers of a case are alike, and
    /// need no map of their own).
    fields: Option<Fields>,
    same_as: Option<usize>,
    /// The fields below the top level.
    nested: Fields,
    /// The items of a page, merged, and how many there were.
    items: (Fields, u32),
    page: Option<(String, Fill, u32)>,
    code: Option<String>,
    exchange: Option<usize>,
}

/// The shapes of one case, kept by its `CaseCx` (or by the traffic judge, per operation).
#[derive(Debug, Default, Clone)]
pub struct AnswerShapes {
    shapes: Vec<Building>,
    pending: Option<PendingAnswer>,
    /// (operation, status, kind) whose example exchange is kept.
    exemplified: Vec<(OperationId, u16, Option<&'static str>)>,
}

impl AnswerShapes {
    /// An answer of `operation` to `request` arrived: what is recorded next is about it.
    pub fn response(&mut self, operation: OperationId, request: &Request, response: &Response) {
        self.flush();
        let key = ShapeKey {
            operation,
            status: response.status,
            kind: request_kind(operation, request),
            condition: None,
        };
        let same_as = self
            .shapes
            .iter()
            .position(|s| s.key == key && s.body == "object" && same_fields(&s.fields, response));
        let (body, fields) = match same_as {
            Some(_) => ("object", None),
            None => {
                let (body, fields) = body_shape(response);
                (body, Some(fields))
            }
        };
        let (items, page) = page_shape(operation, request, response);
        let code = error_code(operation, response);
        let nested = match &response.json {
            Some(Value::Object(object)) => nested_of(operation, object),
            _ => Fields::new(),
        };
        self.pending = Some(PendingAnswer {
            key,
            body,
            fields,
            same_as,
            nested,
            items,
            page,
            code,
            exchange: None,
        });
    }

    /// Whether the current answer's exchange should be kept as an example: it is the first of
    /// its operation, status and kind in the case.
    pub fn wants_example(&self) -> bool {
        self.pending
            .as_ref()
            .is_some_and(|p| !self.exemplified.contains(&example_key(&p.key)))
    }

    /// The current answer's exchange was kept at `index`.
    pub fn kept(&mut self, index: usize) {
        if let Some(p) = &mut self.pending {
            p.exchange.get_or_insert(index);
            let key = example_key(&p.key);
            if !self.exemplified.contains(&key) {
                self.exemplified.push(key);
            }
        }
    }

    /// The case judged the current answer a refusal under `rule`: the condition its request
    /// was made to break. The first rule named stays.
    pub fn refused_under(&mut self, rule: &str) {
        if let Some(p) = &mut self.pending {
            p.key.condition.get_or_insert_with(|| rule.to_owned());
        }
    }

    /// Adds what a part of the case recorded (see `CaseCx::fork`), its example exchanges moved
    /// by `offset`, the index its exchanges start at in the whole case.
    pub fn absorb(&mut self, mut part: AnswerShapes, offset: usize) {
        self.flush();
        part.flush();
        for mut shape in part.shapes {
            shape.exchange = shape.exchange.map(|i| i + offset);
            let full = self.shapes.len() >= MAX_SHAPES;
            match self.shapes.iter_mut().find(|s| s.key == shape.key) {
                Some(mine) => mine.absorb(shape),
                None if !full => self.shapes.push(shape),
                None => {}
            }
        }
        for key in part.exemplified {
            if !self.exemplified.contains(&key) {
                self.exemplified.push(key);
            }
        }
    }

    /// The shapes, in the order first seen.
    pub fn into_shapes(mut self) -> Vec<Shape> {
        self.flush();
        self.shapes.into_iter().map(Building::finish).collect()
    }

    fn flush(&mut self) {
        let Some(mut p) = self.pending.take() else {
            return;
        };
        let at = self.shapes.iter().position(|s| s.key == p.key);
        // Judged a refusal since: its shape is another one, which needs the fields themselves.
        if let (None, Some(same)) = (&p.fields, p.same_as) {
            if at != Some(same) {
                p.fields = Some(self.shapes[same].fields.clone());
            }
        }
        match at {
            Some(at) => self.shapes[at].merge(p),
            None if self.shapes.len() < MAX_SHAPES => self.shapes.push(Building::new(p)),
            None => {}
        }
    }
}

fn example_key(key: &ShapeKey) -> (OperationId, u16, Option<&'static str>) {
    (key.operation, key.status, key.kind)
}

impl Building {
    fn new(p: PendingAnswer) -> Building {
        let mut shape = Building {
            key: p.key.clone(),
            body: p.body,
            fields: p.fields.clone().unwrap_or_default(),
            nested: p.nested.clone(),
            items: Fields::new(),
            item_count: 0,
            pages: Vec::new(),
            codes: Vec::new(),
            count: 0,
            exchange: None,
        };
        shape.merge_rest(p);
        shape
    }

    fn merge(&mut self, p: PendingAnswer) {
        if let Some(fields) = &p.fields {
            merge_fields(&mut self.fields, fields, self.count);
        }
        merge_fields(&mut self.nested, &p.nested, self.count);
        if self.body != p.body {
            self.body = "mixed";
        }
        self.merge_rest(p);
    }

    /// Everything but the top-level fields, which [`Building::new`] takes as they are.
    fn merge_rest(&mut self, p: PendingAnswer) {
        let (items, count) = p.items;
        if count > 0 {
            merge_fields(&mut self.items, &items, self.item_count);
            self.item_count += count;
        }
        if let Some((limit, fill, size)) = p.page {
            self.page(limit, fill, size);
        }
        if let Some(code) = p.code {
            if !self.codes.contains(&code) && self.codes.len() < MAX_CODES {
                self.codes.push(code);
            }
        }
        self.count += 1;
        if self.exchange.is_none() {
            self.exchange = p.exchange;
        }
    }

    /// Adds a shape of the same key that a part of the case built.
    fn absorb(&mut self, other: Building) {
        merge_fields(&mut self.fields, &other.fields, self.count);
        merge_fields(&mut self.nested, &other.nested, self.count);
        if self.body != other.body {
            self.body = "mixed";
        }
        if other.item_count > 0 {
            merge_fields(&mut self.items, &other.items, self.item_count);
            self.item_count += other.item_count;
        }
        for fill in other.pages {
            let full = self.pages.len() >= MAX_PAGE_FILLS;
            match self
                .pages
                .iter_mut()
                .find(|f| f.limit == fill.limit && f.fill == fill.fill)
            {
                Some(f) => {
                    f.pages += fill.pages;
                    f.min = f.min.min(fill.min);
                    f.max = f.max.max(fill.max);
                }
                None if !full => self.pages.push(fill),
                None => {}
            }
        }
        for code in other.codes {
            if !self.codes.contains(&code) && self.codes.len() < MAX_CODES {
                self.codes.push(code);
            }
        }
        self.count += other.count;
        if self.exchange.is_none() {
            self.exchange = other.exchange;
        }
    }

    fn page(&mut self, limit: String, fill: Fill, size: u32) {
        let full = self.pages.len() >= MAX_PAGE_FILLS;
        match self
            .pages
            .iter_mut()
            .find(|f| f.limit == limit && f.fill == fill)
        {
            Some(f) => {
                f.pages += 1;
                f.min = f.min.min(size);
                f.max = f.max.max(size);
            }
            None if !full => self.pages.push(PageFill {
                limit,
                fill,
                pages: 1,
                min: size,
                max: size,
            }),
            None => {}
        }
    }

    fn finish(mut self) -> Shape {
        self.pages
            .sort_by(|a, b| (&a.limit, a.fill).cmp(&(&b.limit, b.fill)));
        Shape {
            operation: self.key.operation.as_str().to_owned(),
            status: self.key.status,
            kind: self.key.kind.map(str::to_owned),
            condition: self.key.condition,
            body: self.body.to_owned(),
            fields: type_names(&self.fields),
            nested: type_names(&self.nested),
            items: type_names(&self.items),
            pages: self.pages,
            codes: self.codes,
            count: self.count,
            exchange: self.exchange,
        }
    }
}

/// Merges the fields of one more body (`seen` bodies merged before it) into `into`: a field one
/// of them lacks is marked absent.
fn merge_fields(into: &mut Fields, new: &Fields, seen: u32) {
    if seen == 0 {
        *into = new.clone();
        return;
    }
    for (name, types) in into.iter_mut() {
        *types |= new.get(name).copied().unwrap_or(ABSENT);
    }
    for (name, types) in new {
        if !into.contains_key(name) && (into.len() < MAX_FIELDS || name == MORE) {
            into.insert(name.clone(), types | ABSENT);
        }
    }
}

fn type_names(fields: &Fields) -> BTreeMap<String, String> {
    fields
        .iter()
        .map(|(name, bits)| {
            if *bits == 0 {
                return (name.clone(), "more fields".to_owned());
            }
            let names: Vec<&str> = TYPE_NAMES
                .iter()
                .filter(|(bit, _)| bits & bit != 0)
                .map(|(_, name)| *name)
                .collect();
            (name.clone(), names.join("|"))
        })
        .collect()
}

fn type_bit(value: &Value) -> u8 {
    match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Number(_) => NUMBER,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

/// Whether a response's body is an object with exactly these fields, each of exactly this
/// one type: merging it would change nothing.
fn same_fields(fields: &Fields, response: &Response) -> bool {
    let Some(Value::Object(object)) = &response.json else {
        return false;
    };
    object.len() == fields.len()
        && object.iter().all(|(name, value)| {
            name.len() <= MAX_NAME && fields.get(name.as_str()) == Some(&type_bit(value))
        })
}

/// The top-level fields of a JSON object, bounded.
fn fields_of(object: &serde_json::Map<String, Value>) -> Fields {
    let mut fields = Fields::new();
    for (name, value) in object {
        if fields.len() == MAX_FIELDS {
            fields.insert(MORE.to_owned(), 0);
            break;
        }
        match fields.get_mut(name.as_str()) {
            Some(types) if name.len() <= MAX_NAME => *types |= type_bit(value),
            _ => *fields.entry(cut(name, MAX_NAME)).or_insert(0) |= type_bit(value),
        }
    }
    fields
}

/// The fields below the top level of a body, by path (`a.b`, `a[].b`; `a[]` the types of an
/// array's items), bounded in number and depth. A page's own items are `items`: below them
/// only their nested fields are kept here (`data[].address.city`).
fn nested_of(operation: OperationId, object: &serde_json::Map<String, Value>) -> Fields {
    let mut nested = Fields::new();
    let page = next_field(operation).map(|_| "data");
    // One path, grown and cut back as the walk goes: a page of a hundred items would otherwise
    // build a string per field of every item.
    let mut path = String::new();
    for (name, value) in object {
        path.clear();
        push_cut(&mut path, name, MAX_NAME);
        match value {
            Value::Array(items) if page == Some(name.as_str()) => {
                path.push_str("[].");
                let base = path.len();
                for item in items.iter().filter_map(Value::as_object) {
                    for (field, value) in item {
                        path.truncate(base);
                        push_cut(&mut path, field, MAX_NAME);
                        descend(&mut path, value, 2, &mut nested);
                    }
                }
            }
            _ => descend(&mut path, value, 1, &mut nested),
        }
    }
    nested
}

/// Records the fields below `value`, at `path`, `depth` levels below the top; `path` is as it
/// was when it returns.
fn descend(path: &mut String, value: &Value, depth: usize, into: &mut Fields) {
    if depth > MAX_DEPTH {
        return;
    }
    let base = path.len();
    match value {
        Value::Object(object) => {
            for (name, value) in object {
                path.truncate(base);
                path.push('.');
                push_cut(path, name, MAX_NAME);
                if !child(path, value, depth, into) {
                    break;
                }
            }
        }
        Value::Array(items) => {
            path.push_str("[]");
            for value in items {
                if !child(path, value, depth, into) {
                    break;
                }
            }
        }
        _ => {}
    }
    path.truncate(base);
}

/// Records `value` at `path` and what is below it; `false` when the map is full (its other
/// siblings are then not looked at).
fn child(path: &mut String, value: &Value, depth: usize, into: &mut Fields) -> bool {
    let full = into.len() >= MAX_FIELDS;
    match into.get_mut(path.as_str()) {
        Some(types) => *types |= type_bit(value),
        None if !full => {
            into.insert(path.clone(), type_bit(value));
        }
        None => {
            into.insert(MORE.to_owned(), 0);
            return false;
        }
    }
    descend(path, value, depth + 1, into);
    true
}

/// Appends `text` cut as [`cut`] cuts it.
fn push_cut(into: &mut String, text: &str, max: usize) {
    if text.len() <= max {
        into.push_str(text);
    } else {
        into.push_str(&cut(text, max));
    }
}

/// `text` cut to at most `max` bytes at a character boundary, marked with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The body as a kind and, for an object, its fields.
fn body_shape(response: &Response) -> (&'static str, Fields) {
    match &response.json {
        _ if response.body.is_empty() => ("empty", Fields::new()),
        None => ("not-json", Fields::new()),
        Some(Value::Object(object)) => ("object", fields_of(object)),
        Some(Value::Array(_)) => ("array", Fields::new()),
        Some(Value::String(_)) => ("string", Fields::new()),
        Some(Value::Number(_)) => ("number", Fields::new()),
        Some(Value::Bool(_)) => ("boolean", Fields::new()),
        Some(Value::Null) => ("null", Fields::new()),
    }
}

/// The `type` of a create receivable body: the one operation whose answers differ by what was
/// asked for.
fn request_kind(operation: OperationId, request: &Request) -> Option<&'static str> {
    if operation != OperationId::CreateReceivable {
        return None;
    }
    let body = request.body.as_ref().and_then(Body::json)?;
    match body.get("type")?.as_str()? {
        "quote" => Some("quote"),
        "invoice" => Some("invoice"),
        "credit_note" => Some("credit_note"),
        _ => None,
    }
}

/// The page field that holds the next token, for the list operations (the table's `x-page`).
fn next_field(operation: OperationId) -> Option<&'static str> {
    operation.operation().page.as_ref().map(|p| p.next.as_str())
}

/// A successful page's item fields (merged, and how many items), and its size against the
/// limit asked.
#[allow(clippy::type_complexity)]
fn page_shape(
    operation: OperationId,
    request: &Request,
    response: &Response,
) -> ((Fields, u32), Option<(String, Fill, u32)>) {
    let none = || ((Fields::new(), 0), None);
    let (Some(next_field), true) = (next_field(operation), response.is_success()) else {
        return none();
    };
    let Some(items) = response.pointer("/data").and_then(Value::as_array) else {
        return none();
    };
    let fields = merged_items(items);
    let has_next = response
        .pointer(&format!("/{next_field}"))
        .is_some_and(Value::is_string);
    let size = u32::try_from(items.len()).unwrap_or(u32::MAX);
    let (limit, token) = asked(&request.path);
    let parsed = limit.as_deref().map(str::parse::<u32>);
    // A page fetched with a token is sized by the first query's limit: for events the spec
    // says the other parameters are then taken from it, and a token alone names none.
    let first_query =
        matches!(parsed, Some(Ok(l)) if size > l) && operation == OperationId::ListEvents;
    if token && (limit.is_none() || first_query) {
        return (fields, None);
    }
    let fill = match parsed {
        Some(Ok(limit)) if size > limit => Fill::Over,
        _ if !has_next => Fill::Last,
        Some(Ok(limit)) if size == limit => Fill::Full,
        Some(_) => Fill::Short,
        None => Fill::Next,
    };
    let limit = limit.map_or_else(|| "default".to_owned(), |l| cut(&l, 16));
    (fields, Some((limit, fill, size)))
}

/// The top-level fields of a page's items, merged as [`merge_fields`] would merge each item's
/// fields, without a map per item (a page holds up to a hundred), and how many items there were.
fn merged_items(items: &[Value]) -> (Fields, u32) {
    let mut merged = Fields::new();
    let mut count = 0;
    for item in items.iter().filter_map(Value::as_object) {
        if count == 0 {
            merged = fields_of(item);
        } else {
            for (name, types) in merged.iter_mut() {
                *types |= item.get(name.as_str()).map_or(ABSENT, type_bit);
            }
            for (name, value) in item {
                let known = if name.len() <= MAX_NAME {
                    merged.contains_key(name.as_str())
                } else {
                    merged.contains_key(&cut(name, MAX_NAME))
                };
                if !known && merged.len() < MAX_FIELDS {
                    merged.insert(cut(name, MAX_NAME), type_bit(value) | ABSENT);
                }
            }
        }
        count += 1;
    }
    (merged, count)
}

/// The `limit` query parameter of a request path, as sent, and whether it carries a
/// pagination token.
fn asked(path: &str) -> (Option<String>, bool) {
    let Some((_, query)) = path.split_once('?') else {
        return (None, false);
    };
    let (mut limit, mut token) = (None, false);
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        match name.as_ref() {
            "limit" => limit = limit.or(Some(value.into_owned())),
            "pagination_token" => token = true,
            _ => {}
        }
    }
    (limit, token)
}

/// A banking refusal's `errorCode`, cut short.
fn error_code(operation: OperationId, response: &Response) -> Option<String> {
    if operation.area() != Area::Banking || response.status < 400 {
        return None;
    }
    let code = response.pointer("/errorCode")?.as_str()?;
    Some(cut(code, MAX_CODE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn response(status: u16, body: Value) -> Response {
        let bytes = serde_json::to_vec(&body).unwrap();
        Response {
            status,
            headers: Vec::new(),
            body: bytes,
            json: Some(body),
        }
    }

    fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            json: None,
        }
    }

    #[test]
    fn answers_of_one_status_merge_into_one_shape_marking_fields_some_lacked() {
        let mut b = AnswerShapes::default();
        let get = Request::get("/finops/v1/counterparts/c/vat-ids/v");
        b.response(
            OperationId::GetVatId,
            &get,
            &response(200, json!({"id": "x", "note": null})),
        );
        b.response(
            OperationId::GetVatId,
            &get,
            &response(200, json!({"id": "y", "note": "n", "extra": 1})),
        );
        let shapes = b.into_shapes();
        assert_eq!(shapes.len(), 1);
        let s = &shapes[0];
        assert_eq!((s.status, s.count, s.body.as_str()), (200, 2, "object"));
        assert_eq!(s.fields["id"], "string");
        assert_eq!(s.fields["note"], "string|null");
        assert_eq!(s.fields["extra"], "number|absent");
    }

    #[test]
    fn a_refusal_judged_under_a_rule_is_its_own_shape_and_keeps_its_error_code() {
        let mut b = AnswerShapes::default();
        let post = Request::post(
            "/embedded-banking/v1/authorization-controls/velocity-controls",
            json!({}),
        );
        let refusal = json!({"detail": "d", "errorCode": "BAD_WINDOW", "status": 400});
        b.response(
            OperationId::CreateVelocityControl,
            &post,
            &response(400, refusal.clone()),
        );
        b.refused_under("VC-TRANSACTION-NO-USAGE");
        b.refused_under("GEN-JSON-BODY");
        b.response(
            OperationId::CreateVelocityControl,
            &post,
            &response(400, refusal),
        );
        let shapes = b.into_shapes();
        assert_eq!(shapes.len(), 2);
        assert_eq!(
            shapes[0].condition.as_deref(),
            Some("VC-TRANSACTION-NO-USAGE")
        );
        assert_eq!(shapes[0].codes, ["BAD_WINDOW"]);
        assert_eq!(shapes[1].condition, None);
    }

    #[test]
    fn an_answer_like_the_last_judged_a_refusal_keeps_its_own_fields() {
        let mut b = AnswerShapes::default();
        let post = Request::post("/finops/v1/counterparts/c/vat-ids", json!({}));
        let body = json!({"error": {"message": "m"}});
        b.response(
            OperationId::CreateVatId,
            &post,
            &response(422, body.clone()),
        );
        b.response(
            OperationId::CreateVatId,
            &post,
            &response(422, body.clone()),
        );
        b.refused_under("VAT-VALUE-MAX");
        b.response(OperationId::CreateVatId, &post, &response(422, body));
        let shapes = b.into_shapes();
        assert_eq!(shapes.len(), 2);
        assert_eq!((shapes[0].count, shapes[1].count), (2, 1));
        assert_eq!(shapes[1].condition.as_deref(), Some("VAT-VALUE-MAX"));
        assert_eq!(shapes[1].fields["error"], "object");
        assert_eq!(shapes[1].body, "object");
    }

    #[test]
    fn pages_are_sized_against_the_limit_asked_and_never_keep_a_value() {
        let mut b = AnswerShapes::default();
        let list = |q: &str| {
            Request::get(format!(
                "/embedded-banking/v1/bank-accounts/a/transactions{q}"
            ))
        };
        let page = |n: usize, next: bool| {
            let data: Vec<Value> = (0..n)
                .map(|i| json!({"id": format!("t-{i}"), "amount": i}))
                .collect();
            response(
                200,
                json!({"data": data, "nextPaginationToken": if next { json!("tok-secret") } else { Value::Null }, "prevPaginationToken": null}),
            )
        };
        let op = OperationId::ListTransactions;
        b.response(op, &list("?limit=3"), &page(3, true));
        b.response(op, &list("?limit=3&pagination_token=x"), &page(2, true));
        b.response(op, &list("?limit=3&pagination_token=y"), &page(1, false));
        b.response(op, &list(""), &page(25, true));
        // A token alone names no limit: the page is not sized.
        b.response(op, &list("?pagination_token=z"), &page(7, true));
        let shapes = b.into_shapes();
        let fills: Vec<(&str, Fill, u32)> = shapes[0]
            .pages
            .iter()
            .map(|f| (f.limit.as_str(), f.fill, f.max))
            .collect();
        assert_eq!(
            fills,
            [
                ("3", Fill::Full, 3),
                ("3", Fill::Short, 2),
                ("3", Fill::Last, 1),
                ("default", Fill::Next, 25)
            ]
        );
        assert_eq!(shapes[0].items["amount"], "number");
        let text = serde_json::to_string(&shapes).unwrap();
        assert!(
            !text.contains("tok-secret") && !text.contains("t-1"),
            "{text}"
        );
    }

    #[test]
    fn the_first_answer_of_each_status_is_an_example_and_bodies_are_told_apart() {
        let mut b = AnswerShapes::default();
        let delete = Request::delete("/finops/v1/tags/t");
        b.response(OperationId::DeleteTag, &delete, &empty(204));
        assert!(b.wants_example());
        b.kept(0);
        b.response(OperationId::DeleteTag, &delete, &empty(204));
        assert!(!b.wants_example());
        b.response(
            OperationId::DeleteTag,
            &delete,
            &response(404, json!({"error": {"message": "m"}})),
        );
        assert!(b.wants_example());
        let shapes = b.into_shapes();
        assert_eq!(shapes[0].body, "empty");
        assert_eq!(shapes[0].exchange, Some(0));
        assert_eq!(shapes[1].fields["error"], "object");
    }

    #[test]
    fn hostile_bodies_stay_bounded() {
        let mut object = serde_json::Map::new();
        for i in 0..500 {
            object.insert(format!("{i}{}", "f".repeat(200)), json!(i));
        }
        let mut b = AnswerShapes::default();
        let get = Request::get("/finops/v1/events");
        b.response(
            OperationId::GetVatId,
            &get,
            &response(200, Value::Object(object)),
        );
        for status in 200..300 {
            b.response(OperationId::GetVatId, &get, &empty(status));
        }
        let shapes = b.into_shapes();
        assert_eq!(shapes.len(), MAX_SHAPES);
        assert_eq!(shapes[0].fields.len(), MAX_FIELDS + 1);
        assert!(shapes[0]
            .fields
            .keys()
            .all(|k| k.len() <= MAX_NAME + '…'.len_utf8()));
    }
}
