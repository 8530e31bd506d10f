//! List transactions scenarios outside pagination: an account that does not exist.

use super::{absent_uuid, expect_client_error};
use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::schema::OperationId;

pub fn cases() -> Vec<Case> {
    vec![Case::new(
        "transactions.unknown-account",
        OperationId::ListTransactions,
        &["BTX-UNKNOWN-ACCOUNT"],
        case_fn(|cx| Box::pin(unknown_account(cx))),
    )
    .needs(&[Need::BankingToken])]
}

async fn unknown_account(cx: &mut CaseCx) -> Outcome {
    let account = absent_uuid("covenant-account");
    let request = cx.request(OperationId::ListTransactions, &[&account]);
    let response = cx.send(OperationId::ListTransactions, request).await?;
    expect_client_error(
        cx,
        &response,
        "BTX-UNKNOWN-ACCOUNT",
        "listing the transactions of an account that does not exist",
    );
    Ok(())
}
