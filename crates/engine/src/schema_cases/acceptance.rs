//! Acceptance cases: every value the contract states as valid is accepted, judged beside a
//! baseline.
//!
//! For each operation that takes a body, `accept.<op>` sends the smallest valid body of each
//! body shape (the baseline) and then, several at once, each positive variant the generator
//! derives from the schema (`Engine::acceptance`): each stated optional field present, a value
//! at every stated limit, every listed value of every enum, `null` for every "or null" field,
//! each maximum length made of multi-byte characters, and every class of value each typed site
//! admits (`crate::generate` names them: defaults, integer spellings and sizes, empty and
//! whitespace strings, control characters, ...); the values tried in an optional field are
//! judged beside the field present. For the reads, `accept.<op>` does the same with their query
//! parameters (`limit` at 1, 100 and its default, every listed `order` and `sort`) and with the
//! ids of their path in upper case, beside the read with no parameter. A variant refused beside
//! an accepted baseline fails its rule; a refused baseline is followed by its alternatives
//! ([`alternatives`]), and when all are refused its variants are inconclusive, never failed (see
//! `crate::case::control`).

use super::body::{body_operations, engine, make_unique, options, template, BodyOperation};
use crate::case::Bodies;
use crate::case::{
    case_fn, Abort, Case, CaseCx, Control, Echo, Outcome, Outgoing, RunCx, Spelling, Variant,
};
use crate::catalogue::{Catalogue, Level};
use crate::generate::{Accept, AcceptKind, Engine, GenOptions, Inventory};
use crate::schema::{OperationId, ParamLocation, Registry};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// A value at a stated limit refused.
const LIMIT_RULE: &str = "GEN-LIMIT-INCLUSIVE";
/// A maximum length of multi-byte characters refused where the same characters fit.
const CODE_POINTS_RULE: &str = "GEN-LENGTH-CODE-POINTS";
/// A listed value refused.
const LISTED_RULE: &str = "GEN-ENUM-ACCEPTED";
/// `null` refused where the spec says "or null" (only receivable bodies have such fields).
const NULL_RULE: &str = "RCV-NULLABLE";
/// Every stated maximum at once refused where each alone is accepted: payload limits are not
/// shown, so this only warns.
const TOGETHER_RULE: &str = "GEN-LIMITS-TOGETHER";
/// Characters refused at any length: the spec restricts no characters, but says nothing of
/// them either. Also an ordinary value of a format refused: the field itself may need what the
/// spec does not show (a nested shape given in part).
const CHARACTERS_RULE: &str = "GEN-VALID-ACCEPTED";
/// A value of a format or a pattern refused in one of its classes (a leap day, an all-digit
/// domain segment) where an ordinary value of the field is accepted.
const CLASS_RULE: &str = "GEN-FORMAT-CLASSES";
/// An id the profile gives refused in its other case where it is accepted as given.
const UUID_CASE_RULE: &str = "GEN-UUID-CASE";
/// A stated optional field refused beside the smallest body without it.
const OPTIONAL_RULE: &str = "GEN-OPTIONAL-ACCEPTED";
/// A stated default, given explicitly, refused.
const DEFAULT_RULE: &str = "GEN-DEFAULT-ACCEPTED";
/// An integral value written `1.0`, `1e2` or `-0` refused: JSON's integers, but binders differ.
const INTEGER_FORMS_RULE: &str = "GEN-INTEGER-FORMS";
/// An accepted integer answered as another number (wrapped, cut).
const EXACT_RULE: &str = "GEN-INTEGER-EXACT";
/// A value of a class its type admits refused (an empty string, U+0000, 0, an empty array).
const VALUE_CLASSES_RULE: &str = "GEN-VALUE-CLASSES";
/// Fields whose values a target may require to be unique: a class tried in them would collide
/// with itself on a second run, so they keep the values `make_unique` gives them.
const UNIQUE_FIELDS: [&str; 3] = ["/id", "/domain", "/value"];

