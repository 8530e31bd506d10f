//! Resolving the target: the embedded reference, or a profile and a base URL; credentials,
//! including the OAuth client-credentials flow; and a reachability probe before any case runs.

use super::context::RunCx;
use crate::catalogue::Catalogue;
use crate::cli::RunArgs;
use crate::exit::Fatal;
use crate::profile::{OAuthProfile, Profile, Secret};
use crate::reference::{self, FaultSet, ReferenceConfig, RunningReference};
use crate::target::{Request, SendError, Target, TargetConfig};
use std::sync::Arc;
use std::time::Duration;

/// A target ready to be tested.
pub struct Prepared {
    pub run: Arc<RunCx>,
    /// How the target is named in output (its base URL, or "embedded reference at ...").
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
    let mut secrets = profile.secrets();
    let config = TargetConfig {
        base_url: base_url.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        max_body: args.max_body,
        retries: args.retries,
        rate: args.rate,
        max_requests: args.max_requests,
        ca_cert,
        insecure: args.insecure,
        secrets: secrets.clone(),
    };
    let probe_target = Target::new(config.clone()).map_err(|e| Fatal::usage(e.to_string()))?;
    probe(&probe_target).await?;
    let (banking_token, banking_token_error) = banking_token(&profile, &config).await;
    if let Some(token) = &banking_token {
        secrets.push(token.expose().to_owned());
    }
    let target =
        Target::new(TargetConfig { secrets, ..config }).map_err(|e| Fatal::usage(e.to_string()))?;
    let target_label = match &reference {
        Some(r) => format!("the embedded reference at {}", r.base_url()),
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
        quiet: tokio::sync::RwLock::new(()),
        run_tag: format!("{:08x}", seed as u32 ^ std::process::id()),
    });
    Ok(Prepared {
        run,
        target_label,
        reference,
    })
}

/// Fails with exit code 3 when the target does not answer at all.
async fn probe(target: &Target) -> Result<(), Fatal> {
    let (_, outcome) = target.send(&Request::get("/")).await;
    match outcome {
        Ok(_) | Err(SendError::TooLarge(_)) => Ok(()),
        Err(e) => Err(Fatal::unreachable(format!(
            "target {} is unreachable: {e}",
            target.base_url()
        ))),
    }
}

/// The banking token: given in the profile, or fetched with the client-credentials flow.
async fn banking_token(
    profile: &Profile,
    config: &TargetConfig,
) -> (Option<Secret>, Option<String>) {
    let Some(banking) = &profile.banking else {
        return (None, None);
    };
    if let Some(token) = &banking.token {
        return (Some(token.clone()), None);
    }
    let Some(oauth) = &banking.oauth else {
        return (None, None);
    };
    match client_credentials(oauth, config).await {
        Ok(token) => (Some(token), None),
        Err(why) => {
            eprintln!(
                "warning: cannot obtain a banking token from {}: {why}",
                oauth.token_url
            );
            (None, Some(why))
        }
    }
}

/// OAuth 2.0 client credentials (RFC 6749 section 4.4), client authentication in the form body.
async fn client_credentials(oauth: &OAuthProfile, config: &TargetConfig) -> Result<Secret, String> {
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
    let client = reqwest::Client::builder()
        .timeout(config.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let response = client
        .post(&oauth.token_url)
        .form(&form)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let body: serde_json::Value = response
        .json()
        .await
        .map_err(|e| format!("{status}: not JSON ({e})"))?;
    body.get("access_token")
        .and_then(|t| t.as_str())
        .map(Secret::new)
        .ok_or_else(|| format!("{status}: the answer has no access_token"))
}
