//! List events scenarios outside pagination: values outside the order and sort enums, and the v1
//! path served.

use super::expect_client_error;
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;

pub fn cases() -> Vec<Case> {
    vec![Case::new(
        "events.invalid-order-and-sort",
        OperationId::ListEvents,
        &["EVT-ORDER-ENUM"],
        case_fn(|cx| Box::pin(events_bad_enums(cx))),
    )
    .requests(2)]
}

async fn events_bad_enums(cx: &mut CaseCx) -> Outcome {
    for query in ["order=sideways&sort=created_at", "sort=covenant&order=asc"] {
        let response = cx
            .send(cx.call(OperationId::ListEvents).query(query))
            .await?;
        expect_client_error(
            cx,
            &response,
            "EVT-ORDER-ENUM",
            &format!("listing events with {query}"),
        );
    }
    Ok(())
}

/// List events answers at its v1 path: a valid request is not a 404 or 405. (Only events: its
/// path names no id, so a 404 cannot come from a fixture the target does not hold.)
pub fn path_cases() -> Vec<Case> {
    vec![Case::new(
        "paths.v1-served",
        OperationId::ListEvents,
        &["VER-PATH-V1"],
        case_fn(|cx| Box::pin(v1_served(cx))),
    )]
}

async fn v1_served(cx: &mut CaseCx) -> Outcome {
    let response = cx.send(cx.call(OperationId::ListEvents)).await?;
    cx.ensure(!matches!(response.status, 404 | 405), "VER-PATH-V1", || {
        format!(
            "list events is not served at {}: {}",
            OperationId::ListEvents.path(&[]),
            response.status
        )
    });
    Ok(())
}
