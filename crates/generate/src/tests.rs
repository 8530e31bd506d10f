//! The engine against small inline schemas that use every keyword it supports.
//!
//! Validity is judged by a validator built here, independently of the engine's own.

use super::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

const ID: &str = "https://covenant.invalid/schemas/";

fn with_id(stem: &str, mut schema: Value) -> (String, Value) {
    schema["$id"] = json!(format!("{ID}{stem}.json"));
    schema["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    (stem.to_string(), schema)
}

pub(super) fn schemas() -> BTreeMap<String, Value> {
    let nullable_string = |max: u64, rule: &str| json!({"type": ["string", "null"], "maxLength": max, "x-rule": rule});
    let shared = |kind: &str| {
        json!({
            "type": {"const": kind, "x-rule": "RCV-TYPE-CONST"},
            "currency": {"type": "string", "minLength": 3, "maxLength": 3},
            "line_items": {"type": "array", "minItems": 1, "items": {"$ref": "line-item.json"}},
            "counterpart_id": {"type": "string", "format": "uuid"},
            "trade_name": nullable_string(255, "RCV-TRADE-NAME-MAX"),
            "counterpart_business_type": nullable_string(50, "RCV-BUSINESS-TYPE-MAX"),
            "document_id": {"type": ["string", "null"], "minLength": 1, "maxLength": 100},
            "withholding_tax_rate": {"type": ["integer", "null"], "minimum": 0, "maximum": 10000, "x-rule": "RCV-WITHHOLDING-RANGE"},
            "deductions": {"anyOf": [
                {"type": "array", "maxItems": 10, "items": {"$ref": "line-item.json#/$defs/deduction"}},
                {"type": "null"}
            ], "x-rule": "RCV-DEDUCTIONS-MAX"},
            "attachments": {"oneOf": [
                {"type": "array", "minItems": 1, "items": {"type": "object"}},
                {"type": "null"}
            ]},
            "bank_account_type": {"enum": ["INTERNAL", "EXTERNAL", "BANK_DETAILS", null]},
            "partner_metadata": {"type": "object"},
            "tag_ids": {"type": "array", "items": {"type": "string", "format": "uuid"}, "uniqueItems": true},
            "tax_exempt": {"type": ["boolean", "null"]},
            "project_id": {"type": ["string", "null"], "format": "uuid"}
        })
    };
    let body = |kind: &str, only: Value| {
        let mut properties = shared(kind);
        for (key, value) in only.as_object().into_iter().flatten() {
            properties[key] = value.clone();
        }
        json!({
            "type": "object",
            "x-rule": "RCV-UNKNOWN-PROPS",
            "additionalProperties": false,
            "required": ["type", "currency", "line_items", "counterpart_id"],
            "properties": properties
        })
    };
    [
        with_id("line-item", json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["product", "quantity", "vat_rate_id"],
            "properties": {
                "product": {
                    "type": "object",
                    "required": ["name", "price"],
                    "properties": {
                        "name": {"type": "string", "minLength": 1, "maxLength": 50},
                        "price": {"$ref": "#/$defs/money"},
                        "measure_unit": {"type": ["object", "null"], "properties": {"name": {"type": "string"}}}
                    }
                },
                "quantity": {"type": "number", "exclusiveMinimum": 0, "maximum": 1000},
                "vat_rate_id": {"type": "string", "format": "uuid"}
            },
            "$defs": {
                "money": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["value", "currency"],
                    "properties": {
                        "value": {"type": "number", "minimum": 0, "maximum": 10000},
                        "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]}
                    }
                },
                "deduction": {"type": "object", "properties": {"memo": {"type": "string", "maxLength": 20}}}
            }
        })),
        with_id("quote-create", body("quote", json!({
            "expiry_date": {"type": ["string", "null"], "format": "date", "x-rule": "RCV-QUOTE-EXPIRY-DATE"},
            "quote_accept_page_url": {"type": ["string", "null"], "format": "uri", "minLength": 1, "x-rule": "RCV-QUOTE-ACCEPT-URL"}
        }))),
        with_id("invoice-create", body("invoice", json!({
            "fulfillment_date": {"type": ["string", "null"], "format": "date"},
            "payment_page_url": {"type": ["string", "null"], "format": "uri", "minLength": 1, "maxLength": 2083, "x-rule": "RCV-PAYMENT-URL-LEN"},
            "purchase_order": nullable_string(100, "RCV-PURCHASE-ORDER-MAX"),
            "issued_at": {"type": "string", "format": "date-time"}
        }))),
        with_id("based-on-create", json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["type", "based_on"],
            "properties": {
                "type": {"type": "string", "enum": ["invoice", "credit_note"]},
                "based_on": {"type": "string", "format": "uuid", "x-rule": "RCV-BASED-ON-REQUIRED"},
                "tag_ids": {"type": "array", "items": {"type": "string", "format": "uuid"}}
            }
        })),
        with_id("receivable-create", json!({
            "x-rule": "RCV-ONE-OF-SHAPES",
            "oneOf": [
                {"$ref": "quote-create.json"},
                {"$ref": "invoice-create.json"},
                {"$ref": "based-on-create.json"}
            ]
        })),
        with_id("mailbox-domain-create", json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["domain"],
            "properties": {
                "domain": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 253,
                    "pattern": "^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$",
                    "x-rule": "MBX-DOMAIN-PATTERN"
                }
            }
        })),
        with_id("velocity-control-create", json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["amountLimit", "currencyCode", "velocityWindow"],
            "properties": {
                "id": {"type": "string", "minLength": 1, "maxLength": 64},
                "amountLimit": {"type": "integer", "minimum": 0},
                "currencyCode": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "name": {"type": "string", "maxLength": 100},
                "active": {"type": "boolean"},
                "cardId": {"type": "string", "format": "uuid"},
                "usageLimit": {"type": "integer", "minimum": -1},
                "velocityWindow": {"type": "string", "enum": ["DAY", "LIFETIME", "MONTH", "TRANSACTION", "WEEK"], "x-rule": "VC-WINDOW-ENUM"}
            },
            "allOf": [{
                "x-rule": "VC-TRANSACTION-NO-USAGE",
                "if": {"properties": {"velocityWindow": {"const": "TRANSACTION"}}, "required": ["velocityWindow"]},
                "then": {"not": {"required": ["usageLimit"]}}
            }]
        })),
    ]
    .into_iter()
    .collect()
}

const STEMS: &[&str] = &[
    "line-item",
    "quote-create",
    "invoice-create",
    "based-on-create",
    "receivable-create",
    "mailbox-domain-create",
    "velocity-control-create",
];

/// With a letter: an id of digits only has no other case to try, so its engine would try one
/// variant fewer than an engine beside it whose id has letters.
const COUNTERPART: &str = "11111111-2222-4333-8444-55555555555a";
const VAT_RATE: &str = "66666666-7777-4888-9999-aaaaaaaaaaaa";

