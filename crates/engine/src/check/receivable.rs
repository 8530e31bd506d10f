//! What a created quote's answer states beyond its schema, judged on every answer of create
//! receivable to a quote body (whatever case sent it), against the body that was sent:
//!
//! - `document_id`, when the body gave none (omitted or null), "is generated on issue": an answer
//!   that shows the quote not issued (`issue_date` present and null) carries `document_id` null
//!   (RCV-DOCUMENT-ID-ON-ISSUE). RCV-DOCUMENT-ID-MANUAL, about a document_id given by hand, is
//!   another statement (its compliance mode cannot be seen), so a body carrying one is not judged
//!   here.
//! - `discounted_subtotal` is "minor units, total after discounts before tax"
//!   (RCV-DISCOUNTED-SUBTOTAL); see [`subtotal_allowed`] for the readings it accepts.
//!
//! Only the quote body is judged: the response shapes of invoices and credit notes are not
//! shown, so their `issue_date` and `discounted_subtotal`, if any, mean nothing stated.

use super::finding::{finding, Checked};
use crate::catalogue::Catalogue;
use serde_json::Value;

/// A created quote without document_id shows none before it is issued.
pub const DOCUMENT_ID_ON_ISSUE: &str = "RCV-DOCUMENT-ID-ON-ISSUE";
/// A quote's discounted_subtotal is not above its line items' total before tax.
pub const DISCOUNTED_SUBTOTAL: &str = "RCV-DISCOUNTED-SUBTOTAL";

/// The rules of this file, for the rules an answer of create receivable can be judged against.
pub const RULES: [&str; 2] = [DOCUMENT_ID_ON_ISSUE, DISCOUNTED_SUBTOTAL];

/// Judges a 2xx answer to a quote body `sent`.
pub fn quote_answer(catalogue: &Catalogue, sent: &Value, answer: &Value, out: &mut Checked) {
    document_id_on_issue(catalogue, sent, answer, out);
    discounted_subtotal(catalogue, sent, answer, out);
}

fn document_id_on_issue(catalogue: &Catalogue, sent: &Value, answer: &Value, out: &mut Checked) {
    let given = sent.get("document_id").is_some_and(|v| !v.is_null());
    let not_issued = answer.get("issue_date").is_some_and(Value::is_null);
    let Some(shown) = answer.get("document_id") else {
        return;
    };
    if given || !not_issued {
        return;
    }
    out.judged.push(DOCUMENT_ID_ON_ISSUE);
    if !shown.is_null() {
        out.findings.push(
            finding(
                catalogue,
                DOCUMENT_ID_ON_ISSUE,
                "a quote created without document_id, not issued (issue_date null), carries a \
                 document_id: one is generated on issue",
            )
            .with_diff("null", &shown.to_string()),
        );
    }
}

fn discounted_subtotal(catalogue: &Catalogue, sent: &Value, answer: &Value, out: &mut Checked) {
    if sent.get("discount").is_some_and(|v| !v.is_null()) {
        return;
    }
    let (Some(value), Some(lines)) = (
        answer.get("discounted_subtotal").and_then(Value::as_i64),
        line_total(sent),
    ) else {
        return;
    };
    out.judged.push(DISCOUNTED_SUBTOTAL);
    if !subtotal_allowed(value, lines) {
        let LineTotal { sum, items } = lines;
        out.findings.push(
            finding(
                catalogue,
                DISCOUNTED_SUBTOTAL,
                format!(
                    "a quote without discount answers discounted_subtotal {value}, above the sum \
                     of price.value times quantity over its {items} line item(s) ({sum}) and not \
                     the same sum read in major units ({}): tax added where the total is before \
                     tax",
                    sum * 100.0
                ),
            )
            .with_diff(
                &format!("at most {sum} (or {} read in major units)", sum * 100.0),
                &value.to_string(),
            ),
        );
    }
}

/// The sum over a body's line items of price.value times quantity, and how many there are.
#[derive(Debug, Clone, Copy)]
struct LineTotal {
    sum: f64,
    items: usize,
}

/// The line total of a body whose every line item has a price.value and a quantity that are
/// numbers of 0 or more; none where one is missing or negative (what a negative amount adds up
/// to is not stated) or the body has no line items array.
fn line_total(sent: &Value) -> Option<LineTotal> {
    let items = sent.get("line_items")?.as_array()?;
    let mut sum = 0.0;
    for item in items {
        let price = item.pointer("/product/price/value")?.as_f64()?;
        let quantity = item.get("quantity")?.as_f64()?;
        if !(price >= 0.0 && quantity >= 0.0) {
            return None;
        }
        sum += price * quantity;
    }
    sum.is_finite().then_some(LineTotal {
        sum,
        items: items.len(),
    })
}

