//! The finance operations, positive and negative: receivables and their transitions, VAT ids,
//! comments, mailbox domains and the deletes.

use super::client::{clean, is_uuid, without, Ctx};
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn quote_is_created_with_every_listed_response_field() {
    let (_s, c) = clean().await;
    let r = c
        .receivable(c.quote(json!({ "memo": "thanks", "trade_name": "Acme" })))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert!(r.content_type.starts_with("application/json"));
    for field in [
        "id",
        "created_at",
        "updated_at",
        "attachments",
        "bank_account_id",
        "bank_account_snapshot",
        "bank_account_type",
        "based_on",
        "based_on_document_id",
        "comment",
        "commercial_condition_description",
        "counterpart_billing_address",
        "counterpart_shipping_address",
        "counterpart_business_type",
        "counterpart_contact",
        "counterpart_external_reference",
        "counterpart_id",
        "counterpart_name",
        "counterpart_tax_id",
        "counterpart_type",
        "counterpart_vat_id",
        "currency",
        "deduction_amount",
        "deduction_memo",
        "deductions",
        "discount",
        "discounted_subtotal",
        "document_id",
        "document_rendering",
        "due_date",
        "entity",
        "entity_address",
        "entity_bank_account",
        "entity_user_id",
        "entity_vat_id",
        "expiry_date",
        "file_language",
        "file_url",
        "footer",
        "issue_date",
        "line_items",
        "memo",
    ] {
        assert!(r.has(field), "quote response lacks {field}");
    }
    assert!(is_uuid(r.get("id")));
    assert_eq!(r.get("entity_bank_account"), &Value::Null);
    assert_eq!(r.get("currency"), "EUR");
    assert_eq!(r.get("counterpart_id"), c.counterpart());
    assert_eq!(r.get("memo"), "thanks");
    assert_eq!(r.get("discounted_subtotal"), 3000);
}

#[tokio::test]
async fn invoice_is_created_and_nulls_are_accepted_where_allowed() {
    let (_s, c) = clean().await;
    let nulls = json!({
        "attachments": null, "bank_account_id": null, "bank_account_type": null,
        "commercial_condition_description": null, "counterpart_billing_address_id": null,
        "counterpart_shipping_address_id": null, "counterpart_business_type": null,
        "counterpart_vat_id_id": null, "entity_vat_id_id": null, "deductions": null,
        "discount": null, "document_id": null, "document_rendering": null, "entity": null,
        "footer": null, "memo": null, "project_id": null, "tax_exempt": null,
        "tax_exemption_rationale": null, "tax_mode": null, "trade_name": null,
        "withholding_tax_rate": null, "fulfillment_date": null, "overdue_reminder_id": null,
        "payment_reminder_id": null, "payment_page_url": null, "payment_terms": null,
        "payment_terms_id": null, "purchase_order": null,
    });
    let r = c.receivable(c.invoice(nulls)).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.get("type"), "invoice");
    let full = json!({
        "attachments": [{ "id": uuid::Uuid::new_v4(), "include_in_email": true }],
        "bank_account_type": "BANK_DETAILS", "counterpart_business_type": "x".repeat(50),
        "deductions": vec![json!({}); 10], "document_id": "d".repeat(100),
        "trade_name": "t".repeat(255), "withholding_tax_rate": 10000,
        "fulfillment_date": "2019-05-01", "payment_page_url": "https://pay.example.com/x",
        "payment_terms": { "term_final": { "end_date": "2030-01-31" } },
        "purchase_order": "p".repeat(100), "partner_metadata": { "k": "v" },
        "tag_ids": [c.fin().deletable_tag_ids[0]], "tax_exempt": false,
    });
    let r = c.receivable(c.invoice(full)).await;
    assert_eq!(r.status, 201, "{}", r.text);
}