fn options() -> GenOptions {
    let mut options = GenOptions::default();
    options
        .fixtures
        .insert("counterpart_id".into(), vec![json!(COUNTERPART)]);
    options
        .fixtures
        .insert("vat_rate_id".into(), vec![json!(VAT_RATE)]);
    options.always_include.insert(
        "velocity-control-create".into(),
        vec!["id".into(), "name".into()],
    );
    options
        .omit
        .insert("quote-create".into(), vec!["project_id".into()]);
    options
}

fn engine() -> Engine<BTreeMap<String, Value>> {
    Engine::new(schemas(), options())
}

/// An independent judge: the real validator over the same documents.
pub(super) struct IndependentJudge {
    docs: BTreeMap<String, Value>,
}

impl IndependentJudge {
    pub fn new(docs: BTreeMap<String, Value>) -> IndependentJudge {
        IndependentJudge { docs }
    }

    fn validator(&self, stem: &str) -> jsonschema::Validator {
        independent_validator(&self.docs[stem], self.docs.clone())
    }

    /// Keywords of the errors and their instance paths.
    pub fn errors(&self, stem: &str, instance: &Value) -> Vec<(String, String)> {
        let validator = self.validator(stem);
        covenant_contract::schema::errors(&validator, instance)
            .iter()
            .map(|error| {
                let keyword = error.kind().keyword().to_string();
                (keyword, error.instance_path().to_string())
            })
            .collect()
    }

    /// Whether every error of `stem` is explained by the label (looking into the branches of
    /// `anyOf`/`oneOf` errors: one branch must be explained whole).
    fn explained(&self, stem: &str, instance: &Value, label: &Label) -> bool {
        let validator = self.validator(stem);
        let errors = covenant_contract::schema::errors(&validator, instance);
        !errors.is_empty() && errors.iter().all(|error| explained(label, error))
    }

    /// The stems an instance of `stem` may have been built from (itself, or its `oneOf` refs).
    pub fn shapes_of(&self, stem: &str) -> Vec<String> {
        let branches = self.docs[stem].get("oneOf").and_then(Value::as_array);
        match branches {
            Some(branches) => branches
                .iter()
                .filter_map(|b| b.get("$ref").and_then(Value::as_str))
                .map(|r| r.trim_end_matches(".json").to_string())
                .collect(),
            None => vec![stem.to_string()],
        }
    }

    /// Panics unless `invalid` fails `stem`, and fails one of its shapes only at the labelled
    /// spot or for the labelled kind of reason.
    pub fn assert_breaks_for_its_reason(&self, stem: &str, invalid: &Invalid) {
        assert!(
            !self.errors(stem, &invalid.payload).is_empty(),
            "{stem}: labelled invalid but valid: {invalid:?}"
        );
        let explained = self
            .shapes_of(stem)
            .iter()
            .any(|shape| self.explained(shape, &invalid.payload, &invalid.label));
        assert!(
            explained,
            "{stem}: errors do not match the label {:?}: {:?} for {}",
            invalid.label,
            self.shapes_of(stem)
                .iter()
                .map(|s| self.errors(s, &invalid.payload))
                .collect::<Vec<_>>(),
            invalid.payload
        );
    }
}

fn independent_validator(root: &Value, docs: tree::Documents) -> jsonschema::Validator {
    let serve: covenant_contract::schema::DocumentSource = Box::new(move |uri| {
        let name = uri.trim_start_matches(ID).trim_end_matches(".json");
        docs.get(name).cloned().ok_or_else(|| "unknown".to_owned())
    });
    covenant_contract::schema::compile(root, None, Some(serve)).expect("test schemas compile")
}

fn explained(label: &Label, error: &jsonschema::ValidationError<'_>) -> bool {
    use jsonschema::error::ValidationErrorKind as K;
    let simple = explains(
        label,
        &(
            error.kind().keyword().to_string(),
            error.instance_path().to_string(),
        ),
    );
    match error.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } => {
            simple
                || context
                    .iter()
                    .any(|branch| !branch.is_empty() && branch.iter().all(|e| explained(label, e)))
        }
        _ => simple,
    }
}

fn explains(label: &Label, (keyword, at): &(String, String)) -> bool {
    let under = at == &label.pointer || at.starts_with(&format!("{}/", label.pointer));
    // Extra: a property forbidden by `not: {required: [...]}` also breaks that `not`.
    let extra: &[&str] = match label.kind {
        ConstraintKind::ExtraProperty => &["not"],
        ConstraintKind::ForbiddenCombination => &["not", "required", "falseSchema"],
        _ => &[],
    };
    let mut keywords = invalid::keywords(label.kind).iter().chain(extra);
    under || keywords.any(|k| *k == keyword.as_str())
}

fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, rng_for(20_260_924, "generate-tests"))
}

fn judge() -> IndependentJudge {
    IndependentJudge::new(schemas())
}

#[test]
fn thousands_of_valid_instances_validate_for_every_test_schema() {
    let engine = engine();
    let judge = judge();
    for stem in STEMS {
        let compiled = engine.compiled(stem).expect("compiles");
        // The unchecked strategy: the engine's own filter must not hide a generator bug.
        let strategy = valid::strategy(&compiled.shape, &[]);
        let validator = judge.validator(stem);
        let outcome = runner(1500).run(&strategy, |value| {
            let errors: Vec<String> = covenant_contract::schema::errors(&validator, &value)
                .iter()
                .map(|e| e.to_string())
                .collect();
            proptest::prop_assert!(errors.is_empty(), "{stem}: {value} -> {errors:?}");
            Ok(())
        });
        if let Err(error) = outcome {
            panic!("{error}");
        }
    }
}

#[test]
fn boundary_valid_instances_all_validate_and_hold_the_limits() {
    let engine = engine();
    let judge = judge();
    for stem in STEMS {
        let compiled = engine.compiled(stem).expect("compiles");
        let values = boundary::valid(&compiled.shape);
        assert!(
            values.len() > 2,
            "{stem}: only {} boundary values",
            values.len()
        );
        for value in &values {
            assert_eq!(judge.errors(stem, value), vec![], "{stem}: {value}");
        }
        assert_eq!(
            engine.boundary_valid(stem).expect("compiles"),
            values,
            "{stem}: none dropped"
        );
    }
}

fn chars_at(value: &Value, pointer: &str) -> Option<usize> {
    value.pointer(pointer)?.as_str().map(|s| s.chars().count())
}

