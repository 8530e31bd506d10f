//! Update comment.

use super::{gate_org, merge, not_found, owns, parse_body, path_uuid};
use crate::fault::Fault;
use crate::receivable::parse_uuid;
use crate::reply::{self, FieldError, Reply};
use crate::store::{rfc3339, App, Comment};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use std::sync::Arc;
use uuid::Uuid;

fn comment_json(app: &App, id: Uuid, c: &Comment) -> Value {
    let f = &app.faults;
    let created_at = if f.has(Fault::CommentDatesNotDateTime) {
        json!(c.created_at.unix_timestamp())
    } else {
        json!(rfc3339(c.created_at))
    };
    let status = if f.has(Fault::CommentStatusUppercase) {
        c.status.to_uppercase()
    } else {
        c.status.to_owned()
    };
    json!({
        "id": id,
        "created_at": created_at,
        "updated_at": rfc3339(c.updated_at),
        "created_by_entity_user_id": c.created_by,
        "entity_id": c.org,
        "object_id": c.object_id,
        "object_type": "receivable",
        "reply_to_entity_user_id": c.reply_to,
        "status": status,
        "text": c.text,
    })
}

/// The update body: each member optional; text a string, reply_to_entity_user_id a uuid.
fn validate_comment_update(
    app: &App,
    body: &Value,
) -> Result<(Option<String>, Option<Uuid>), Vec<FieldError>> {
    let loose = app.faults.has(Fault::CommentTypesUnchecked);
    let Some(map) = body.as_object() else {
        return Err(vec![FieldError::whole_body(
            "the body must be a JSON object",
            "model_attributes_type",
        )]);
    };
    let mut problems = Vec::new();
    let text = match map.get("text") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) if loose => Some(other.to_string()),
        Some(_) => {
            problems.push(FieldError::body(
                "text",
                "Input should be a valid string",
                "string_type",
            ));
            None
        }
    };
    let reply_to = match map.get("reply_to_entity_user_id") {
        None => None,
        Some(v) => match v.as_str().and_then(parse_uuid) {
            Some(id) => Some(id),
            None if loose => None,
            None => {
                problems.push(FieldError::body(
                    "reply_to_entity_user_id",
                    "Input should be a valid UUID",
                    "uuid_parsing",
                ));
                None
            }
        },
    };
    if problems.is_empty() {
        Ok((text, reply_to))
    } else {
        Err(problems)
    }
}

pub async fn update_comment(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(comment): Path<String>,
    body: Bytes,
) -> Response {
    merge(update_comment_inner(&app, &headers, &comment, &body))
}

fn update_comment_inner(app: &App, headers: &HeaderMap, comment: &str, body: &Bytes) -> Reply {
    let org = gate_org(app, headers)?;
    let id = path_uuid(app, "comment_id", comment)?;
    let value = parse_body(app, body)?;
    let (text, reply_to) =
        validate_comment_update(app, &value).map_err(|p| reply::validation(&app.faults, &p))?;
    let mut db = app.db();
    let now = db.now();
    let Some(stored) = db.comments.get_mut(&id).filter(|c| owns(app, c.org, org)) else {
        drop(db);
        if app.faults.has(Fault::CommentUnknown200) {
            let made_up = Comment {
                org,
                created_at: now,
                updated_at: now,
                created_by: app.ids.entity_user,
                object_id: app.ids.quote,
                reply_to: reply_to.unwrap_or(app.ids.entity_user),
                status: "active",
                text: text.unwrap_or_default(),
            };
            return Ok(reply::json(
                StatusCode::OK,
                &comment_json(app, id, &made_up),
            ));
        }
        return Err(not_found(app, "comment"));
    };
    let before = stored.clone();
    if let Some(text) = text {
        stored.text = if app.faults.has(Fault::CommentTextTrimmed) {
            text.trim().to_owned()
        } else {
            text
        };
    }
    match reply_to {
        Some(reply_to) => stored.reply_to = reply_to,
        None if app.faults.has(Fault::CommentUntouchedReset) => stored.reply_to = Uuid::nil(),
        None => {}
    }
    stored.updated_at = now;
    let after = stored.clone();
    db.record(org, "comment", "comment.updated", json!({ "id": id }));
    drop(db);
    let shown = if app.faults.has(Fault::CommentUpdateNotApplied) {
        before
    } else {
        after
    };
    Ok(reply::json(StatusCode::OK, &comment_json(app, id, &shown)))
}