#[tokio::test]
async fn each_body_rule_is_enforced_with_422_and_the_validation_body() {
    let (_s, c) = clean().await;
    let long = |n: usize| "x".repeat(n);
    let bad_quotes = [
        json!({ "colour": "red" }),
        json!({ "purchase_order": "PO" }),
        json!({ "fulfillment_date": "2030-01-01" }),
        json!({ "attachments": [] }),
        json!({ "bank_account_type": "SAVINGS" }),
        json!({ "counterpart_business_type": long(51) }),
        json!({ "deductions": vec![json!({}); 11] }),
        json!({ "document_id": "" }),
        json!({ "document_id": long(101) }),
        json!({ "trade_name": long(256) }),
        json!({ "withholding_tax_rate": 10001 }),
        json!({ "withholding_tax_rate": -1 }),
        json!({ "withholding_tax_rate": 1.5 }),
        json!({ "expiry_date": "31/12/2030" }),
        json!({ "quote_accept_page_url": "" }),
        json!({ "quote_accept_page_url": "not a uri" }),
        json!({ "tax_exempt": "yes" }),
        json!({ "tag_ids": ["not-a-uuid"] }),
        json!({ "tag_ids": null }),
        json!({ "partner_metadata": null }),
        json!({ "bank_account_id": "123" }),
        json!({ "type": "bill" }),
        json!({ "line_items": {} }),
    ];
    for extra in bad_quotes {
        let r = c.receivable(c.quote(extra.clone())).await;
        assert_eq!(r.status, 422, "{extra} -> {}", r.text);
        let detail = &r.body()["detail"][0];
        assert!(
            detail["loc"]
                .as_array()
                .is_some_and(|l| l.iter().all(Value::is_string)),
            "{}",
            r.text
        );
        assert!(detail["msg"].is_string() && detail["type"].is_string());
    }
    let bad_invoices = [
        json!({ "expiry_date": "2030-01-01" }),
        json!({ "signature_required": true }),
        json!({ "payment_page_url": format!("https://x.test/{}", long(2070)) }),
        json!({ "purchase_order": long(101) }),
        json!({ "payment_terms": { "term_final": { "end_date": "soon" } } }),
        json!({ "fulfillment_date": "tomorrow" }),
    ];
    for extra in bad_invoices {
        let r = c.receivable(c.invoice(extra.clone())).await;
        assert_eq!(r.status, 422, "{extra} -> {}", r.text);
    }
    for missing in ["type", "currency", "line_items", "counterpart_id"] {
        let r = c.receivable(without(c.quote(json!({})), missing)).await;
        assert_eq!(r.status, 422, "without {missing}");
    }
    let r = c.receivable(json!([1, 2])).await;
    assert_eq!(r.status, 422);
}

#[tokio::test]
async fn unknown_counterpart_is_404() {
    let (_s, c) = clean().await;
    let r = c
        .receivable(c.quote(json!({ "counterpart_id": uuid::Uuid::new_v4() })))
        .await;
    assert_eq!(r.status, 404);
    assert!(r.body()["error"]["message"].is_string());
}

#[tokio::test]
async fn quote_becomes_invoice_becomes_credit_note_and_other_transitions_conflict() {
    let (_s, c) = clean().await;
    let quote = c.receivable(c.quote(json!({}))).await;
    let invoice = c
        .based_on("invoice", quote.get("id").as_str().unwrap())
        .await;
    assert_eq!(invoice.status, 201, "{}", invoice.text);
    assert_eq!(invoice.get("based_on"), quote.get("id"));
    assert_eq!(invoice.get("type"), "invoice");
    let note = c
        .based_on("credit_note", invoice.get("id").as_str().unwrap())
        .await;
    assert_eq!(note.status, 201);
    assert_eq!(note.get("type"), "credit_note");
    let note_id = note.get("id").as_str().unwrap().to_owned();
    for (kind, source) in [
        ("credit_note", c.quote_id()),
        ("invoice", c.invoice_id()),
        ("quote", c.quote_id()),
        ("quote", c.invoice_id()),
        ("invoice", note_id.as_str()),
        ("credit_note", note_id.as_str()),
    ] {
        let r = c.based_on(kind, source).await;
        assert_eq!(r.status, 409, "{kind} from {source}");
        assert!(r.body()["error"]["message"].is_string());
    }
    let unknown = c
        .based_on("invoice", &uuid::Uuid::new_v4().to_string())
        .await;
    assert_eq!(unknown.status, 404);
    let extra = c
        .receivable(json!({ "type": "invoice", "based_on": c.quote_id(), "memo": "x" }))
        .await;
    assert_eq!(extra.status, 422);
    let untyped = c.receivable(json!({ "based_on": c.quote_id() })).await;
    assert_eq!(untyped.status, 422);
}

