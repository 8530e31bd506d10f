//! Generated body cases: bodies drawn from the schemas by the generator, sent to the target.
//!
//! For each operation that takes a body, two cases: `generated.<op>.valid` (boundary values
//! first, then `--cases` random bodies; each should be accepted — a refusal only warns, since a
//! precondition the schema cannot express may be the cause) and `generated.<op>.invalid`
//! (boundary violations first, then random ones, each breaking exactly one constraint; each must
//! be refused, and an accepted one fails for the rule its label names). A failing random body is
//! shrunk by proptest to a minimal one, which is what the report shows. Referenced ids come from
//! the profile, and fields whose shape or values the spec does not show are left out of valid
//! bodies, so that a valid body is valid for any target that keeps the contract.

use crate::case::Bodies;
use crate::case::{case_fn, Abort, Call, Case, CaseCx, Outcome, Outgoing, RunCx};
use crate::client::{Request, Response};
use crate::generate::{redraw, rng_for, Draws, Engine, GenOptions, GenerateError, Invalid, Label};
use crate::schema::OperationId;
use crate::schema::Registry;
use proptest::strategy::{SBoxedStrategy, ValueTree};
use proptest::test_runner::TestRng;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Shrinking stops after this many extra requests.
const MAX_SHRINK_ITERS: u32 = 48;
/// Accepted boundary violations reported per case.
const MAX_BOUNDARY_FINDINGS: usize = 12;
/// Refusals of valid bodies reported per case (the rest are counted).
const MAX_WARNINGS: usize = 5;

/// An operation whose body is generated, and what its bodies are drawn from: an operation that
/// takes a body, as `operations.json` says.
#[derive(Debug, Clone, Copy)]
pub(super) struct BodyOperation {
    pub operation: OperationId,
}

/// The schemas of a receivable body valid bodies are drawn from: quote and invoice apart, since
/// a based-on body needs a source of the right kind, which random drawing cannot pair.
const RECEIVABLE_VALID: [&str; 2] = ["quote-create", "invoice-create"];

impl BodyOperation {
    /// The schema invalid bodies must break: the operation's body schema.
    fn invalid_stem(&self) -> &'static str {
        let body = self.operation.operation().request_body.as_deref();
        body.expect("a body operation takes a body")
    }

    /// The schemas valid bodies are drawn from.
    pub fn valid_stems(&self) -> Vec<&'static str> {
        match self.operation {
            OperationId::CreateReceivable => RECEIVABLE_VALID.to_vec(),
            _ => vec![self.invalid_stem()],
        }
    }
}

/// The operations whose bodies are generated: every operation that takes a body.
pub(super) fn body_operations() -> impl Iterator<Item = BodyOperation> {
    OperationId::with_body().map(|operation| BodyOperation { operation })
}

/// Receivable fields left out of valid bodies: ids that must name existing resources, nested
/// shapes and values the spec does not show, and document_id (settable only in one compliance
/// mode).
const RECEIVABLE_OMIT: [&str; 18] = [
    "attachments",
    "bank_account_id",
    "counterpart_billing_address_id",
    "counterpart_shipping_address_id",
    "counterpart_vat_id_id",
    "entity_vat_id_id",
    "deductions",
    "discount",
    "document_id",
    "document_rendering",
    "entity",
    "project_id",
    "tag_ids",
    "tax_mode",
    "overdue_reminder_id",
    "payment_reminder_id",
    "payment_terms",
    "payment_terms_id",
];

/// The generated body cases of the run: a valid and an invalid case per operation that takes a
/// body.
pub fn cases(run: &RunCx) -> Vec<Case> {
    // For --dry-run: the random bodies, plus about as many boundary values.
    let estimate = 2 * run.generation.cases_per_operation as usize + 20;
    let mut cases = Vec::new();
    for target in body_operations() {
        let op = target.operation;
        cases.push(
            Case::new(
                &format!("generated.{op}.valid"),
                op,
                &["GEN-VALID-ACCEPTED"],
                case_fn(move |cx| Box::pin(valid_case(cx, target))),
            )
            .suite("generated")
            .writes()
            .requests(estimate)
            .chain(estimate.div_ceil(crate::case::WINDOW)),
        );
        cases.push(
            Case::new(
                &format!("generated.{op}.invalid"),
                op,
                // A value a lax binder reads as the stated type is sent too, under its own rule.
                &["GEN-REJECT-NOT-2XX", "GEN-LAX-BINDING"],
                case_fn(move |cx| Box::pin(invalid_case(cx, target))),
            )
            .suite("generated")
            .writes()
            .requests(estimate)
            .chain(estimate.div_ceil(crate::case::WINDOW)),
        );
    }
    cases
}

