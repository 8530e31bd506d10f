//! Robustness: bodies that are not JSON (truncated, not JSON at all) are refused, never answered
//! 5xx, on every operation that takes a body (as `operations.json` says).

use super::absent_uuid;
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;

/// The path values of `op`: the profile's fixtures, and ids that name nothing where the profile
/// gives none (an unparseable body is refused whatever the path names).
fn path_of(cx: &CaseCx, op: OperationId) -> Vec<String> {
    let values = cx.run.path_values(op, &[]);
    let named = values.into_iter().enumerate();
    named
        .map(|(i, value)| match value.is_empty() {
            true => absent_uuid(&format!("covenant-robustness-{op}-{i}")),
            false => value,
        })
        .collect()
}

/// Bodies that are not JSON (truncated, not JSON at all) are refused, never answered 5xx. The
/// case sends to every operation that takes a body, so it needs the token of each area.
pub fn cases() -> Vec<Case> {
    let case = Case::new(
        "robustness.unparseable-body",
        OperationId::CreateReceivable,
        &["GEN-NO-5XX", "GEN-REJECT-NOT-2XX"],
        case_fn(|cx| Box::pin(unparseable_bodies(cx))),
    );
    let case = OperationId::with_body().fold(case, Case::also);
    vec![case
        .naming_nothing()
        .requests(2 * OperationId::with_body().count())]
}

async fn unparseable_bodies(cx: &mut CaseCx) -> Outcome {
    for operation in OperationId::with_body() {
        let values = path_of(cx, operation);
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        for (bytes, what) in [
            (&b"{\"type\": \"quote\", "[..], "a truncated JSON body"),
            (&b"type=quote"[..], "a body that is not JSON"),
        ] {
            let request = cx.call(operation).path(&values);
            let response = cx
                .send(request.raw(bytes.to_vec(), Some("application/json")))
                .await?;
            cx.expect().refused(
                &response,
                "GEN-REJECT-NOT-2XX",
                &format!("{what} to {operation}"),
            );
        }
    }
    Ok(())
}
