//! Delete scenarios: a tag and a counterpart bank account from the profile's deletable lists,
//! each deleted first under the profile's other organization (must not act), then by its owner
//! once (must succeed) and again (should be refused). Only ids the profile names as
//! deletable are ever deleted, and each only once across runs: the fixture ledger hands them out
//! in turn and remembers each from the moment it is taken, before its first DELETE is sent.

use super::{expect_client_error, tenant};
use crate::case::{case_fn, Abort, Case, CaseCx, Given, Outcome};
use crate::client::SendError;
use crate::ledger::{Consumable, TakeError, Taken};
use crate::schema::OperationId;

pub fn cases() -> Vec<Case> {
    vec![
        Case::new(
            "tag.delete-twice",
            OperationId::DeleteTag,
            &["TAG-DELETE", "TAG-DELETE-GONE", tenant::WRITE],
            case_fn(|cx| Box::pin(tag_delete_twice(cx))),
        )
        .writes()
        .requests(3),
        Case::new(
            "bank-account.delete-twice",
            OperationId::DeleteBankAccount,
            &["CBA-DELETE", "CBA-DELETE-GONE", tenant::WRITE],
            case_fn(|cx| Box::pin(bank_account_delete_twice(cx))),
        )
        .writes()
        .requests(3),
    ]
}

/// Deletes under the profile's other organization (the fixture is the first organization's),
/// then as its owner (must succeed) and again (should be refused). A 2xx under the other
/// organization may be an idempotent delete that found nothing there; it acted when the owner's
/// delete then finds the fixture gone, which is that rule's finding alone.
async fn delete_twice(
    cx: &mut CaseCx,
    operation: OperationId,
    path: &[&str],
    ok_rule: &str,
    gone_rule: &str,
    what: &str,
) -> Outcome {
    let mut foreign_ok = false;
    if let Some(other) = tenant::other_organization(cx) {
        let foreign = cx
            .call(operation)
            .ids(path)
            .organization(Given::value(other));
        let response = cx.send(foreign).await?;
        cx.judged(tenant::WRITE);
        cx.refused_under(tenant::WRITE);
        foreign_ok = response.is_success();
    }
    let response = cx.send(cx.call(operation).ids(path)).await?;
    if foreign_ok && response.is_client_error() {
        cx.finding(
            tenant::WRITE,
            format!(
                "deleting {what} of one organization under another was answered 2xx, and its \
                 owner then found it gone ({})",
                response.status
            ),
        );
        return Ok(());
    }
    if !cx.expect_success(&response, ok_rule, &format!("deleting {what}")) {
        return Ok(());
    }
    let again = cx.send(cx.call(operation).ids(path)).await?;
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