/// An engine over the embedded schemas with `options`; on the second target of a differential
/// run, beside the first target's fixtures, so that both get the same payloads.
pub(super) fn engine(run: &RunCx, options: GenOptions) -> Engine<&'static Registry> {
    let engine = Engine::new(Registry::embedded(), options);
    match run.leader.get() {
        Some(leader) => engine.following(&self::options(leader).fixtures),
        None => engine,
    }
}

/// Generator options for this run's profile.
pub(super) fn options(run: &RunCx) -> GenOptions {
    let currency = Bodies::new(run).currency();
    let mut fixtures = BTreeMap::new();
    let list = |names: &[&str]| names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let mut omit = BTreeMap::new();
    omit.insert("quote-create".to_owned(), list(&RECEIVABLE_OMIT));
    omit.insert("invoice-create".to_owned(), list(&RECEIVABLE_OMIT));
    omit.insert(
        "velocity-control-create".to_owned(),
        list(&["mcc", "mccGroup"]),
    );
    // The fields the table says name the profile's fixtures take their values; an optional one
    // the profile does not give is left out.
    for target in body_operations() {
        for field in &target.operation.operation().body_fixtures {
            match run.fixture(&field.fixture) {
                Some(value) => {
                    fixtures.insert(field.field.clone(), vec![json!(value)]);
                }
                None if !field.required => omit
                    .entry(target.invalid_stem().to_owned())
                    .or_insert_with(Vec::new)
                    .push(field.field.clone()),
                None => {}
            }
        }
    }
    fixtures.insert("currency".to_owned(), vec![json!(currency)]);
    fixtures.insert("currencyCode".to_owned(), vec![json!(currency)]);
    let mut always_include = BTreeMap::new();
    always_include.insert(
        "vat-id-create".to_owned(),
        list(&["value", "country", "type"]),
    );
    always_include.insert(
        "velocity-control-create".to_owned(),
        list(&[
            "id",
            "amountLimit",
            "currencyCode",
            "name",
            "velocityWindow",
        ]),
    );
    always_include.insert("comment-update".to_owned(), list(&["text"]));
    GenOptions {
        fixtures,
        always_include,
        omit,
    }
}

/// The request of `target`'s operation, without its body: built once per case, since every
/// body of the case goes to the same path with the same headers.
pub(super) fn template(run: &Arc<RunCx>, target: &BodyOperation) -> Outgoing {
    Call::new(run.clone(), target.operation).into()
}

/// The body of a request sent by [`send_window`] (always JSON there).
fn body_of(request: &Request) -> Value {
    match &request.body {
        Some(crate::client::Body::Json(body)) => body.clone(),
        _ => Value::Null,
    }
}

/// Makes a valid body unique where a target may require uniqueness (velocity control ids,
/// mailbox domains, VAT ID values of one counterpart), keeping it valid.
pub(super) fn make_unique(
    run: &RunCx,
    target: &BodyOperation,
    mut body: Value,
    tag: &str,
) -> Value {
    match target.operation {
        OperationId::CreateVelocityControl if body.get("id").is_some_and(Value::is_string) => {
            body["id"] = json!(Bodies::new(run).unique(tag))
        }
        OperationId::CreateMailboxDomain => {
            if let Some(domain) = body.get("domain").and_then(Value::as_str) {
                body["domain"] = json!(format!("{}.{domain}", run.unique(tag)));
            }
        }
        OperationId::CreateVatId => {
            if let Some(value) = body.get("value").and_then(Value::as_str) {
                if let Some(unique) = unique_vat_value(value, &run.run_tag, tag) {
                    body["value"] = json!(unique);
                }
            }
        }
        _ => {}
    }
    body
}

/// A VAT ID value of plain filler text (`covenant cov…`) as upper-case letters and digits of the
/// same length, unique to the run and the request: a target may refuse a value its counterpart
/// already has, or spaces in a VAT ID, where the spec shows neither rule. Values that test
/// characters (multi-byte ones at a limit) and values too short to hold the tag stay as they are.
fn unique_vat_value(value: &str, run_tag: &str, tag: &str) -> Option<String> {
    let len = value.chars().count();
    if len < 6 || value != crate::generate::plain_text(len) {
        return None;
    }
    Some(crate::case::unique_code(run_tag, tag, len))
}

