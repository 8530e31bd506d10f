//! The clean reference keeps the contract on every class of value: it accepts each valid one
//! beside the smallest body of its operation, refuses the spellings a lax binder would take,
//! and answers no 5xx.

use super::wire::{raw, with, Server};
use covenant_reference::FaultSet;
use serde_json::json;

async fn clean() -> Server {
    Server::start(FaultSet::none()).await
}

/// Strings of each class where no minimum length is stated.
const STRINGS: &[&str] = &[
    "",
    "   ",
    "a\u{0}b",
    "\u{1}\t\n\u{1f}",
    "שלום עולם",
    "مرحبا",
    "e\u{301}e\u{301}e\u{301}e\u{301}",
];

#[tokio::test]
async fn withholding_tax_rate_is_accepted_in_every_integer_form() {
    let s = clean().await;
    for form in ["1.0", "-0", "1e2", "100", "1E2", "10000.0"] {
        for body in [s.quote(), s.invoice()] {
            let r = s
                .receivable(&raw(body, "/withholding_tax_rate", form))
                .await;
            assert_eq!(r.status, 201, "withholding_tax_rate {form}: {}", r.text);
        }
    }
}

#[tokio::test]
async fn withholding_tax_rate_out_of_range_or_fractional_is_refused_in_any_form() {
    let s = clean().await;
    let forms = [
        "1e5",
        "10001",
        "-1",
        "1.5",
        "18446744073709551616",
        "9223372036854775813",
    ];
    for form in forms {
        let r = s
            .receivable(&raw(s.quote(), "/withholding_tax_rate", form))
            .await;
        assert_eq!(r.status, 422, "withholding_tax_rate {form}: {}", r.text);
    }
}

#[tokio::test]
async fn velocity_limits_are_accepted_in_every_integer_form_and_answered_as_the_integer() {
    let s = clean().await;
    for (form, n) in [("1.0", 1), ("-0", 0), ("1e2", 100), ("2.5e3", 2500)] {
        for field in ["amountLimit", "usageLimit"] {
            let r = s
                .velocity(&raw(s.control(), &format!("/{field}"), form))
                .await;
            assert_eq!(r.status, 201, "{field} {form}: {}", r.text);
            assert_eq!(r.json()[field], json!(n), "{field} {form}");
        }
    }
}

#[tokio::test]
async fn amount_limit_past_2_53_is_answered_as_sent_or_refused_never_wrapped() {
    let s = clean().await;
    let exact = s
        .velocity(&raw(s.control(), "/amountLimit", "9007199254740993"))
        .await;
    assert_eq!(exact.status, 201, "{}", exact.text);
    assert!(exact.text.contains("\"amountLimit\":9007199254740993"));
    for past in [
        "9223372036854775808",
        "18446744073709551616",
        "1e19",
        "9007199254740993.0",
    ] {
        let r = s.velocity(&raw(s.control(), "/amountLimit", past)).await;
        assert_eq!(r.status, 400, "amountLimit {past}: {}", r.text);
        assert!(r.json()["detail"].is_string(), "the banking error body");
    }
}

#[tokio::test]
async fn strings_of_every_class_are_accepted_where_no_minimum_is_stated() {
    let s = clean().await;
    let fields = [
        "memo",
        "footer",
        "trade_name",
        "commercial_condition_description",
        "tax_exemption_rationale",
    ];
    for field in fields {
        for value in STRINGS {
            let body = with(s.quote(), &format!("/{field}"), json!(value));
            let r = s.receivable(&body).await;
            assert_eq!(r.status, 201, "{field} {value:?}: {}", r.text);
            assert_eq!(r.json().get(field).unwrap_or(&json!(value)), &json!(value));
        }
    }
    for value in STRINGS {
        let r = s.velocity(&with(s.control(), "/name", json!(value))).await;
        assert_eq!(r.status, 201, "name {value:?}: {}", r.text);
        assert_eq!(r.json()["name"], json!(value));
    }
}

#[tokio::test]
async fn lengths_count_code_points_so_decomposed_text_at_the_limit_is_accepted() {
    let s = clean().await;
    let decomposed = |n: usize| "e\u{301}".repeat(n / 2) + &"e".repeat(n % 2);
    let at = with(s.quote(), "/trade_name", json!(decomposed(255)));
    assert_eq!(s.receivable(&at).await.status, 201);
    let past = with(s.quote(), "/trade_name", json!(decomposed(256)));
    assert_eq!(s.receivable(&past).await.status, 422);
    assert_eq!(s.vat(&"é".repeat(32)).await.status, 201);
    assert_eq!(s.vat(&decomposed(32)).await.status, 201);
    assert_eq!(s.vat(&"é".repeat(33)).await.status, 422);
}

