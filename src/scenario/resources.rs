//! Scenarios of the smaller finance resources and the banking list: VAT IDs, comments, mailbox
//! domains, deletes, events parameters, unknown bank accounts.

use super::{absent_uuid, Bodies};
use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::schema::OperationId;
use crate::target::Response;
use reqwest::Method;
use serde_json::{json, Value};

pub fn cases() -> Vec<Case> {
    let fin = [Need::FinopsToken, Need::FinopsOrg];
    vec![
        Case::new(
            "vat.create-then-get",
            OperationId::CreateVatId,
            &[
                "VAT-RESPONSE",
                "VAT-COUNTERPART-MATCH",
                "VAT-GET-SAME-ID",
                "VAT-ROUNDTRIP",
            ],
            case_fn(|cx| Box::pin(vat_create_then_get(cx))),
        )
        .needs(&[Need::FinopsToken, Need::FinopsOrg, Need::Counterpart])
        .writes()
        .requests(2),
        Case::new(
            "vat.isolated-between-organizations",
            OperationId::GetVatId,
            &["FIN-ORG-ISOLATION"],
            case_fn(|cx| Box::pin(vat_isolation(cx))),
        )
        .needs(&[
            Need::FinopsToken,
            Need::FinopsOrg,
            Need::Counterpart,
            Need::OtherOrg,
        ])
        .writes()
        .requests(2),
        Case::new(
            "vat.get-unknown",
            OperationId::GetVatId,
            &["VAT-GET-UNKNOWN"],
            case_fn(|cx| Box::pin(vat_get_unknown(cx))),
        )
        .needs(&[Need::FinopsToken, Need::FinopsOrg, Need::Counterpart]),
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
        Case::new(
            "mailbox.create",
            OperationId::CreateMailboxDomain,
            &["MBX-RESPONSE", "MBX-DNS-RECORD", "MBX-DOMAIN-ECHO"],
            case_fn(|cx| Box::pin(mailbox_create(cx))),
        )
        .needs(&[Need::FinopsToken])
        .writes(),
        Case::new(
            "mailbox.create-without-org-header",
            OperationId::CreateMailboxDomain,
            &["FIN-MAILBOX-NO-ORG-HEADER"],
            case_fn(|cx| Box::pin(mailbox_without_org(cx))),
        )
        .needs(&[Need::FinopsToken])
        .writes(),
        Case::new(
            "mailbox.invalid-domains",
            OperationId::CreateMailboxDomain,
            &["MBX-DOMAIN-PATTERN"],
            case_fn(|cx| Box::pin(mailbox_invalid(cx))),
        )
        .needs(&[Need::FinopsToken])
        .requests(INVALID_DOMAINS.len()),
        Case::new(
            "tag.delete-twice",
            OperationId::DeleteTag,
            &["TAG-DELETE", "TAG-DELETE-GONE"],
            case_fn(|cx| Box::pin(tag_delete_twice(cx))),
        )
        .needs(&[Need::FinopsToken, Need::FinopsOrg, Need::DeletableTag])
        .writes()
        .requests(2),
        Case::new(
            "bank-account.delete-twice",
            OperationId::DeleteBankAccount,
            &["CBA-DELETE", "CBA-DELETE-GONE"],
            case_fn(|cx| Box::pin(bank_account_delete_twice(cx))),
        )
        .needs(&[
            Need::FinopsToken,
            Need::FinopsOrg,
            Need::DeletableBankAccount,
        ])
        .writes()
        .requests(2),
        Case::new(
            "events.invalid-order-and-sort",
            OperationId::ListEvents,
            &["EVT-ORDER-ENUM"],
            case_fn(|cx| Box::pin(events_bad_enums(cx))),
        )
        .needs(&fin)
        .requests(2),
        Case::new(
            "transactions.unknown-account",
            OperationId::ListTransactions,
            &["BTX-UNKNOWN-ACCOUNT"],
            case_fn(|cx| Box::pin(unknown_account(cx))),
        )
        .needs(&[Need::BankingToken]),
    ]
}

fn counterpart(cx: &CaseCx) -> String {
    cx.run
        .finops()
        .and_then(|f| f.counterpart_id.clone())
        .unwrap_or_default()
}

/// A VAT ID value unique to the run: "DE" and nine digits.
fn vat_value(cx: &CaseCx, salt: u64) -> String {
    format!(
        "DE{:09}",
        (cx.run.generation.seed.wrapping_mul(31).wrapping_add(salt)) % 1_000_000_000
    )
}

