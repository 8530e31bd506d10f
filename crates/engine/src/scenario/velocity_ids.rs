//! Velocity control ids: "caller-supplied, unique within the organization". Two creates with one
//! id sent at the same moment, and a card-scoped control reusing an organization-scoped
//! control's id, succeed at most once; an id comes back exactly as sent, case included.
//!
//! Which of two simultaneous creates wins, and how the loser is refused, is the target's choice:
//! only a second success fails.

use super::Bodies;
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;
use serde_json::{json, Value};

const OP: OperationId = OperationId::CreateVelocityControl;
const UNIQUE: &str = "VC-ID-UNIQUE";
const ECHO: &str = "VC-ID-ECHO";

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "velocity.duplicate-id-concurrent",
            OP,
            &[UNIQUE],
            case_fn(|cx| Box::pin(concurrent(cx))),
        )
        .writes()
        .requests(2),
        Case::new(
            "velocity.id-unique-across-scopes",
            OP,
            &[UNIQUE],
            case_fn(|cx| Box::pin(across_scopes(cx))),
        )
        .full_body()
        .writes()
        .requests(2),
        Case::new(
            "velocity.id-echo-exact",
            OP,
            &[ECHO],
            case_fn(|cx| Box::pin(echo_exact(cx))),
        )
        .writes(),
    ]
}

/// Two creates with the same id, sent at once (on two lanes when `--concurrency` allows):
/// at most one of them is created. Their names differ, so that neither is a replay of the
/// other (an identical create sent again may be answered as the first, creating nothing).
async fn concurrent(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).velocity("race");
    let request = |n| {
        let body = super::velocity::renamed(body.clone(), n);
        cx.call(OP).json(body)
    };
    let pair = [(1, request("first")), (2, request("second"))];
    let mut created = Vec::new();
    cx.send_each(pair.into_iter(), |cx, n, _, response| {
        cx.judged(UNIQUE);
        if response.is_success() {
            created.push(n);
        } else {
            cx.refused_under(UNIQUE);
        }
        if created.len() > 1 {
            cx.finding(
                UNIQUE,
                format!(
                    "two creates with the same id sent at the same moment were both accepted \
                     ({}): an id is unique within the organization",
                    response.status
                ),
            );
        }
        true
    })
    .await
}

/// An organization-scoped control, then a card-scoped one with its id: the second is refused,
/// since ids are unique within the organization, whatever the scope.
async fn across_scopes(cx: &mut CaseCx) -> Outcome {
    let bodies = Bodies::new(&cx.run);
    let body = bodies.velocity("scopes");
    let card = cx.run.banking().and_then(|b| b.card_id.clone());
    let mut on_card = body.clone();
    on_card["cardId"] = json!(card.unwrap_or_default());
    let first = cx.send(cx.call(OP).json(body)).await?;
    if !cx.expect().created(
        &first,
        "GEN-VALID-ACCEPTED",
        "VC-CREATE-201",
        "an organization-scoped control",
    ) {
        return Ok(());
    }
    let second = cx.send(cx.call(OP).json(on_card)).await?;
    cx.expect().refused(
        &second,
        UNIQUE,
        "a card-scoped control reusing an organization-scoped control's id",
    );
    Ok(())
}

/// An id of upper- and lower-case letters comes back exactly as sent.
async fn echo_exact(cx: &mut CaseCx) -> Outcome {
    let mut body = Bodies::new(&cx.run).velocity("echo");
    let id = format!("Cov-{}-MixedCase", cx.run.run_tag);
    body["id"] = json!(id);
    let response = cx.send(cx.call(OP).json(body)).await?;
    if !cx.expect().created(
        &response,
        "GEN-VALID-ACCEPTED",
        "VC-CREATE-201",
        "a control whose id mixes upper and lower case",
    ) {
        return Ok(());
    }
    let got = response.pointer("/id").cloned().unwrap_or(Value::Null);
    cx.judged(ECHO);
    if got != json!(id) {
        cx.finding_diff(
            ECHO,
            "the created control's id is not the id sent, exactly (case included)",
            &json!(id).to_string(),
            &got.to_string(),
        );
    }
    Ok(())
}
