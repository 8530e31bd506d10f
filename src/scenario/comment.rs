//! Comment scenarios: an update read back, an unknown comment.

use super::{absent_uuid, expect_client_error, pretty};
use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::schema::OperationId;
use reqwest::Method;
use serde_json::json;

pub fn cases() -> Vec<Case> {
    let fin = [Need::FinopsToken, Need::FinopsOrg];
    vec![
        Case::new(
            "comment.update-read-back",
            OperationId::UpdateComment,
            &["CMT-RESPONSE", "CMT-UPDATE-APPLIED"],
            case_fn(|cx| Box::pin(comment_update(cx))),
        )
        .needs(&[
            Need::FinopsToken,
            Need::FinopsOrg,
            Need::Comment,
            Need::EntityUser,
        ])
        .writes(),
        Case::new(
            "comment.update-unknown",
            OperationId::UpdateComment,
            &["CMT-UNKNOWN"],
            case_fn(|cx| Box::pin(comment_unknown(cx))),
        )
        .needs(&fin),
    ]
}

async fn comment_update(cx: &mut CaseCx) -> Outcome {
    let f = cx.run.finops().cloned().unwrap_or_default();
    let (id, user) = (
        f.comment_ids[0].clone(),
        f.entity_user_id.clone().unwrap_or_default(),
    );
    let text = format!("covenant {} was here", cx.run.run_tag);
    let body = json!({ "text": text, "reply_to_entity_user_id": user });
    let response = cx
        .send(
            OperationId::UpdateComment,
            cx.request(OperationId::UpdateComment, &[&id]).json(body),
        )
        .await?;
    if !cx.expect_success(&response, "GEN-VALID-ACCEPTED", "updating a comment") {
        return Ok(());
    }
    let got = json!({ "text": response.pointer("/text"), "reply_to_entity_user_id": response.pointer("/reply_to_entity_user_id") });
    let want = json!({ "text": text, "reply_to_entity_user_id": user });
    if got != want {
        cx.finding_diff(
            "CMT-UPDATE-APPLIED",
            "the comment answered does not carry the update",
            &pretty(&want),
            &pretty(&got),
        );
    }
    Ok(())
}

async fn comment_unknown(cx: &mut CaseCx) -> Outcome {
    let request = cx
        .fin(
            Method::PATCH,
            &OperationId::UpdateComment.path(&[&absent_uuid("covenant-comment")]),
        )
        .json(json!({ "text": "x" }));
    let response = cx.send(OperationId::UpdateComment, request).await?;
    expect_client_error(
        cx,
        &response,
        "CMT-UNKNOWN",
        "updating a comment that does not exist",
    );
    Ok(())
}
