//! What every case of a run shares: the target, the profile's fixtures and credentials, the
//! fixture ledger, the seed, and what early cases leave for late ones; and what a case needs of
//! them (a case whose needs are not met is skipped with the reason, naming the profile key that
//! would meet it; a deletable fixture is met only while the fixture ledger has one left that
//! earlier runs did not use up).

use super::stash::TokenStash;
use super::watch::FixtureWatch;
use crate::catalogue::Catalogue;
use crate::client::Target;
use crate::digest::fnv1a;
use crate::ledger::Consumable;
use crate::profile::{BankingProfile, FinopsProfile, Fixture, Profile, Secret};
use crate::schema::{OperationId, ParamLocation, Security};
use std::sync::{Arc, OnceLock};

/// What the generator draws from: the same seed gives the same payloads in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    pub seed: u64,
    /// Random bodies drawn per operation (`--cases`).
    pub cases_per_operation: u32,
    /// Random command sequences the explorer draws (`--explore`).
    pub explore: u32,
    /// How long and how heavy each sequence is (`--explore-depth`): the random commands drawn
    /// beside the bag, the writes before the closing reads, and the depth of the walks.
    pub explore_depth: u32,
}

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
    /// The arguments of `covenant run` that name this run's target as it was given
    /// (` --target URL --profile FILE`; empty for the embedded reference): what a printed
    /// command that replays part of the run needs to reach the same target.
    pub replay_target: String,
    /// The folder of the run's reports: a script the explorer prints sends a long body from a
    /// file written there (`bodies/<hash>`), as the reports' curls do. None: no reports.
    pub report_dir: Option<std::path::PathBuf>,
    /// `--keep-exchanges`: every exchange of every case is kept, a passing case's too.
    pub keep_exchanges: bool,
    /// A failing sequence is shrunk (off in the self-test, which needs only the finding).
    pub shrink: bool,
    /// When the run may end before its last case (`RunSettings::until`).
    pub until: Option<Until>,
    /// The explorer's sequences play holding it for reading, and a shrink holds it for
    /// writing: a shrink replays against a target no other sequence changes meanwhile.
    pub explore_lock: tokio::sync::RwLock<()>,
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
    /// How the run's requests broke and held each inventoried constraint.
    pub exercise: super::Exercise,
    /// Set when the preflight showed that the target reads the banking organization header
    /// under the profile's name (another value got another answer), or the profile is right by
    /// construction: a failure under the header is then never put down to its name.
    pub org_header_read: OnceLock<()>,
}

impl RunCx {
    /// Why the run stopped, for the skip reasons of the cases it cut short.
    pub fn stop_reason(&self) -> String {
        self.target
            .stop_reason()
            .unwrap_or_else(|| "interrupted".to_owned())
    }

    pub fn finops_token(&self) -> Option<&str> {
        Fixture::FinopsToken.value(&self.profile)
    }

    pub fn finops_org(&self) -> Option<&str> {
        Fixture::FinopsOrg.value(&self.profile)
    }

    pub fn org_header(&self) -> Option<&str> {
        Fixture::OrgHeader.value(&self.profile)
    }

    pub fn banking(&self) -> Option<&BankingProfile> {
        self.profile.banking.as_ref()
    }

    pub fn finops(&self) -> Option<&FinopsProfile> {
        self.profile.finops.as_ref()
    }

    /// A name unique to this run and `suffix`: `cov-<run tag>-<suffix>`.
    pub fn unique(&self, suffix: &str) -> String {
        format!("cov-{}-{suffix}", self.run_tag)
    }

    /// A number below `below` unique to this run and `salt` (as far as a hash is).
    pub fn unique_number(&self, salt: &str, below: u64) -> u64 {
        fnv1a(self.unique(salt).as_bytes()) % below
    }

    /// The profile value a fixture key of the operations table names (the first of a list).
    /// `None` when the profile gives none, and for the deletable lists, which the fixture
    /// ledger hands out.
    pub fn fixture(&self, key: &str) -> Option<&str> {
        let fixture = Fixture::of_key(key).filter(|f| !f.row().consumed)?;
        fixture.value(&self.profile)
    }

