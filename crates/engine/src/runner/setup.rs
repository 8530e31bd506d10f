//! Resolving the target: the embedded reference, or a profile and a base URL; credentials,
//! including the OAuth client-credentials flow; and a reachability probe before any case runs.

use crate::case::{FixtureWatch, RunCx, Tamper};
use crate::catalogue::Catalogue;
use crate::client::{SendError, ShellVars, Target, TargetConfig, TargetError};
use crate::exit::Fatal;
use crate::profile::{OAuthProfile, Profile, Secret};
use crate::reference::{self, ReferenceConfig, RunningReference};
use crate::settings::{self, RunSettings, TargetChoice};
use std::sync::Arc;

/// A target ready to be tested.
pub struct Prepared {
    pub run: Arc<RunCx>,
    /// How the target is named in output (its base URL, or "the embedded reference").
    pub target_label: String,
    /// The user's cases (`--case-dir`, the profile's `cases`), checked against its profile.
    pub user_cases: Vec<crate::case::Case>,
    reference: Option<RunningReference>,
}

impl Prepared {
    /// Stops the embedded reference, if the target is one, giving the routes on which each of
    /// its faults was asked about (`reference::Asked`); none for a target of the user's.
    pub async fn shutdown(self) -> Sites {
        let Some(reference) = self.reference else {
            return Sites::new();
        };
        let sites = reference.sites();
        reference.shutdown().await;
        sites
    }
}

/// The routes on which each fault of the embedded reference was asked about.
pub type Sites = std::collections::BTreeMap<reference::Fault, std::collections::BTreeSet<String>>;

/// Resolves the target and credentials of a run.
pub async fn prepare(settings: &RunSettings) -> Result<Prepared, Fatal> {
    let (profile, reference) = match &settings.target {
        TargetChoice::Embedded { faults } => {
            let config = ReferenceConfig {
                seed: settings.generation.seed,
                faults: *faults,
                ..ReferenceConfig::default()
            };
            let server = reference::start(config)
                .await
                .map_err(|e| Fatal::Startup(format!("cannot start the embedded reference: {e}")))?;
            (server.profile().clone(), Some(server))
        }
        TargetChoice::Given { profile, .. } => {
            let profile = match profile {
                // A run that sends nothing needs no secret.
                Some(path) if !settings.mode.sends() => {
                    Profile::load_for_plan(path).map_err(|e| Fatal::Profile(e.to_string()))?
                }
                Some(path) => Profile::load(path).map_err(|e| Fatal::Profile(e.to_string()))?,
                None => Profile::default(),
            };
            (profile, None)
        }
    };
    // A bad case file is the user's mistake: named before anything is sent.
    let dirs: Vec<std::path::PathBuf> = (settings.case_dirs.iter())
        .chain(&profile.cases)
        .cloned()
        .collect();
    let user_cases = crate::user::load(&dirs, &profile)?;
    let base_url = base_url(settings, &profile)?;
    let ledger = super::fixtures::ledger(settings, &profile, &base_url)?;
    let target =
        Target::new(target_config(settings, &profile, &base_url)?).map_err(|e| {
            match (&e, &settings.network.ca_cert) {
                (TargetError::CaCert(_) | TargetError::Client(_), Some(path)) => {
                    Fatal::Usage(format!("--ca-cert {}: {e}", path.display()))
                }
                _ => Fatal::Usage(e.to_string()),
            }
        })?;
    // A dry run or a listing sends nothing at all: no probe, no token request.
    let sends = settings.mode.sends();
    if sends {
        probe(&target).await?;
    }
    let (banking_token, banking_token_error) = if sends {
        banking_token(&profile, &target).await
    } else {
        (profile.banking.as_ref().and_then(|b| b.token.clone()), None)
    };
    let target = target.with_secrets(
        &run_secrets(&profile, banking_token.as_ref()),
        shell_vars(&profile, banking_token.as_ref()),
    );
    // Against the embedded reference the fixtures are right by construction: a 404 there is
    // a finding of the checks (the self-test's faults), never blamed on the profile.
    let watch = match &reference {
        Some(_) => FixtureWatch::default(),
        None => FixtureWatch::new(&profile),
    };
    let target_label = match &reference {
        // Not its port: shards of one run against the embedded reference name the same target.
        Some(_) => "the embedded reference".to_owned(),
        None => base_url.to_string(),
    };
    let run = Arc::new(RunCx {
        target,
        profile,
        catalogue: Catalogue::embedded(),
        generation: settings.generation,
        banking_token,
        banking_token_error,
        run_tag: crate::case::run_tag(settings.generation.seed),
        replay_target: replay_target(&settings.target),
        report_dir: settings.report_dir.clone(),
        keep_exchanges: settings.keep_exchanges,
        shrink: settings.shrink,
        until: settings.until.clone(),
        explore_lock: Default::default(),
        watch,
        ledger,
        stash: Default::default(),
        token_age: settings.token_age,
        leader: Default::default(),
        exercise: Default::default(),
        org_header_read: Default::default(),
    });
    if sends {
        super::preflight::preflight(&run, settings).await?;
    }
    Ok(Prepared {
        run,
        target_label,
        user_cases,
        reference,
    })
}