#[test]
fn boundary_lists_hold_the_max_and_max_plus_one_pairs() {
    let engine = engine();
    for (stem, pointer, max) in [
        ("quote-create", "/trade_name", 255),
        ("quote-create", "/counterpart_business_type", 50),
        ("quote-create", "/document_id", 100),
        ("invoice-create", "/purchase_order", 100),
        ("invoice-create", "/payment_page_url", 2083),
        ("mailbox-domain-create", "/domain", 253),
        ("receivable-create", "/trade_name", 255),
    ] {
        let valid = engine.boundary_valid(stem).expect("compiles");
        assert!(
            valid.iter().any(|v| chars_at(v, pointer) == Some(max)),
            "{stem}: no valid {pointer} of {max}"
        );
        let invalid = engine.boundary_invalid(stem).expect("compiles");
        let over = invalid
            .iter()
            .find(|i| i.label.kind == ConstraintKind::TooLong && i.label.pointer == pointer)
            .unwrap_or_else(|| panic!("{stem}: no TooLong at {pointer}"));
        assert_eq!(chars_at(&over.payload, pointer), Some(max + 1));
        assert!(
            over.label
                .detail
                .contains(&format!("{} chars (max {max})", max + 1)),
            "{}",
            over.label.detail
        );
    }
}

#[test]
fn boundary_lists_hold_the_numeric_and_item_edges() {
    let engine = engine();
    let valid = engine.boundary_valid("quote-create").expect("compiles");
    for edge in [0, 10000] {
        assert!(
            valid
                .iter()
                .any(|v| v["withholding_tax_rate"] == json!(edge)),
            "valid {edge}"
        );
    }
    assert!(valid
        .iter()
        .any(|v| v["deductions"].as_array().is_some_and(|a| a.len() == 10)));
    let invalid = engine.boundary_invalid("quote-create").expect("compiles");
    let find = |kind: ConstraintKind, pointer: &str| {
        invalid
            .iter()
            .filter(|i| i.label.kind == kind && i.label.pointer == pointer)
            .map(|i| i.payload.pointer(pointer).cloned().unwrap_or(Value::Null))
            .collect::<Vec<_>>()
    };
    assert!(find(ConstraintKind::OutOfRange, "/withholding_tax_rate").contains(&json!(10001)));
    assert!(find(ConstraintKind::OutOfRange, "/withholding_tax_rate").contains(&json!(-1)));
    let too_many = find(ConstraintKind::TooManyItems, "/deductions");
    assert!(too_many
        .iter()
        .any(|v| v.as_array().is_some_and(|a| a.len() == 11)));
    let too_few = find(ConstraintKind::TooFewItems, "/line_items");
    assert_eq!(too_few, vec![json!([])]);
    let velocity = engine
        .boundary_valid("velocity-control-create")
        .expect("compiles");
    assert!(
        velocity.iter().any(|v| v["usageLimit"] == json!(-1)),
        "-1 means unlimited"
    );
}

#[test]
fn every_boundary_invalid_instance_fails_for_exactly_its_labelled_reason() {
    let engine = engine();
    let judge = judge();
    for stem in STEMS {
        let invalid = engine.boundary_invalid(stem).expect("compiles");
        assert!(invalid.len() > 5, "{stem}: only {} invalid", invalid.len());
        for case in &invalid {
            judge.assert_breaks_for_its_reason(stem, case);
        }
    }
}

#[test]
fn every_kind_of_constraint_is_broken_somewhere() {
    let engine = engine();
    let mut kinds = std::collections::BTreeSet::new();
    for stem in STEMS {
        for case in engine.boundary_invalid(stem).expect("compiles") {
            kinds.insert(case.label.kind);
        }
    }
    assert_eq!(kinds.len(), 16, "{kinds:?}");
}

#[test]
fn random_invalid_instances_fail_for_exactly_their_labelled_reason() {
    let engine = engine();
    let judge = judge();
    for stem in STEMS {
        check_random_invalid(&engine, &judge, stem, 400);
    }
}

/// Runs `cases` random invalid instances of `stem` past the judge.
fn check_random_invalid<S: SchemaSource>(
    engine: &Engine<S>,
    judge: &IndependentJudge,
    stem: &str,
    cases: u32,
) {
    let strategy = engine.invalid(stem).expect("compiles");
    let outcome = runner(cases).run(&strategy, |case| {
        let outcome = std::panic::catch_unwind(|| judge.assert_breaks_for_its_reason(stem, &case));
        outcome.map_err(|_| TestCaseError::fail(format!("{stem}: {case:?}")))
    });
    if let Err(error) = outcome {
        panic!("{error}");
    }
}

/// The rule of the first case of a kind at a pointer.
fn rule_of<'a>(cases: &'a [Invalid], kind: ConstraintKind, pointer: &str) -> Option<&'a str> {
    cases
        .iter()
        .find(|i| i.label.kind == kind && i.label.pointer == pointer)
        .map(|i| i.label.rule.as_str())
}

/// The velocity case of usageLimit with the TRANSACTION window, labelled with its rule.
fn transaction_with_usage(cases: &[Invalid]) -> &Invalid {
    let combination = cases
        .iter()
        .find(|i| i.label.kind == ConstraintKind::ForbiddenCombination)
        .expect("the TRANSACTION window with a usage limit");
    assert_eq!(combination.label.rule, "VC-TRANSACTION-NO-USAGE");
    combination
}

#[test]
fn labels_carry_the_nearest_rule() {
    let engine = engine();
    let invalid = engine
        .boundary_invalid("receivable-create")
        .expect("compiles");
    let rule_of = |kind, pointer| rule_of(&invalid, kind, pointer);
    assert_eq!(
        rule_of(ConstraintKind::TooLong, "/trade_name"),
        Some("RCV-TRADE-NAME-MAX")
    );
    assert_eq!(
        rule_of(ConstraintKind::ExtraProperty, "/covenant_unknown_property"),
        Some("RCV-UNKNOWN-PROPS")
    );
    assert_eq!(
        rule_of(ConstraintKind::WrongConst, "/type"),
        Some("RCV-TYPE-CONST")
    );
    let velocity = engine
        .boundary_invalid("velocity-control-create")
        .expect("compiles");
    let combination = transaction_with_usage(&velocity);
    assert_eq!(combination.label.pointer, "/usageLimit");
    assert_eq!(combination.payload["velocityWindow"], json!("TRANSACTION"));
    let plain = velocity
        .iter()
        .find(|i| i.label.pointer == "/amountLimit")
        .expect("amountLimit");
    assert_eq!(plain.label.rule, DEFAULT_RULE);
}

#[test]
fn quote_body_carrying_invoice_only_fields_is_invalid_for_receivable_create() {
    let engine = engine();
    let invalid = engine
        .boundary_invalid("receivable-create")
        .expect("compiles");
    let foreign = invalid
        .iter()
        .find(|i| i.label.pointer == "/fulfillment_date" && i.payload["type"] == json!("quote"))
        .expect("a quote with fulfillment_date");
    assert_eq!(foreign.label.kind, ConstraintKind::ExtraProperty);
    assert!(!engine
        .is_valid("receivable-create", &foreign.payload)
        .expect("compiles"));
}

