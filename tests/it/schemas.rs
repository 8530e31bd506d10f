//! The schemas as a contract: every file valid, every boundary of the spec held, the check
//! command catching a broken copy, and the OpenAPI output accepted by a real validator.

use covenant::catalogue::Catalogue;
use covenant::schema::{
    check_sources, operation, operations, run_check, Area, Registry, Security, OPERATIONS_JSON,
    SCHEMA_FILES,
};
use serde_json::{json, Value};
use std::process::Command;

const COUNTERPART: &str = "6b1e2f0a-9c4d-4e8b-a1f2-3c4d5e6f7a8b";

fn registry() -> &'static Registry {
    Registry::embedded()
}

fn body(kind: &str) -> Value {
    json!({
        "type": kind,
        "currency": "EUR",
        "line_items": [{"quantity": 1, "vat_rate_id": COUNTERPART}],
        "counterpart_id": COUNTERPART,
    })
}

fn with(mut value: Value, key: &str, field: Value) -> Value {
    value[key] = field;
    value
}

fn assert_accepted(stem: &str, instance: &Value) {
    if let Err(issues) = registry().validate(stem, instance) {
        panic!("{stem} must accept the instance, got {issues:#?}");
    }
}

/// Rejected, with at least one issue labelled `rule`.
fn assert_rejected_for(stem: &str, instance: &Value, rule: &str) {
    match registry().validate(stem, instance) {
        Ok(()) => panic!("{stem} must reject the instance ({rule})"),
        Err(issues) => assert!(
            issues.iter().any(|i| i.rule.as_deref() == Some(rule)),
            "{stem} rejects, but not for {rule}: {issues:#?}"
        ),
    }
}

/// A receivable field's boundary pair, checked in both the quote and the invoice body.
fn assert_body_bounds(field: &str, accepted: &[Value], rejected: &[Value], rule: &str) {
    for (stem, kind) in [("quote-create", "quote"), ("invoice-create", "invoice")] {
        for value in accepted {
            assert_accepted(stem, &with(body(kind), field, value.clone()));
        }
        for value in rejected {
            assert_rejected_for(stem, &with(body(kind), field, value.clone()), rule);
        }
    }
}

fn text(length: usize) -> Value {
    Value::String("x".repeat(length))
}

fn objects(count: usize) -> Value {
    Value::Array(vec![json!({}); count])
}

#[test]
fn every_embedded_schema_is_valid_and_its_examples_behave() {
    let report = check_sources(SCHEMA_FILES, OPERATIONS_JSON, Catalogue::embedded());
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.schemas, 27);
    assert!(report.examples >= 50, "{}", report.summary());
    assert!(report.negative_examples >= 100, "{}", report.summary());
}

