//! What a case needs from the profile: a case whose needs are not met is skipped with the
//! reason, naming the profile key that would meet it.

use super::RunCx;

/// What a case needs from the profile; a case whose needs are not met is skipped with the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    FinopsToken,
    FinopsOrg,
    OtherOrg,
    Counterpart,
    EntityUser,
    VatRate,
    Comment,
    DeletableTag,
    DeletableBankAccount,
    Quote,
    Invoice,
    BankingToken,
    TokenWithoutScope,
    OrgHeader,
    BankingOrg,
    Card,
    ForeignCard,
    BankAccount,
    EmptyBankAccount,
}

impl Need {
    /// Why the profile does not meet this need, if it does not.
    pub fn unmet(self, run: &RunCx) -> Option<String> {
        if let Some(problem) = run.watch.broken(self) {
            return Some(format!("blocked by the profile: {problem}"));
        }
        let f = run.finops();
        let b = run.banking();
        let present = match self {
            Need::FinopsToken => run.finops_token().is_some(),
            Need::FinopsOrg => run.finops_org().is_some(),
            Need::OtherOrg => f.is_some_and(|f| f.other_organization_id.is_some()),
            Need::Counterpart => f.is_some_and(|f| f.counterpart_id.is_some()),
            Need::EntityUser => f.is_some_and(|f| f.entity_user_id.is_some()),
            Need::VatRate => f.is_some_and(|f| f.vat_rate_id.is_some()),
            Need::Comment => f.is_some_and(|f| !f.comment_ids.is_empty()),
            Need::DeletableTag => f.is_some_and(|f| !f.deletable_tag_ids.is_empty()),
            Need::DeletableBankAccount => f.is_some_and(|f| !f.deletable_bank_accounts.is_empty()),
            Need::Quote => f.is_some_and(|f| f.quote_id.is_some()),
            Need::Invoice => f.is_some_and(|f| f.invoice_id.is_some()),
            Need::BankingToken => {
                if run.banking_token.is_some() {
                    true
                } else if let Some(why) = &run.banking_token_error {
                    return Some(format!("no banking token: {why}"));
                } else {
                    // Neither a token nor an error: a dry run, which would fetch one.
                    b.is_some_and(|b| b.oauth.is_some())
                }
            }
            Need::TokenWithoutScope => b.is_some_and(|b| b.token_without_scope.is_some()),
            Need::OrgHeader => b.is_some_and(|b| b.org_header.is_some()),
            Need::BankingOrg => b.is_some_and(|b| b.organization_id.is_some()),
            Need::Card => b.is_some_and(|b| b.card_id.is_some()),
            Need::ForeignCard => b.is_some_and(|b| b.foreign_card_id.is_some()),
            Need::BankAccount => b.is_some_and(|b| b.bank_account_id.is_some()),
            Need::EmptyBankAccount => b.is_some_and(|b| b.empty_bank_account_id.is_some()),
        };
        (!present).then(|| format!("the profile does not give {}", self.key()))
    }

    /// The profile key that meets this need.
    pub fn key(self) -> &'static str {
        match self {
            Need::FinopsToken => "finops.token",
            Need::FinopsOrg => "finops.organization_id",
            Need::OtherOrg => "finops.other_organization_id",
            Need::Counterpart => "finops.counterpart_id",
            Need::EntityUser => "finops.entity_user_id",
            Need::VatRate => "finops.vat_rate_id",
            Need::Comment => "finops.comment_ids",
            Need::DeletableTag => "finops.deletable_tag_ids",
            Need::DeletableBankAccount => "finops.deletable_bank_accounts",
            Need::Quote => "finops.quote_id",
            Need::Invoice => "finops.invoice_id",
            Need::BankingToken => "banking.token (or banking.token_env, or [banking.oauth])",
            Need::TokenWithoutScope => "banking.token_without_scope",
            Need::OrgHeader => "banking.org_header",
            Need::BankingOrg => "banking.organization_id",
            Need::Card => "banking.card_id",
            Need::ForeignCard => "banking.foreign_card_id",
            Need::BankAccount => "banking.bank_account_id",
            Need::EmptyBankAccount => "banking.empty_bank_account_id",
        }
    }
}