#[test]
fn valid_instances_respect_the_transaction_window_rule() {
    let engine = engine();
    let strategy = engine.valid("velocity-control-create").expect("compiles");
    let values = sample(&strategy, &mut rng_for(3, "velocity"), 500);
    assert_eq!(values.len(), 500);
    assert!(values
        .iter()
        .any(|v| v["velocityWindow"] == json!("TRANSACTION")));
    assert!(values.iter().any(|v| v.get("usageLimit").is_some()));
    for value in &values {
        assert!(
            !(value["velocityWindow"] == json!("TRANSACTION") && value.get("usageLimit").is_some())
        );
    }
}

#[test]
fn same_seed_gives_the_same_payloads_in_the_same_order() {
    let engine = engine();
    for stem in ["receivable-create", "velocity-control-create"] {
        let valid = engine.valid(stem).expect("compiles");
        let invalid = engine.invalid(stem).expect("compiles");
        let draw = |seed| {
            let mut rng = rng_for(seed, stem);
            (sample(&valid, &mut rng, 30), sample(&invalid, &mut rng, 30))
        };
        assert_eq!(draw(42), draw(42));
        assert_ne!(draw(42), draw(43));
        // A fresh engine (a new run) draws the same.
        let again = engine_valid_draw(stem, 42);
        assert_eq!(draw(42).0, again);
    }
}

#[test]
fn draws_give_the_sampled_values_and_each_can_be_drawn_again_to_shrink() {
    let engine = engine();
    let strategy = engine.invalid("receivable-create").expect("compiles");
    // 70 values: three chunks, the last one short.
    let sampled = sample(&strategy, &mut rng_for(5, "draws"), 70);
    let drawn: Vec<(Invalid, TestRng)> =
        Draws::new(strategy.clone(), rng_for(5, "draws"), 70).collect();
    assert_eq!(drawn.len(), 70);
    let values: Vec<Invalid> = drawn.iter().map(|(v, _)| v.clone()).collect();
    assert_eq!(values, sampled);
    for (value, at) in drawn.into_iter().step_by(7) {
        let tree = redraw(&strategy, at).expect("the same draw succeeds again");
        assert_eq!(tree.current(), value);
    }
}

#[test]
fn plain_strings_shrink_to_their_shortest_run_of_a() {
    let strategy = super::text::plain_strategy(3, 40);
    let mut runner = runner(50);
    let outcome = runner.run(&strategy, |_| Err(TestCaseError::fail("always")));
    let Err(TestError::Fail(_, minimal)) = outcome else {
        panic!("the property cannot pass");
    };
    assert_eq!(minimal, "aaa");
    let long: Vec<String> = sample(&strategy, &mut rng_for(1, "plain"), 200);
    assert!(long.iter().all(|s| (3..=40).contains(&s.chars().count())));
    let distinct: std::collections::BTreeSet<&String> = long.iter().collect();
    assert!(distinct.len() > 190, "{} distinct strings", distinct.len());
}

fn engine_valid_draw(stem: &str, seed: u64) -> Vec<Value> {
    let strategy = engine().valid(stem).expect("compiles");
    sample(&strategy, &mut rng_for(seed, stem), 30)
}

#[test]
fn streams_are_independent_of_each_other_and_of_order() {
    let engine = engine();
    let strategy = engine.valid("quote-create").expect("compiles");
    let first = sample(&strategy, &mut rng_for(9, "a"), 10);
    let _other = sample(&strategy, &mut rng_for(9, "b"), 10);
    assert_eq!(first, sample(&strategy, &mut rng_for(9, "a"), 10));
    assert_ne!(first, sample(&strategy, &mut rng_for(9, "b"), 10));
}

#[test]
fn fixtures_name_the_referenced_ids() {
    let engine = engine();
    let strategy = engine.valid("quote-create").expect("compiles");
    for value in sample(&strategy, &mut rng_for(1, "fixtures"), 300) {
        assert_eq!(value["counterpart_id"], json!(COUNTERPART));
        for item in value["line_items"].as_array().expect("line_items") {
            assert_eq!(item["vat_rate_id"], json!(VAT_RATE));
        }
    }
    for value in engine.boundary_valid("quote-create").expect("compiles") {
        assert_eq!(value["counterpart_id"], json!(COUNTERPART));
    }
}

#[test]
fn always_include_and_omit_shape_every_valid_instance() {
    let engine = engine();
    let velocity = engine.valid("velocity-control-create").expect("compiles");
    for value in sample(&velocity, &mut rng_for(1, "include"), 200) {
        assert!(
            value.get("id").is_some() && value.get("name").is_some(),
            "{value}"
        );
    }
    let quote = engine.valid("receivable-create").expect("compiles");
    let values = sample(&quote, &mut rng_for(1, "omit"), 300);
    assert!(values.iter().any(|v| v["type"] == json!("quote")));
    for value in values.iter().filter(|v| v["type"] == json!("quote")) {
        assert!(value.get("project_id").is_none(), "{value}");
    }
    assert!(values
        .iter()
        .any(|v| v["type"] == json!("invoice") && v.get("project_id").is_some()));
}

