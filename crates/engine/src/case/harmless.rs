//! The harmless request of an operation: what a case sends when it tries one thing (a token, a
//! header, a path value) on a request that must change nothing the suite needs.
//!
//! Ids name nothing wherever the operation takes one, and a body would be valid, so that a
//! target which wrongly takes what is tried changes as little as possible. Only a read whose
//! path the profile's fixtures fill whole (listing transactions) names them: a read changes
//! nothing, and a target that wrongly takes what is tried then answers 200, where an account
//! that names nothing would give a 404 that looks like a refusal.

use super::{absent_uuid, Bodies, CaseCx, Given, Outgoing};
use crate::schema::{Method, OperationId};
use serde_json::json;

/// A harmless request of `operation` with `token`, the organization header given as
/// `organization` (see the module's doc).
pub fn harmless(
    cx: &CaseCx,
    operation: OperationId,
    token: Given,
    organization: Given,
) -> Outgoing {
    let none = absent_uuid("covenant-auth");
    let bodies = Bodies::new(&cx.run);
    let body = match operation {
        OperationId::CreateReceivable => {
            let mut quote = bodies.quote();
            quote["counterpart_id"] = json!(none);
            Some(quote)
        }
        OperationId::CreateVatId => Some(bodies.vat_id("DE000000000")),
        OperationId::UpdateComment => Some(json!({ "text": "covenant" })),
        OperationId::CreateMailboxDomain => Some(json!({ "domain": bodies.domain("auth") })),
        OperationId::CreateVelocityControl => Some(bodies.velocity("auth")),
        OperationId::GetVatId
        | OperationId::DeleteTag
        | OperationId::DeleteBankAccount
        | OperationId::ListEvents
        | OperationId::ListTransactions => None,
    };
    let fixtures = cx.run.path_values(operation, &[]);
    let read = operation.operation().method == Method::Get;
    let values = match fixtures.iter().all(|v| !v.is_empty()) {
        true if read => fixtures,
        _ => vec![none; operation.path_parameters()],
    };
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    let mut call = cx.call(operation).path(&values).token(token);
    if operation == OperationId::ListEvents {
        call = call.query("limit=1");
    }
    let mut request = Outgoing::from(call.organization(organization));
    if let Some(body) = body {
        request = request.json(body);
    }
    request
}
