//! Delete scenarios: a tag and a counterpart bank account from the profile's deletable lists,
//! each deleted once (must succeed) and again (should be refused). Only ids the profile names as
//! deletable are ever deleted.

use super::expect_client_error;
use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::schema::OperationId;
use reqwest::Method;

pub fn cases() -> Vec<Case> {
    vec![
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
    ]
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
