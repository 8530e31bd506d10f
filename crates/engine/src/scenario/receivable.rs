//! Receivable scenarios: each body shape, the two supported transitions, the forbidden ones,
//! unknown and foreign-shape properties, and nulls.

use super::{absent_uuid, Bodies};
use crate::case::{case_fn, Abort, Case, CaseCx, Control, Outcome, Outgoing, Variant};
use crate::client::Response;
use crate::generate::{Engine, GenOptions};
use crate::schema::{OperationId, Registry};
use serde_json::{json, Value};

const OP: OperationId = OperationId::CreateReceivable;

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "receivable.create-quote",
            OP,
            &[
                "RCV-CREATE-201",
                "RCV-QUOTE-RESPONSE",
                "RCV-ENTITY-BANK-ACCOUNT-NULL",
                "RCV-RESPONSE-ECHO",
            ],
            case_fn(|cx| Box::pin(create_quote(cx))),
        )
        .writes(),
        Case::new(
            "receivable.create-invoice",
            OP,
            &["RCV-CREATE-201"],
            case_fn(|cx| Box::pin(create_invoice(cx))),
        )
        .writes(),
        Case::new(
            "receivable.quote-to-invoice-to-credit-note",
            OP,
            &[
                "RCV-QUOTE-TO-INVOICE",
                "RCV-INVOICE-TO-CREDIT-NOTE",
                "RCV-CREATE-201",
            ],
            case_fn(|cx| Box::pin(transitions(cx))),
        )
        .writes()
        .requests(3),
        Case::new(
            "receivable.forbidden-transitions",
            OP,
            &["RCV-TRANSITION-UNSUPPORTED", "RCV-TRANSITION-409"],
            case_fn(|cx| Box::pin(forbidden_transitions(cx))),
        )
        .writes()
        .requests(6),
        Case::new(
            "receivable.based-on-unknown",
            OP,
            &["RCV-BASED-ON-UNKNOWN"],
            case_fn(|cx| Box::pin(based_on_unknown(cx))),
        )
        .naming_nothing(),
        Case::new(
            "receivable.based-on-foreign",
            OP,
            &["RCV-BASED-ON-UNKNOWN"],
            case_fn(|cx| Box::pin(based_on_foreign(cx))),
        )
        .other_organization()
        .writes()
        .requests(2),
        Case::new(
            "receivable.deductions-at-limit",
            OP,
            &["GEN-LIMIT-INCLUSIVE"],
            case_fn(|cx| Box::pin(deductions_at_limit(cx))),
        )
        .writes()
        .requests(2),
        Case::new(
            "receivable.unknown-property",
            OP,
            &["RCV-UNKNOWN-PROPS", "RCV-VALIDATION-422"],
            case_fn(|cx| Box::pin(unknown_property(cx))),
        )
        .requests(3),
        Case::new(
            "receivable.foreign-shape-field",
            OP,
            &["RCV-SHAPE-EXCLUSIVE"],
            case_fn(|cx| Box::pin(foreign_shape(cx))),
        )
        .requests(2),
        Case::new(
            "receivable.fulfillment-date-any-time",
            OP,
            &["RCV-FULFILLMENT-DATE"],
            case_fn(|cx| Box::pin(fulfillment_any_time(cx))),
        )
        .writes()
        .requests(3),
        Case::new(
            "receivable.nulls-accepted",
            OP,
            &["RCV-NULLABLE"],
            case_fn(|cx| Box::pin(nulls_accepted(cx))),
        )
        .writes()
        .requests(4),
    ]
}

async fn post(cx: &mut CaseCx, body: Value) -> Result<Response, Abort> {
    let request = cx.call(OperationId::CreateReceivable).json(body);
    cx.send(request).await
}

/// Creates a document and returns its id, recording RCV-CREATE-201 (and `rule` when refused).
async fn create(
    cx: &mut CaseCx,
    body: Value,
    rule: &str,
    what: &str,
) -> Result<Option<String>, Abort> {
    let response = post(cx, body).await?;
    if !cx.expect().created(&response, rule, "RCV-CREATE-201", what) {
        return Ok(None);
    }
    Ok(response
        .pointer("/id")
        .and_then(Value::as_str)
        .map(str::to_owned))
}

