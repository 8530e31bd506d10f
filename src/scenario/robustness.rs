//! Robustness: bodies that are not JSON (truncated, not JSON at all) are refused, never answered
//! 5xx, on every operation that takes a body.

use super::absent_uuid;
use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::schema::OperationId;

/// The operations that take a body, with a path that needs only profile fixtures.
fn body_operations(cx: &CaseCx) -> Vec<(OperationId, Vec<String>)> {
    let f = cx.run.finops().cloned().unwrap_or_default();
    let cp = f
        .counterpart_id
        .clone()
        .unwrap_or_else(|| absent_uuid("covenant-cp"));
    let comment = f
        .comment_ids
        .first()
        .cloned()
        .unwrap_or_else(|| absent_uuid("covenant-comment"));
    vec![
        (OperationId::CreateReceivable, vec![]),
        (OperationId::CreateVatId, vec![cp]),
        (OperationId::UpdateComment, vec![comment]),
        (OperationId::CreateMailboxDomain, vec![]),
        (OperationId::CreateVelocityControl, vec![]),
    ]
}

/// Bodies that are not JSON (truncated, not JSON at all) are refused, never answered 5xx.
pub fn cases() -> Vec<Case> {
    vec![Case::new(
        "robustness.unparseable-body",
        OperationId::CreateReceivable,
        &["GEN-NO-5XX", "GEN-REJECT-NOT-2XX"],
        case_fn(|cx| Box::pin(unparseable_bodies(cx))),
    )
    .needs(&[Need::FinopsToken, Need::FinopsOrg])
    .requests(10)]
}

async fn unparseable_bodies(cx: &mut CaseCx) -> Outcome {
    for (operation, values) in body_operations(cx) {
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        for (bytes, what) in [
            (&b"{\"type\": \"quote\", "[..], "a truncated JSON body"),
            (&b"type=quote"[..], "a body that is not JSON"),
        ] {
            let base = cx.request(operation, &values);
            let response = cx
                .send(
                    operation,
                    base.raw(bytes.to_vec(), Some("application/json")),
                )
                .await?;
            cx.expect_refused(
                &response,
                "GEN-REJECT-NOT-2XX",
                &format!("{what} to {operation}"),
            );
        }
    }
    Ok(())
}
