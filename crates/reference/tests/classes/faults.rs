//! Each fault of a value class, seen by a client holding only the profile with the fault on,
//! and not seen on the clean server: one probe per fault, the request that shows it.

use super::wire::{raw, with, Server};
use covenant_reference::{Fault, FaultSet};
use serde_json::{json, Value};

/// Whether the deviation of `fault` is visible on `s`.
async fn probe(s: &Server, fault: Fault) -> bool {
    use Fault::*;
    let control = |pointer: &str, value: &str| raw(s.control(), pointer, value);
    let quote = |pointer: &str, value: Value| with(s.quote(), pointer, value);
    match fault {
        IntegerFormsRefused => {
            let vc = s.velocity(&control("/amountLimit", "1e2")).await;
            let usage = s.velocity(&control("/usageLimit", "1.0")).await;
            let rate = raw(s.invoice(), "/withholding_tax_rate", "1.0");
            let rcv = s.receivable(&rate).await;
            (vc.status, usage.status, rcv.status) == (400, 400, 422)
        }
        VelocityAmountWraps => {
            let r63 = s
                .velocity(&control("/amountLimit", "9223372036854775808"))
                .await;
            let r64 = s
                .velocity(&control("/amountLimit", "18446744073709551616"))
                .await;
            r63.status == 201
                && r63.json()["amountLimit"] == json!(i64::MIN)
                && r64.status == 201
                && r64.json()["amountLimit"] == json!(0)
        }
        WithholdingWraps => {
            let body = raw(s.quote(), "/withholding_tax_rate", "18446744073709551616");
            s.receivable(&body).await.status == 201
        }
        TagIdsEmptyRefused => {
            let r = s
                .receivable(&with(s.invoice(), "/tag_ids", json!([])))
                .await;
            r.status == 422 && r.json()["detail"][0]["loc"] == json!(["body", "tag_ids"])
        }
        VelocityActiveFalseRefused => {
            let r = s.velocity(&control("/active", "false")).await;
            r.status == 400 && r.json()["status"] == json!(400)
        }
        NulServerError => {
            let r = s.receivable(&quote("/memo", json!("a\u{0}b"))).await;
            r.status == 500
        }
        CaseAliasesAccepted => {
            let mut camel = s.quote();
            let items = camel.as_object_mut().and_then(|m| m.remove("line_items"));
            let camel = with(camel, "/lineItems", items.expect("line items"));
            let mut accepted = s.receivable(&camel).await.status == 201;
            for alias in ["tradeName", "TradeName", "trade-name"] {
                let body = with(s.invoice(), &format!("/{alias}"), json!("Acme"));
                accepted &= s.receivable(&body).await.status == 201;
            }
            accepted
        }
        FooterRefused => {
            let q = s.receivable(&quote("/footer", json!("Thanks"))).await;
            let i = s
                .receivable(&with(s.invoice(), "/footer", json!("Thanks")))
                .await;
            let loc = json!(["body", "footer"]);
            (q.status, i.status) == (422, 422) && q.json()["detail"][0]["loc"] == loc
        }
        PriceZeroNan => {
            let pointer = "/line_items/0/product/price/value";
            let r = s.receivable(&quote(pointer, json!(0))).await;
            r.status == 201
                && r.text.contains("\"value\":NaN")
                && serde_json::from_str::<Value>(&r.text).is_err()
        }
        VelocityLaxNumericStrings => {
            let r = s.velocity(&control("/amountLimit", "\"3\"")).await;
            r.status == 201 && r.json()["amountLimit"] == json!(3)
        }
        WhitespaceRefused => {
            let memo = s.receivable(&quote("/memo", json!("   "))).await;
            let name = s.receivable(&quote("/trade_name", json!(" \t "))).await;
            (memo.status, name.status) == (422, 422)
        }
        RightToLeftRefused => {
            let hebrew = s.receivable(&quote("/memo", json!("שלום עולם"))).await;
            let arabic = s.receivable(&quote("/footer", json!("مرحبا"))).await;
            (hebrew.status, arabic.status) == (422, 422)
        }
        PartnerMetadataEmptyRefused => {
            let r = s.receivable(&quote("/partner_metadata", json!({}))).await;
            r.status == 422
        }
        LengthNfdCounted => s.vat(&"é".repeat(32)).await.status == 422,
        QuantityZeroRefused => {
            let r = s
                .receivable(&quote("/line_items/0/quantity", json!(0)))
                .await;
            r.status == 422
        }
        other => panic!("{other} is not a fault of a value class"),
    }
}

