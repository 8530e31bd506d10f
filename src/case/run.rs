//! What every case of a run shares: the target, the profile's fixtures and credentials, the
//! fixture ledger, the seed, and what early cases leave for late ones.

use super::{FixtureWatch, Generation, TokenStash};
use crate::catalogue::Catalogue;
use crate::client::Target;
use crate::profile::{BankingProfile, FinopsProfile, Profile, Secret};
use std::sync::{Arc, OnceLock};

/// Shared by all cases of a run.
pub struct RunCx {
    pub target: Arc<Target>,
    pub profile: Profile,
    pub catalogue: &'static Catalogue,
    pub generation: Generation,
    pub banking_token: Option<Secret>,
    /// Why the banking token could not be had, when it could not.
    pub banking_token_error: Option<String>,
    /// A tag unique to this run, for ids that must not collide with earlier runs.
    pub run_tag: String,
    /// What the target showed of the profile's fixtures (first uses watched).
    pub watch: FixtureWatch,
    /// The deletable fixtures earlier runs used up: the delete cases take theirs from it.
    pub ledger: crate::ledger::Ledger,
    /// Tokens early pagination cases stored for the late cases to use again.
    pub stash: TokenStash,
    /// `--token-age`: late cases start once the stored tokens are at least this old.
    pub token_age: Option<std::time::Duration>,
    /// In a differential run, the first target's context, set on the second's: the second
    /// generates the payloads the first does, with its own fixture values in their place.
    pub leader: OnceLock<Arc<RunCx>>,
}

impl RunCx {
    /// Why the run stopped, for the skip reasons of the cases it cut short.
    pub fn stop_reason(&self) -> String {
        self.target
            .stop_reason()
            .unwrap_or_else(|| "interrupted".to_owned())
    }

    pub fn finops_token(&self) -> Option<&str> {
        self.profile
            .finops
            .as_ref()?
            .token
            .as_ref()
            .map(Secret::expose)
    }

    pub fn finops_org(&self) -> Option<&str> {
        self.profile.finops.as_ref()?.organization_id.as_deref()
    }

    pub fn org_header(&self) -> Option<&str> {
        self.profile.banking.as_ref()?.org_header.as_deref()
    }

    pub fn banking(&self) -> Option<&BankingProfile> {
        self.profile.banking.as_ref()
    }

    pub fn finops(&self) -> Option<&FinopsProfile> {
        self.profile.finops.as_ref()
    }
}