#[test]
fn a_failing_valid_instance_shrinks_to_the_smallest_body() {
    let engine = engine();
    let strategy = engine.valid("quote-create").expect("compiles");
    let mut runner = runner(100);
    let outcome = runner.run(&strategy, |_| Err(TestCaseError::fail("always")));
    let Err(TestError::Fail(_, minimal)) = outcome else {
        panic!("the property cannot pass");
    };
    let keys: std::collections::BTreeSet<&str> = minimal
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["counterpart_id", "currency", "line_items", "type"].into(),
        "{minimal}"
    );
    assert_eq!(minimal["line_items"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_failing_invalid_instance_shrinks_but_keeps_its_broken_constraint() {
    let engine = engine();
    let strategy = engine.invalid("quote-create").expect("compiles");
    let mut runner = runner(2000);
    let outcome = runner.run(&strategy, |case| {
        let too_long =
            case.label.kind == ConstraintKind::TooLong && case.label.pointer == "/trade_name";
        proptest::prop_assert!(!too_long);
        Ok(())
    });
    let Err(TestError::Fail(_, minimal)) = outcome else {
        panic!("2000 cases never broke trade_name's length");
    };
    assert_eq!(minimal.label.kind, ConstraintKind::TooLong);
    assert_eq!(
        chars_at(&minimal.payload, "/trade_name"),
        Some(256),
        "{}",
        minimal.payload
    );
    assert_eq!(
        minimal.payload.as_object().map(|o| o.len()),
        Some(5),
        "{}",
        minimal.payload
    );
}

#[test]
fn invalid_parameter_values_break_integer_enum_date_and_uuid_schemas() {
    let raws = |schema: Value| -> Vec<String> {
        invalid_param_values(&schema)
            .into_iter()
            .map(|(raw, _)| raw)
            .collect()
    };
    let limit = raws(json!({"type": "integer", "minimum": 1, "maximum": 100}));
    for expected in ["0", "101", "abc"] {
        assert!(limit.contains(&expected.to_string()), "{limit:?}");
    }
    assert!(
        !limit.contains(&"1".to_string()),
        "text that reads as a valid integer: {limit:?}"
    );
    let order = raws(json!({"type": "string", "enum": ["asc", "desc"]}));
    assert!(
        !order.is_empty() && order.iter().all(|v| v != "asc" && v != "desc"),
        "{order:?}"
    );
    let date = raws(json!({"type": "string", "format": "date"}));
    for expected in ["not-a-date", "2026-13-45"] {
        assert!(date.contains(&expected.to_string()), "{date:?}");
    }
    let uuid = raws(json!({"type": "string", "format": "uuid"}));
    for expected in ["", "not-a-uuid"] {
        assert!(uuid.contains(&expected.to_string()), "{uuid:?}");
    }
    let labels = invalid_param_values(&json!({"type": "integer", "minimum": 1, "maximum": 100}));
    let (_, label) = labels.iter().find(|(raw, _)| raw == "101").expect("101");
    assert_eq!(label.kind, ConstraintKind::OutOfRange);
    assert_eq!(label.rule, DEFAULT_RULE);
}

#[test]
fn unknown_stems_and_unsupported_keywords_are_errors_not_panics() {
    let engine = engine();
    assert!(matches!(
        engine.valid("nope"),
        Err(GenerateError::UnknownStem { .. })
    ));
    let mut docs = BTreeMap::new();
    docs.insert(
        "odd".to_string(),
        json!({"type": "object", "minProperties": 2}),
    );
    let engine = Engine::new(docs, GenOptions::default());
    let error = engine.valid("odd").expect_err("unsupported");
    assert!(error.to_string().contains("minProperties"), "{error}");
}

/// The same properties over the real request-body schemas of `schemas/`.
mod real {
    use super::*;
    use covenant_contract::schema::Registry;

    const BODIES: &[&str] = &[
        "quote-create",
        "invoice-create",
        "based-on-create",
        "receivable-create",
        "vat-id-create",
        "comment-update",
        "mailbox-domain-create",
        "velocity-control-create",
    ];

    fn docs() -> BTreeMap<String, Value> {
        let registry = Registry::embedded();
        registry
            .names()
            .filter_map(|stem| Some((stem.to_string(), registry.schema(stem)?.clone())))
            .collect()
    }

    fn engine() -> Engine<&'static Registry> {
        let mut options = options();
        let include = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        options.always_include.insert(
            "vat-id-create".into(),
            include(&["value", "country", "type"]),
        );
        options.always_include.insert(
            "velocity-control-create".into(),
            include(&[
                "id",
                "amountLimit",
                "currencyCode",
                "name",
                "velocityWindow",
            ]),
        );
        Engine::new(Registry::embedded(), options)
    }

    #[test]
    fn valid_instances_of_every_body_schema_validate() {
        let engine = engine();
        let judge = IndependentJudge::new(docs());
        for stem in BODIES {
            let compiled = engine.compiled(stem).expect("compiles");
            let strategy = valid::strategy(&compiled.shape, &[]);
            let outcome = runner(1000).run(&strategy, |value| {
                let errors = judge.errors(stem, &value);
                proptest::prop_assert!(errors.is_empty(), "{stem}: {value} -> {errors:?}");
                Ok(())
            });
            if let Err(error) = outcome {
                panic!("{error}");
            }
            let boundary = boundary::valid(&compiled.shape);
            for value in &boundary {
                assert_eq!(judge.errors(stem, value), vec![], "{stem}: {value}");
            }
        }
    }

    #[test]
    fn invalid_instances_of_every_body_schema_fail_for_their_labelled_reason() {
        let engine = engine();
        let judge = IndependentJudge::new(docs());
        for stem in BODIES {
            let boundary = engine.boundary_invalid(stem).expect("compiles");
            assert!(
                boundary.len() > 3,
                "{stem}: only {} invalid",
                boundary.len()
            );
            for case in &boundary {
                judge.assert_breaks_for_its_reason(stem, case);
            }
            check_random_invalid(&engine, &judge, stem, 300);
        }
    }

    /// Invalid instances of every body schema, boundary ones first, then `random` drawn ones.
    fn invalid_instances(
        engine: &Engine<&'static Registry>,
        stem: &str,
        random: u32,
    ) -> Vec<Invalid> {
        let mut out = engine.boundary_invalid(stem).expect("compiles");
        let strategy = engine.invalid(stem).expect("compiles");
        let mut runner = runner(random);
        for _ in 0..random {
            let tree = strategy.new_tree(&mut runner).expect("a value");
            out.push(tree.current());
        }
        out
    }

    #[test]
    fn wrong_types_and_enum_outsiders_are_values_no_lax_binder_reads_as_valid() {
        let engine = engine();
        let lax_scalar = |v: &Value| match v {
            Value::String(s) => {
                s.parse::<f64>().is_ok()
                    || [
                        "true", "false", "yes", "no", "on", "off", "t", "f", "y", "n",
                    ]
                    .contains(&s.to_lowercase().as_str())
            }
            Value::Number(n) => n.as_f64().is_some_and(|f| f.fract() != 0.0),
            _ => false,
        };
        let listed: Vec<String> = ["country", "type"]
            .iter()
            .flat_map(|def| {
                let vat = Registry::embedded().schema("vat-id").expect("vat-id");
                vat["$defs"][def]["enum"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|v| v.as_str().map(str::to_lowercase))
            .collect();
        assert!(listed.len() > 250, "the VAT ID lists: {}", listed.len());
        let mut seen = 0;
        for stem in BODIES {
            for case in invalid_instances(&engine, stem, 200) {
                let value = case.payload.pointer(&case.label.pointer).cloned();
                let Some(value) = value else { continue };
                match case.label.kind {
                    ConstraintKind::WrongType => {
                        seen += 1;
                        assert!(!lax_scalar(&value), "{stem}: {}", case.label.detail);
                    }
                    ConstraintKind::NotInEnum if *stem == "vat-id-create" => {
                        seen += 1;
                        let s = value.as_str().unwrap_or_default();
                        let lower = s.to_lowercase();
                        // A country code in lower case, on purpose: ISO 3166-1 spells its codes in
                        // upper case (`x-case: exact`). No other value is another case of one.
                        let country = case.label.pointer == "/country" && s == lower;
                        let lowered = country && listed.contains(&lower);
                        assert!(
                            lowered || !listed.contains(&lower),
                            "{stem}: {}",
                            case.label.detail
                        );
                    }
                    ConstraintKind::NotInEnum => {
                        seen += 1;
                        let s = value.as_str().unwrap_or_default();
                        // A window in lower case is read as the listed one by case-insensitive
                        // binders, which the spec does not forbid: never sent.
                        assert!(
                            !["day", "lifetime", "month", "transaction", "week"].contains(&s),
                            "{stem}: {}",
                            case.label.detail
                        );
                    }
                    _ => {}
                }
            }
        }
        assert!(
            seen > 100,
            "only {seen} wrong types and outsiders were looked at"
        );
    }

    #[test]
    fn a_country_code_in_lower_case_is_a_breach_and_a_window_in_lower_case_is_not() {
        let engine = engine();
        let lowered = |stem: &str, pointer: &str| {
            let boundary = engine.boundary_invalid(stem).expect("compiles");
            boundary
                .into_iter()
                .filter(|case| case.label.pointer == pointer)
                .filter_map(|case| case.payload.pointer(pointer).cloned())
                .filter_map(|v| v.as_str().map(str::to_owned))
                .filter(|s| s.len() >= 2 && *s == s.to_lowercase() && !s.contains('_'))
                .collect::<Vec<_>>()
        };
        assert_eq!(lowered("vat-id-create", "/country"), ["af"]);
        assert!(lowered("velocity-control-create", "/velocityWindow").is_empty());
    }

    #[test]
    fn null_is_a_breach_only_where_the_spec_types_fields_with_or_without_null() {
        let engine = engine();
        let nulls = |stem: &str| {
            invalid_instances(&engine, stem, 200)
                .into_iter()
                .filter(|case| case.label.kind == ConstraintKind::UnexpectedNull)
                .map(|case| case.label.pointer)
                .collect::<Vec<_>>()
        };
        // Bodies described in prose: whether null is allowed is not shown.
        for stem in ["velocity-control-create", "comment-update", "vat-id-create"] {
            assert_eq!(nulls(stem), Vec::<String>::new(), "{stem}");
        }
        // The receivable tables say "or null" where null is allowed: elsewhere it breaks the type.
        let quote = nulls("quote-create");
        assert!(quote.contains(&"/partner_metadata".to_owned()), "{quote:?}");
    }

    #[test]
    fn real_labels_name_the_rules_of_the_catalogue() {
        let engine = engine();
        let quote = engine.boundary_invalid("quote-create").expect("compiles");
        let rule_of = |kind, pointer| rule_of(&quote, kind, pointer);
        assert_eq!(
            rule_of(ConstraintKind::MissingRequired, "/currency"),
            Some("RCV-REQUIRED")
        );
        assert_eq!(
            rule_of(ConstraintKind::ExtraProperty, "/covenant_unknown_property"),
            Some("RCV-UNKNOWN-PROPS")
        );
        assert_eq!(
            rule_of(ConstraintKind::TooLong, "/trade_name"),
            Some("RCV-TRADE-NAME-MAX")
        );
        let velocity = engine
            .boundary_invalid("velocity-control-create")
            .expect("compiles");
        transaction_with_usage(&velocity);
        let catalogue: Vec<String> = covenant_contract::catalogue::RULES_TOML
            .lines()
            .filter_map(|line| line.strip_prefix("id = \""))
            .map(|rest| rest.trim_end_matches('"').to_string())
            .collect();
        for stem in BODIES {
            for case in engine.boundary_invalid(stem).expect("compiles") {
                assert!(
                    catalogue.contains(&case.label.rule),
                    "{stem}: {:?}",
                    case.label
                );
            }
        }
    }
}

#[test]
fn engines_over_the_embedded_schemas_with_the_same_options_compile_a_schema_once() {
    let registry = covenant_contract::schema::Registry::embedded();
    let compiled = |engine: &Engine<&covenant_contract::schema::Registry>| {
        engine
            .compiled("vat-id-create")
            .expect("the schema compiles")
    };
    let (first, second) = (
        Engine::new(registry, options()),
        Engine::new(registry, options()),
    );
    assert!(Arc::ptr_eq(&compiled(&first), &compiled(&second)));
    let other = Engine::new(registry, GenOptions::default());
    assert!(!Arc::ptr_eq(&compiled(&first), &compiled(&other)));
    // Schemas of a test's own are never shared: they may differ under the same stem.
    let (own, again) = (
        Engine::new(schemas(), options()),
        Engine::new(schemas(), options()),
    );
    let of = |e: &Engine<BTreeMap<String, Value>>| e.compiled("quote-create").expect("compiles");
    assert!(!Arc::ptr_eq(&of(&own), &of(&again)));
}

/// The second target's fixtures: the same properties, other ids.
fn other_fixtures() -> GenOptions {
    let mut options = options();
    options.fixtures.insert(
        "counterpart_id".into(),
        vec![json!("0f0f0f0f-1e1e-4d2d-8c3c-4b4b4b4b4b4b")],
    );
    options.fixtures.insert(
        "vat_rate_id".into(),
        vec![json!("a0a0a0a0-b1b1-4c2c-9d3d-e4e4e4e4e4e4")],
    );
    options
}

#[test]
fn an_engine_beside_a_leader_generates_what_its_own_options_would() {
    let leader = options().fixtures;
    let beside = Engine::new(schemas(), other_fixtures()).following(&leader);
    let own = Engine::new(schemas(), other_fixtures());
    assert!(beside.translation.is_some(), "the fixture values differ");
    for stem in STEMS {
        let (a, b) = (beside.boundary_valid(stem), own.boundary_valid(stem));
        assert_eq!(
            a.expect("beside"),
            b.expect("own"),
            "{stem}: boundary valid"
        );
        let (a, b) = (beside.acceptance(stem), own.acceptance(stem));
        assert_eq!(a.expect("beside"), b.expect("own"), "{stem}: acceptance");
        let (a, b) = (beside.boundary_invalid(stem), own.boundary_invalid(stem));
        assert_eq!(
            a.expect("beside"),
            b.expect("own"),
            "{stem}: boundary invalid"
        );
        let draws = |strategy| sample(&strategy, &mut rng_for(7, stem), 40);
        let (a, b) = (beside.valid(stem), own.valid(stem));
        assert_eq!(
            draws(a.expect("beside")),
            draws(b.expect("own")),
            "{stem}: valid"
        );
        let sample_invalid = |e: &Engine<_>| {
            e.invalid(stem)
                .ok()
                .map(|s| sample(&s, &mut rng_for(7, stem), 40))
        };
        assert_eq!(
            sample_invalid(&beside),
            sample_invalid(&own),
            "{stem}: invalid"
        );
    }
    let leading = engine().boundary_valid("quote-create").expect("quote");
    let mine = beside.boundary_valid("quote-create").expect("quote");
    assert!(leading
        .iter()
        .any(|v| v["counterpart_id"] == json!(COUNTERPART)));
    assert!(
        mine.iter()
            .all(|v| v.get("counterpart_id").is_none_or(|id| id != COUNTERPART)),
        "the leader's id never reaches the second target"
    );
}

#[test]
fn a_fixture_the_leader_gives_more_values_is_no_exchange() {
    let mut leader = options().fixtures;
    leader
        .get_mut("counterpart_id")
        .expect("counterpart")
        .push(json!("22222222-2222-4333-8444-555555555555"));
    let beside = Engine::new(schemas(), other_fixtures()).following(&leader);
    assert!(beside.translation.is_none());
    assert_eq!(
        beside.options,
        other_fixtures(),
        "it compiles with its own options"
    );
}

/// The parameter side of the inventory: each constraint broken by a value its generator labels,
/// and held by a request's value at its edge.
#[test]
fn every_parameter_constraint_is_broken_by_a_labelled_value_and_held_by_its_edge() {
    let all = Inventory::embedded().constraints();
    for id in [
        "list-events query limit maximum 100",
        "list-events query limit minimum 1",
        "list-events query order enum",
        "list-events query sort enum value \"updated_at\"",
        "get-vat-id path vat_id format uuid",
        "delete-bank-account path bank_account_id format uuid",
        "finance header x-finops-version format date",
        "finance header x-organization-id format uuid",
        "banking header {banking.org_header} format uuid",
    ] {
        assert!(all.iter().any(|c| c.id == id), "{id} missing");
    }
    // A header of the area is one constraint, however many operations carry it.
    let version = all
        .iter()
        .filter(|c| c.id.contains("x-finops-version format"));
    assert_eq!(version.count(), 1);
    for c in all
        .iter()
        .filter(|c| c.param.is_some() && c.unbreakable.is_none())
    {
        let op = c.operation.operation();
        let named = op.parameters.iter().any(|p| {
            param_breaches(c.operation, p)
                .iter()
                .any(|(_, label)| label.constraint.as_deref() == Some(c.id.as_str()))
        });
        assert!(named, "no value breaks {}", c.id);
    }
    let op = covenant_contract::schema::OperationId::ListEvents;
    let query = |q: &'static str| move |at: &ParamAt| (at.name == "limit").then(|| q.to_owned());
    let max = Inventory::embedded().index_of(op, "list-events query limit maximum 100");
    let held = Inventory::embedded().held_by_params(op, &query("100"));
    assert!(held.contains(&max.expect("inventoried")));
    assert!(!Inventory::embedded()
        .held_by_params(op, &query("99"))
        .contains(&max.unwrap()));
    // The area's header is held under any operation that carries it.
    let header = |at: &ParamAt| (at.name == "x-organization-id").then(|| "x".to_owned());
    let id = "finance header x-organization-id format uuid";
    let index =
        Inventory::embedded().index_of(covenant_contract::schema::OperationId::DeleteTag, id);
    assert!(Inventory::embedded()
        .held_by_params(covenant_contract::schema::OperationId::DeleteTag, &header)
        .contains(&index.expect("listed under delete-tag too")));
}

/// The trace both ways for request constraints: every constraint the inventory derives rests on
/// an entry of `cases/trace.toml`, one whose rule fails a target (`must`) on a stated entry
/// (a sample shape or a phrase with two readings judges as `should` at most), and every
/// constraint glob of the trace names a constraint that exists.
#[test]
fn every_constraint_rests_on_the_trace_and_a_must_one_on_a_stated_entry() {
    use covenant_contract::catalogue::{Catalogue, Level};
    use covenant_contract::trace::{glob, Strength, Trace};
    let (trace, catalogue) = (Trace::embedded(), Catalogue::embedded());
    let constraints = Inventory::embedded().constraints();
    let mut problems = Vec::new();
    for c in constraints {
        let strongest = trace.naming_constraint(&c.id).map(|e| e.strength).min();
        let must = catalogue.rule(&c.rule).map(|r| r.level) == Some(Level::Must);
        match strongest {
            None => problems.push(format!("constraint {} is named by no entry", c.id)),
            Some(s) if must && s != Strength::Stated => problems.push(format!(
                "constraint {} is judged under the must rule {} but rests on no stated entry \
                 (its strongest is {s})",
                c.id, c.rule
            )),
            Some(_) => {}
        }
    }
    for entry in &trace.entries {
        for pattern in &entry.constraints {
            if !constraints.iter().any(|c| glob(pattern, &c.id)) {
                problems.push(format!(
                    "entry {}: {pattern:?} names no constraint",
                    entry.id
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The positive variants ([`crate::accept`]) of the real schemas, as the engine hands them out:
/// here, since `accept.rs`'s own tests would import the engine that imports it.
mod acceptance {
    use crate::{AcceptKind, Engine, GenOptions};
    use covenant_contract::schema::Registry;
    use serde_json::json;

    fn engine() -> Engine<&'static Registry> {
        Engine::new(Registry::embedded(), GenOptions::default())
    }

    #[test]
    fn every_variant_is_valid_and_differs_from_its_baseline_only_at_its_pointer() {
        let engine = engine();
        for stem in [
            "quote-create",
            "invoice-create",
            "vat-id-create",
            "velocity-control-create",
        ] {
            let acceptance = engine.acceptance(stem).expect("the schema compiles");
            assert!(!acceptance.variants.is_empty(), "{stem} has variants");
            for v in &acceptance.variants {
                assert!(
                    engine.is_valid(stem, &v.payload).unwrap(),
                    "{stem} {}",
                    v.detail
                );
                let baseline = &acceptance.baselines[v.baseline];
                let field = v.pointer.split('/').nth(1).unwrap_or_default();
                let (mut a, mut b) = (baseline.clone(), v.payload.clone());
                for object in [&mut a, &mut b] {
                    if let Some(map) = object.as_object_mut() {
                        map.remove(field);
                    }
                }
                assert_eq!(a, b, "{stem}: {} changes more than {field}", v.detail);
                if let Some(beside) = v.beside {
                    assert!(beside < acceptance.variants.len(), "{}", v.detail);
                    let control = acceptance.variants[beside].kind;
                    assert!(
                        [
                            AcceptKind::Characters,
                            AcceptKind::Ordinary,
                            AcceptKind::Optional,
                            AcceptKind::Default,
                            // One item of a list is an ordinary value of its items.
                            AcceptKind::ValueClass,
                        ]
                        .contains(&control),
                        "{}",
                        v.detail
                    );
                }
            }
        }
    }

    #[test]
    fn every_listed_country_and_type_of_a_vat_id_is_a_variant() {
        let acceptance = engine().acceptance("vat-id-create").unwrap();
        let listed = |field: &str| {
            acceptance
                .variants
                .iter()
                .filter(|v| v.kind == AcceptKind::Listed && v.pointer == format!("/{field}"))
                .count()
        };
        // The spec lists 250 countries and 47 types; the baseline holds one of each already.
        assert!(listed("country") >= 249, "{}", listed("country"));
        assert!(listed("type") >= 46, "{}", listed("type"));
    }

    #[test]
    fn a_maximum_length_is_tried_in_code_points_beside_a_short_control_of_the_same_characters() {
        let acceptance = engine().acceptance("vat-id-create").unwrap();
        let value = |v: &super::Accept| v.payload["value"].as_str().unwrap_or_default().to_owned();
        let wide: Vec<_> = acceptance
            .variants
            .iter()
            .filter(|v| v.kind == AcceptKind::CodePoints)
            .collect();
        assert_eq!(
            wide.len(),
            3,
            "one 2-byte, one outside the BMP, one combining pair"
        );
        for v in wide {
            let s = value(v);
            assert_eq!(s.chars().count(), 32, "{}", v.detail);
            assert!(s.len() > 32, "more bytes than code points: {}", v.detail);
            let control = &acceptance.variants[v.beside.expect("judged beside its control")];
            let c = value(control);
            assert_eq!(c.chars().next(), s.chars().next(), "the same character");
            assert!(c.len() <= 32, "the control fits even counted in bytes: {c}");
        }
        let astral = acceptance
            .variants
            .iter()
            .any(|v| v.kind == AcceptKind::CodePoints && value(v).encode_utf16().count() == 64);
        assert!(astral, "a variant that a UTF-16 count doubles");
    }

    #[test]
    fn null_is_a_variant_only_where_the_schema_says_or_null() {
        let engine = engine();
        let nulls = |stem: &str| -> Vec<String> {
            let acceptance = engine.acceptance(stem).unwrap();
            let mut fields: Vec<String> = acceptance
                .variants
                .iter()
                .filter(|v| v.kind == AcceptKind::Null)
                .map(|v| v.pointer.trim_start_matches('/').to_owned())
                .collect();
            fields.sort();
            fields
        };
        let mut expected = engine.nullable_properties("quote-create").unwrap();
        expected.sort();
        assert_eq!(nulls("quote-create"), expected);
        assert!(
            nulls("velocity-control-create").is_empty(),
            "mcc is untyped, not nullable"
        );
        assert!(nulls("vat-id-create").is_empty());
    }
    /// The variants of `stem` at `pointer` of `kind`, as (value, beside's kind) pairs.
    fn at(
        acceptance: &super::Acceptance,
        pointer: &str,
        kind: AcceptKind,
    ) -> Vec<(String, Option<AcceptKind>)> {
        acceptance
            .variants
            .iter()
            .filter(|v| v.pointer == pointer && v.kind == kind)
            .map(|v| {
                let value = v.payload.pointer(pointer).and_then(|x| x.as_str());
                let beside = v.beside.map(|b| acceptance.variants[b].kind);
                (value.unwrap_or_default().to_owned(), beside)
            })
            .collect()
    }

    #[test]
    fn a_date_is_tried_in_each_class_beside_an_ordinary_date_and_far_only_where_any_date_is_valid()
    {
        let engine = engine();
        let values = |stem: &str, pointer: &str| -> Vec<String> {
            let acceptance = engine.acceptance(stem).unwrap();
            let classes = at(&acceptance, pointer, AcceptKind::Class);
            for (value, beside) in &classes {
                // Beside an ordinary date: the field's own, or the field present at all.
                let ordinary = [AcceptKind::Ordinary, AcceptKind::Optional];
                assert!(ordinary.contains(&beside.unwrap()), "{stem} {value}");
            }
            classes.into_iter().map(|(v, _)| v).collect()
        };
        let year = super::super::text::near_year();
        let leap = (year..).find(|y| time::util::is_leap_year(*y)).unwrap();
        let near = [
            format!("{leap}-02-29"),
            format!("{year}-04-30"),
            format!("{year}-12-31"),
        ];
        let far = ["1900-01-01".to_owned(), "2999-12-31".to_owned()];
        // A quote's expiry may refuse a past date: the spec does not say it may be past.
        let expiry = values("quote-create", "/expiry_date");
        assert_eq!(expiry, near, "{expiry:?}");
        // "may be past, present or future".
        let fulfillment = values("invoice-create", "/fulfillment_date");
        assert_eq!(
            fulfillment,
            [&near[..], &far[..]].concat(),
            "{fulfillment:?}"
        );
        // Nested shapes get theirs too.
        let end = values("invoice-create", "/payment_terms/term_final/end_date");
        assert_eq!(end, near, "{end:?}");
    }

    #[test]
    fn a_mailbox_domain_is_tried_in_each_class_of_its_pattern() {
        let acceptance = engine().acceptance("mailbox-domain-create").unwrap();
        let domains: Vec<String> = at(&acceptance, "/domain", AcceptKind::Class)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        for class in [
            "123.example.com",
            "xn--bcher-kva.example",
            "a.example.com",
            "a.b.c.d.e.f.g.h.example.com",
        ] {
            assert!(domains.contains(&class.to_owned()), "{class}: {domains:?}");
        }
        let longest = domains
            .iter()
            .flat_map(|d| d.split('.'))
            .map(str::len)
            .max();
        assert_eq!(longest, Some(63), "{domains:?}");
        let controls = at(&acceptance, "/domain", AcceptKind::Ordinary);
        assert_eq!(controls.len(), 1, "one ordinary domain: {controls:?}");
    }

    #[test]
    fn an_id_the_profile_gives_is_tried_in_its_other_case_beside_the_id_as_given() {
        let counterpart = "11111111-2222-4333-8444-55555555aaaa";
        let vat_rate = "66666666-7777-4888-9999-AAAAAAAAAAAA";
        let mut options = GenOptions::default();
        options
            .fixtures
            .insert("counterpart_id".into(), vec![json!(counterpart)]);
        options
            .fixtures
            .insert("vat_rate_id".into(), vec![json!(vat_rate)]);
        let engine = Engine::new(Registry::embedded(), options);
        let acceptance = engine.acceptance("quote-create").unwrap();
        // The id as given is the baseline's own: the other case is judged beside the baseline.
        let top = at(&acceptance, "/counterpart_id", AcceptKind::UuidCase);
        assert_eq!(top, [(counterpart.to_uppercase(), None)]);
        // Nested, beside a line item holding the id as given.
        let nested = "/line_items/0/vat_rate_id";
        let item = at(&acceptance, nested, AcceptKind::UuidCase);
        assert_eq!(
            item,
            [(vat_rate.to_lowercase(), Some(AcceptKind::Ordinary))]
        );
        assert_eq!(at(&acceptance, nested, AcceptKind::Ordinary)[0].0, vat_rate);
        // Never another id than the profile's, nor a class of a fixture's format.
        assert!(at(&acceptance, "/counterpart_id", AcceptKind::Class).is_empty());
    }

    #[test]
    fn a_uuid_the_target_need_not_know_is_tried_in_upper_case() {
        let acceptance = engine().acceptance("quote-create").unwrap();
        let upper = at(&acceptance, "/project_id", AcceptKind::Class);
        assert_eq!(upper.len(), 1, "{upper:?}");
        assert_eq!(upper[0].0, upper[0].0.to_uppercase());
    }
}