#[test]
fn schemas_check_command_exits_zero_with_a_summary() {
    let output = crate::support::covenant()
        .args(["schemas", "check"])
        .output()
        .expect("the covenant binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.trim_end().ends_with("all good"), "{stdout}");
    assert!(stdout.contains("27 schemas"), "{stdout}");
}

#[test]
fn trade_name_255_is_accepted_and_256_rejected() {
    assert_body_bounds(
        "trade_name",
        &[text(255)],
        &[text(256)],
        "RCV-TRADE-NAME-MAX",
    );
}

#[test]
fn withholding_tax_rate_0_and_10000_are_accepted_and_minus_1_and_10001_rejected() {
    assert_body_bounds(
        "withholding_tax_rate",
        &[json!(0), json!(10000)],
        &[json!(-1), json!(10001)],
        "RCV-WITHHOLDING-RANGE",
    );
}

#[test]
fn ten_deductions_are_accepted_and_eleven_rejected() {
    assert_body_bounds(
        "deductions",
        &[objects(10)],
        &[objects(11)],
        "RCV-DEDUCTIONS-MAX",
    );
}

#[test]
fn empty_attachments_are_rejected_but_null_and_one_accepted() {
    assert_body_bounds(
        "attachments",
        &[Value::Null, objects(1)],
        &[json!([])],
        "RCV-ATTACHMENTS-MIN",
    );
}

#[test]
fn document_id_of_1_and_100_is_accepted_and_empty_and_101_rejected() {
    assert_body_bounds(
        "document_id",
        &[text(1), text(100)],
        &[text(0), text(101)],
        "RCV-DOCUMENT-ID-LEN",
    );
}

#[test]
fn counterpart_business_type_50_is_accepted_and_51_rejected() {
    assert_body_bounds(
        "counterpart_business_type",
        &[text(50)],
        &[text(51)],
        "RCV-BUSINESS-TYPE-MAX",
    );
    let response = &registry().schema("quote-response").expect("schema")["examples"][0];
    assert_rejected_for(
        "quote-response",
        &with(response.clone(), "counterpart_business_type", text(51)),
        "RCV-BUSINESS-TYPE-MAX",
    );
}

#[test]
fn purchase_order_100_is_accepted_and_101_rejected() {
    assert_accepted(
        "invoice-create",
        &with(body("invoice"), "purchase_order", text(100)),
    );
    assert_rejected_for(
        "invoice-create",
        &with(body("invoice"), "purchase_order", text(101)),
        "RCV-PURCHASE-ORDER-MAX",
    );
}

#[test]
fn payment_page_url_of_2083_is_accepted_and_empty_and_2084_rejected() {
    let url = |length: usize| {
        let prefix = "https://example.com/";
        Value::String(format!("{prefix}{}", "p".repeat(length - prefix.len())))
    };
    let invoice = |value: Value| with(body("invoice"), "payment_page_url", value);
    // The shortest absolute URI ("a:") stands for length 1: the uri format allows no shorter.
    assert_accepted("invoice-create", &invoice(json!("a:")));
    assert_accepted("invoice-create", &invoice(url(2083)));
    assert_rejected_for("invoice-create", &invoice(text(0)), "RCV-PAYMENT-URL-LEN");
    assert_rejected_for("invoice-create", &invoice(url(2084)), "RCV-PAYMENT-URL-LEN");
}

#[test]
fn vat_value_32_is_accepted_and_33_rejected() {
    let create = |value: Value| json!({"value": value, "country": "DE", "type": "eu_vat"});
    assert_accepted("vat-id-create", &create(text(32)));
    assert_rejected_for("vat-id-create", &create(text(33)), "VAT-VALUE-MAX");
    let read = |value: Value| json!({"id": COUNTERPART, "counterpart_id": COUNTERPART, "value": value, "country": "DE", "type": "eu_vat"});
    assert_accepted("vat-id", &read(text(32)));
    assert_rejected_for("vat-id", &read(text(33)), "VAT-VALUE-MAX");
}

#[test]
fn quote_body_rejects_invoice_only_fields() {
    for (field, value) in [
        ("fulfillment_date", json!("2026-01-01")),
        ("overdue_reminder_id", json!(COUNTERPART)),
        ("payment_reminder_id", json!(COUNTERPART)),
        ("payment_page_url", json!("https://example.com/pay")),
        (
            "payment_terms",
            json!({"term_final": {"end_date": "2026-01-01"}}),
        ),
        ("payment_terms_id", json!(COUNTERPART)),
        ("purchase_order", json!("PO-1")),
    ] {
        assert_accepted(
            "invoice-create",
            &with(body("invoice"), field, value.clone()),
        );
        let quote = with(body("quote"), field, value);
        assert_rejected_for("quote-create", &quote, "RCV-SHAPE-EXCLUSIVE");
        assert_rejected_for("quote-create", &quote, "RCV-UNKNOWN-PROPS");
        assert!(!registry().is_valid("receivable-create", &quote), "{field}");
    }
}

#[test]
fn invoice_body_rejects_quote_only_fields() {
    for (field, value) in [
        ("expiry_date", json!("2026-12-31")),
        ("quote_accept_page_url", json!("https://example.com/accept")),
        ("signature_required", json!(true)),
    ] {
        assert_accepted("quote-create", &with(body("quote"), field, value.clone()));
        let invoice = with(body("invoice"), field, value);
        assert_rejected_for("invoice-create", &invoice, "RCV-SHAPE-EXCLUSIVE");
        assert!(
            !registry().is_valid("receivable-create", &invoice),
            "{field}"
        );
    }
}

#[test]
fn receivable_create_accepts_each_shape_and_rejects_a_body_matching_none() {
    assert_accepted("receivable-create", &body("quote"));
    assert_accepted("receivable-create", &body("invoice"));
    assert_accepted(
        "receivable-create",
        &json!({"type": "credit_note", "based_on": COUNTERPART}),
    );
    assert_accepted(
        "receivable-create",
        &json!({"type": "invoice", "based_on": COUNTERPART}),
    );
    for none in [
        json!({"type": "credit_note", "currency": "EUR"}),
        with(body("invoice"), "based_on", json!(COUNTERPART)),
        json!({"type": "quote", "based_on": COUNTERPART}),
        json!({}),
    ] {
        assert_rejected_for("receivable-create", &none, "RCV-ONE-OF-SHAPES");
    }
}

#[test]
fn nullable_fields_accept_null_and_others_do_not() {
    assert_accepted(
        "quote-create",
        &with(body("quote"), "trade_name", Value::Null),
    );
    assert_accepted(
        "invoice-create",
        &with(body("invoice"), "payment_terms", Value::Null),
    );
    assert_rejected_for(
        "quote-create",
        &with(body("quote"), "partner_metadata", Value::Null),
        "RCV-FIELD-TYPES",
    );
    assert_rejected_for(
        "quote-create",
        &with(body("quote"), "tag_ids", Value::Null),
        "RCV-FIELD-TYPES",
    );
}

#[test]
fn formats_are_asserted_not_merely_annotated() {
    assert_rejected_for(
        "quote-create",
        &with(body("quote"), "counterpart_id", json!("42")),
        "RCV-FIELD-TYPES",
    );
    assert_rejected_for(
        "quote-create",
        &with(body("quote"), "expiry_date", json!("2026-02-30x")),
        "RCV-QUOTE-EXPIRY-DATE",
    );
    assert_rejected_for(
        "invoice-create",
        &with(body("invoice"), "payment_page_url", json!("not a uri")),
        "RCV-PAYMENT-URL-LEN",
    );
}

#[test]
fn a_velocity_control_sets_exactly_one_of_organization_and_card() {
    let control = registry().schema("velocity-control").expect("schema")["examples"][0].clone();
    assert_accepted("velocity-control", &control);
    let card = json!("3fa85f64-5717-4562-b3fc-2c963f66afa6");
    let both = with(control.clone(), "cardId", card.clone());
    assert_rejected_for("velocity-control", &both, "VC-EXACTLY-ONE-SCOPE");
    let neither = with(control.clone(), "organizationId", Value::Null);
    assert_rejected_for("velocity-control", &neither, "VC-EXACTLY-ONE-SCOPE");
    assert_accepted("velocity-control", &with(neither, "cardId", card));
}

#[test]
fn usage_limit_is_refused_with_the_transaction_window() {
    let request = json!({"id": "vc-1", "velocityWindow": "TRANSACTION", "usageLimit": 5});
    assert_rejected_for(
        "velocity-control-create",
        &request,
        "VC-TRANSACTION-NO-USAGE",
    );
    assert_accepted(
        "velocity-control-create",
        &json!({"velocityWindow": "TRANSACTION"}),
    );
    assert_accepted(
        "velocity-control-create",
        &json!({"velocityWindow": "DAY", "usageLimit": -1}),
    );
    assert_accepted("velocity-control-create", &json!({}));
}

#[test]
fn banking_error_may_omit_error_code_but_not_the_other_five() {
    let error = json!({"detail": "d", "instance": "/x", "status": 400, "title": "Bad Request", "type": "about:blank"});
    assert_accepted("banking-error", &error);
    for field in ["detail", "instance", "status", "title", "type"] {
        let mut missing = error.clone();
        missing.as_object_mut().expect("object").remove(field);
        assert_rejected_for("banking-error", &missing, "ERR-BANK-BODY");
    }
}

#[test]
fn truncated_response_schemas_allow_unknown_properties() {
    let mut quote = registry().schema("quote-response").expect("schema")["examples"][0].clone();
    quote["status"] = json!("draft");
    quote["total_amount"] = json!(1);
    assert_accepted("quote-response", &quote);
    assert_accepted("receivable-response", &json!({"anything": true}));
    assert_accepted("transaction", &json!({"whatever": [1, 2]}));
}

#[test]
fn rule_at_follows_refs_between_files_and_prefers_keyword_rules() {
    let r = registry();
    let through_ref = "/oneOf/0/$ref/properties/trade_name/maxLength";
    assert_eq!(
        r.rule_at("receivable-create", through_ref).as_deref(),
        Some("RCV-TRADE-NAME-MAX")
    );
    assert_eq!(
        r.rule_at("quote-create", "/properties/trade_name/type")
            .as_deref(),
        Some("RCV-FIELD-TYPES")
    );
    assert_eq!(
        r.rule_at("quote-create", "/required").as_deref(),
        Some("RCV-REQUIRED")
    );
    assert_eq!(
        r.rule_at("quote-create", "/additionalProperties")
            .as_deref(),
        Some("RCV-UNKNOWN-PROPS")
    );
    assert_eq!(
        r.rule_at("vat-id-create", "/properties/country/$ref/enum")
            .as_deref(),
        Some("VAT-COUNTRY-ENUM")
    );
    assert_eq!(r.rule_at("no-such-schema", "/type"), None);
}

#[test]
fn every_schema_stem_named_by_the_catalogue_exists() {
    let stems: Vec<&str> = registry().names().collect();
    for rule in &Catalogue::embedded().rules {
        for stem in rule.checks.iter().filter_map(|c| c.strip_prefix("schema:")) {
            assert!(
                stem == "operations" || stems.contains(&stem),
                "{}: schema:{stem}",
                rule.id
            );
        }
    }
}

#[test]
fn the_ten_operations_are_typed_data() {
    let ops = operations();
    assert_eq!(ops.len(), 10);
    let receivable = operation("create-receivable").expect("create-receivable");
    assert_eq!(receivable.success_statuses, vec![201]);
    assert_eq!(
        receivable.declared_statuses.as_deref(),
        Some(&[201, 400, 401, 403, 404, 405, 409, 422, 500][..])
    );
    assert_eq!(receivable.error_schema_for(422), "finance-validation-error");
    assert_eq!(receivable.error_schema_for(409), "finance-error");
    assert!(!receivable.accepts_success(200));
    let tag = operation("delete-tag").expect("delete-tag");
    assert!(tag.accepts_success(204) && tag.accepts_success(200) && !tag.accepts_success(302));
    let mailbox = operation("create-mailbox-domain").expect("mailbox");
    assert!(mailbox
        .parameters
        .iter()
        .all(|p| p.name.as_deref() != Some("x-organization-id")));
    let velocity = operation("create-velocity-control").expect("velocity");
    assert_eq!(velocity.area, Area::Banking);
    assert_eq!(
        velocity.security,
        Security::OAuth2ClientCredentials {
            scopes: Some(vec!["authorization_control:write:org".into()])
        }
    );
    let header = velocity
        .parameters
        .iter()
        .find(|p| p.name.is_none())
        .expect("org header");
    assert_eq!(
        header.name_from_profile.as_deref(),
        Some("banking.org_header")
    );
    assert!(!header.required);
    let transactions = operation("list-transactions").expect("transactions");
    assert_eq!(
        transactions.security,
        Security::OAuth2ClientCredentials { scopes: None }
    );
    assert!(operation("patch-receivable").is_none());
}

// ---------------------------------------------------------------- a broken copy

fn sources_with(stem: &str, mut edit: impl FnMut(&mut Value)) -> Vec<(String, String)> {
    SCHEMA_FILES
        .iter()
        .map(|(name, text)| {
            let text = if *name == stem {
                let mut doc: Value = serde_json::from_str(text).expect("embedded schema parses");
                edit(&mut doc);
                doc.to_string()
            } else {
                text.to_string()
            };
            (name.to_string(), text)
        })
        .collect()
}

fn check_output(sources: &[(String, String)], operations: &str) -> (u8, String) {
    let mut out = Vec::new();
    let code = run_check(sources, operations, Catalogue::embedded(), &mut out).expect("writes");
    (code, String::from_utf8(out).expect("utf-8"))
}

#[test]
fn schemas_check_reports_a_file_that_does_not_parse() {
    let mut sources = sources_with("comment", |_| {});
    for (stem, text) in &mut sources {
        if stem == "event" {
            *text = "{ not json".into();
        }
    }
    let (code, out) = check_output(&sources, OPERATIONS_JSON);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("schemas/event.json : does not parse as JSON"),
        "{out}"
    );
}