    /// The values of `op`'s path parameters: the profile's fixtures where the table names one
    /// (empty where the profile gives none: the case needs it, see [`Fixture::of_operation`]),
    /// and `ids` in order for the others (ids the case made, fixtures the ledger handed out).
    pub fn path_values(&self, op: OperationId, ids: &[String]) -> Vec<String> {
        let mut ids = ids.iter();
        let path = op.operation().parameters.iter();
        path.filter(|p| p.location == ParamLocation::Path)
            .map(|param| {
                let key = param.fixture.as_deref();
                let fixture = key.and_then(Fixture::of_key).filter(|f| !f.row().consumed);
                match fixture {
                    Some(fixture) => fixture.value(&self.profile).unwrap_or_default().to_owned(),
                    None => ids.next().cloned().unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The profile's token for an operation with this security scheme.
    pub fn token(&self, security: &Security) -> Option<&str> {
        match security {
            Security::Bearer => self.finops_token(),
            Security::OAuth2ClientCredentials { .. } => {
                self.banking_token.as_ref().map(|t| t.expose())
            }
        }
    }

    /// Why the profile does not meet `need`, if it does not.
    pub fn unmet(&self, need: Fixture) -> Option<String> {
        if let Some(problem) = self.watch.broken(need) {
            return Some(format!("blocked by the profile: {problem}"));
        }
        if let Some(list) = consumable(need) {
            let left = self.ledger.next(list, &self.profile);
            return left.err().map(|gone| gone.to_string());
        }
        let present = match need {
            Fixture::BankingToken => {
                if self.banking_token.is_some() {
                    true
                } else if let Some(why) = &self.banking_token_error {
                    return Some(format!("no banking token: {why}"));
                } else {
                    // Neither a token nor an error: a dry run, which would fetch one.
                    self.banking().is_some_and(|b| b.oauth.is_some())
                }
            }
            _ => !need.values(&self.profile).is_empty(),
        };
        (!present).then(|| format!("the profile does not give {}", need.key()))
    }

    /// Whether the profile lacks a required key for `need` (not one a fixture list used up by
    /// earlier runs, nor one the target showed to be wrong: those have their own verdicts). A
    /// planned case that needs a key the README does not call optional makes a profile without
    /// it the user's mistake, exit 2 before anything is sent.
    pub fn missing(&self, need: Fixture) -> bool {
        if need.optional() {
            return false;
        }
        match need {
            Fixture::BankingToken => self
                .banking()
                .is_none_or(|b| b.token.is_none() && b.oauth.is_none()),
            _ if consumable(need).is_some() => need.values(&self.profile).is_empty(),
            _ => self.unmet(need).is_some(),
        }
    }

    /// What a case uses of the profile for `need`, for `--dry-run`: its key, and for a list
    /// the ledger hands out from, the fixture it would take.
    pub fn uses(&self, need: Fixture) -> String {
        let next = consumable(need).and_then(|list| self.ledger.next(list, &self.profile).ok());
        match next {
            Some(taken) => format!("{} (would delete {})", need.key(), taken.id),
            None => need.key().to_owned(),
        }
    }
}

/// The list of the ledger a fixture the run uses up is taken from, one per run: the list the
/// ledger names by the fixture's key.
pub fn consumable(fixture: Fixture) -> Option<Consumable> {
    let lists = [Consumable::DeletableTags, Consumable::DeletableBankAccounts];
    let consumed = fixture.row().consumed;
    lists
        .into_iter()
        .find(|list| consumed && list.key() == fixture.key())
}

/// A question asked of each case's result as the case ends: once it answers true, the run
/// stops as it would on Ctrl-C (the cases not yet ended are skipped, requests in flight
/// abandoned). The self-test asks it, a fault's run having nothing left to show once its rule is
/// met in every way it is checked; no command of the user's sets it.
#[derive(Clone)]
pub struct Until(pub std::sync::Arc<dyn Fn(&crate::verdict::CaseResult) -> bool + Send + Sync>);

impl std::fmt::Debug for Until {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Until(..)")
    }
}
