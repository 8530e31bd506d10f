//! Hand-written invalid bodies, read from `cases/invalid-bodies.toml`: each must be refused for
//! its rule. The data file is embedded so a run never depends on the working directory.

use super::{absent_uuid, Bodies};
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;
use serde::Deserialize;
use serde_json::{json, Value};

const INVALID_BODIES: &str = include_str!("../../../../cases/invalid-bodies.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct InvalidBodiesFile {
    case: Vec<InvalidBody>,
}

/// One hand-written invalid body.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvalidBody {
    pub id: String,
    pub base: String,
    pub rule: String,
    #[serde(default)]
    pub set: toml::Table,
    #[serde(default)]
    pub remove: Vec<String>,
}

/// The entries of `cases/invalid-bodies.toml`.
pub fn entries() -> Vec<InvalidBody> {
    let file: InvalidBodiesFile =
        toml::from_str(INVALID_BODIES).expect("cases/invalid-bodies.toml is checked by tests");
    file.case
}

pub fn cases() -> Vec<Case> {
    entries().into_iter().map(to_case).collect()
}

fn to_case(entry: InvalidBody) -> Case {
    let operation = match entry.base.as_str() {
        "vat-id" => OperationId::CreateVatId,
        "comment" => OperationId::UpdateComment,
        "velocity" => OperationId::CreateVelocityControl,
        _ => OperationId::CreateReceivable,
    };
    let rule: &'static str = crate::catalogue::Catalogue::embedded()
        .rule(&entry.rule)
        .map(|r| r.id.as_str())
        .expect("cases/invalid-bodies.toml names catalogue rules (checked by tests)");
    let mut rules = vec![rule];
    if operation == OperationId::CreateReceivable {
        rules.push("RCV-VALIDATION-422");
    }
    let id = entry.id.clone();
    Case::new(
        &id,
        operation,
        &rules,
        case_fn(move |cx| Box::pin(run(cx, entry.clone(), operation))),
    )
}

/// The valid body an entry starts from.
fn base(cx: &CaseCx, base: &str) -> Value {
    let bodies = Bodies::new(&cx.run);
    match base {
        "quote" => bodies.quote(),
        "invoice" => bodies.invoice(),
        "based-on" => {
            // An existing quote, when the profile names one, so that only the broken rule stands
            // between the body and a 201.
            let quote = cx.run.finops().and_then(|f| f.quote_id.clone());
            bodies.based_on(
                "invoice",
                &quote.unwrap_or_else(|| absent_uuid("covenant-invalid-based-on")),
            )
        }
        "vat-id" => bodies.vat_id("DE123456789"),
        "comment" => json!({ "text": "covenant" }),
        _ => bodies.velocity("invalid"),
    }
}

/// The entry's body: base, then `set`, then `remove`.
pub fn build(base: Value, entry: &InvalidBody) -> Value {
    let mut body = base;
    for (key, value) in &entry.set {
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        body[key.as_str()] = expand(value);
    }
    if let Some(object) = body.as_object_mut() {
        for key in &entry.remove {
            object.remove(key);
        }
    }
    body
}

/// `"$repeat:C:N"` and `"$url:N"` notations of the data file.
fn expand(value: Value) -> Value {
    let Some(text) = value.as_str() else {
        return value;
    };
    if let Some(rest) = text.strip_prefix("$repeat:") {
        if let Some((c, n)) = rest.rsplit_once(':') {
            if let Ok(n) = n.parse::<usize>() {
                return Value::String(c.repeat(n));
            }
        }
    }
    if let Some(n) = text
        .strip_prefix("$url:")
        .and_then(|n| n.parse::<usize>().ok())
    {
        let head = "https://example.com/";
        return Value::String(format!(
            "{head}{}",
            "a".repeat(n.saturating_sub(head.len()))
        ));
    }
    value
}

async fn run(cx: &mut CaseCx, entry: InvalidBody, operation: OperationId) -> Outcome {
    let body = build(base(cx, &entry.base), &entry);
    let request = cx.call(operation);
    let response = cx.send(request.json(body)).await?;
    let what = format!("the body of {}", entry.id);
    if cx.expect().refused(&response, &entry.rule, &what)
        && operation == OperationId::CreateReceivable
    {
        cx.expect()
            .refused_with(&response, 422, "RCV-VALIDATION-422", &what);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_file_parses_and_names_catalogue_rules() {
        let catalogue = crate::catalogue::Catalogue::embedded();
        let entries = entries();
        assert!(entries.len() >= 30);
        for e in &entries {
            assert!(
                catalogue.rule(&e.rule).is_some(),
                "{} names unknown rule {}",
                e.id,
                e.rule
            );
            assert!(
                ["quote", "invoice", "based-on", "vat-id", "comment", "velocity"]
                    .contains(&e.base.as_str()),
                "{}",
                e.id
            );
        }
    }

    #[test]
    fn notations_expand_to_exact_lengths() {
        assert_eq!(
            expand(json!("$repeat:t:256")).as_str().map(str::len),
            Some(256)
        );
        assert_eq!(
            expand(json!("$url:2084")).as_str().map(str::len),
            Some(2084)
        );
        assert_eq!(expand(json!("plain")), json!("plain"));
    }

    #[test]
    fn every_receivable_entry_is_invalid_against_the_schema() {
        let registry = crate::schema::Registry::embedded();
        let fixtures = json!({ "type": "quote", "currency": "EUR", "counterpart_id": absent_uuid("c"),
            "line_items": [{ "quantity": 1, "vat_rate_id": absent_uuid("v") }] });
        for e in entries()
            .iter()
            .filter(|e| e.base == "quote" || e.base == "invoice")
        {
            let mut base = fixtures.clone();
            base["type"] = json!(e.base);
            let body = build(base, e);
            assert!(
                !registry.is_valid("receivable-create", &body),
                "{} is valid: {body}",
                e.id
            );
        }
    }
}
