//! Comment scenarios: an update read back (plain text, then text a sloppy implementation would
//! change), an unknown comment.

use super::{absent_uuid, expect_client_error, pretty};
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;
use serde_json::json;

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "comment.update-read-back",
            OperationId::UpdateComment,
            &["CMT-RESPONSE", "CMT-UPDATE-APPLIED", "CMT-TEXT-VERBATIM"],
            case_fn(|cx| Box::pin(comment_update(cx))),
        )
        .writes()
        .requests(2),
        Case::new(
            "comment.update-unknown",
            OperationId::UpdateComment,
            &["CMT-UNKNOWN"],
            case_fn(|cx| Box::pin(comment_unknown(cx))),
        )
        .naming_nothing(),
    ]
}

async fn comment_update(cx: &mut CaseCx) -> Outcome {
    let f = cx.run.finops().cloned().unwrap_or_default();
    let bodies = super::Bodies::new(&cx.run);
    let user = bodies.fixture_of(OperationId::UpdateComment, "reply_to_entity_user_id");
    let id = f.comment_ids[0].clone();
    let text = format!("covenant {} was here", cx.run.run_tag);
    let body = json!({ "text": text, "reply_to_entity_user_id": user });
    let response = cx
        .send(cx.call(OperationId::UpdateComment).path(&[&id]).json(body))
        .await?;
    if !cx
        .expect()
        .success(&response, "GEN-VALID-ACCEPTED", "updating a comment")
    {
        return Ok(());
    }
    let got = json!({ "text": response.pointer("/text"), "reply_to_entity_user_id": response.pointer("/reply_to_entity_user_id") });
    let want = json!({ "text": text, "reply_to_entity_user_id": user });
    let same_user = got["reply_to_entity_user_id"]
        .as_str()
        .is_some_and(|got| super::same_id(got, &user));
    cx.judged("CMT-UPDATE-APPLIED");
    if got["text"] != want["text"] || !same_user {
        cx.finding_diff(
            "CMT-UPDATE-APPLIED",
            "the comment answered does not carry the update",
            &pretty(&want),
            &pretty(&got),
        );
    }
    kept_verbatim(cx, &id).await
}

/// The text sent is the text answered: a newline, characters of two and three bytes and one
/// outside the Basic Multilingual Plane (all in NFC, so that no Unicode normalisation changes
/// them) must survive; leading and trailing spaces should (trimming them only warns).
async fn kept_verbatim(cx: &mut CaseCx, id: &str) -> Outcome {
    let text = format!(
        "  covenant {}: Grüße, 日本語, 🦀\nsecond line  ",
        cx.run.run_tag
    );
    let request = cx
        .call(OperationId::UpdateComment)
        .path(&[id])
        .json(json!({ "text": text }));
    let response = cx.send(request).await?;
    let what = "updating a comment with spaces, a newline and multi-byte text";
    if !cx.expect().success(&response, "GEN-VALID-ACCEPTED", what) {
        return Ok(());
    }
    let got = response.pointer("/text").cloned().unwrap_or_default();
    let got_text = got.as_str().unwrap_or_default();
    cx.judged("CMT-UPDATE-APPLIED");
    cx.judged("CMT-TEXT-VERBATIM");
    // Trimming is a choice the spec leaves open (a warning); losing or changing characters
    // within the text is not carrying the update.
    let rule = if got.is_string() && got_text.trim() == text.trim() {
        "CMT-TEXT-VERBATIM"
    } else {
        "CMT-UPDATE-APPLIED"
    };
    if got != json!(text) {
        cx.finding_diff(
            rule,
            "the comment answered does not carry the text exactly as sent",
            &json!(text).to_string(),
            &got.to_string(),
        );
    }
    Ok(())
}

async fn comment_unknown(cx: &mut CaseCx) -> Outcome {
    let request = cx
        .call(OperationId::UpdateComment)
        .path(&[&absent_uuid("covenant-comment")])
        .json(json!({ "text": "x" }));
    let response = cx.send(request).await?;
    expect_client_error(
        cx,
        &response,
        "CMT-UNKNOWN",
        "updating a comment that does not exist",
    );
    Ok(())
}
