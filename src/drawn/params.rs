//! Generated parameter cases: invalid query and header values of the two list operations, drawn
//! from the parameter schemas of `schemas/operations.json`; each must be refused with a 4xx, never
//! a 5xx.

use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::client::Request;
use crate::schema::{OperationId, Param};

/// The rule an invalid value of a list operation's parameter breaks, where the catalogue has one
/// (the outcome of most is not stated: `should` rules; the banking organization header's is).
fn param_rule(operation: OperationId, param: &Param) -> Option<&'static str> {
    match (operation, param.name.as_deref()) {
        (OperationId::ListEvents, Some("limit")) => Some("EVT-LIMIT-RANGE-REJECT"),
        (OperationId::ListEvents, Some("order" | "sort")) => Some("EVT-ORDER-ENUM"),
        (OperationId::ListEvents, Some("x-finops-version")) => Some("VER-FINOPS-MALFORMED"),
        (OperationId::ListTransactions, Some("limit")) => Some("BPAG-LIMIT-REJECT"),
        (OperationId::ListTransactions, None) if param.name_from_profile.is_some() => {
            Some("BANK-ORG-HEADER-MALFORMED-400")
        }
        _ => None,
    }
}

/// Invalid query and header values of the two list operations, drawn from the parameter schemas
/// of `schemas/operations.json`: each is refused with a 4xx, never a 5xx.
pub fn cases() -> Vec<Case> {
    OperationId::lists()
        .map(|op| {
            let rules: Vec<&'static str> = op
                .operation()
                .parameters
                .iter()
                .filter_map(|p| param_rule(op, p))
                .collect();
            Case::new(
                &format!("generated.params.{op}"),
                op,
                &rules,
                case_fn(move |cx| Box::pin(invalid_params(cx, op))),
            )
            .suite("generated")
            .needs(&Need::of_operation(op))
        })
        .collect()
}

async fn invalid_params(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let op = operation.operation();
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
            } else {
                cx.tally.expected("4xx");
                cx.refused_under(rule);
                cx.ensure(!response.is_success(), rule, || {
                    format!("{what} was accepted with {}", response.status)
                });
            }
        }
    }
    Ok(())
}

/// A list request with one parameter set to `value`.
fn list_request(
    cx: &CaseCx,
    operation: OperationId,
    name: &str,
    value: &str,
    location: crate::schema::ParamLocation,
) -> Request {
    let call = cx.call(operation);
    match location {
        crate::schema::ParamLocation::Query => {
            let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            call.query(&format!("{name}={encoded}")).request()
        }
        _ => call.request().with_header(name, value),
    }
}
