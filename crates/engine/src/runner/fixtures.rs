//! Which fixture ledger a run keeps: none that is read or written for the embedded reference,
//! which starts fresh every run; else the state file of the settings, keyed by the target's base
//! URL (without any credentials it carries) and the profile's `finops.organization_id`.

use crate::exit::Fatal;
use crate::ledger::Ledger;
use crate::profile::Profile;
use crate::settings::{RunSettings, TargetChoice};

/// The ledger of this run; a state file that cannot be read is a usage error naming it.
pub(super) fn ledger(
    settings: &RunSettings,
    profile: &Profile,
    base_url: &url::Url,
) -> Result<Ledger, Fatal> {
    if let TargetChoice::Embedded { .. } = settings.target {
        return Ok(Ledger::fresh());
    }
    let mut target = base_url.clone();
    // Neither fails on an http(s) URL; the key must hold no password either way.
    let _ = target.set_username("");
    let _ = target.set_password(None);
    let organization = profile
        .finops
        .as_ref()
        .and_then(|f| f.organization_id.as_deref());
    Ledger::open(&settings.state, target.as_str(), organization)
        .map_err(|e| Fatal::Files(e.to_string()))
}