async fn create_vat(
    cx: &mut CaseCx,
    value: &str,
) -> Result<Option<(Value, Value)>, crate::case::Abort> {
    let cp = counterpart(cx);
    let body = Bodies::new(&cx.run).vat_id(value);
    let response = cx
        .send(
            OperationId::CreateVatId,
            cx.request(OperationId::CreateVatId, &[&cp])
                .json(body.clone()),
        )
        .await?;
    if !cx.expect_success(&response, "GEN-VALID-ACCEPTED", "a valid VAT ID") {
        return Ok(None);
    }
    Ok(response.json.map(|j| (body, j)))
}

async fn vat_create_then_get(cx: &mut CaseCx) -> Outcome {
    let value = vat_value(cx, 1);
    let Some((sent, created)) = create_vat(cx, &value).await? else {
        return Ok(());
    };
    let cp = counterpart(cx);
    check_counterpart(cx, &created, &cp, "the created VAT ID");
    let Some(id) = created.get("id").and_then(Value::as_str).map(str::to_owned) else {
        cx.finding("VAT-RESPONSE", "the created VAT ID has no id");
        return Ok(());
    };
    let response = cx
        .send(
            OperationId::GetVatId,
            cx.request(OperationId::GetVatId, &[&cp, &id]),
        )
        .await?;
    if !cx.expect_success(
        &response,
        "VAT-GET-SAME-ID",
        "getting the VAT ID just created",
    ) {
        return Ok(());
    }
    let read = response.json.unwrap_or_default();
    if read.get("id").and_then(Value::as_str) != Some(id.as_str()) {
        cx.finding_diff(
            "VAT-GET-SAME-ID",
            "the VAT ID read back has another id",
            &id,
            &read["id"].to_string(),
        );
    }
    check_counterpart(cx, &read, &cp, "the VAT ID read back");
    let pick =
        |v: &Value| json!({ "value": v["value"], "country": v["country"], "type": v["type"] });
    let (expected, actual) = (pretty(&pick(&sent)), pretty(&pick(&read)));
    if expected != actual {
        cx.finding_diff(
            "VAT-ROUNDTRIP",
            "the VAT ID read back differs from what was sent",
            &expected,
            &actual,
        );
    }
    Ok(())
}

