//! Velocity control scenarios: both scopes, the TRANSACTION window, the default of `active`,
//! unlimited usage, duplicate ids, foreign cards, a token without the scope, and the optional
//! fields sent coming back as sent.

use super::{absent_uuid, pretty, Bodies};
use crate::case::{case_fn, Abort, Case, CaseCx, Given, Need, Outcome};
use crate::client::Response;
use crate::schema::OperationId;
use serde_json::{json, Value};

const OP: OperationId = OperationId::CreateVelocityControl;

pub fn cases() -> Vec<Case> {
    let case = |id: &str, rules: &[&'static str], f: crate::case::CaseFn| {
        Case::new(id, OP, rules, f).writes()
    };
    vec![
        case(
            "velocity.create-org-scope",
            &[
                "VC-CREATE-201",
                "VC-RESPONSE",
                "VC-EXACTLY-ONE-SCOPE",
                "VC-ORG-SCOPE",
                "VC-ID-ECHO",
                "VC-FIELDS-ECHO",
            ],
            case_fn(|cx| Box::pin(create_org_scope(cx))),
        ),
        case(
            "velocity.org-scope-without-header",
            &["BANK-ORG-HEADER-OPTIONAL", "VC-ORG-SCOPE"],
            case_fn(|cx| Box::pin(without_header(cx))),
        ),
        case(
            "velocity.create-card-scope",
            &["VC-CARD-SCOPE", "VC-EXACTLY-ONE-SCOPE", "VC-CREATE-201"],
            case_fn(|cx| Box::pin(card_scope(cx))),
        )
        .full_body(),
        case(
            "velocity.foreign-card",
            &["VC-CARD-ACCESS"],
            case_fn(|cx| Box::pin(foreign_card(cx))),
        )
        .needs(&[Need::ForeignCard]),
        case(
            "velocity.active-defaults-false",
            &["VC-ACTIVE-DEFAULT-FALSE"],
            case_fn(|cx| Box::pin(active_default(cx))),
        ),
        case(
            "velocity.transaction-window",
            &["VC-TRANSACTION-NO-USAGE"],
            case_fn(|cx| Box::pin(transaction_window(cx))),
        )
        .requests(2),
        case(
            "velocity.unlimited-usage",
            &["VC-USAGE-UNLIMITED"],
            case_fn(|cx| Box::pin(unlimited(cx))),
        ),
        case(
            "velocity.duplicate-id",
            &["VC-ID-UNIQUE", "VC-ID-UNIQUE-409"],
            case_fn(|cx| Box::pin(duplicate(cx))),
        )
        .requests(2),
        case(
            "velocity.fields-kept.active-and-usage",
            &["VC-FIELDS-ECHO"],
            case_fn(|cx| Box::pin(active_and_usage_kept(cx))),
        )
        .requests(2),
        case(
            "velocity.fields-kept.mcc",
            &["VC-FIELDS-ECHO"],
            case_fn(|cx| Box::pin(code_kept(cx, "mcc", json!("5411")))),
        ),
        case(
            "velocity.fields-kept.mcc-group",
            &["VC-FIELDS-ECHO"],
            case_fn(|cx| {
                let group = absent_uuid("covenant-mcc-group");
                Box::pin(code_kept(cx, "mccGroup", json!(group)))
            }),
        ),
        case(
            "velocity.token-without-scope",
            &["VC-SCOPE-REQUIRED", "VC-SCOPE-403"],
            case_fn(|cx| Box::pin(without_scope(cx))),
        )
        .needs(&[Need::TokenWithoutScope])
        .requests(3),
    ]
}

async fn post(cx: &mut CaseCx, body: Value) -> Result<Response, Abort> {
    let request = cx.call(OperationId::CreateVelocityControl).json(body);
    cx.send(request).await
}

/// Creates a control that must be accepted; returns the created control when it was.
async fn create(
    cx: &mut CaseCx,
    body: Value,
    rule: &str,
    what: &str,
) -> Result<Option<Value>, Abort> {
    let response = post(cx, body).await?;
    Ok(cx
        .expect()
        .created(&response, rule, "VC-CREATE-201", what)
        .then_some(response.json)
        .flatten())
}