/// The acceptance cases: one per operation that takes a body, one per list operation.
pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for target in body_operations() {
        let op = target.operation;
        let all = acceptances(op);
        let mut rules = vec![LIMIT_RULE, CODE_POINTS_RULE, LISTED_RULE, TOGETHER_RULE];
        if op == OperationId::CreateReceivable {
            rules.push(NULL_RULE);
        }
        for rule in variant_rules(all) {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
        // A body field bound to a fixture of the profile is a uuid the target must know.
        if !op.operation().body_fixtures.is_empty() {
            rules.push(UUID_CASE_RULE);
        }
        cases.push(
            Case::new(
                &format!("accept.{op}"),
                op,
                &rules,
                case_fn(move |cx| Box::pin(body_case(cx, target))),
            )
            .suite("accept")
            .writes()
            .requests(estimate(all))
            .chain(estimate(all).div_ceil(crate::case::WINDOW)),
        );
    }
    // The lists, with their query parameters and the ids of their paths, which the profile
    // gives (a VAT ID read names one a case creates first: `vat.create-then-get`).
    for op in OperationId::lists() {
        let mut rules: Vec<&'static str> = Vec::new();
        for (_, rule) in query_variants(op) {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
        let ids_in_path = op.operation().path.contains('{');
        if ids_in_path {
            rules.push(UUID_CASE_RULE);
        }
        if rules.is_empty() {
            continue;
        }
        let requests = 1 + query_variants(op).len() + usize::from(ids_in_path);
        cases.push(
            Case::new(
                &format!("accept.{op}"),
                op,
                &rules,
                case_fn(move |cx| Box::pin(read_case(cx, op))),
            )
            .suite("accept")
            .requests(requests),
        );
    }
    cases
}

/// `request` with every uuid of its path in upper case, if it has one in lower case: the same
/// ids, as RFC 4122 makes a uuid's hexadecimal digits case insensitive on input.
fn path_ids_in_other_case(request: &crate::client::Request) -> Option<crate::client::Request> {
    let (path, query) = match request.path.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (request.path.as_str(), None),
    };
    let upper: Vec<String> = path
        .split('/')
        .map(|segment| match uuid::Uuid::parse_str(segment) {
            Ok(_) if segment.len() == 36 => segment.to_ascii_uppercase(),
            _ => segment.to_owned(),
        })
        .collect();
    let upper = upper.join("/");
    if upper == path {
        return None;
    }
    let mut out = request.clone();
    out.path = match query {
        Some(query) => format!("{upper}?{query}"),
        None => upper,
    };
    Some(out)
}

/// The acceptance of each body schema of `op`, without the profile's fixtures.
fn acceptances(op: OperationId) -> &'static [crate::generate::Acceptance] {
    // They follow from the embedded schemas alone: worked out once per process, not once per
    // plan (the self-test plans hundreds of runs).
    static ALL: std::sync::OnceLock<Vec<(OperationId, Vec<crate::generate::Acceptance>)>> =
        std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        let engine = Engine::new(Registry::embedded(), Default::default());
        OperationId::ALL
            .into_iter()
            .map(|op| {
                let of_op = body_operations()
                    .filter(|t| t.operation == op)
                    .flat_map(|t| t.valid_stems())
                    .filter_map(|stem| engine.acceptance(stem).ok())
                    .collect();
                (op, of_op)
            })
            .collect()
    });
    all.iter()
        .find(|(of, _)| *of == op)
        .map_or(&[], |(_, of_op)| of_op.as_slice())
}

/// Requests of an acceptance case, for `--dry-run`: the baselines and variants of its schemas
/// without the profile's fixtures (which only remove variants).
fn estimate(all: &[crate::generate::Acceptance]) -> usize {
    all.iter()
        .map(|a| a.baselines.len() + a.variants.len())
        .sum()
}

/// The rules the variants of an operation's bodies are judged under (an integer's echo too).
fn variant_rules(all: &[crate::generate::Acceptance]) -> Vec<&'static str> {
    let mut rules = Vec::new();
    for v in all.iter().flat_map(|a| &a.variants) {
        let echo = matches!(v.kind, AcceptKind::IntegerForm | AcceptKind::Large);
        for rule in [Some(rule_of(v)), echo.then_some(EXACT_RULE)]
            .into_iter()
            .flatten()
        {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    }
    rules
}