/// ` --target URL --profile FILE` as the run was given them, shell-quoted; for the embedded
/// reference its deliberate faults (` --fault NAME`), `covenant run` starting it again.
fn replay_target(target: &crate::settings::TargetChoice) -> String {
    let quote = |text: &str| format!("'{}'", text.replace('\'', "'\\''"));
    match target {
        crate::settings::TargetChoice::Embedded { faults } => faults
            .iter()
            .map(|f| format!(" --fault {}", f.name()))
            .collect(),
        crate::settings::TargetChoice::Given { url, profile } => {
            let url = url
                .iter()
                .map(|u| format!(" --target {}", quote(u.as_str())));
            let profile = profile
                .iter()
                .map(|p| format!(" --profile {}", quote(&p.display().to_string())));
            url.chain(profile).collect()
        }
    }
}

/// What the target must redact besides the profile's secrets: the banking token fetched with
/// the client-credentials flow, and the tampered forms of both areas' tokens that the
/// authentication cases send (most hold all of a token but one character).
fn run_secrets(profile: &Profile, banking_token: Option<&Secret>) -> Vec<String> {
    let finops = profile.finops.as_ref().and_then(|f| f.token.as_ref());
    let mut secrets = Vec::new();
    for token in finops.into_iter().chain(banking_token) {
        secrets.push(token.expose().to_owned());
        secrets.extend(Tamper::forms(token.expose()));
    }
    secrets
}

/// The variables a curl names in place of each secret (`Profile::secret_vars`): the banking
/// token fetched with `[banking.oauth]` is the banking token's; each tampered form of a token
/// is built from its variable in the shell line, so that a curl sends what was sent.
fn shell_vars(profile: &Profile, banking_token: Option<&Secret>) -> ShellVars {
    let vars = named_vars(profile, banking_token);
    let finops = profile.finops.as_ref().and_then(|f| f.token.as_ref());
    let built: Vec<(String, String)> =
        finops
            .into_iter()
            .chain(banking_token)
            .filter_map(|token| {
                let token = token.expose();
                let var = vars.var_of(token)?;
                Some(Tamper::ALL.into_iter().filter_map(move |tamper| {
                    Some((tamper.apply(token), tamper.shell(token, var)?))
                }))
            })
            .flatten()
            .collect();
    vars.with_built(built)
}

/// The variable of each secret the profile names.
fn named_vars(profile: &Profile, banking_token: Option<&Secret>) -> ShellVars {
    let pairs = profile
        .secret_vars()
        .into_iter()
        .filter_map(|(named, value)| {
            let value = match (named.key, value) {
                ("banking.token", None) => banking_token,
                (_, value) => value,
            };
            value.map(|v| (v.expose().to_owned(), named.var))
        });
    ShellVars::new(pairs)
}