#[tokio::test]
async fn vat_ids_are_created_read_and_isolated_per_organization() {
    let (_s, c) = clean().await;
    let created = c.vat().await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.get("id").as_str().unwrap().to_owned();
    assert_eq!(created.get("counterpart_id"), c.counterpart());
    let read = c.get_vat(&id, c.org()).await;
    assert_eq!(read.status, 200);
    assert_eq!(read.body(), created.body());
    assert_eq!(c.get_vat(&id, c.other_org()).await.status, 404);
    let unknown = c.get_vat(&uuid::Uuid::new_v4().to_string(), c.org()).await;
    assert_eq!(unknown.status, 404);
    for bad in [
        json!({ "value": "x".repeat(33), "country": "DE", "type": "eu_vat" }),
        json!({ "value": "1", "country": "XX", "type": "eu_vat" }),
        json!({ "value": "1", "country": "DE", "type": "vat" }),
        json!({ "country": "DE", "type": "eu_vat" }),
        json!({ "value": "1", "type": "eu_vat" }),
        json!({ "value": "1", "country": "DE" }),
    ] {
        assert_eq!(c.create_vat(bad.clone()).await.status, 422, "{bad}");
    }
    for (country, kind) in [("IC", "unknown"), ("SX", "za_vat"), ("AN", "ae_trn")] {
        let r = c
            .create_vat(json!({ "value": "x".repeat(32), "country": country, "type": kind }))
            .await;
        assert_eq!(r.status, 201, "{country} {kind}");
    }
    let path = format!("/finops/v1/counterparts/{}/vat-ids", uuid::Uuid::new_v4());
    let r = Ctx::send(
        c.finance(Method::POST, &path)
            .json(&json!({ "value": "1", "country": "DE", "type": "eu_vat" })),
    )
    .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn comment_update_is_applied_and_answered_whole() {
    let (_s, c) = clean().await;
    let user = c.fin().entity_user_id.clone().unwrap();
    let r = c
        .patch_comment(
            c.comment_id(),
            json!({ "text": "Fixed.", "reply_to_entity_user_id": user }),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.get("text"), "Fixed.");
    assert_eq!(r.get("reply_to_entity_user_id"), user.as_str());
    assert_eq!(r.get("status"), "active");
    for f in ["id", "created_by_entity_user_id", "entity_id", "object_id"] {
        assert!(is_uuid(r.get(f)), "{f}");
    }
    assert!(r.get("created_at").is_string() && r.get("object_type").is_string());
    assert_eq!(c.patch_comment(c.comment_id(), json!({})).await.status, 200);
    let bad = c
        .patch_comment(c.comment_id(), json!({ "reply_to_entity_user_id": "bob" }))
        .await;
    assert_eq!(bad.status, 422);
    assert_eq!(
        c.patch_comment(c.comment_id(), json!({ "text": 5 }))
            .await
            .status,
        422
    );
    let unknown = c
        .patch_comment(&uuid::Uuid::new_v4().to_string(), json!({ "text": "x" }))
        .await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn mailbox_domain_is_created_without_organization_and_pattern_is_enforced() {
    let (_s, c) = clean().await;
    let r = c.mailbox("mail-1.example.com").await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.get("domain"), "mail-1.example.com");
    assert!(is_uuid(r.get("id")));
    for f in ["status", "dedicated_ip", "last_updated_at"] {
        assert!(r.get(f).is_string(), "{f}");
    }
    for list in ["receiving_dns_records", "sending_dns_records"] {
        for record in r.get("dns_records")[list].as_array().unwrap() {
            assert!(record["is_active"].is_boolean());
            for f in ["record_type", "valid", "value", "name", "record_purpose"] {
                assert!(record[f].is_string(), "{f}");
            }
        }
    }
    for bad in [
        "",
        "-a.com",
        "a-.com",
        "a..com",
        "under_score.com",
        "sp ace.com",
        ".com",
    ] {
        assert_eq!(c.mailbox(bad).await.status, 422, "{bad:?}");
    }
}

#[tokio::test]
async fn deletes_succeed_once_then_404() {
    let (_s, c) = clean().await;
    assert_eq!(c.delete_tag(0).await.status, 204);
    assert_eq!(c.delete_tag(0).await.status, 404);
    assert_eq!(c.delete_bank_account(0).await.status, 204);
    assert_eq!(c.delete_bank_account(0).await.status, 404);
    let path = format!("/finops/v1/tags/{}", c.fin().deletable_tag_ids[1]);
    let foreign =
        Ctx::send(c.finance_as(Method::DELETE, &path, c.other_org(), c.p.finops_version())).await;
    assert_eq!(
        foreign.status, 404,
        "a tag of one organization is not another's"
    );
}