fn rule_of(v: &Accept) -> &'static str {
    match v.kind {
        AcceptKind::AtLimit => LIMIT_RULE,
        AcceptKind::CodePoints => CODE_POINTS_RULE,
        AcceptKind::Characters | AcceptKind::Ordinary => CHARACTERS_RULE,
        AcceptKind::Class => CLASS_RULE,
        AcceptKind::UuidCase => UUID_CASE_RULE,
        AcceptKind::Listed => LISTED_RULE,
        AcceptKind::Null => NULL_RULE,
        AcceptKind::Optional => optional_rule(v),
        AcceptKind::Default => DEFAULT_RULE,
        AcceptKind::IntegerForm => INTEGER_FORMS_RULE,
        AcceptKind::Large => EXACT_RULE,
        AcceptKind::ValueClass => VALUE_CLASSES_RULE,
    }
}

/// The rule a refused optional field breaks: a field of a table (a top-level one) is stated,
/// so GEN-OPTIONAL-ACCEPTED; one the spec gives as a sample shape is judged under that shape's
/// `should` rule, and another nested one (an item of a list, a field of an object the spec
/// shows in part) only warns, since what else it needs may not be shown.
fn optional_rule(v: &Accept) -> &'static str {
    let field = v.field_rule.as_deref();
    let field = field.and_then(|id| Catalogue::embedded().rule(id));
    match field {
        Some(rule) if rule.level == Level::Should => rule.id.as_str(),
        _ if v.pointer.matches('/').count() > 1 => CHARACTERS_RULE,
        _ => OPTIONAL_RULE,
    }
}

/// The variant of a positive value: its spelling, and what its answer must repeat.
fn variant(v: &Accept, request: crate::client::Request, beside: Option<usize>) -> Variant {
    let mut variant = Variant::new(
        described(&v.detail, v.field_rule.as_deref()),
        rule_of(v),
        request,
    )
    .beside(beside);
    variant.spelling = v.literal.clone().map(|text| Spelling::Value {
        pointer: v.pointer.clone(),
        text,
    });
    if matches!(v.kind, AcceptKind::IntegerForm | AcceptKind::Large) {
        variant.refusal_allowed = v.kind == AcceptKind::Large;
        variant.echo = Some(Echo {
            pointer: v.pointer.clone(),
            sent: v.payload.pointer(&v.pointer).cloned().unwrap_or_default(),
            rule: EXACT_RULE,
        });
    }
    variant
}

/// Whether a variant is sent: a class is never tried in a field whose values must be unique.
fn tried(v: &Accept) -> bool {
    let class = matches!(
        v.kind,
        AcceptKind::ValueClass | AcceptKind::IntegerForm | AcceptKind::Large
    );
    !(class && UNIQUE_FIELDS.contains(&v.pointer.as_str()))
}

