//! Resolving the target: the embedded reference, or a profile and a base URL; credentials,
//! including the OAuth client-credentials flow; and a reachability probe before any case runs.

use super::context::RunCx;
use crate::catalogue::Catalogue;
use crate::cli::RunArgs;
use crate::exit::Fatal;
use crate::profile::{OAuthProfile, Profile, Secret};
use crate::reference::{self, FaultSet, ReferenceConfig, RunningReference};
use crate::target::{SendError, Target, TargetConfig, TargetError};
use std::sync::Arc;
use std::time::Duration;

/// A target ready to be tested.
pub struct Prepared {
    pub run: Arc<RunCx>,
    /// How the target is named in output (its base URL, or "the embedded reference").
    pub target_label: String,
    reference: Option<RunningReference>,
}

impl Prepared {
    pub async fn shutdown(self) {
        if let Some(reference) = self.reference {
            reference.shutdown().await;
        }
    }
}

/// Resolves the target and credentials of a run.
pub async fn prepare(args: &RunArgs, seed: u64) -> Result<Prepared, Fatal> {
    let (profile, reference) = if args.target.is_none() && args.profile.is_none() {
        let faults = FaultSet::from_names(&args.faults).map_err(|e| Fatal::usage(e.to_string()))?;
        let config = ReferenceConfig {
            seed,
            faults,
            port: 0,
        };
        let server = reference::start(config)
            .await
            .map_err(|e| Fatal::usage(format!("cannot start the embedded reference: {e}")))?;
        (server.profile().clone(), Some(server))
    } else {
        if !args.faults.is_empty() {
            return Err(Fatal::usage(
                "--fault applies only to the embedded reference (no --target, no --profile)",
            ));
        }
        let profile = match &args.profile {
            Some(path) => Profile::load(path).map_err(|e| Fatal::usage(e.to_string()))?,
            None => Profile::default(),
        };
        (profile, None)
    };
    let base = args
        .target
        .clone()
        .or_else(|| profile.base_url.clone())
        .ok_or_else(|| Fatal::usage("no target: give --target URL or base_url in the profile"))?;
    let base_url = url::Url::parse(&base)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| Fatal::usage(format!("--target {base:?} is not an http or https URL")))?;
    let ca_cert = match &args.ca_cert {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| Fatal::usage(format!("--ca-cert {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let config = TargetConfig {
        base_url: base_url.clone(),
        timeout: seconds("--timeout", args.timeout)?,
        max_body: args.max_body,
        retries: args.retries,
        rate: args.rate,
        max_requests: args.max_requests,
        ca_cert,
        insecure: args.insecure,
        read_only: args.read_only,
        secrets: profile.secrets(),
        max_in_flight: Some(args.concurrency),
        https: base_url.scheme() == "https"
            || profile
                .banking
                .as_ref()
                .and_then(|b| b.oauth.as_ref())
                .is_some_and(|o| !o.token_url.starts_with("http://")),
    };
    let target = Target::new(config).map_err(|e| match (&e, &args.ca_cert) {
        (TargetError::CaCert(_) | TargetError::Client(_), Some(path)) => {
            Fatal::usage(format!("--ca-cert {}: {e}", path.display()))
        }
        _ => Fatal::usage(e.to_string()),
    })?;
    // A dry run or a listing sends nothing at all: no probe, no token request.
    let sends = !(args.dry_run || args.list);
    if sends {
        probe(&target).await?;
    }
    let (banking_token, banking_token_error) = if sends {
        banking_token(&profile, &target).await
    } else {
        (profile.banking.as_ref().and_then(|b| b.token.clone()), None)
    };
    let target = match &banking_token {
        Some(token) => target.with_secrets(&[token.expose().to_owned()]),
        None => target,
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
        seed,
        cases_per_operation: args.cases,
        banking_token,
        banking_token_error,
        phases: Default::default(),
        run_tag: format!("{:08x}", seed as u32 ^ std::process::id()),
    });
    Ok(Prepared {
        run,
        target_label,
        reference,
    })
}

/// A number of seconds from the command line as a duration, or a usage error naming the flag.
pub(super) fn seconds(flag: &str, value: f64) -> Result<Duration, Fatal> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero() && *d <= MAX_SECONDS)
        .ok_or_else(|| {
            Fatal::usage(format!(
                "{flag} {value}: expected a number of seconds above 0 and at most {}",
                MAX_SECONDS.as_secs()
            ))
        })
}

/// The longest `--timeout` or `--deadline` accepted (a day).
const MAX_SECONDS: Duration = Duration::from_secs(86_400);

/// Fails with exit code 3 when the target does not answer at all. Any answer counts, whatever
/// its status or body: judging it is the cases' work. The probe is one `GET /`, not counted
/// against `--max-requests`.
async fn probe(target: &Target) -> Result<(), Fatal> {
    match target.probe().await {
        Ok(_) => Ok(()),
        Err(e @ (SendError::Transport(_) | SendError::Timeout(_))) => Err(Fatal::unreachable(
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
        Err(why) => {
            let why = crate::target::redact(&why, target.secrets());
            super::note(&format!(
                "warning: cannot obtain a banking token from {}: {why}",
                oauth.token_url
            ));
            (None, Some(why))
        }
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
