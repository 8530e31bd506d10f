//! The fixtures of the profile as one table: each key a case may need, what it is (optional,
//! used up by the run, watched on first use, an id) and the profile field that gives it. The
//! operations table (`schemas/operations.json`) names fixtures by these keys; nothing else binds
//! a key to a field.

use super::{BankingProfile, FinopsProfile, Profile, Secret};
use crate::schema::{Area, OperationId, ParamLocation, Security};

/// A fixture of the profile: a key a case may need. [`FIXTURES`] binds each to the profile
/// field that gives it, once; the operations table (`x-fixture`) names fixtures by their keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fixture {
    FinopsToken,
    FinopsVersion,
    FinopsOrg,
    OtherOrg,
    Counterpart,
    EntityUser,
    VatRate,
    Quote,
    Invoice,
    Comment,
    DeletableTag,
    DeletableBankAccount,
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

/// One row of the fixture table.
pub struct FixtureRow {
    pub fixture: Fixture,
    /// The profile key, as messages name it.
    pub key: &'static str,
    /// The README calls it optional: a planned case that needs it is skipped without it; any
    /// other key is required once a planned case needs it.
    pub optional: bool,
    /// A list the fixture ledger hands out from, one fixture per run.
    pub consumed: bool,
    /// An id whose first use is watched: a 404 where success was expected blames the profile.
    pub watched: bool,
    /// An identifier, which the spec states to be a UUID.
    pub id: bool,
    /// A list: its values are labelled `key[i]` and `item` after it.
    pub list: bool,
    /// What follows `key[i]` in a list value's label.
    pub item: &'static str,
    /// Every value the profile gives for it (none where it gives none), in order.
    pub values: for<'p> fn(&'p Profile) -> Vec<&'p str>,
}

const fn row(
    fixture: Fixture,
    key: &'static str,
    values: for<'p> fn(&'p Profile) -> Vec<&'p str>,
) -> FixtureRow {
    FixtureRow {
        fixture,
        key,
        optional: false,
        consumed: false,
        watched: false,
        id: false,
        list: false,
        item: "",
        values,
    }
}

impl FixtureRow {
    const fn optional(mut self) -> FixtureRow {
        self.optional = true;
        self
    }
    /// An id: its first use is watched where `watched`.
    const fn id(mut self, watched: bool) -> FixtureRow {
        self.id = true;
        self.watched = watched;
        self
    }
    const fn list(mut self, item: &'static str) -> FixtureRow {
        self.list = true;
        self.item = item;
        self
    }
    const fn consumed(mut self) -> FixtureRow {
        self.consumed = true;
        self
    }
}

fn one(value: Option<&String>) -> Vec<&str> {
    value.map(String::as_str).into_iter().collect()
}

fn secret(value: Option<&Secret>) -> Vec<&str> {
    value.map(Secret::expose).into_iter().collect()
}

fn fin(p: &Profile) -> Option<&FinopsProfile> {
    p.finops.as_ref()
}

fn bank(p: &Profile) -> Option<&BankingProfile> {
    p.banking.as_ref()
}

/// Every fixture, its key, what it is and the profile field that gives it: the one place the
/// profile's fields are bound to keys.
pub const FIXTURES: [FixtureRow; 21] = [
    row(Fixture::FinopsToken, "finops.token", |p| {
        secret(fin(p).and_then(|f| f.token.as_ref()))
    }),
    row(Fixture::FinopsVersion, "finops.version", |p| {
        vec![p.finops_version()]
    }),
    row(Fixture::FinopsOrg, "finops.organization_id", |p| {
        one(fin(p).and_then(|f| f.organization_id.as_ref()))
    })
    .id(false),
    row(Fixture::OtherOrg, "finops.other_organization_id", |p| {
        one(fin(p).and_then(|f| f.other_organization_id.as_ref()))
    })
    .id(false)
    .optional(),
    row(Fixture::Counterpart, "finops.counterpart_id", |p| {
        one(fin(p).and_then(|f| f.counterpart_id.as_ref()))
    })
    .id(true),
    row(Fixture::EntityUser, "finops.entity_user_id", |p| {
        one(fin(p).and_then(|f| f.entity_user_id.as_ref()))
    })
    .id(true),
    row(Fixture::VatRate, "finops.vat_rate_id", |p| {
        one(fin(p).and_then(|f| f.vat_rate_id.as_ref()))
    })
    .id(true),
    row(Fixture::Quote, "finops.quote_id", |p| {
        one(fin(p).and_then(|f| f.quote_id.as_ref()))
    })
    .id(true)
    .optional(),
    row(Fixture::Invoice, "finops.invoice_id", |p| {
        one(fin(p).and_then(|f| f.invoice_id.as_ref()))
    })
    .id(true)
    .optional(),
    row(Fixture::Comment, "finops.comment_ids", |p| {
        fin(p).map_or(Vec::new(), |f| {
            f.comment_ids.iter().map(String::as_str).collect()
        })
    })
    .id(true)
    .list(""),
    row(Fixture::DeletableTag, "finops.deletable_tag_ids", |p| {
        fin(p).map_or(Vec::new(), |f| {
            f.deletable_tag_ids.iter().map(String::as_str).collect()
        })
    })
    .id(true)
    .list("")
    .consumed(),
    row(
        Fixture::DeletableBankAccount,
        "finops.deletable_bank_accounts",
        |p| {
            fin(p).map_or(Vec::new(), |f| {
                let accounts = f.deletable_bank_accounts.iter();
                accounts.map(|a| a.bank_account_id.as_str()).collect()
            })
        },
    )
    .id(true)
    .list(".bank_account_id")
    .consumed(),
    row(
        Fixture::BankingToken,
        "banking.token (or banking.token_env, or [banking.oauth])",
        |p| secret(bank(p).and_then(|b| b.token.as_ref())),
    ),
    row(
        Fixture::TokenWithoutScope,
        "banking.token_without_scope",
        |p| secret(bank(p).and_then(|b| b.token_without_scope.as_ref())),
    )
    .optional(),
    row(Fixture::OrgHeader, "banking.org_header", |p| {
        one(bank(p).and_then(|b| b.org_header.as_ref()))
    }),
    row(Fixture::BankingOrg, "banking.organization_id", |p| {
        one(bank(p).and_then(|b| b.organization_id.as_ref()))
    })
    .id(false),
    row(
        Fixture::BankingOtherOrg,
        "banking.other_organization_id",
        |p| one(bank(p).and_then(|b| b.other_organization_id.as_ref())),
    )
    .id(false)
    .optional(),
    row(Fixture::Card, "banking.card_id", |p| {
        one(bank(p).and_then(|b| b.card_id.as_ref()))
    })
    .id(true),
    row(Fixture::ForeignCard, "banking.foreign_card_id", |p| {
        one(bank(p).and_then(|b| b.foreign_card_id.as_ref()))
    })
    .id(false)
    .optional(),
    row(Fixture::BankAccount, "banking.bank_account_id", |p| {
        one(bank(p).and_then(|b| b.bank_account_id.as_ref()))
    })
    .id(true),
    row(
        Fixture::EmptyBankAccount,
        "banking.empty_bank_account_id",
        |p| one(bank(p).and_then(|b| b.empty_bank_account_id.as_ref())),
    )
    .id(true)
    .optional(),
];