async fn body_case(cx: &mut CaseCx, target: BodyOperation) -> Outcome {
    cx.keep_all = false;
    let run = cx.run.clone();
    let options = options(&run);
    // Fields left out of generated bodies need fixtures or shapes the spec does not show to
    // hold a value; null needs neither, so their nulls come from the schemas with nothing left
    // out.
    let open = GenOptions {
        omit: Default::default(),
        ..options.clone()
    };
    let (engine, open) = (engine(&run, options), engine(&run, open));
    let request = template(&run, &target).request;
    let operation = target.operation;
    let outgoing = |request| Outgoing { operation, request };
    let mut n = 0;
    let mut unique = |body: Value| {
        n += 1;
        make_unique(&run, &target, body, &format!("a{n}"))
    };
    let generator = |e| Abort::Defect(format!("generator: {e}"));
    for stem in target.valid_stems() {
        let mut acceptance = engine.acceptance(stem).map_err(generator)?;
        let from_open = open.acceptance(stem).map_err(generator)?.variants;
        let own = std::mem::take(&mut acceptance.variants);
        let not_null = |v: &Accept| v.kind != AcceptKind::Null;
        import(&mut acceptance.variants, own, &not_null);
        let covered: Vec<String> = acceptance
            .variants
            .iter()
            .map(|v| v.pointer.clone())
            .collect();
        import(&mut acceptance.variants, from_open, &|v| {
            opened(v, &covered)
        });
        let mut sent: Vec<Value> = acceptance.baselines.clone();
        sent.extend(acceptance.variants.iter().map(|v| v.payload.clone()));
        for (index, baseline) in acceptance.baselines.into_iter().enumerate() {
            // `beside` indexes the stem's whole list; this baseline's group is renumbered.
            let mut position = vec![None; acceptance.variants.len()];
            let mut group = Vec::new();
            let own = acceptance.variants.iter().enumerate();
            for (i, v) in own.filter(|(_, v)| v.baseline == index && tried(v)) {
                position[i] = Some(group.len());
                let body = request.clone().json(unique(v.payload.clone()));
                group.push(variant(v, body, v.beside.and_then(|b| position[b])));
            }
            let together = engine.at_maximum(stem).map_err(generator)?;
            if let Some(body) = together.filter(|_| index == 0) {
                let body = request.clone().json(unique(body));
                group.push(Variant::new(
                    "every stated maximum at once",
                    TOGETHER_RULE,
                    body,
                ));
            }
            if index == 0 {
                // RFC 8259 leaves a name given twice to the receiver: only the answer is judged
                // (no 5xx, JSON), whichever value it takes.
                let body = request.clone().json(unique(baseline.clone()));
                let mut twice = Variant::new(
                    "the smallest body with its first property given twice",
                    VALUE_CLASSES_RULE,
                    body,
                );
                twice.spelling = Some(Spelling::FirstKeyTwice);
                twice.refusal_allowed = true;
                group.push(twice);
            }
            let smallest = Control::new(
                format!("the smallest {stem} body"),
                outgoing(request.clone().json(unique(baseline.clone()))),
            );
            let baseline = alternatives(&run, target.operation, &baseline)
                .into_iter()
                .fold(smallest, |b, (what, body)| {
                    b.or(what, request.clone().json(unique(body)))
                });
            baseline.judge(cx, group).await?;
        }
        let holds = unheld(&open, target.operation, stem, &sent).map_err(generator)?;
        let requests = holds
            .into_iter()
            .map(|body| ((), outgoing(request.clone().json(unique(body)))));
        cx.send_each(requests, |_, _, _, _| true).await?;
    }
    // Shapes no baseline is drawn from (a based-on body needs a source of the right kind, from
    // the profile): their holds alone, unjudged as above.
    let stems = Inventory::embedded().stems_of(target.operation);
    let valid = target.valid_stems();
    for stem in stems.into_iter().filter(|s| !valid.contains(s)) {
        let holds = unheld(&open, target.operation, stem, &[]).map_err(generator)?;
        let requests = holds
            .into_iter()
            .map(|body| ((), outgoing(request.clone().json(unique(body)))));
        cx.send_each(requests, |_, _, _, _| true).await?;
    }
    Ok(())
}

/// A body for each inventoried constraint of `stem` that none of `sent` holds at its edge (see
/// `crate::generate::Inventory`): fields the variants leave out, ids of resources, shapes the
/// spec does not show. They are sent unjudged beside the variants: a target may refuse a value
/// that names no resource of its own, or a nested shape the spec does not show, so a refusal is
/// no finding; the constraint is reported as not held, with its refusals counted.
fn unheld(
    engine: &Engine<&'static Registry>,
    operation: OperationId,
    stem: &str,
    sent: &[Value],
) -> Result<Vec<Value>, crate::generate::GenerateError> {
    let inventory = Inventory::embedded();
    let mut held: BTreeSet<usize> = sent
        .iter()
        .flat_map(|body| inventory.held_by(operation, body))
        .collect();
    let mut out = Vec::new();
    for (id, body) in engine.holds(stem)? {
        let Some(index) = inventory.index_of(operation, &id) else {
            continue;
        };
        let holds = inventory.held_by(operation, &body);
        if !held.contains(&index) && holds.contains(&index) {
            held.extend(holds);
            out.push(body);
        }
    }
    Ok(out)
}

/// Whether a variant of the schema with nothing left out (`open`) is sent: it needs no fixture
/// and no shape the spec does not show: every `null`, and the dates of fields the run's bodies
/// leave out (`covered` holds the pointers the run's own variants test). A date never names a
/// resource; a nested one, such as a payment term's end date, is judged beside an ordinary date
/// of the same field, so a target refusing the nested shape leaves it inconclusive.
fn opened(v: &Accept, covered: &[String]) -> bool {
    let kinds = [
        AcceptKind::Class,
        AcceptKind::Ordinary,
        AcceptKind::Optional,
    ];
    let dated =
        kinds.contains(&v.kind) && v.format == Some("date") && !covered.contains(&v.pointer);
    let default = v.kind == AcceptKind::Default && !covered.contains(&v.pointer);
    v.kind == AcceptKind::Null || default || dated
}