/// The base URL: `--target`, else the profile's `base_url`.
fn base_url(settings: &RunSettings, profile: &Profile) -> Result<url::Url, Fatal> {
    if let TargetChoice::Given { url: Some(url), .. } = &settings.target {
        return Ok(url.clone());
    }
    let base = profile.base_url.as_deref().ok_or_else(|| {
        Fatal::Usage("no target: give --target URL or base_url in the profile".into())
    })?;
    settings::http_url(base, "the profile's base_url").map_err(|e| Fatal::Profile(e.to_string()))
}

/// The client's bounds and credentials of TLS, from the settings and the profile's secrets.
fn target_config(
    settings: &RunSettings,
    profile: &Profile,
    base_url: &url::Url,
) -> Result<TargetConfig, Fatal> {
    let network = &settings.network;
    let ca_cert = match &network.ca_cert {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| Fatal::Usage(format!("--ca-cert {}: {e}", path.display())))?,
        ),
        None => None,
    };
    Ok(TargetConfig {
        base_url: base_url.clone(),
        timeout: network.timeout,
        max_body: network.max_body,
        retries: network.retries,
        rate: network.rate,
        max_refusal: network.max_refusal,
        max_requests: network.max_requests,
        ca_cert,
        insecure: network.insecure,
        read_only: settings.selection.read_only,
        secrets: profile.secrets(),
        shell_vars: ShellVars::default(),
        max_in_flight: Some(settings.concurrency),
        https: base_url.scheme() == "https"
            || profile
                .banking
                .as_ref()
                .and_then(|b| b.oauth.as_ref())
                .is_some_and(|o| !o.token_url.starts_with("http://")),
    })
}

/// Fails with exit code 3 when the target does not answer at all. Any answer counts, whatever
/// its status or body: judging it is the cases' work. The probe is one `GET /`, not counted
/// against `--max-requests`.
async fn probe(target: &Target) -> Result<(), Fatal> {
    match target.probe().await {
        Ok(_) => Ok(()),
        Err(e @ (SendError::Transport(_) | SendError::Timeout(_))) => Err(Fatal::Unreachable(
            format!("target {} is unreachable: {e}", target.base_url()),
        )),
        Err(_) => Ok(()),
    }
}

/// The banking token: given in the profile, or fetched with the client-credentials flow.
async fn banking_token(profile: &Profile, target: &Target) -> (Option<Secret>, Option<String>) {
    let Some(banking) = &profile.banking else {
        return (None, None);
    };
    if let Some(token) = &banking.token {
        return (Some(token.clone()), None);
    }
    let Some(oauth) = &banking.oauth else {
        return (None, None);
    };
    match client_credentials(oauth, target).await {
        Ok(token) => (Some(token), None),
        // The preflight reports it as a profile problem; against the embedded reference the
        // cases that need the token are skipped with it.
        Err(why) => (None, Some(crate::client::redact(&why, target.secrets()))),
    }
}

/// OAuth 2.0 client credentials (RFC 6749 section 4.4), client authentication in the form body,
/// through the target's client so that its timeout, TLS settings and body limit hold.
async fn client_credentials(oauth: &OAuthProfile, target: &Target) -> Result<Secret, String> {
    let secret = oauth
        .client_secret
        .as_ref()
        .ok_or("banking.oauth has no client_secret")?;
    let mut form = vec![
        ("grant_type", "client_credentials"),
        ("client_id", oauth.client_id.as_str()),
        ("client_secret", secret.expose()),
    ];
    if let Some(scope) = &oauth.scope {
        form.push(("scope", scope));
    }
    let response = target
        .post_form(&oauth.token_url, &form)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status;
    let Some(body) = &response.json else {
        return Err(format!("{status}: the answer is not JSON"));
    };
    body.get("access_token")
        .and_then(|t| t.as_str())
        .filter(|t| !t.is_empty())
        .map(Secret::new)
        .ok_or_else(|| format!("{status}: the answer has no access_token"))
}