async fn create_quote(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).quote();
    let response = post(cx, body.clone()).await?;
    if !cx.expect().created(
        &response,
        "GEN-VALID-ACCEPTED",
        "RCV-CREATE-201",
        "a minimal valid quote",
    ) {
        return Ok(());
    }
    cx.expect()
        .schema(&response, "quote-response", "RCV-QUOTE-RESPONSE");
    for field in ["counterpart_id", "currency"] {
        let sent = &body[field];
        if let Some(got) = response.pointer(&format!("/{field}")) {
            cx.judged("RCV-RESPONSE-ECHO");
            if !super::same_value(sent, got) {
                cx.finding_diff(
                    "RCV-RESPONSE-ECHO",
                    format!("the quote's {field} differs from the one sent"),
                    &sent.to_string(),
                    &got.to_string(),
                );
            }
        }
    }
    Ok(())
}

async fn create_invoice(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).invoice();
    create(cx, body, "GEN-VALID-ACCEPTED", "a minimal valid invoice").await?;
    Ok(())
}

async fn new_quote(cx: &mut CaseCx) -> Result<Option<String>, Abort> {
    let body = Bodies::new(&cx.run).quote();
    create(cx, body, "GEN-VALID-ACCEPTED", "a minimal valid quote").await
}

/// Quote to invoice to credit note, each through `based_on`.
async fn transitions(cx: &mut CaseCx) -> Outcome {
    let Some(quote) = new_quote(cx).await? else {
        return Ok(());
    };
    let invoice = transition(cx, Source::Quote, &quote).await?;
    // The invoice response shape is not shown: without an id, fall back to the profile's invoice.
    let invoice = invoice.or_else(|| Source::Invoice.fixture(cx));
    let Some(invoice) = invoice else {
        return Ok(());
    };
    transition(cx, Source::Invoice, &invoice).await?;
    Ok(())
}

/// The source of a stated transition: a quote for an invoice, an invoice for a credit note.
#[derive(Clone, Copy)]
enum Source {
    Quote,
    Invoice,
}

impl Source {
    /// The kind created from it, the rule that states it, and what a message calls it.
    fn transition(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Source::Quote => (
                "invoice",
                "RCV-QUOTE-TO-INVOICE",
                "an invoice based on a quote",
            ),
            Source::Invoice => (
                "credit_note",
                "RCV-INVOICE-TO-CREDIT-NOTE",
                "a credit note based on an invoice",
            ),
        }
    }

    /// The profile key naming a document of this kind.
    fn key(self) -> &'static str {
        match self {
            Source::Quote => "finops.quote_id",
            Source::Invoice => "finops.invoice_id",
        }
    }

    /// The profile's document of this kind (`finops.quote_id`, `finops.invoice_id`).
    fn fixture(self, cx: &CaseCx) -> Option<String> {
        let f = cx.run.finops()?;
        match self {
            Source::Quote => f.quote_id.clone(),
            Source::Invoice => f.invoice_id.clone(),
        }
    }
}

/// A document created from `source` (a document this run created) through `based_on`, judged
/// under the rule that states the transition; returns the new document's id. The table states
/// only the source's kind, and a target may refuse a source in a state the spec does not show
/// (a draft invoice not yet issued, say): so a refused source is tried once more as the
/// profile's document of that kind, and the rule fails only when that is refused too, or when
/// the profile gives none.
async fn transition(cx: &mut CaseCx, source: Source, fresh: &str) -> Result<Option<String>, Abort> {
    let (kind, rule, what) = source.transition();
    let response = post(cx, Bodies::new(&cx.run).based_on(kind, fresh)).await?;
    let fixture = source
        .fixture(cx)
        .filter(|f| !super::same_id(f, fresh) && !response.is_success() && response.status < 500);
    let Some(fixture) = fixture else {
        if !cx.expect().created(&response, rule, "RCV-CREATE-201", what) {
            return Ok(None);
        }
        return Ok(response
            .pointer("/id")
            .and_then(Value::as_str)
            .map(str::to_owned));
    };
    // Refused too, the profile's document may be the cause: the message names its key.
    let what = format!(
        "{what} (the profile's {}, after one this run had just created was refused with {})",
        source.key(),
        response.status
    );
    let body = Bodies::new(&cx.run).based_on(kind, &fixture);
    create(cx, body, rule, &what).await
}