#[test]
fn schemas_check_reports_an_example_that_is_rejected_with_file_and_pointer() {
    let sources = sources_with("vat-id-create", |doc| {
        doc["examples"][1]["value"] = json!("V".repeat(40));
    });
    let (code, out) = check_output(&sources, OPERATIONS_JSON);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("schemas/vat-id-create.json /examples/1: is rejected but must validate"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("1 problem"), "{out}");
}

#[test]
fn schemas_check_reports_a_negative_example_that_validates_or_names_an_unknown_rule() {
    let sources = sources_with("comment-update", |doc| {
        doc["x-negative-examples"][0]["instance"] = json!({"text": "fine"});
        doc["x-negative-examples"][1]["rule"] = json!("NO-SUCH-RULE");
        doc["properties"]["text"]["x-rule"] = json!("ALSO-MISSING");
    });
    let (code, out) = check_output(&sources, OPERATIONS_JSON);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("/x-negative-examples/0: validates but must be rejected"),
        "{out}"
    );
    assert!(
        out.contains("/x-negative-examples/1/rule: names rule NO-SUCH-RULE"),
        "{out}"
    );
    assert!(
        out.contains("/properties/text/x-rule: names rule ALSO-MISSING"),
        "{out}"
    );
}

#[test]
fn schemas_check_reports_a_schema_that_breaks_the_meta_schema() {
    let sources = sources_with("dns-record", |doc| {
        doc["properties"]["name"]["type"] = json!("text");
    });
    let (code, out) = check_output(&sources, OPERATIONS_JSON);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "schemas/dns-record.json /properties/name/type: breaks the 2020-12 meta-schema"
        ),
        "{out}"
    );
}