async fn seen_only_with(fault: Fault) {
    let faulty = Server::start(FaultSet::only(fault)).await;
    assert!(probe(&faulty, fault).await, "{fault} on: not seen");
    let clean = Server::start(FaultSet::none()).await;
    assert!(
        !probe(&clean, fault).await,
        "{fault} seen on the clean server"
    );
}

macro_rules! seen {
    ($($test:ident => $fault:ident;)*) => {$(
        #[tokio::test]
        async fn $test() {
            seen_only_with(Fault::$fault).await;
        }
    )*};
}

seen! {
    integer_written_1_0_or_1e2_refused_under_int_forms_refused => IntegerFormsRefused;
    amount_limit_past_i64_answered_wrapped_under_vc_amount_limit_wraps => VelocityAmountWraps;
    withholding_2_pow_64_accepted_under_rcv_withholding_wraps => WithholdingWraps;
    empty_tag_ids_refused_under_rcv_tag_ids_empty_refused => TagIdsEmptyRefused;
    active_false_refused_under_vc_active_false_refused => VelocityActiveFalseRefused;
    nul_in_a_string_answered_500_under_rcv_nul_500 => NulServerError;
    camel_pascal_and_kebab_spellings_accepted_under_rcv_camel_case_aliases => CaseAliasesAccepted;
    footer_refused_under_rcv_footer_refused => FooterRefused;
    zero_price_answered_as_nan_under_rcv_price_zero_nan => PriceZeroNan;
    amount_limit_as_digits_accepted_under_vc_lax_numeric_strings => VelocityLaxNumericStrings;
    whitespace_only_string_refused_under_rcv_whitespace_refused => WhitespaceRefused;
    hebrew_and_arabic_refused_under_rcv_rtl_refused => RightToLeftRefused;
    empty_partner_metadata_refused_under_rcv_partner_metadata_empty_refused => PartnerMetadataEmptyRefused;
    precomposed_letters_counted_twice_under_vat_length_nfd_counted => LengthNfdCounted;
    zero_quantity_refused_under_rcv_quantity_zero_refused => QuantityZeroRefused;
}

#[test]
fn every_value_class_fault_names_its_rule() {
    for (name, rule) in [
        ("int-forms-refused", "GEN-INTEGER-FORMS"),
        ("vc-amount-limit-wraps", "GEN-INTEGER-EXACT"),
        ("rcv-withholding-wraps", "RCV-WITHHOLDING-RANGE"),
        ("rcv-tag-ids-empty-refused", "GEN-DEFAULT-ACCEPTED"),
        ("vc-active-false-refused", "GEN-DEFAULT-ACCEPTED"),
        ("rcv-nul-500", "GEN-NO-5XX"),
        ("rcv-camel-case-aliases", "RCV-UNKNOWN-PROPS"),
        ("rcv-footer-refused", "GEN-OPTIONAL-ACCEPTED"),
        ("rcv-price-zero-nan", "JSON-NO-NAN"),
        ("vc-lax-numeric-strings", "GEN-LAX-BINDING"),
        ("rcv-whitespace-refused", "GEN-VALUE-CLASSES"),
        ("rcv-rtl-refused", "GEN-VALUE-CLASSES"),
        ("rcv-partner-metadata-empty-refused", "GEN-VALUE-CLASSES"),
        ("vat-length-nfd-counted", "GEN-LENGTH-CODE-POINTS"),
        ("rcv-quantity-zero-refused", "GEN-VALUE-CLASSES"),
    ] {
        let fault = Fault::from_name(name).unwrap_or_else(|| panic!("no fault {name}"));
        assert_eq!(fault.rule(), rule, "{name}");
    }
}