/// An invalid body made unique the same way, unless its broken constraint is the unique field.
fn unique_invalid(run: &RunCx, target: &BodyOperation, invalid: &Invalid, tag: &str) -> Value {
    if matches!(invalid.label.pointer.as_str(), "/id" | "/domain" | "/value") {
        invalid.payload.clone()
    } else {
        make_unique(run, target, invalid.payload.clone(), tag)
    }
}

fn generator_error(e: GenerateError) -> Abort {
    Abort::Defect(format!("generator: {e}"))
}

/// Sends each item's body to `target`'s operation, several at once, judging the answers in the
/// order of the items (see [`CaseCx::send_each`]).
async fn send_window<T: Send + 'static>(
    cx: &mut CaseCx,
    target: &BodyOperation,
    items: impl Iterator<Item = (T, Value)>,
    judge: impl FnMut(&mut CaseCx, T, &Request, &Response) -> bool,
) -> Outcome {
    let template = template(&cx.run, target);
    let requests = items.map(move |(item, body)| (item, template.clone().json(body)));
    cx.send_each(requests, judge).await
}

async fn valid_case(cx: &mut CaseCx, target: BodyOperation) -> Outcome {
    cx.keep_all = false;
    let run = cx.run.clone();
    let engine = engine(&run, options(&run));
    let mut streams = Vec::new();
    for stem in target.valid_stems() {
        let boundary = engine.boundary_valid(stem).map_err(generator_error)?;
        let strategy = engine.valid(stem).map_err(generator_error)?;
        let rng = rng_for(
            run.generation.seed,
            &format!("{}.{stem}.valid", target.operation),
        );
        let random =
            Draws::new(strategy, rng, run.generation.cases_per_operation as usize).map(|(b, _)| b);
        streams.push(
            boundary
                .into_iter()
                .chain(random)
                .map(move |body| (stem, body)),
        );
    }
    let bodies = streams
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(n, (stem, body))| {
            (
                stem,
                make_unique(&run, &target, body, &format!("g{}", n + 1)),
            )
        });
    let (mut refused, mut n) = (0usize, 0usize);
    send_window(cx, &target, bodies, |cx, stem, request, response| {
        n += 1;
        if cx.blame_profile(response) {
            return false;
        }
        cx.tally.expected("2xx");
        cx.judged("GEN-VALID-ACCEPTED");
        if response.is_client_error() {
            cx.refused_under("GEN-VALID-ACCEPTED");
            refused += 1;
            if refused <= MAX_WARNINGS {
                cx.finding(
                    "GEN-VALID-ACCEPTED",
                    format!(
                        "a body valid against {stem} was refused with {}: {}",
                        response.status,
                        compact(&body_of(request))
                    ),
                );
            }
        }
        true
    })
    .await?;
    if refused > MAX_WARNINGS {
        cx.finding(
            "GEN-VALID-ACCEPTED",
            format!("{refused} of {n} valid bodies were refused in all"),
        );
    }
    Ok(())
}

async fn invalid_case(cx: &mut CaseCx, target: BodyOperation) -> Outcome {
    cx.keep_all = false;
    let run = cx.run.clone();
    let stem = target.invalid_stem();
    let engine = engine(&run, options(&run));
    // Every boundary violation is sent, so that each broken rule shows (up to a bound); the
    // first accepted body is the reported payload, and the random phase is then not needed.
    // They come from the schema with nothing left out, so that every inventoried constraint is
    // broken alone, in fields valid bodies leave out too (a breach needs no fixture and no
    // shape the spec does not show: the rest of the body is the smallest valid one).
    let open = GenOptions {
        omit: Default::default(),
        ..options(&run)
    };
    let boundary = self::engine(&run, open)
        .boundary_invalid(stem)
        .map_err(generator_error)?;
    let items = boundary.into_iter().enumerate().map(|(n, invalid)| {
        let body = unique_invalid(&run, &target, &invalid, &format!("b{n}"));
        (invalid.label, body)
    });
    let mut found = 0;
    send_window(cx, &target, items, |cx, label, request, response| {
        if judge_invalid(cx, target.operation, &label, response) {
            found += 1;
            cx.payload.get_or_insert_with(|| body_of(request));
        }
        found < MAX_BOUNDARY_FINDINGS
    })
    .await?;
    if found > 0 {
        return Ok(());
    }
    // Random violations; the first accepted one is shrunk to a minimal body.
    let strategy = engine.invalid(stem).map_err(generator_error)?;
    let rng = rng_for(
        run.generation.seed,
        &format!("{}.{stem}.invalid", target.operation),
    );
    let draws = Draws::new(
        strategy.clone(),
        rng,
        run.generation.cases_per_operation as usize,
    );
    let items = draws.enumerate().map(|(n, (invalid, at))| {
        let body = unique_invalid(&run, &target, &invalid, &format!("r{}", n + 1));
        (at, body)
    });
    let mut first = None;
    send_window(cx, &target, items, |_, at, _, response| {
        first = response.is_success().then_some(at);
        first.is_none()
    })
    .await?;
    let Some(at) = first else {
        return Ok(());
    };
    let minimal = tokio::task::block_in_place(|| shrink(cx, &target, &strategy, at))?;
    // The minimal body once more, for the record and the finding.
    let body = unique_invalid(&run, &target, &minimal, "minimal");
    let request = template(&run, &target).json(body.clone());
    cx.send_judged(request, |cx, _, response| {
        judge_invalid(cx, target.operation, &minimal.label, response);
    })
    .await?;
    cx.payload = Some(body);
    Ok(())
}

