//! Generated parameter cases: invalid query and header values of the two list operations, drawn
//! from the parameter schemas of `schemas/operations.json`; each must be refused with a 4xx, never
//! a 5xx.

use crate::case::{case_fn, Case, CaseCx, Outcome, Outgoing};
use crate::schema::{OperationId, Param};

/// The rule an invalid value of a parameter breaks, where the catalogue has one (the outcome of
/// most is not stated: `should` rules; the banking organization header's is): the table's
/// `x-reject-rule`.
fn param_rule(param: &'static Param) -> Option<&'static str> {
    param.reject_rule.as_deref()
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
                .filter_map(param_rule)
                .collect();
            Case::new(
                &format!("generated.params.{op}"),
                op,
                &rules,
                case_fn(move |cx| Box::pin(invalid_params(cx, op))),
            )
            .suite("generated")
        })
        .collect()
}

async fn invalid_params(cx: &mut CaseCx, operation: OperationId) -> Outcome {
    let op = operation.operation();
    for param in &op.parameters {
        let Some(rule) = param_rule(param) else {
            continue;
        };
        let from_profile = param.name_from_profile.as_deref();
        let name = param
            .name
            .as_deref()
            .or_else(|| cx.run.fixture(from_profile?));
        let Some(name) = name.map(str::to_owned) else {
            continue;
        };
        for (value, label) in crate::generate::invalid_param_values(&param.schema) {
            let request = list_request(cx, operation, &name, &value, param.location);
            let response = cx.send(request).await?;
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
) -> Outgoing {
    let call = cx.call(operation);
    match location {
        crate::schema::ParamLocation::Query => {
            let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            call.query(&format!("{name}={encoded}")).into()
        }
        _ => call.with_header(name, value),
    }
}
