//! What a case needs from the profile: a case whose needs are not met is skipped with the
//! reason, naming the profile key that would meet it. A deletable fixture is met only while the
//! fixture ledger has one left that earlier runs did not use up.

use super::RunCx;
use crate::ledger::Consumable;

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
    BankingOtherOrg,
    Card,
    ForeignCard,
    BankAccount,
    EmptyBankAccount,
}

impl Need {
    /// Every need, in the order above.
    pub const ALL: [Need; 20] = [
        Need::FinopsToken,
        Need::FinopsOrg,
        Need::OtherOrg,
        Need::Counterpart,
        Need::EntityUser,
        Need::VatRate,
        Need::Comment,
        Need::DeletableTag,
        Need::DeletableBankAccount,
        Need::Quote,
        Need::Invoice,
        Need::BankingToken,
        Need::TokenWithoutScope,
        Need::OrgHeader,
        Need::BankingOrg,
        Need::BankingOtherOrg,
        Need::Card,
        Need::ForeignCard,
        Need::BankAccount,
        Need::EmptyBankAccount,
    ];

    /// The need a profile key meets (a fixture key of `operations.json`).
    pub fn of_key(key: &str) -> Option<Need> {
        Need::ALL.into_iter().find(|need| need.key() == key)
    }

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
            Need::DeletableTag | Need::DeletableBankAccount => {
                return self.consumable().and_then(|list| {
                    let left = run.ledger.next(list, &run.profile);
                    left.err().map(|gone| gone.to_string())
                })
            }
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
            Need::BankingOtherOrg => b.is_some_and(|b| b.other_organization_id.is_some()),
            Need::Card => b.is_some_and(|b| b.card_id.is_some()),
            Need::ForeignCard => b.is_some_and(|b| b.foreign_card_id.is_some()),
            Need::BankAccount => b.is_some_and(|b| b.bank_account_id.is_some()),
            Need::EmptyBankAccount => b.is_some_and(|b| b.empty_bank_account_id.is_some()),
        };
        (!present).then(|| format!("the profile does not give {}", self.key()))
    }

    /// Whether the README calls the key optional: a planned case that needs it is skipped
    /// without it. Every other key is required once a planned case needs it, and a profile
    /// without it is the user's mistake, exit 2 before anything is sent ([`Need::missing`]).
    pub fn optional(self) -> bool {
        matches!(
            self,
            Need::OtherOrg
                | Need::BankingOtherOrg
                | Need::Quote
                | Need::Invoice
                | Need::TokenWithoutScope
                | Need::ForeignCard
                | Need::EmptyBankAccount
        )
    }

    /// Whether the profile lacks a required key for this need (not one a fixture list used up
    /// by earlier runs, nor one the target showed to be wrong: those have their own verdicts).
    pub fn missing(self, run: &RunCx) -> bool {
        if self.optional() {
            return false;
        }
        let f = run.finops();
        match self {
            Need::DeletableTag => f.is_none_or(|f| f.deletable_tag_ids.is_empty()),
            Need::DeletableBankAccount => f.is_none_or(|f| f.deletable_bank_accounts.is_empty()),
            Need::BankingToken => run
                .banking()
                .is_none_or(|b| b.token.is_none() && b.oauth.is_none()),
            _ => self.unmet(run).is_some(),
        }
    }

    /// The list of the profile this need uses up, one fixture per run.
    pub fn consumable(self) -> Option<Consumable> {
        match self {
            Need::DeletableTag => Some(Consumable::DeletableTags),
            Need::DeletableBankAccount => Some(Consumable::DeletableBankAccounts),
            _ => None,
        }
    }

    /// What a case uses of the profile for this need, for `--dry-run`: its key, and for a list
    /// the ledger hands out from, the fixture it would take.
    pub fn uses(self, run: &RunCx) -> String {
        let next = self
            .consumable()
            .and_then(|list| run.ledger.next(list, &run.profile).ok());
        match next {
            Some(taken) => format!("{} (would delete {})", self.key(), taken.id),
            None => self.key().to_owned(),
        }
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
            Need::BankingOtherOrg => "banking.other_organization_id",
            Need::Card => "banking.card_id",
            Need::ForeignCard => "banking.foreign_card_id",
            Need::BankAccount => "banking.bank_account_id",
            Need::EmptyBankAccount => "banking.empty_bank_account_id",
        }
    }
}