fn is_set(control: &Value, field: &str) -> bool {
    control.get(field).is_some_and(|v| !v.is_null())
}

fn org_of_header(cx: &CaseCx) -> Option<String> {
    cx.run.org_header()?;
    cx.run.banking()?.organization_id.clone()
}

async fn create_org_scope(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).velocity("org");
    let Some(control) = create(
        cx,
        body.clone(),
        "GEN-VALID-ACCEPTED",
        "an organization-scoped control",
    )
    .await?
    else {
        return Ok(());
    };
    check_org_scope(cx, &control, org_of_header(cx));
    cx.judged("VC-ID-ECHO");
    if control.get("id") != body.get("id") {
        cx.finding_diff(
            "VC-ID-ECHO",
            "the created control's id is not the one supplied",
            &body["id"].to_string(),
            &control["id"].to_string(),
        );
    }
    let pick = |v: &Value| json!({ "amountLimit": v["amountLimit"], "currencyCode": v["currencyCode"], "name": v["name"], "velocityWindow": v["velocityWindow"] });
    let (want, got) = (pick(&body), pick(&control));
    cx.judged("VC-FIELDS-ECHO");
    if want != got {
        let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
        cx.finding_diff(
            "VC-FIELDS-ECHO",
            "the created control differs from what was sent",
            &pretty(&want),
            &pretty(&got),
        );
    }
    Ok(())
}

/// Organization scope: organizationId set (to `expected` when known), cardId not.
fn check_org_scope(cx: &mut CaseCx, control: &Value, expected: Option<String>) {
    cx.judged("VC-ORG-SCOPE");
    if !is_set(control, "organizationId") {
        cx.finding(
            "VC-ORG-SCOPE",
            "a control created without cardId has no organizationId",
        );
    } else if let Some(org) = expected {
        let got = control["organizationId"].as_str().unwrap_or("");
        if !super::same_id(got, &org) {
            cx.finding_diff(
                "VC-ORG-SCOPE",
                "the control is scoped to another organization than the header's",
                &org,
                got,
            );
        }
    }
    cx.judged("VC-EXACTLY-ONE-SCOPE");
    if is_set(control, "cardId") {
        cx.finding(
            "VC-EXACTLY-ONE-SCOPE",
            "an organization-scoped control also has a cardId",
        );
    }
}

async fn without_header(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).velocity("nohdr");
    let request = cx.call(OP).organization(Given::Omitted).json(body);
    let response = cx.send(request).await?;
    if cx.expect().success(
        &response,
        "BANK-ORG-HEADER-OPTIONAL",
        "a control created without the organization header",
    ) {
        let control = response.json.unwrap_or_default();
        check_org_scope(cx, &control, None);
    }
    Ok(())
}

async fn card_scope(cx: &mut CaseCx) -> Outcome {
    let card = cx
        .run
        .banking()
        .and_then(|b| b.card_id.clone())
        .unwrap_or_default();
    let mut body = Bodies::new(&cx.run).velocity("card");
    body["cardId"] = json!(card);
    let Some(control) = create(cx, body, "VC-CARD-SCOPE", "a card-scoped control").await? else {
        return Ok(());
    };
    let got = control.get("cardId").and_then(Value::as_str).unwrap_or("");
    cx.judged("VC-CARD-SCOPE");
    if !super::same_id(got, &card) {
        cx.finding_diff(
            "VC-CARD-SCOPE",
            "the control is not scoped to the card supplied",
            &card,
            got,
        );
    }
    cx.judged("VC-EXACTLY-ONE-SCOPE");
    if is_set(&control, "organizationId") {
        cx.finding(
            "VC-EXACTLY-ONE-SCOPE",
            "a card-scoped control also has an organizationId",
        );
    }
    Ok(())
}

async fn foreign_card(cx: &mut CaseCx) -> Outcome {
    let card = cx
        .run
        .banking()
        .and_then(|b| b.foreign_card_id.clone())
        .unwrap_or_default();
    let mut body = Bodies::new(&cx.run).velocity("foreign");
    body["cardId"] = json!(card);
    let response = post(cx, body).await?;
    cx.expect().refused(
        &response,
        "VC-CARD-ACCESS",
        "a control on a card the caller cannot access",
    );
    Ok(())
}