#[test]
fn schemas_check_reports_an_operation_naming_a_missing_schema() {
    let operations = OPERATIONS_JSON.replace("\"vat-id-create\"", "\"vat-id-new\"");
    let sources = sources_with("comment", |_| {});
    let (code, out) = check_output(&sources, &operations);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "schemas/operations.json /operations/1: create-vat-id: names schema \"vat-id-new\""
        ),
        "{out}"
    );
}

// ---------------------------------------------------------------- OpenAPI

#[test]
fn openapi_output_is_accepted_by_openapi_spec_validator() {
    let output = crate::support::covenant()
        .arg("openapi")
        .output()
        .expect("the covenant binary runs");
    assert_eq!(output.status.code(), Some(0));
    let document: Value = serde_json::from_slice(&output.stdout).expect("openapi prints JSON");
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(
        document["paths"]["/finops/v1/receivables"]["post"]["requestBody"]["content"]
            ["application/json"]["schema"]["$ref"],
        "#/components/schemas/receivable-create"
    );
    let path = std::env::temp_dir().join(format!("covenant-openapi-{}.json", std::process::id()));
    std::fs::write(&path, &output.stdout).expect("temp file");
    let validated = Command::new("python3")
        .args(["-m", "openapi_spec_validator"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let validated =
        validated.expect("python3 runs (install it, then `pip install openapi-spec-validator`)");
    let stderr = String::from_utf8_lossy(&validated.stderr);
    assert!(
        !stderr.contains("No module named openapi_spec_validator"),
        "openapi-spec-validator is missing: `pip install openapi-spec-validator`"
    );
    assert!(
        validated.status.success(),
        "openapi-spec-validator rejects the document:\n{}\n{stderr}",
        String::from_utf8_lossy(&validated.stdout)
    );
}
