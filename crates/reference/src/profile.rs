//! The complete profile of a running server (credentials, fixture ids, the banking
//! organization header), built from its seeded store, so that covenant tests the reference
//! through a profile, as it would any stranger's server.

use crate::banking::ORG_HEADER;
use crate::store::{self, App};
use covenant_contract::profile::{
    BankingProfile, DeletableBankAccount, FinopsProfile, OAuthProfile, Profile, Secret,
};
use covenant_contract::schema::DEFAULT_FINOPS_VERSION;

pub(crate) fn profile_of(app: &App, base_url: &str) -> Profile {
    let ids = &app.ids;
    let s = |u: &uuid::Uuid| u.to_string();
    Profile {
        name: None,
        base_url: Some(base_url.to_owned()),
        currency: Some("EUR".to_owned()),
        cases: Vec::new(),
        finops: Some(FinopsProfile {
            token: Some(Secret::new(ids.finance_token.clone())),
            version: Some(DEFAULT_FINOPS_VERSION.to_owned()),
            organization_id: Some(s(&ids.org)),
            other_organization_id: Some(s(&ids.other_org)),
            counterpart_id: Some(s(&ids.counterpart)),
            entity_user_id: Some(s(&ids.entity_user)),
            vat_rate_id: Some(s(&ids.vat_rate)),
            comment_ids: ids.comments[..5].iter().map(s).collect(),
            deletable_tag_ids: ids.tags.iter().map(s).collect(),
            deletable_bank_accounts: ids
                .bank_accounts
                .iter()
                .map(|(cp, ba)| DeletableBankAccount {
                    counterpart_id: s(cp),
                    bank_account_id: s(ba),
                })
                .collect(),
            quote_id: Some(s(&ids.quote)),
            invoice_id: Some(s(&ids.invoice)),
            ..FinopsProfile::default()
        }),
        banking: Some(BankingProfile {
            oauth: Some(OAuthProfile {
                token_url: format!("{base_url}/oauth/token"),
                client_id: ids.client_id.clone(),
                client_secret: Some(Secret::new(ids.client_secret.clone())),
                client_secret_env: None,
                scope: Some(store::WRITE_SCOPE.to_owned()),
            }),
            token_without_scope: Some(Secret::new(ids.scopeless_token.clone())),
            org_header: Some(ORG_HEADER.to_owned()),
            organization_id: Some(s(&ids.bank_org)),
            other_organization_id: Some(s(&ids.foreign_bank_org)),
            card_id: Some(s(&ids.card)),
            foreign_card_id: Some(s(&ids.foreign_card)),
            bank_account_id: Some(s(&ids.bank_account)),
            empty_bank_account_id: Some(s(&ids.empty_bank_account)),
            ..BankingProfile::default()
        }),
    }
}