async fn active_default(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).velocity("active");
    let Some(control) =
        create(cx, body, "GEN-VALID-ACCEPTED", "a control without `active`").await?
    else {
        return Ok(());
    };
    cx.judged("VC-ACTIVE-DEFAULT-FALSE");
    if control.get("active") != Some(&json!(false)) {
        cx.finding_diff(
            "VC-ACTIVE-DEFAULT-FALSE",
            "a control created without `active` is not inactive",
            "false",
            &control["active"].to_string(),
        );
    }
    Ok(())
}

async fn transaction_window(cx: &mut CaseCx) -> Outcome {
    let bodies = Bodies::new(&cx.run);
    // "Must be omitted" holds for -1 (unlimited) too: it is a usage limit all the same.
    let with_usage: Vec<(i64, Value)> = [("txn-usage", 5), ("txn-unlimited", -1)]
        .into_iter()
        .map(|(name, usage)| {
            let mut body = bodies.velocity(name);
            body["velocityWindow"] = json!("TRANSACTION");
            body["usageLimit"] = json!(usage);
            (usage, body)
        })
        .collect();
    let mut without = bodies.velocity("txn");
    without["velocityWindow"] = json!("TRANSACTION");
    without.as_object_mut().map(|o| o.remove("usageLimit"));
    for (usage, body) in with_usage {
        let response = post(cx, body).await?;
        cx.expect().refused(
            &response,
            "VC-TRANSACTION-NO-USAGE",
            &format!("a TRANSACTION control with usageLimit {usage}"),
        );
    }
    // That the created control has no usage limit (absent, null, or -1, the spec's own word
    // for none) is the schema's (`velocity-control.json`, `then`): the generic checks judge it
    // on this answer and on every other TRANSACTION control, whatever case created it.
    create(
        cx,
        without,
        "VC-TRANSACTION-NO-USAGE",
        "a TRANSACTION control without usageLimit",
    )
    .await?;
    Ok(())
}

/// usageLimit -1 is accepted, and the created control says unlimited as the spec spells it:
/// usageLimit -1. The response lists usageLimit, so null, absent or another number loses what
/// was stated (VC-FIELDS-ECHO judges the other fields' echoes, at its own level).
async fn unlimited(cx: &mut CaseCx) -> Outcome {
    let rule = "VC-USAGE-UNLIMITED";
    let mut body = Bodies::new(&cx.run).velocity("unlimited");
    body["usageLimit"] = json!(-1);
    let what = "a control with usageLimit -1 (unlimited)";
    let Some(control) = create(cx, body, rule, what).await? else {
        return Ok(());
    };
    cx.judged(rule);
    let got = control.get("usageLimit");
    if got.and_then(Value::as_i64) != Some(-1) {
        cx.finding_diff(
            rule,
            "a control created with usageLimit -1 (unlimited) does not answer usageLimit -1",
            "-1",
            &got.map_or("absent".to_owned(), Value::to_string),
        );
    }
    Ok(())
}

async fn duplicate(cx: &mut CaseCx) -> Outcome {
    let body = Bodies::new(&cx.run).velocity("dup");
    if create(cx, body.clone(), "GEN-VALID-ACCEPTED", "a new control")
        .await?
        .is_none()
    {
        return Ok(());
    }
    // Another control under the same id: an identical body sent again might be taken as a
    // replay of the first create (idempotent, creating nothing), which the spec does not forbid.
    let response = post(cx, renamed(body, "second")).await?;
    if cx.expect().refused(
        &response,
        "VC-ID-UNIQUE",
        "a second control with the same id",
    ) {
        cx.expect().refused_with(
            &response,
            409,
            "VC-ID-UNIQUE-409",
            "a second control with the same id",
        );
    }
    Ok(())
}

/// `body` with its name suffixed: another control under the same id, never a replay of it.
pub fn renamed(mut body: Value, suffix: &str) -> Value {
    let name = body["name"].as_str().unwrap_or("covenant").to_owned();
    body["name"] = json!(format!("{name} ({suffix})"));
    body
}