/// Shrinks the accepted invalid body drawn from `at` to a minimal one the target still
/// accepts, proptest's way: simplify while it is accepted, complicate when it is not, for at
/// most [`MAX_SHRINK_ITERS`] requests. Its broken constraint never changes while it shrinks.
fn shrink(
    cx: &mut CaseCx,
    target: &BodyOperation,
    strategy: &SBoxedStrategy<Invalid>,
    at: TestRng,
) -> Result<Invalid, Abort> {
    let mut tree = redraw(strategy, at).ok_or_else(|| {
        Abort::Defect("generator: the accepted body could not be drawn again".to_owned())
    })?;
    let mut minimal = tree.current();
    let template = template(&cx.run, target);
    let handle = tokio::runtime::Handle::current();
    let mut more = tree.simplify();
    let mut sent = 0;
    while more && sent < MAX_SHRINK_ITERS {
        sent += 1;
        let candidate = tree.current();
        let body = unique_invalid(&cx.run, target, &candidate, &format!("s{sent}"));
        let response = handle.block_on(cx.send(template.clone().json(body)))?;
        more = if response.is_success() {
            minimal = candidate;
            tree.simplify()
        } else {
            tree.complicate()
        };
    }
    Ok(minimal)
}

/// Records a finding for the rule an invalid body breaks when the target accepted it; returns
/// whether it did.
fn judge_invalid(
    cx: &mut CaseCx,
    operation: OperationId,
    label: &Label,
    response: &Response,
) -> bool {
    if let Some(id) = &label.constraint {
        cx.run.exercise.broken(operation, id, response.is_success());
    }
    let rule = match cx.run.catalogue.rule(&label.rule) {
        Some(_) => label.rule.as_str(),
        None => crate::generate::DEFAULT_RULE,
    };
    cx.tally.expected("4xx");
    cx.refused_under(rule);
    cx.judged(rule);
    if !response.is_success() {
        return false;
    }
    let message = format!(
        "an invalid body was accepted with {}: {} at {} ({:?})",
        response.status, label.detail, label.pointer, label.kind
    );
    cx.finding(rule, message);
    true
}

/// A body on one line, cut to 300 characters.
fn compact(body: &Value) -> String {
    let text = body.to_string();
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::unique_vat_value;
    use crate::generate::plain_text;

    #[test]
    fn plain_vat_values_become_unique_codes_of_the_same_length() {
        let baseline = unique_vat_value(&plain_text(8), "0badf00d", "a1").expect("plain");
        let other = unique_vat_value(&plain_text(8), "0badf00d", "a2").expect("plain");
        let longest = unique_vat_value(&plain_text(32), "0badf00d", "a3").expect("plain");
        assert_eq!(baseline, "A10BADF0");
        assert_ne!(baseline, other);
        assert_eq!(longest.chars().count(), 32);
        assert!(longest
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()));
        // Another run tags them apart from this run's.
        assert_ne!(
            unique_vat_value(&plain_text(8), "12345678", "a1"),
            Some(baseline)
        );
        // Characters under test, and values too short to hold a tag, are kept.
        assert_eq!(unique_vat_value(&"é".repeat(32), "0badf00d", "a4"), None);
        assert_eq!(unique_vat_value(&plain_text(3), "0badf00d", "a5"), None);
    }
}