/// Whether `value` is a discounted_subtotal the spec allows for line items adding up to
/// `lines`, with no discount. The spec states the field's unit (minor units) and that it is
/// before tax; the unit of price.value is only a sample shape, and whether prices include tax
/// (tax_mode) has no stated values or default. So two readings of price.value are accepted,
/// each at or below its sum (prices that include tax give a smaller total before tax):
///
/// - minor units: at most the sum;
/// - major units: at most the sum times 100, and at least half of it (a price read as including
///   a tax of more than 100% is no reading).
///
/// Each allows one minor unit of rounding per line item. What falls between the readings, above
/// the sum read in minor units and below half the sum read in major units, or above the sum
/// read in major units, has tax added (or is no total of these items at all).
fn subtotal_allowed(value: i64, lines: LineTotal) -> bool {
    let value = value as f64;
    // One minor unit per line item, and float error at very large sums.
    let slack = lines.items as f64 + lines.sum * 1e-9;
    let minor = lines.sum;
    let major = lines.sum * 100.0;
    value <= minor + slack || (major / 2.0 - slack <= value && value <= major + slack)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn quote(lines: &[(f64, f64)]) -> Value {
        let items: Vec<Value> = lines
            .iter()
            .map(|(price, quantity)| {
                json!({"product": {"name": "x", "price": {"value": price, "currency": "EUR"}}, "quantity": quantity})
            })
            .collect();
        json!({"type": "quote", "line_items": items})
    }

    fn rules(sent: &Value, answer: &Value) -> (Vec<&'static str>, Vec<String>) {
        let mut out = Checked::default();
        quote_answer(Catalogue::embedded(), sent, answer, &mut out);
        let found = out.findings.iter().map(|f| f.rule.clone()).collect();
        (out.judged, found)
    }

    #[test]
    fn a_subtotal_at_or_below_either_reading_of_the_prices_passes_and_tax_added_fails() {
        let sent = quote(&[(1250.0, 2.0), (10.5, 3.0)]);
        // 2531.5 in minor units, 253150 in major units.
        for ok in [2531, 2532, 2100, 0, 253_150, 212_731, 130_000] {
            let (judged, found) = rules(&sent, &json!({"discounted_subtotal": ok}));
            assert_eq!(judged, [DISCOUNTED_SUBTOTAL], "{ok}");
            assert!(found.is_empty(), "{ok}: {found:?}");
        }
        for taxed in [3012, 2534, 126_000, 301_249, 253_153] {
            let (_, found) = rules(&sent, &json!({"discounted_subtotal": taxed}));
            assert_eq!(found, [DISCOUNTED_SUBTOTAL], "{taxed}");
        }
    }

    #[test]
    fn a_subtotal_is_not_judged_with_a_discount_or_prices_it_cannot_add_up() {
        let answer = json!({"discounted_subtotal": 999_999_999});
        let mut discounted = quote(&[(100.0, 1.0)]);
        discounted["discount"] = json!({"amount": 10});
        assert!(rules(&discounted, &answer).0.is_empty());
        assert!(rules(&quote(&[(-100.0, 1.0)]), &answer).0.is_empty());
        assert!(rules(&json!({"type": "quote"}), &answer).0.is_empty());
        let mut null_discount = quote(&[(100.0, 1.0)]);
        null_discount["discount"] = Value::Null;
        assert_eq!(rules(&null_discount, &answer).1, [DISCOUNTED_SUBTOTAL]);
    }

    #[test]
    fn a_document_id_before_issue_fails_only_when_none_was_given() {
        let sent = json!({"type": "quote"});
        let shown = json!({"document_id": "Q-1", "issue_date": null});
        assert_eq!(rules(&sent, &shown).1, [DOCUMENT_ID_ON_ISSUE]);
        let with_null = json!({"type": "quote", "document_id": null});
        assert_eq!(rules(&with_null, &shown).1, [DOCUMENT_ID_ON_ISSUE]);
        let none = json!({"document_id": null, "issue_date": null});
        assert_eq!(rules(&sent, &none), (vec![DOCUMENT_ID_ON_ISSUE], vec![]));
        let issued = json!({"document_id": "Q-1", "issue_date": "2026-09-24T10:15:30Z"});
        assert!(rules(&sent, &issued).0.is_empty());
        let given = json!({"type": "quote", "document_id": "Q-1"});
        assert!(rules(&given, &shown).0.is_empty());
        let silent = json!({"document_id": "Q-1"});
        assert!(rules(&sent, &silent).0.is_empty());
    }
}
