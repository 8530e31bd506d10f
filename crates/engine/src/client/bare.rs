//! Requests that go without a header every other request gets: hyper's own client, which adds
//! nothing but `Host` and the body's length.
//!
//! reqwest 0.13 puts `Accept: */*` into every client's default headers when its builder is made,
//! and adds it to each request that names none; `ClientBuilder::default_headers` only adds to
//! that map, and a request cannot remove a default. The spec allows a request with no `Accept`,
//! and an answer that changes only then must be met, so a request marked
//! [`Request::no_accept`](super::Request) is sent here; so is a request whose header names go
//! in title case (`Request::title_case`: hyper writes names in lower case, reqwest exposes
//! no choice per request), through a second client that writes them so. The trust is the main client's:
//! rustls with the same provider, the system's roots and the `--ca-cert` bundle for a target
//! reached over `https` (only the bundle otherwise), nothing verified under `--insecure`. The
//! connection pool, connect timeout and HTTP/1.1 are the main client's too; the pace, budget,
//! `--timeout`, lanes and the reading of the answer are the caller's, as for any request. A
//! redirect is not followed here: it is the answer (the spec's operations redirect nowhere).
//! Built on first use: a run that sends no such request never loads the system's roots twice.
//!
//! [`hyper_client`] builds hyper's client over rustls for the proxy as well
//! (`traffic::proxy`): one set-up of the connector and of TLS for both.

use super::config::{error_chain, TargetConfig};
use super::SendError;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use std::sync::{Arc, OnceLock};

type Connector = hyper_rustls::HttpsConnector<HttpConnector>;

/// hyper's own client (the one reqwest wraps, without its URL parsing, default headers and
/// layers on each request), HTTP/1.1 over rustls to an `http` or `https` target, sending
/// bodies of type `B`.
pub type HyperClient<B> = Client<Connector, B>;

/// Which certificates a [`hyper_client`] trusts.
#[derive(Debug, Clone, Copy)]
pub struct Trust<'a> {
    /// `--insecure`: any certificate is taken.
    pub insecure: bool,
    /// The system's root certificates (loaded only when some URL reached is `https`).
    pub system: bool,
    /// A PEM bundle trusted besides (`--ca-cert`).
    pub ca_cert: Option<&'a [u8]>,
}

/// hyper's client: connections kept alive (64 idle per host), TCP_NODELAY on them (a
/// request's last small write waits on no ACK), a bounded connect, header names in title case
/// or as hyper writes them (lower case); no redirect followed, nothing decoded.
pub fn hyper_client<B>(
    trust: Trust<'_>,
    connect_timeout: std::time::Duration,
    title_case: bool,
) -> Result<HyperClient<B>, String>
where
    B: hyper::body::Body + Send + Unpin + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(connect_timeout));
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls(trust)?)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(hyper_util::rt::TokioExecutor::new())
        .pool_max_idle_per_host(64)
        .http1_title_case_headers(title_case)
        .build(connector))
}

/// The client for requests without the headers reqwest adds, made on first use.
#[derive(Clone)]
pub(super) struct Bare {
    config: TargetConfig,
    client: Arc<OnceLock<Result<HyperClient<reqwest::Body>, String>>>,
    /// The same client writing header names in title case (`Request::title_case`).
    titled: Arc<OnceLock<Result<HyperClient<reqwest::Body>, String>>>,
}

impl Bare {
    pub(super) fn new(config: &TargetConfig) -> Bare {
        Bare {
            config: config.clone(),
            client: Arc::default(),
            titled: Arc::default(),
        }
    }

    /// Sends `request` (its URI absolute) and waits for the status line and headers; the body
    /// is read by the caller, as reqwest's.
    pub(super) async fn send(
        &self,
        request: hyper::Request<reqwest::Body>,
        titled: bool,
    ) -> Result<reqwest::Response, SendError> {
        let client = match titled {
            true => &self.titled,
            false => &self.client,
        };
        let client = client
            .get_or_init(|| build(&self.config, titled))
            .as_ref()
            .map_err(|e| SendError::Transport(e.clone()))?;
        let response = client
            .request(request)
            .await
            .map_err(|e| SendError::Transport(error_chain(&e)))?;
        Ok(reqwest::Response::from(response.map(reqwest::Body::wrap)))
    }
}

/// The bare client with the main client's trust (see `Target::new`).
fn build(config: &TargetConfig, titled: bool) -> Result<HyperClient<reqwest::Body>, String> {
    let trust = Trust {
        insecure: config.insecure,
        system: config.https,
        ca_cert: config.ca_cert.as_deref(),
    };
    hyper_client(
        trust,
        config.timeout.min(std::time::Duration::from_secs(10)),
        titled,
    )
}

/// TLS as the main client has it: `--insecure` verifies nothing; a run reaching `https`
/// trusts the system's roots and the `--ca-cert` bundle; any other, the bundle alone.
fn tls(trust: Trust<'_>) -> Result<rustls::ClientConfig, String> {
    let provider = super::tls_provider();
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?;
    let extra: Vec<CertificateDer<'static>> = match trust.ca_cert {
        Some(pem) => CertificateDer::pem_slice_iter(pem)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("not a PEM certificate ({e})"))?,
        None => Vec::new(),
    };
    let builder = if trust.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider)))
    } else if trust.system {
        let verifier =
            rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider.clone())
                .map_err(|e| format!("cannot load the system's root certificates: {e}"))?;
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
    } else {
        let mut roots = rustls::RootCertStore::empty();
        roots.add_parsable_certificates(extra);
        builder.with_root_certificates(roots)
    };
    // ALPN is the connector's to set (HTTP/1.1 only, as `enable_http1` asks).
    Ok(builder.with_no_client_auth())
}

/// `--insecure`: any certificate and any signature is taken, as the main client's
/// `danger_accept_invalid_certs` does.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }

    fn verify_tls13_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Ok(HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
