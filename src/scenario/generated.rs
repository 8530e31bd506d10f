//! Generated cases: bodies drawn from the schemas by the generator, sent to the target.
//!
//! For each operation that takes a body, two cases: `generated.<op>.valid` (boundary values
//! first, then `--cases` random bodies; each should be accepted — a refusal only warns, since a
//! precondition the schema cannot express may be the cause) and `generated.<op>.invalid`
//! (boundary violations first, then random ones, each breaking exactly one constraint; each must
//! be refused, and an accepted one fails for the rule its label names). A failing random body is
//! shrunk by proptest to a minimal one, which is what the report shows. Referenced ids come from
//! the profile, and fields whose shape or values the spec does not show are left out of valid
//! bodies, so that a valid body is valid for any target that keeps the contract.

use super::{paths, Bodies};
use crate::generate::{rng_for, Engine, GenOptions, Invalid};
use crate::runner::{case_fn, Abort, Case, CaseCx, Need, Outcome, RunCx};
use crate::schema::Registry;
use crate::target::Request;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use reqwest::Method;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Shrinking stops after this many extra requests.
const MAX_SHRINK_ITERS: u32 = 48;
/// Accepted boundary violations reported per case.
const MAX_BOUNDARY_FINDINGS: usize = 12;
/// Refusals of valid bodies reported per case (the rest are counted).
const MAX_WARNINGS: usize = 5;

/// An operation whose body is generated.
#[derive(Debug, Clone, Copy)]
struct Target {
    operation: &'static str,
    /// The schema valid bodies are drawn from (quote and invoice apart: a based-on body needs a
    /// source of the right kind, which random drawing cannot pair).
    valid_stems: &'static [&'static str],
    /// The schema invalid bodies must break.
    invalid_stem: &'static str,
    needs: &'static [Need],
}

const TARGETS: [Target; 5] = [
    Target {
        operation: "create-receivable",
        valid_stems: &["quote-create", "invoice-create"],
        invalid_stem: "receivable-create",
        needs: &[
            Need::FinopsToken,
            Need::FinopsOrg,
            Need::Counterpart,
            Need::VatRate,
        ],
    },
    Target {
        operation: "create-vat-id",
        valid_stems: &["vat-id-create"],
        invalid_stem: "vat-id-create",
        needs: &[Need::FinopsToken, Need::FinopsOrg, Need::Counterpart],
    },
    Target {
        operation: "update-comment",
        valid_stems: &["comment-update"],
        invalid_stem: "comment-update",
        needs: &[
            Need::FinopsToken,
            Need::FinopsOrg,
            Need::Comment,
            Need::EntityUser,
        ],
    },
    Target {
        operation: "create-mailbox-domain",
        valid_stems: &["mailbox-domain-create"],
        invalid_stem: "mailbox-domain-create",
        needs: &[Need::FinopsToken],
    },
    Target {
        operation: "create-velocity-control",
        valid_stems: &["velocity-control-create"],
        invalid_stem: "velocity-control-create",
        needs: &[Need::BankingToken],
    },
];

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

/// The generated cases for the run.
pub fn generated(run: &RunCx) -> Vec<Case> {
    // For --dry-run: the random bodies, plus about as many boundary values.
    let estimate = 2 * run.cases_per_operation as usize + 20;
    let mut cases = Vec::new();
    for target in TARGETS {
        let op = target.operation;
        cases.push(
            Case::new(
                &format!("generated.{op}.valid"),
                op,
                &["GEN-VALID-ACCEPTED"],
                case_fn(move |cx| Box::pin(valid_case(cx, target))),
            )
            .suite("generated")
            .needs(target.needs)
            .writes()
            .requests(estimate),
        );
        cases.push(
            Case::new(
                &format!("generated.{op}.invalid"),
                op,
                &["GEN-REJECT-NOT-2XX"],
                case_fn(move |cx| Box::pin(invalid_case(cx, target))),
            )
            .suite("generated")
            .needs(target.needs)
            .writes()
            .requests(estimate),
        );
    }
    cases.extend(param_cases());
    cases
}