/// Every based-on creation other than quote to invoice and invoice to credit note is refused.
async fn forbidden_transitions(cx: &mut CaseCx) -> Outcome {
    let Some(quote) = new_quote(cx).await? else {
        return Ok(());
    };
    let invoice = {
        let body = Bodies::new(&cx.run).invoice();
        create(cx, body, "GEN-VALID-ACCEPTED", "a minimal valid invoice").await?
    };
    let mut forbidden = vec![("credit_note", quote, "a credit note based on a quote")];
    if let Some(invoice) = &invoice {
        forbidden.push(("invoice", invoice.clone(), "an invoice based on an invoice"));
        if let Some(note) = transition(cx, Source::Invoice, invoice).await? {
            forbidden.push(("invoice", note.clone(), "an invoice based on a credit note"));
            forbidden.push(("credit_note", note, "a credit note based on a credit note"));
        }
    }
    for (kind, source, what) in forbidden {
        let body = Bodies::new(&cx.run).based_on(kind, &source);
        let response = post(cx, body).await?;
        if cx
            .expect()
            .refused(&response, "RCV-TRANSITION-UNSUPPORTED", what)
        {
            cx.expect()
                .refused_with(&response, 409, "RCV-TRANSITION-409", what);
        }
    }
    Ok(())
}

/// The transition table states the source (a quote for an invoice): an id that names no
/// document names no source, and the creation is refused.
async fn based_on_unknown(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).based_on("invoice", &absent_uuid("covenant-based-on"));
    let response = post(cx, body).await?;
    cx.expect().refused(
        &response,
        "RCV-BASED-ON-UNKNOWN",
        "an invoice based on a document that does not exist",
    );
    Ok(())
}

/// A quote of the first organization named as the source of an invoice under the other: the
/// transition table's source is a document of the organization, so it names none there.
async fn based_on_foreign(cx: &mut CaseCx) -> Outcome {
    let Some(other) = super::tenant::other_organization(cx) else {
        return Ok(());
    };
    let Some(quote) = new_quote(cx).await? else {
        return Ok(());
    };
    let body = Bodies::new(&cx.run).based_on("invoice", &quote);
    let call = cx.call(OP).organization(crate::case::Given::value(&other));
    let response = cx.send(call.json(body)).await?;
    cx.expect().refused(
        &response,
        "RCV-BASED-ON-UNKNOWN",
        "an invoice based on a quote of another organization",
    );
    Ok(())
}

/// The deductions limit at exactly 10 items, beside a baseline of one item of the same shape
/// (the item's shape is not shown: the empty object, the least a target can be given).
async fn deductions_at_limit(cx: &mut CaseCx) -> Outcome {
    let quote = Bodies::new(&cx.run).quote();
    let with = |n: usize| {
        let mut body = quote.clone();
        body["deductions"] = json!(vec![json!({}); n]);
        cx.call(OP).json(body).request
    };
    let request = with(1);
    let baseline = Control::new(
        "a minimal quote with one deduction",
        Outgoing {
            operation: OP,
            request,
        },
    );
    let variant = Variant::new(
        "a minimal quote with 10 deductions (max 10) [RCV-DEDUCTIONS-MAX]".to_owned(),
        "GEN-LIMIT-INCLUSIVE",
        with(10),
    );
    baseline.judge(cx, vec![variant]).await
}

/// Checks a refusal for a `must` rule and the conventional 422 of a validation failure.
async fn expect_invalid(cx: &mut CaseCx, body: Value, rule: &str, what: &str) -> Outcome {
    let response = post(cx, body).await?;
    if cx.expect().refused(&response, rule, what) {
        cx.expect()
            .refused_with(&response, 422, "RCV-VALIDATION-422", what);
    }
    Ok(())
}

async fn unknown_property(cx: &mut CaseCx) -> Outcome {
    let bodies = Bodies::new(&cx.run);
    let mut quote = bodies.quote();
    quote["covenant_unknown_property"] = json!("x");
    let mut invoice = bodies.invoice();
    invoice["covenant_unknown_property"] = json!(1);
    // An existing quote where the profile names one, so that only the unknown property stands
    // between the body and a 201.
    let source = cx.run.finops().and_then(|f| f.quote_id.clone());
    let mut based_on = bodies.based_on(
        "invoice",
        &source.unwrap_or_else(|| absent_uuid("covenant-unknown-prop")),
    );
    based_on["covenant_unknown_property"] = json!(true);
    for (body, what) in [
        (quote, "a quote body"),
        (invoice, "an invoice body"),
        (based_on, "a based-on body"),
    ] {
        expect_invalid(
            cx,
            body,
            "RCV-UNKNOWN-PROPS",
            &format!("{what} with an unknown property"),
        )
        .await?;
    }
    Ok(())
}