fn check_counterpart(cx: &mut CaseCx, vat: &Value, counterpart: &str, what: &str) {
    let got = vat.get("counterpart_id").and_then(Value::as_str);
    if got.is_some_and(|g| g != counterpart) {
        cx.finding_diff(
            "VAT-COUNTERPART-MATCH",
            format!("{what} names another counterpart"),
            counterpart,
            got.unwrap_or(""),
        );
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

async fn vat_isolation(cx: &mut CaseCx) -> Outcome {
    let value = vat_value(cx, 2);
    let Some((_, created)) = create_vat(cx, &value).await? else {
        return Ok(());
    };
    let Some(id) = created.get("id").and_then(Value::as_str).map(str::to_owned) else {
        return Ok(());
    };
    let other = cx
        .run
        .finops()
        .and_then(|f| f.other_organization_id.clone())
        .unwrap_or_default();
    let cp = counterpart(cx);
    let request = cx
        .fin(Method::GET, &OperationId::GetVatId.path(&[&cp, &id]))
        .with_header("x-organization-id", other);
    let response = cx.send(OperationId::GetVatId, request).await?;
    let leaked = response.is_success()
        && response.pointer("/id").and_then(Value::as_str) == Some(id.as_str());
    cx.ensure(!leaked, "FIN-ORG-ISOLATION", || {
        format!(
            "a VAT ID of one organization was read under another ({})",
            response.status
        )
    });
    Ok(())
}

async fn vat_get_unknown(cx: &mut CaseCx) -> Outcome {
    let cp = counterpart(cx);
    let response = cx
        .send(
            OperationId::GetVatId,
            cx.fin(
                Method::GET,
                &OperationId::GetVatId.path(&[&cp, &absent_uuid("covenant-vat")]),
            ),
        )
        .await?;
    expect_client_error(
        cx,
        &response,
        "VAT-GET-UNKNOWN",
        "getting a VAT ID that does not exist",
    );
    Ok(())
}

/// For `should` rules of the kind "refused with a 4xx".
fn expect_client_error(cx: &mut CaseCx, response: &Response, rule: &str, what: &str) {
    if response.is_success() {
        cx.finding(rule, format!("{what} was answered {}", response.status));
    }
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

async fn create_domain(cx: &mut CaseCx, domain: &str) -> Result<Response, crate::case::Abort> {
    let request = cx
        .request(OperationId::CreateMailboxDomain, &[])
        .json(json!({ "domain": domain }));
    cx.send(OperationId::CreateMailboxDomain, request).await
}

async fn mailbox_create(cx: &mut CaseCx) -> Outcome {
    let domain = Bodies::new(&cx.run).domain("mbx");
    let response = create_domain(cx, &domain).await?;
    if !cx.expect_success(
        &response,
        "GEN-VALID-ACCEPTED",
        "creating a valid mailbox domain",
    ) {
        return Ok(());
    }
    let got = response
        .pointer("/domain")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !got.eq_ignore_ascii_case(&domain) {
        cx.finding_diff(
            "MBX-DOMAIN-ECHO",
            "the created mailbox domain names another domain",
            &domain,
            got,
        );
    }
    Ok(())
}

async fn mailbox_without_org(cx: &mut CaseCx) -> Outcome {
    let domain = Bodies::new(&cx.run).domain("noorg");
    let response = create_domain(cx, &domain).await?;
    cx.expect_success(
        &response,
        "FIN-MAILBOX-NO-ORG-HEADER",
        "creating a mailbox domain without x-organization-id",
    );
    Ok(())
}

const INVALID_DOMAINS: [&str; 7] = [
    "-leading-hyphen.example.com",
    "trailing-hyphen-.example.com",
    "double..dot.example.com",
    "under_score.example.com",
    "space in.example.com",
    ".example.com",
    "example.com.",
];

async fn mailbox_invalid(cx: &mut CaseCx) -> Outcome {
    for domain in INVALID_DOMAINS {
        let response = create_domain(cx, domain).await?;
        cx.expect_refused(
            &response,
            "MBX-DOMAIN-PATTERN",
            &format!("the domain {domain:?}"),
        );
    }
    Ok(())
}

/// Deletes once (must succeed) and again (should be refused).
async fn delete_twice(
    cx: &mut CaseCx,
    operation: OperationId,
    path: &str,
    ok_rule: &str,
    gone_rule: &str,
    what: &str,
) -> Outcome {
    let response = cx.send(operation, cx.fin(Method::DELETE, path)).await?;
    if !cx.expect_success(&response, ok_rule, &format!("deleting {what}")) {
        return Ok(());
    }
    let again = cx.send(operation, cx.fin(Method::DELETE, path)).await?;
    expect_client_error(
        cx,
        &again,
        gone_rule,
        &format!("deleting {what} a second time"),
    );
    Ok(())
}

async fn tag_delete_twice(cx: &mut CaseCx) -> Outcome {
    let id = cx
        .run
        .finops()
        .map(|f| f.deletable_tag_ids[0].clone())
        .unwrap_or_default();
    delete_twice(
        cx,
        OperationId::DeleteTag,
        &OperationId::DeleteTag.path(&[&id]),
        "TAG-DELETE",
        "TAG-DELETE-GONE",
        "a tag",
    )
    .await
}

async fn bank_account_delete_twice(cx: &mut CaseCx) -> Outcome {
    let account = cx
        .run
        .finops()
        .map(|f| f.deletable_bank_accounts[0].clone());
    let Some(a) = account else { return Ok(()) };
    let path = OperationId::DeleteBankAccount.path(&[&a.counterpart_id, &a.bank_account_id]);
    delete_twice(
        cx,
        OperationId::DeleteBankAccount,
        &path,
        "CBA-DELETE",
        "CBA-DELETE-GONE",
        "a counterpart bank account",
    )
    .await
}

async fn events_bad_enums(cx: &mut CaseCx) -> Outcome {
    for query in ["order=sideways&sort=created_at", "sort=covenant&order=asc"] {
        let response = cx
            .send(
                OperationId::ListEvents,
                cx.fin(
                    Method::GET,
                    &format!("{}?{query}", OperationId::ListEvents.path(&[])),
                ),
            )
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

async fn unknown_account(cx: &mut CaseCx) -> Outcome {
    let path = OperationId::ListTransactions.path(&[&absent_uuid("covenant-account")]);
    let response = cx
        .send(OperationId::ListTransactions, cx.bank(Method::GET, &path))
        .await?;
    expect_client_error(
        cx,
        &response,
        "BTX-UNKNOWN-ACCOUNT",
        "listing the transactions of an account that does not exist",
    );
    Ok(())
}

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
pub fn robustness_cases() -> Vec<Case> {
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

/// List events answers at its v1 path: a valid request is not a 404 or 405. (Only events: its
/// path names no id, so a 404 cannot come from a fixture the target does not hold.)
pub fn path_cases() -> Vec<Case> {
    vec![Case::new(
        "paths.v1-served",
        OperationId::ListEvents,
        &["VER-PATH-V1"],
        case_fn(|cx| Box::pin(v1_served(cx))),
    )
    .needs(&[Need::FinopsToken, Need::FinopsOrg])]
}

async fn v1_served(cx: &mut CaseCx) -> Outcome {
    let response = cx
        .send(
            OperationId::ListEvents,
            cx.request(OperationId::ListEvents, &[]),
        )
        .await?;
    cx.ensure(!matches!(response.status, 404 | 405), "VER-PATH-V1", || {
        format!(
            "list events is not served at {}: {}",
            OperationId::ListEvents.path(&[]),
            response.status
        )
    });
    Ok(())
}