/// Appends the variants of `from` that `keep` keeps to `to`, each `beside` renumbered into `to`
/// (a variant whose control is not kept is not kept either).
fn import(to: &mut Vec<Accept>, from: Vec<Accept>, keep: &dyn Fn(&Accept) -> bool) {
    let mut moved: Vec<Option<usize>> = vec![None; from.len()];
    for (i, mut v) in from.into_iter().enumerate() {
        if !keep(&v) {
            continue;
        }
        v.beside = match v.beside.map(|b| moved[b]) {
            Some(None) => continue,
            Some(Some(b)) => Some(b),
            None => None,
        };
        moved[i] = Some(to.len());
        to.push(v);
    }
}

/// Baselines to try after the smallest body, for what a target may refuse in it without the
/// spec saying so: a receivable without line items (one in the spec's sample shape instead), a
/// velocity control of amount 0. Never in the field the variants test: a mailbox domain's
/// variants are domains, so a domain that the target accepts as a baseline would blame them for
/// what it refuses in any other domain (one it does not own).
fn alternatives(run: &RunCx, operation: OperationId, smallest: &Value) -> Vec<(String, Value)> {
    let bodies = Bodies::new(run);
    let mut body = smallest.clone();
    let what = match operation {
        OperationId::CreateReceivable if smallest["line_items"] == json!([]) => {
            body["line_items"] = json!([bodies.line_item()]);
            "the smallest body with one line item"
        }
        OperationId::CreateVelocityControl if smallest["amountLimit"] == json!(0) => {
            body["amountLimit"] = json!(50000);
            "the smallest body with amountLimit 50000"
        }
        _ => return Vec::new(),
    };
    vec![(what.to_owned(), body)]
}

/// A variant's description with the rule of its field: `trade_name of 255 characters (max 255;
/// RCV-TRADE-NAME-MAX)`.
fn described(detail: &str, field_rule: Option<&str>) -> String {
    match field_rule {
        Some(rule) => format!("{detail} [{rule}]"),
        None => detail.to_owned(),
    }
}

/// The positive values of a list operation's query parameters: each bound of a ranged integer
/// and each listed value, from `operations.json`.
fn query_variants(op: OperationId) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for param in &op.operation().parameters {
        let (ParamLocation::Query, Some(name)) = (param.location, param.name.as_deref()) else {
            continue;
        };
        for bound in ["minimum", "maximum"] {
            if let Some(v) = param.schema.get(bound).and_then(Value::as_i64) {
                out.push((format!("{name}={v}"), LIMIT_RULE));
            }
        }
        let listed = param.schema.get("enum").and_then(Value::as_array);
        for value in listed.into_iter().flatten().filter_map(Value::as_str) {
            out.push((format!("{name}={value}"), LISTED_RULE));
        }
        // The stated default, given explicitly (a listed one is tried already).
        let default = param.schema.get("default").map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        if let Some(query) = default.map(|d| format!("{name}={d}")) {
            if !out.iter().any(|(q, _)| *q == query) {
                out.push((query, DEFAULT_RULE));
            }
        }
    }
    out
}

/// A read beside the same read with no query parameter and the ids of its path as the profile
/// gives them: each stated value of a query parameter, and the path's ids in upper case.
async fn read_case(cx: &mut CaseCx, op: OperationId) -> Outcome {
    cx.keep_all = false;
    let plain = cx.call(op).request();
    let mut variants: Vec<Variant> = query_variants(op)
        .into_iter()
        .map(|(query, rule)| {
            let mut request = plain.clone();
            request.path = format!("{}?{query}", request.path);
            Variant::new(format!("the read with {query}"), rule, request)
        })
        .collect();
    if let Some(upper) = path_ids_in_other_case(&plain) {
        let what = "the read with the ids of its path in upper case (RFC 4122)";
        variants.push(Variant::new(what, UUID_CASE_RULE, upper));
    }
    let plain = Outgoing {
        operation: op,
        request: plain,
    };
    let baseline = Control::new("the read with no query parameter", plain);
    baseline.judge(cx, variants).await
}