/// Each optional field sent comes back as sent (only implied by the spec: a `should`).
async fn active_and_usage_kept(cx: &mut CaseCx) -> Outcome {
    for (suffix, active, usage) in [("kept-on", true, 5), ("kept-off", false, -1)] {
        let mut body = Bodies::new(&cx.run).velocity(suffix);
        body["active"] = json!(active);
        body["usageLimit"] = json!(usage);
        let what = format!("a control with active {active} and usageLimit {usage}");
        if let Some(control) = create(cx, body.clone(), "GEN-VALID-ACCEPTED", &what).await? {
            expect_kept(cx, &body, &control, &["active", "usageLimit"]);
        }
    }
    Ok(())
}

/// A control with `field` set to `value`, whose allowed values the spec does not show: a
/// refusal is the target's right, so the case is skipped saying so; accepted, the value must
/// come back as sent.
async fn code_kept(cx: &mut CaseCx, field: &str, value: Value) -> Outcome {
    let mut body = Bodies::new(&cx.run).velocity(&format!("kept-{}", field.to_lowercase()));
    body[field] = value.clone();
    let response = post(cx, body.clone()).await?;
    let what = format!("a control with {field} {value}");
    if response.is_success() {
        cx.expect().status(&response, 201, "VC-CREATE-201", &what);
        let control = response.json.unwrap_or_default();
        expect_kept(cx, &body, &control, &[field]);
    } else if response.status < 500 {
        return Err(Abort::Skip(format!(
            "{what} was refused with {}; the spec does not show the allowed values of mcc and \
             mccGroup, so a refusal is no finding and whether {field} is kept is not known",
            response.status
        )));
    }
    Ok(())
}

/// The created control carries each of `fields` as `sent`.
fn expect_kept(cx: &mut CaseCx, sent: &Value, control: &Value, fields: &[&str]) {
    cx.judged("VC-FIELDS-ECHO");
    let lost: Vec<&str> = fields
        .iter()
        .copied()
        .filter(|f| !super::same_value(&sent[*f], control.get(*f).unwrap_or(&Value::Null)))
        .collect();
    if lost.is_empty() {
        return;
    }
    let pick = |v: &Value| {
        let members = lost
            .iter()
            .map(|f| ((*f).to_owned(), v.get(*f).cloned().unwrap_or(Value::Null)));
        Value::Object(members.collect())
    };
    cx.finding_diff(
        "VC-FIELDS-ECHO",
        format!(
            "the created control does not carry {} as sent",
            lost.join(", ")
        ),
        &pretty(&pick(sent)),
        &pretty(&pick(control)),
    );
}

/// A token without `authorization_control:write:org` is refused whatever the control's scope
/// and however the organization is named: an organization-scoped control under the header, one
/// without the header (the caller's own organization), and a card-scoped one when the profile
/// gives a card. The spec requires the scope for creation as such.
async fn without_scope(cx: &mut CaseCx) -> Outcome {
    let b = cx.run.banking().cloned().unwrap_or_default();
    let Some(token) = b.token_without_scope else {
        return Ok(());
    };
    let bodies = Bodies::new(&cx.run);
    let mut variants = vec![
        (
            bodies.velocity("noscope"),
            Given::Profile,
            "an organization-scoped control",
        ),
        (
            bodies.velocity("noscope-own"),
            Given::Omitted,
            "a control without the organization header",
        ),
    ];
    if let Some(card) = b.card_id {
        let mut body = bodies.velocity("noscope-card");
        body["cardId"] = json!(card);
        variants.push((body, Given::Profile, "a card-scoped control"));
    }
    for (body, organization, what) in variants {
        let request = cx
            .call(OP)
            .organization(organization)
            .json(body)
            .with_header("authorization", format!("Bearer {}", token.expose()));
        let response = cx.send(request).await?;
        let what = format!("{what} with a token without authorization_control:write:org");
        if cx.expect().refused(&response, "VC-SCOPE-REQUIRED", &what) {
            cx.expect()
                .refused_with(&response, 403, "VC-SCOPE-403", &what);
        }
    }
    Ok(())
}
