//! Delete scenarios: a tag and a counterpart bank account from the profile's deletable lists,
//! each deleted once (must succeed) and again (should be refused). Only ids the profile names as
//! deletable are ever deleted, and each only once across runs: the fixture ledger hands them out
//! in turn and remembers each from the moment it is taken, before its first DELETE is sent.

use super::expect_client_error;
use crate::case::{case_fn, Abort, Case, CaseCx, Need, Outcome};
use crate::client::SendError;
use crate::ledger::{Consumable, TakeError, Taken};
use crate::schema::OperationId;

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
    path: &[&str],
    ok_rule: &str,
    gone_rule: &str,
    what: &str,
) -> Outcome {
    let response = cx
        .send(operation, cx.call(operation).ids(path).request())
        .await?;
    if !cx.expect_success(&response, ok_rule, &format!("deleting {what}")) {
        return Ok(());
    }
    let again = cx
        .send(operation, cx.call(operation).ids(path).request())
        .await?;
    expect_client_error(
        cx,
        &again,
        gone_rule,
        &format!("deleting {what} a second time"),
    );
    Ok(())
}

/// Takes the next fixture of `list` from the ledger, recorded as used up before anything is
/// sent for it. Nothing is taken when no request would leave (the run is stopping or its budget
/// is spent); when the ledger cannot record the taking, the case is an error and sends nothing.
fn take(cx: &CaseCx, list: Consumable) -> Result<Taken, Abort> {
    let run = &cx.run;
    if run.target.is_stopped() {
        return Err(Abort::Skip(format!("{}: not run", run.stop_reason())));
    }
    if run.target.budget_exhausted() {
        return Err(Abort::Skip(SendError::BudgetExhausted.to_string()));
    }
    run.ledger.take(list, &run.profile).map_err(|e| match e {
        TakeError::Exhausted(gone) => Abort::Skip(gone.to_string()),
        TakeError::Record(e) => Abort::Defect(format!("{e} (nothing was deleted)")),
    })
}

async fn tag_delete_twice(cx: &mut CaseCx) -> Outcome {
    let Taken { id, .. } = take(cx, Consumable::DeletableTags)?;
    delete_twice(
        cx,
        OperationId::DeleteTag,
        &[&id],
        "TAG-DELETE",
        "TAG-DELETE-GONE",
        "a tag",
    )
    .await
}

async fn bank_account_delete_twice(cx: &mut CaseCx) -> Outcome {
    let taken = take(cx, Consumable::DeletableBankAccounts)?;
    let account = cx
        .run
        .finops()
        .and_then(|f| f.deletable_bank_accounts.get(taken.index))
        .cloned()
        .expect("the ledger hands out only entries of the profile's list");
    delete_twice(
        cx,
        OperationId::DeleteBankAccount,
        &[&account.counterpart_id, &account.bank_account_id],
        "CBA-DELETE",
        "CBA-DELETE-GONE",
        "a counterpart bank account",
    )
    .await
}