#[tokio::test]
async fn numbers_of_every_class_are_accepted_in_line_items() {
    let s = clean().await;
    for number in ["0", "1e2", "0.1234567890123456789", "2.5E-3"] {
        for pointer in [
            "/line_items/0/quantity",
            "/line_items/0/product/price/value",
        ] {
            let r = s.receivable(&raw(s.quote(), pointer, number)).await;
            assert_eq!(r.status, 201, "{pointer} {number}: {}", r.text);
            assert!(r.json().is_object(), "plain JSON: {}", r.text);
        }
    }
}

#[tokio::test]
async fn empty_lists_and_objects_are_accepted_or_refused_never_a_5xx() {
    let s = clean().await;
    for (pointer, value) in [
        ("/tag_ids", json!([])),
        ("/deductions", json!([])),
        ("/line_items", json!([])),
        ("/partner_metadata", json!({})),
    ] {
        let r = s.receivable(&with(s.quote(), pointer, value)).await;
        assert_eq!(r.status, 201, "{pointer}: {}", r.text);
    }
    for pointer in ["/discount", "/entity", "/document_rendering"] {
        let r = s.receivable(&with(s.quote(), pointer, json!({}))).await;
        assert!(r.status < 500, "{pointer}: {}", r.status);
    }
}

#[tokio::test]
async fn explicit_defaults_are_accepted() {
    let s = clean().await;
    let r = s
        .receivable(&with(s.invoice(), "/tag_ids", json!([])))
        .await;
    assert_eq!((r.status, r.json()["tag_ids"].clone()), (201, json!([])));
    let r = s
        .velocity(&with(s.control(), "/active", json!(false)))
        .await;
    assert_eq!((r.status, r.json()["active"].clone()), (201, json!(false)));
}

#[tokio::test]
async fn a_key_given_twice_is_never_a_5xx() {
    let s = clean().await;
    let quote = raw(s.quote(), "/memo", "\"one\", \"memo\": \"two\"");
    assert!(s.receivable(&quote).await.status < 500);
    let control = raw(s.control(), "/name", "\"one\", \"name\": 2");
    assert!(s.velocity(&control).await.status < 500);
}

#[tokio::test]
async fn other_spellings_of_known_properties_are_refused_in_every_shape() {
    let s = clean().await;
    for alias in ["tradeName", "TradeName", "trade-name", "TRADE_NAME"] {
        for body in [s.quote(), s.invoice()] {
            let r = s
                .receivable(&with(body, &format!("/{alias}"), json!("Acme")))
                .await;
            assert_eq!(r.status, 422, "{alias}: {}", r.text);
        }
    }
    let mut camel = s.quote();
    let items = camel.as_object_mut().and_then(|m| m.remove("line_items"));
    let camel = with(
        camel,
        "/lineItems",
        items.expect("the quote has line items"),
    );
    assert_eq!(s.receivable(&camel).await.status, 422);
    let quote = s.receivable(&s.quote().to_string()).await.json()["id"].clone();
    for alias in ["tagIds", "TagIds", "tag-ids"] {
        let based_on = json!({ "type": "invoice", "based_on": quote, alias: [] });
        let r = s.receivable(&based_on.to_string()).await;
        assert_eq!(r.status, 422, "{alias}: {}", r.text);
    }
}

#[tokio::test]
async fn strings_for_numbers_and_booleans_are_refused() {
    let s = clean().await;
    for (pointer, value) in [
        ("/withholding_tax_rate", json!("3")),
        ("/line_items/0/quantity", json!("3")),
        ("/line_items/0/product/price/value", json!("3")),
        ("/tax_exempt", json!("true")),
        ("/signature_required", json!("true")),
    ] {
        let r = s.receivable(&with(s.quote(), pointer, value)).await;
        assert_eq!(r.status, 422, "{pointer}: {}", r.text);
    }
    for (field, value) in [
        ("amountLimit", json!("3")),
        ("usageLimit", json!("3")),
        ("active", json!("true")),
    ] {
        let r = s
            .velocity(&with(s.control(), &format!("/{field}"), value))
            .await;
        assert_eq!(r.status, 400, "{field}: {}", r.text);
    }
}