/// Generator options for this run's profile.
fn options(run: &RunCx) -> GenOptions {
    let f = run.finops().cloned().unwrap_or_default();
    let b = run.banking().cloned().unwrap_or_default();
    let currency = Bodies::new(run).currency();
    let mut fixtures = BTreeMap::new();
    let mut fix = |name: &str, value: Option<String>| {
        if let Some(v) = value {
            fixtures.insert(name.to_owned(), vec![json!(v)]);
        }
    };
    fix("counterpart_id", f.counterpart_id.clone());
    fix("vat_rate_id", f.vat_rate_id.clone());
    fix("reply_to_entity_user_id", f.entity_user_id.clone());
    fix("cardId", b.card_id.clone());
    fix("currency", Some(currency.clone()));
    fix("currencyCode", Some(currency));
    let list = |names: &[&str]| names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let mut omit = BTreeMap::new();
    omit.insert("quote-create".to_owned(), list(&RECEIVABLE_OMIT));
    omit.insert("invoice-create".to_owned(), list(&RECEIVABLE_OMIT));
    omit.insert(
        "velocity-control-create".to_owned(),
        list(&["mcc", "mccGroup"]),
    );
    if b.card_id.is_none() {
        omit.entry("velocity-control-create".to_owned())
            .or_insert_with(Vec::new)
            .push("cardId".to_owned());
    }
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

/// The request for a body of `target`'s operation.
fn request(cx: &CaseCx, target: &Target, body: Value) -> Request {
    let f = cx.run.finops().cloned().unwrap_or_default();
    let request = match target.operation {
        "create-receivable" => cx.fin(Method::POST, paths::RECEIVABLES),
        "create-vat-id" => cx.fin(
            Method::POST,
            &paths::vat_ids(f.counterpart_id.as_deref().unwrap_or("")),
        ),
        "update-comment" => cx.fin(
            Method::PATCH,
            &paths::comment(f.comment_ids.first().map_or("", |s| s.as_str())),
        ),
        "create-mailbox-domain" => cx.fin_without_org(Method::POST, paths::MAILBOX_DOMAINS),
        _ => cx.bank(Method::POST, paths::VELOCITY_CONTROLS),
    };
    request.json(body)
}

/// Makes a valid body unique where the target requires uniqueness (velocity control ids,
/// mailbox domains), keeping it valid.
fn make_unique(cx: &CaseCx, target: &Target, mut body: Value, tag: &str) -> Value {
    let bodies = Bodies::new(&cx.run);
    match target.operation {
        "create-velocity-control" if body.get("id").is_some_and(Value::is_string) => {
            body["id"] = json!(bodies.unique(tag))
        }
        "create-mailbox-domain" => {
            if let Some(domain) = body.get("domain").and_then(Value::as_str) {
                body["domain"] = json!(format!("cov-{}-{tag}.{domain}", cx.run.run_tag));
            }
        }
        _ => {}
    }
    body
}

/// An invalid body made unique the same way, unless its broken constraint is the unique field.
fn unique_invalid(cx: &CaseCx, target: &Target, invalid: &Invalid, tag: &str) -> Value {
    if matches!(invalid.label.pointer.as_str(), "/id" | "/domain") {
        invalid.payload.clone()
    } else {
        make_unique(cx, target, invalid.payload.clone(), tag)
    }
}

async fn valid_case(cx: &mut CaseCx, target: Target) -> Outcome {
    tokio::task::block_in_place(|| valid_bodies(cx, &target))
}

async fn invalid_case(cx: &mut CaseCx, target: Target) -> Outcome {
    tokio::task::block_in_place(|| invalid_bodies(cx, &target))
}

/// Sends one body; its exchange is kept only when it shows a finding.
fn send_quietly(cx: &mut CaseCx, target: &Target, body: Value) -> Result<u16, Abort> {
    let request = request(cx, target, body);
    let handle = tokio::runtime::Handle::current();
    handle
        .block_on(cx.send(target.operation, request))
        .map(|r| r.status)
}

/// Sends one body keeping its exchange, so that a finding can point at it; [`forget`] drops it
/// again when no finding came of it.
fn send_kept(cx: &mut CaseCx, target: &Target, body: Value) -> Result<(u16, Mark), Abort> {
    let mark = Mark {
        exchanges: cx.exchanges.len(),
        findings: cx.findings.len(),
    };
    let keep = std::mem::replace(&mut cx.keep_all, true);
    let status = send_quietly(cx, target, body);
    cx.keep_all = keep;
    Ok((status?, mark))
}

/// The record's length before a send.
struct Mark {
    exchanges: usize,
    findings: usize,
}

/// Drops the exchange kept since `mark` when nothing refers to it.
fn forget(cx: &mut CaseCx, mark: Mark) {
    if cx.findings.len() == mark.findings && cx.exchanges.len() == mark.exchanges + 1 {
        cx.exchanges.pop();
    }
}

fn valid_bodies(cx: &mut CaseCx, target: &Target) -> Outcome {
    cx.keep_all = false;
    let engine = Engine::new(Registry::embedded(), options(&cx.run));
    let mut refused = 0usize;
    let mut n = 0usize;
    for stem in target.valid_stems {
        let boundary = engine
            .boundary_valid(stem)
            .map_err(|e| Abort::Transport(format!("generator: {e}")))?;
        let strategy = engine
            .valid(stem)
            .map_err(|e| Abort::Transport(format!("generator: {e}")))?;
        let mut rng = rng_for(cx.run.seed, &format!("{}.{stem}.valid", target.operation));
        let random =
            crate::generate::sample(&strategy, &mut rng, cx.run.cases_per_operation as usize);
        for body in boundary.into_iter().chain(random) {
            n += 1;
            let body = make_unique(cx, target, body, &format!("g{n}"));
            let (status, mark) = send_kept(cx, target, body.clone())?;
            if (400..500).contains(&status) {
                refused += 1;
                if refused <= MAX_WARNINGS {
                    cx.finding(
                        "GEN-VALID-ACCEPTED",
                        format!(
                            "a body valid against {stem} was refused with {status}: {}",
                            compact(&body)
                        ),
                    );
                }
            }
            forget(cx, mark);
        }
    }
    if refused > MAX_WARNINGS {
        cx.finding(
            "GEN-VALID-ACCEPTED",
            format!("{refused} of {n} valid bodies were refused in all"),
        );
    }
    Ok(())
}

fn invalid_bodies(cx: &mut CaseCx, target: &Target) -> Outcome {
    cx.keep_all = false;
    let stem = target.invalid_stem;
    let engine = Engine::new(Registry::embedded(), options(&cx.run));
    let boundary = engine
        .boundary_invalid(stem)
        .map_err(|e| Abort::Transport(format!("generator: {e}")))?;
    // Every boundary violation is sent, so that each broken rule shows (up to a bound); the
    // first accepted body is the reported payload, and the random phase is then not needed.
    let mut accepted = 0;
    for (n, invalid) in boundary.iter().enumerate() {
        let body = unique_invalid(cx, target, invalid, &format!("b{n}"));
        if check_invalid(cx, target, invalid, body.clone())? {
            accepted += 1;
            cx.payload.get_or_insert(body);
            if accepted == MAX_BOUNDARY_FINDINGS {
                break;
            }
        }
    }
    if accepted > 0 {
        return Ok(());
    }
    let strategy = engine
        .invalid(stem)
        .map_err(|e| Abort::Transport(format!("generator: {e}")))?;
    let config = Config {
        cases: cx.run.cases_per_operation,
        max_shrink_iters: MAX_SHRINK_ITERS,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = rng_for(cx.run.seed, &format!("{}.{stem}.invalid", target.operation));
    let mut runner = TestRunner::new_with_rng(config, rng);
    // proptest's runner takes an `Fn`: the case context and the first abort go through cells.
    let shared = RefCell::new(&mut *cx);
    let aborted = RefCell::new(None);
    let sent = std::cell::Cell::new(0usize);
    let result = runner.run(&strategy, |invalid| {
        if aborted.borrow().is_some() {
            return Ok(());
        }
        sent.set(sent.get() + 1);
        let mut cx = shared.borrow_mut();
        let body = unique_invalid(&cx, target, &invalid, &format!("r{}", sent.get()));
        match send_quietly(&mut cx, target, body).map(|status| (200..300).contains(&status)) {
            Ok(false) => Ok(()),
            Ok(true) => Err(TestCaseError::fail(invalid.label.detail.clone())),
            Err(abort) => {
                *aborted.borrow_mut() = Some(abort);
                Ok(())
            }
        }
    });
    if let Some(abort) = aborted.into_inner() {
        return Err(abort);
    }
    if let Err(TestError::Fail(_, minimal)) = result {
        // Send the minimal body once more, for the record and the finding.
        let body = unique_invalid(cx, target, &minimal, "minimal");
        check_invalid(cx, target, &minimal, body.clone())?;
        cx.payload = Some(body);
    }
    Ok(())
}

/// Sends an invalid body and records a finding for its label's rule when it is accepted.
fn check_invalid(
    cx: &mut CaseCx,
    target: &Target,
    invalid: &Invalid,
    body: Value,
) -> Result<bool, Abort> {
    let (status, mark) = send_kept(cx, target, body)?;
    let accepted = (200..300).contains(&status);
    if accepted {
        let rule = match cx.run.catalogue.rule(&invalid.label.rule) {
            Some(_) => invalid.label.rule.as_str(),
            None => crate::generate::DEFAULT_RULE,
        };
        let message = format!(
            "an invalid body was accepted with {status}: {} at {} ({:?})",
            invalid.label.detail, invalid.label.pointer, invalid.label.kind
        );
        cx.finding(rule, message);
    }
    forget(cx, mark);
    Ok(accepted)
}

/// A body on one line, cut to 300 characters.
fn compact(body: &Value) -> String {
    let text = body.to_string();
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// The rule an invalid value of a list operation's parameter breaks, where the catalogue has one
/// (the outcome of most is not stated: `should` rules; the banking organization header's is).
fn param_rule(operation: &str, param: &crate::schema::Param) -> Option<&'static str> {
    match (operation, param.name.as_deref()) {
        ("list-events", Some("limit")) => Some("EVT-LIMIT-RANGE-REJECT"),
        ("list-events", Some("order" | "sort")) => Some("EVT-ORDER-ENUM"),
        ("list-events", Some("x-finops-version")) => Some("VER-FINOPS-MALFORMED"),
        ("list-transactions", Some("limit")) => Some("BPAG-LIMIT-REJECT"),
        ("list-transactions", None) if param.name_from_profile.is_some() => {
            Some("BANK-ORG-HEADER-MALFORMED-400")
        }
        _ => None,
    }
}

/// Invalid query and header values of the two list operations, drawn from the parameter schemas
/// of `schemas/operations.json`: each is refused with a 4xx, never a 5xx.
pub fn param_cases() -> Vec<Case> {
    let lists: [(&'static str, &'static [Need]); 2] = [
        ("list-events", &[Need::FinopsToken, Need::FinopsOrg]),
        (
            "list-transactions",
            &[Need::BankingToken, Need::BankAccount],
        ),
    ];
    lists
        .into_iter()
        .map(|(op, needs)| {
            let rules: Vec<&'static str> = crate::schema::operation(op)
                .map(|o| {
                    o.parameters
                        .iter()
                        .filter_map(|p| param_rule(op, p))
                        .collect()
                })
                .unwrap_or_default();
            Case::new(
                &format!("generated.params.{op}"),
                op,
                &rules,
                case_fn(move |cx| Box::pin(invalid_params(cx, op))),
            )
            .suite("generated")
            .needs(needs)
        })
        .collect()
}

async fn invalid_params(cx: &mut CaseCx, operation: &'static str) -> Outcome {
    let Some(op) = crate::schema::operation(operation) else {
        return Ok(());
    };
    for param in &op.parameters {
        let Some(rule) = param_rule(operation, param) else {
            continue;
        };
        let name = match (&param.name, &param.name_from_profile) {
            (Some(name), _) => name.clone(),
            (None, Some(_)) => match cx.run.org_header() {
                Some(name) => name.to_owned(),
                None => continue,
            },
            (None, None) => continue,
        };
        for (value, label) in crate::generate::invalid_param_values(&param.schema) {
            let request = list_request(cx, operation, &name, &value, param.location);
            let response = cx.send(operation, request).await?;
            let what = format!("{name} = {value:?} ({})", label.detail);
            if rule == "BANK-ORG-HEADER-MALFORMED-400" {
                cx.expect_status(&response, 400, rule, &what);
            } else if response.is_success() {
                cx.finding(
                    rule,
                    format!("{what} was accepted with {}", response.status),
                );
            }
        }
    }
    Ok(())
}

/// A list request with one parameter set to `value`.
fn list_request(
    cx: &CaseCx,
    operation: &str,
    name: &str,
    value: &str,
    location: crate::schema::ParamLocation,
) -> Request {
    let (base, path) = match operation {
        "list-events" => (cx.fin(Method::GET, paths::EVENTS), paths::EVENTS.to_owned()),
        _ => {
            let account = cx
                .run
                .banking()
                .and_then(|b| b.bank_account_id.clone())
                .unwrap_or_default();
            let path = paths::transactions(&account);
            (cx.bank(Method::GET, &path), path)
        }
    };
    match location {
        crate::schema::ParamLocation::Query => {
            let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            Request {
                path: format!("{path}?{name}={encoded}"),
                ..base
            }
        }
        _ => base.with_header(name, value),
    }
}
