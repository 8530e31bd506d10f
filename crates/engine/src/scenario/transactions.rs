//! List transactions scenarios outside pagination: an account that does not exist.

use super::{absent_uuid, expect_client_error};
use crate::case::{case_fn, Case, CaseCx, Outcome};
use crate::schema::OperationId;

pub fn cases() -> Vec<Case> {
    vec![Case::new(
        "transactions.unknown-account",
        OperationId::ListTransactions,
        &["BTX-UNKNOWN-ACCOUNT"],
        case_fn(|cx| Box::pin(unknown_account(cx))),
    )
    .naming_nothing()]
}

async fn unknown_account(cx: &mut CaseCx) -> Outcome {
    let account = absent_uuid("covenant-account");
    let request = cx.call(OperationId::ListTransactions).path(&[&account]);
    let response = cx.send(request).await?;
    expect_client_error(
        cx,
        &response,
        "BTX-UNKNOWN-ACCOUNT",
        "listing the transactions of an account that does not exist",
    );
    Ok(())
}