impl Fixture {
    /// Every fixture, in the order of [`FIXTURES`].
    pub fn all() -> impl Iterator<Item = Fixture> {
        FIXTURES.iter().map(|row| row.fixture)
    }

    /// Its row of [`FIXTURES`].
    pub fn row(self) -> &'static FixtureRow {
        FIXTURES
            .iter()
            .find(|row| row.fixture == self)
            .expect("every fixture has its row")
    }

    /// The fixture a profile key names (an `x-fixture` of the operations table).
    pub fn of_key(key: &str) -> Option<Fixture> {
        FIXTURES
            .iter()
            .find(|row| row.key == key)
            .map(|r| r.fixture)
    }

    /// The profile key that gives it.
    pub fn key(self) -> &'static str {
        self.row().key
    }

    /// Whether the README calls the key optional.
    pub fn optional(self) -> bool {
        self.row().optional
    }

    /// The profile's values for it, in order.
    pub fn values(self, profile: &Profile) -> Vec<&str> {
        (self.row().values)(profile)
    }

    /// The profile's value for it (the first of a list), if it gives one.
    pub fn value(self, profile: &Profile) -> Option<&str> {
        self.values(profile).into_iter().next()
    }

    /// The token an operation of `area` carries.
    pub fn token_of(area: Area) -> Fixture {
        match area {
            Area::Finance => Fixture::FinopsToken,
            Area::Banking => Fixture::BankingToken,
        }
    }

    /// Whether it is a token.
    pub fn is_token(self) -> bool {
        matches!(self, Fixture::FinopsToken | Fixture::BankingToken)
    }

    /// Whether it is the organization requests act for.
    pub fn is_organization(self) -> bool {
        OperationId::ALL.into_iter().any(|op| {
            let org = op.organization().and_then(|p| p.fixture.as_deref());
            org == Some(self.key())
        })
    }

    /// What a request of `op` needs from the profile, as the operations table says: its token,
    /// the organization where the operation requires one, the fixtures of its path and those a
    /// valid body of it names. Fixtures the profile always gives (the version) are left out.
    pub fn of_operation(op: OperationId) -> Vec<Fixture> {
        let operation = op.operation();
        let token = match operation.security {
            Security::Bearer => Fixture::token_of(Area::Finance),
            Security::OAuth2ClientCredentials { .. } => Fixture::token_of(Area::Banking),
        };
        let params = &operation.parameters;
        let organization = params.iter().filter(|p| p.required && p.is_organization());
        let path = params.iter().filter(|p| p.location == ParamLocation::Path);
        let keys = organization
            .chain(path)
            .filter_map(|p| p.fixture.as_deref());
        let body = operation.body_fixtures.iter().filter(|f| f.required);
        let keys = keys.chain(body.map(|f| f.fixture.as_str()));
        let mut needs = vec![token];
        for need in keys.filter_map(Fixture::of_key) {
            if !needs.contains(&need) && need != Fixture::FinopsVersion {
                needs.push(need);
            }
        }
        needs
    }

    /// The profile's values for it, each with the key that names it (`finops.comment_ids[1]`).
    pub fn labelled(self, profile: &Profile) -> Vec<(String, &str)> {
        let row = self.row();
        let values = self.values(profile).into_iter().enumerate();
        values
            .map(|(i, value)| match row.list {
                true => (format!("{}[{i}]{}", row.key, row.item), value),
                false => (row.key.to_owned(), value),
            })
            .collect()
    }
}