async fn foreign_shape(cx: &mut CaseCx) -> Outcome {
    let bodies = Bodies::new(&cx.run);
    let mut quote = bodies.quote();
    quote["purchase_order"] = json!("PO-1");
    let mut invoice = bodies.invoice();
    invoice["expiry_date"] = json!("2030-01-31");
    expect_invalid(
        cx,
        quote,
        "RCV-SHAPE-EXCLUSIVE",
        "a quote body with the invoice-only purchase_order",
    )
    .await?;
    expect_invalid(
        cx,
        invoice,
        "RCV-SHAPE-EXCLUSIVE",
        "an invoice body with the quote-only expiry_date",
    )
    .await
}

/// The fields typed "or null" in the spec, read from the body schema of `stem`.
fn nullable_fields(stem: &str) -> Result<Vec<String>, Abort> {
    Engine::new(Registry::embedded(), GenOptions::default())
        .nullable_properties(stem)
        .map_err(|e| Abort::Defect(format!("generator: {e}")))
}

/// Every nullable field set to null at once, beside the minimal body of its shape (each field
/// on its own is `accept.create-receivable`'s).
async fn nulls_accepted(cx: &mut CaseCx) -> Outcome {
    let bodies = Bodies::new(&cx.run);
    for (stem, minimal, what) in [
        ("quote-create", bodies.quote(), "quote"),
        ("invoice-create", bodies.invoice(), "invoice"),
    ] {
        let mut nulls = minimal.clone();
        for field in nullable_fields(stem)? {
            nulls[field] = Value::Null;
        }
        let variant = Variant::new(
            format!("a minimal {what} with every nullable field set to null"),
            "RCV-NULLABLE",
            cx.call(OP).json(nulls).request,
        );
        let baseline = minimal_baseline(cx, minimal, what);
        baseline.judge(cx, vec![variant]).await?;
    }
    Ok(())
}

/// The minimal body of a shape as the baseline its variants are judged beside.
fn minimal_baseline(cx: &CaseCx, body: Value, what: &str) -> Control {
    Control::new(format!("the minimal {what}"), cx.call(OP).json(body))
}

/// fulfillment_date may be in the past, present or future: each beside the minimal invoice.
async fn fulfillment_any_time(cx: &mut CaseCx) -> Outcome {
    let minimal = Bodies::new(&cx.run).invoice();
    let variants = ["2020-01-15", "2035-06-30"]
        .into_iter()
        .map(|date| {
            let mut body = minimal.clone();
            body["fulfillment_date"] = json!(date);
            Variant::new(
                format!("an invoice with fulfillment_date {date}"),
                "RCV-FULFILLMENT-DATE",
                cx.call(OP).json(body).request,
            )
        })
        .collect();
    let baseline = minimal_baseline(cx, minimal, "invoice");
    baseline.judge(cx, variants).await
}

#[cfg(test)]
mod tests {
    use super::nullable_fields;

    /// The spec's "X or null" fields of the quote and invoice bodies, as the spec lists them; the
    /// scenario reads them from the schemas, and this keeps the schemas to the spec.
    #[test]
    fn the_nullable_fields_read_from_the_schemas_are_the_specs() {
        let shared = [
            "attachments",
            "bank_account_id",
            "bank_account_type",
            "commercial_condition_description",
            "counterpart_billing_address_id",
            "counterpart_shipping_address_id",
            "counterpart_business_type",
            "counterpart_vat_id_id",
            "entity_vat_id_id",
            "deductions",
            "discount",
            "document_id",
            "document_rendering",
            "entity",
            "footer",
            "memo",
            "project_id",
            "tax_exempt",
            "tax_exemption_rationale",
            "tax_mode",
            "trade_name",
            "withholding_tax_rate",
        ];
        let quote = ["expiry_date", "quote_accept_page_url", "signature_required"];
        let invoice = [
            "fulfillment_date",
            "overdue_reminder_id",
            "payment_reminder_id",
            "payment_page_url",
            "payment_terms",
            "payment_terms_id",
            "purchase_order",
        ];
        for (stem, own) in [
            ("quote-create", &quote[..]),
            ("invoice-create", &invoice[..]),
        ] {
            let mut read = nullable_fields(stem).expect("the body schema compiles");
            let mut spec: Vec<String> = shared.iter().chain(own).map(|f| f.to_string()).collect();
            read.sort();
            spec.sort();
            assert_eq!(read, spec, "{stem}");
        }
    }
}
