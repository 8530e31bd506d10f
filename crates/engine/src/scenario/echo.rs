//! What a write said is what a read shows: the fields a create or an update gave come back as
//! given in its answer, where the spec shows them in the response (the quote response lists
//! its fields up to `memo`; the shapes of invoices and credit notes are not shown, so nothing of
//! them is judged). An omitted `attachments` comes back null or empty ("when omitted, no
//! attachments are associated"). An update keeps what it did not carry (a warning: the spec
//! states no merge semantics). The events the run's own writes produced are read back at once,
//! newest first, and judged like any other event by the generic checks.

use super::Bodies;
use crate::case::{case_fn, Abort, Case, CaseCx, Outcome};
use crate::schema::OperationId;
use serde_json::{json, Value};

const FIELDS: &str = "RCV-FIELDS-ECHO";
const ATTACHMENTS: &str = "RCV-ATTACHMENTS-OMITTED";
const KEEPS: &str = "CMT-UPDATE-KEEPS";

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "echo.quote-fields",
            OperationId::CreateReceivable,
            &[FIELDS, ATTACHMENTS, "EVT-ITEM", "EVT-OBJECT-TYPE-ENUM"],
            case_fn(|cx| Box::pin(quote_fields(cx))),
        )
        .sends(&[OperationId::ListEvents])
        .writes()
        .requests(2)
        .chain(2),
        Case::new(
            "echo.comment-keeps",
            OperationId::UpdateComment,
            &[KEEPS],
            case_fn(|cx| Box::pin(comment_keeps(cx))),
        )
        .writes()
        .requests(2)
        .chain(2),
    ]
}

/// The fields of the quote body this case gives, each shown in the quote response: plain
/// text unique to the run, with characters of two and three bytes (in NFC, so no Unicode
/// normalisation changes them), and a company form within the limit of 50.
fn given(cx: &CaseCx) -> Value {
    let tag = &cx.run.run_tag;
    json!({
        "memo": format!("covenant {tag}: memo, Grüße"),
        "footer": format!("covenant {tag}: footer, 日本語"),
        "commercial_condition_description": format!("covenant {tag}: payable within 30 days"),
        "counterpart_business_type": "GmbH",
    })
}

/// A quote with memo, footer, commercial terms and a company form, without attachments: its
/// answer shows each as given and no attachment; then the newest events, where the quote's own
/// event is, if the target lists one.
async fn quote_fields(cx: &mut CaseCx) -> Outcome {
    let op = OperationId::CreateReceivable;
    let given = given(cx);
    let mut body = Bodies::new(&cx.run).quote();
    if let (Some(body), Some(given)) = (body.as_object_mut(), given.as_object()) {
        body.extend(given.clone());
    }
    let response = cx.send(cx.call(op).json(body)).await?;
    let what = "a quote with memo, footer, commercial terms and a company form";
    if !cx.expect().success(&response, "GEN-VALID-ACCEPTED", what) {
        return Ok(());
    }
    for (field, sent) in given.as_object().into_iter().flatten() {
        // A field missing from the answer is the response schema's finding, not this one's.
        let Some(got) = response.pointer(&format!("/{field}")) else {
            continue;
        };
        cx.judged(FIELDS);
        if !super::same_value(sent, got) {
            cx.finding_diff(
                FIELDS,
                format!("the created quote's {field} is not the one given"),
                &sent.to_string(),
                &got.to_string(),
            );
        }
    }
    if let Some(got) = response.pointer("/attachments") {
        cx.judged(ATTACHMENTS);
        let none = got.is_null() || got.as_array().is_some_and(Vec::is_empty);
        if !none {
            cx.finding_diff(
                ATTACHMENTS,
                "a quote created without attachments is answered with attachments",
                "null or []",
                &super::pretty(got),
            );
        }
    }
    newest_events(cx).await
}

/// The newest events (sorted by creation, descending, a full page): those of the writes just
/// made come first, so the generic checks judge them like any other event.
async fn newest_events(cx: &mut CaseCx) -> Outcome {
    let list = OperationId::ListEvents;
    let request = cx.call(list).query("limit=100&sort=created_at&order=desc");
    cx.send(request).await?;
    Ok(())
}

/// An update of the text and reply_to_entity_user_id, then one of the text alone: the second
/// answer keeps the user the first set. The comment is the profile's last, which no other case
/// writes (the others take the first), so that nothing changes it between the two; with one
/// comment only, the case is skipped.
async fn comment_keeps(cx: &mut CaseCx) -> Outcome {
    let f = cx.run.finops().cloned().unwrap_or_default();
    let (Some(id), true) = (f.comment_ids.last().cloned(), f.comment_ids.len() > 1) else {
        return Err(Abort::Skip(
            "needs a second comment in finops.comment_ids, which no other case updates".into(),
        ));
    };
    let op = OperationId::UpdateComment;
    let user = Bodies::new(&cx.run).fixture_of(op, "reply_to_entity_user_id");
    let tag = cx.run.run_tag.clone();
    let both = json!({ "text": format!("covenant {tag}: both"), "reply_to_entity_user_id": user });
    let response = cx.send(cx.call(op).path(&[&id]).json(both)).await?;
    if !cx
        .expect()
        .success(&response, "GEN-VALID-ACCEPTED", "updating a comment")
    {
        return Ok(());
    }
    // Whether the target answers the field at all: one that never shows it is not judged.
    let shown = response
        .pointer("/reply_to_entity_user_id")
        .and_then(Value::as_str)
        .is_some_and(|got| super::same_id(got, &user));
    let alone = json!({ "text": format!("covenant {tag}: text alone") });
    let response = cx.send(cx.call(op).path(&[&id]).json(alone)).await?;
    let what = "updating a comment's text alone";
    if !cx.expect().success(&response, "GEN-VALID-ACCEPTED", what) {
        return Ok(());
    }
    let got = response.pointer("/reply_to_entity_user_id");
    // The first answer showed the user and this one leaves it out: the update dropped it.
    if got.is_none() && !shown {
        return Ok(());
    }
    cx.judged(KEEPS);
    if !got
        .and_then(Value::as_str)
        .is_some_and(|got| super::same_id(got, &user))
    {
        cx.finding_diff(
            KEEPS,
            "an update of the text alone changed reply_to_entity_user_id",
            &user,
            &got.map_or("absent".to_owned(), Value::to_string),
        );
    }
    Ok(())
}
