//! The client's settings, and what stops it from being built at all.

use std::time::Duration;
use url::Url;

/// Settings of the client.
#[derive(Debug, Clone)]
pub struct TargetConfig {
    pub base_url: Url,
    pub timeout: Duration,
    pub max_body: u64,
    pub retries: u32,
    /// `--rate`: the pace never goes above it; without it, no pace until the target refuses.
    pub rate: Option<f64>,
    /// `--max-refusal`: how long one request may be refused (429, or 503 with `Retry-After`)
    /// before it ends as an error of its case; and how long covenant keeps trying while nothing
    /// but refusals comes back.
    pub max_refusal: Duration,
    pub max_requests: Option<u64>,
    pub ca_cert: Option<Vec<u8>>,
    pub insecure: bool,
    /// Refuse every request but GET, HEAD and OPTIONS (`--read-only`).
    pub read_only: bool,
    /// Values that must never appear in a record.
    pub secrets: Vec<String>,
    /// The shell variables a record's curl names in place of the secrets it knows them for.
    pub shell_vars: super::ShellVars,
    /// Requests in flight at once, at most, across all cases (`--concurrency`); `None`: no cap.
    pub max_in_flight: Option<usize>,
    /// Whether any URL the run may reach is `https`: only then are the system's root
    /// certificates loaded (reading them took a third of a run's start).
    pub https: bool,
}

/// A target that cannot even be set up (bad CA file, bad URL).
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("not a PEM certificate ({0}); give a file holding -----BEGIN CERTIFICATE----- blocks")]
    CaCert(String),
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("the path {0:?} does not join onto the base URL")]
    Path(String),
}

/// An error with its chain of causes, which is where reqwest keeps the useful part.
pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message = format!("{message}: {text}");
        }
        source = s.source();
    }
    message
}

/// The certificates of a PEM bundle; at least one, or an error.
pub(super) fn ca_certificates(pem: &[u8]) -> Result<Vec<reqwest::Certificate>, TargetError> {
    let certs = reqwest::Certificate::from_pem_bundle(pem)
        .map_err(|e| TargetError::CaCert(error_chain(&e)))?;
    if certs.is_empty() {
        return Err(TargetError::CaCert("no certificate found".into()));
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_without_certificates_is_refused() {
        assert!(ca_certificates(b"not a certificate").is_err());
        assert!(
            ca_certificates(b"-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n")
                .is_err()
        );
    }
}
