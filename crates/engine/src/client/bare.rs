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
//! `--timeout`, lanes and the reading of the answer are the caller's, as for any request.
//! Built on first use: a run that sends no such request never loads the system's roots twice.
//!
//! Redirects are followed here as the main client follows them: within the target's origin, at
//! most [`MAX_REDIRECTS`], the method and body changed as browsers change them; one to another
//! origin is an error, its credentials never sent there. These requests know no proxy
//! (README, Proxies).
//!
//! Sending every request of a case through this client took a `--cases 100` run 9% less CPU
//! (reqwest's redirect layer alone parses every request's URL twice), but the peak memory of a
//! run at `--cases 500` rose by about 2 MiB, over the 50 MiB of issue 52 in one run in six, for
//! a reason not found yet; so reqwest sends the rest.
//!
//! [`hyper_client`] builds hyper's client over rustls for the proxy as well
//! (`traffic::proxy`): one set-up of the connector and of TLS for both.

use super::config::{error_chain, TargetConfig};
use super::SendError;
use hyper::body::Bytes;
use hyper::header::{self, HeaderMap};
use hyper::{Method, StatusCode};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use std::sync::{Arc, OnceLock};

type Connector = hyper_rustls::HttpsConnector<HttpConnector>;

/// Same-origin redirects followed before giving up, by either client.
pub(super) const MAX_REDIRECTS: usize = 5;

/// A request for hyper's own client, kept whole so that it can go again after a redirect.
#[derive(Debug, Clone)]
pub(super) struct Direct {
    pub method: Method,
    pub url: url::Url,
    pub headers: HeaderMap,
    pub body: Option<Bytes>,
    /// Its header names written in title case (`Request::title_case`).
    pub titled: bool,
}

impl Direct {
    fn request(&self) -> Result<hyper::Request<reqwest::Body>, SendError> {
        let body = self.body.clone().unwrap_or_default();
        let mut built = hyper::Request::builder()
            .method(self.method.clone())
            .uri(self.url.as_str())
            .body(reqwest::Body::from(body))
            .map_err(|e| SendError::Transport(format!("cannot build the request: {e}")))?;
        *built.headers_mut() = self.headers.clone();
        Ok(built)
    }

    /// The request an answer of `status` with `location` asks for next, where the main client
    /// would follow it (301, 302, 303, 307, 308 within `origin`); `None` when the answer is the
    /// one to read. A redirect to another origin is an error, as the main client's `head` makes
    /// it: its location is never asked for, and the request's credentials never go there.
    fn redirected(
        &self,
        status: StatusCode,
        location: Option<&str>,
        origin: &url::Origin,
    ) -> Result<Option<Direct>, SendError> {
        let Some(location) = location.filter(|_| status.is_redirection()) else {
            return Ok(None);
        };
        let to = match self.url.join(location) {
            Ok(to) if to.origin() == *origin => to,
            _ => return Err(SendError::CrossOriginRedirect(location.to_owned())),
        };
        let code = status.as_u16();
        if ![301, 302, 303, 307, 308].contains(&code) {
            return Ok(None);
        }
        let mut next = Direct {
            url: to,
            ..self.clone()
        };
        // A 303 asks for the answer by GET; so do 301 and 302 of a POST, as browsers (and
        // reqwest) read them; 307 and 308 repeat the request as it was.
        let to_get = match code {
            303 => self.method != Method::HEAD,
            301 | 302 => self.method == Method::POST,
            _ => false,
        };
        if to_get {
            next.method = Method::GET;
            next.body = None;
            for name in [
                header::CONTENT_TYPE,
                header::CONTENT_LENGTH,
                header::CONTENT_ENCODING,
                header::TRANSFER_ENCODING,
            ] {
                next.headers.remove(name);
            }
        }
        Ok(Some(next))
    }
}

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

    /// Sends `direct` and waits for the status line and headers of the answer to read, after
    /// following its redirects within `origin` (see [`Direct::redirected`]); the body is read
    /// by the caller, as reqwest's.
    pub(super) async fn send_following(
        &self,
        mut direct: Direct,
        origin: &url::Origin,
    ) -> Result<reqwest::Response, SendError> {
        let mut followed = 0;
        loop {
            let response = self.send(direct.request()?, direct.titled).await?;
            let location = response
                .headers()
                .get(header::LOCATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            match direct.redirected(response.status(), location.as_deref(), origin)? {
                None => return Ok(response),
                Some(_) if followed == MAX_REDIRECTS => {
                    return Err(SendError::Transport(format!(
                        "more than {MAX_REDIRECTS} redirects"
                    )))
                }
                Some(next) => direct = next,
            }
            followed += 1;
        }
    }

    /// Sends `request` (its URI absolute) and waits for the status line and headers; the body
    /// is read by the caller, as reqwest's.
    async fn send(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn post(body: &str) -> Direct {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
        headers.insert("x-organization-id", "org".parse().unwrap());
        Direct {
            method: Method::POST,
            url: url::Url::parse("http://target.test:8080/finops/v1/receivables").unwrap(),
            headers,
            body: Some(Bytes::from(body.to_owned())),
            titled: false,
        }
    }

    fn origin() -> url::Origin {
        url::Url::parse("http://target.test:8080/")
            .unwrap()
            .origin()
    }

    fn after(direct: &Direct, status: u16, location: Option<&str>) -> Option<Direct> {
        let status = StatusCode::from_u16(status).unwrap();
        direct
            .redirected(status, location, &origin())
            .expect("within the origin")
    }

    #[test]
    fn a_303_and_a_posts_301_or_302_go_on_by_get_without_the_body_or_its_headers() {
        for status in [303, 301, 302] {
            let next = after(&post("{}"), status, Some("/moved?x=1")).expect("followed");
            assert_eq!(next.method, Method::GET, "{status}");
            assert_eq!(next.body, None, "{status}");
            assert!(next.headers.get(header::CONTENT_TYPE).is_none(), "{status}");
            assert_eq!(next.headers["x-organization-id"], "org", "{status}");
            assert_eq!(next.url.as_str(), "http://target.test:8080/moved?x=1");
        }
    }

    #[test]
    fn a_307_or_308_repeats_the_request_and_a_put_keeps_its_method_after_a_302() {
        for status in [307, 308] {
            let next = after(&post("{\"a\":1}"), status, Some("other")).expect("followed");
            assert_eq!(next.method, Method::POST);
            assert_eq!(next.body.as_deref(), Some(&b"{\"a\":1}"[..]));
            assert_eq!(next.url.as_str(), "http://target.test:8080/finops/v1/other");
        }
        let put = Direct {
            method: Method::PUT,
            ..post("{}")
        };
        let next = after(&put, 302, Some("/moved")).expect("followed");
        assert_eq!((next.method, next.body.is_some()), (Method::PUT, true));
    }

    #[test]
    fn an_answer_with_a_location_that_is_no_redirect_to_follow_is_the_answer() {
        // 201 names what it created; 300 and 304 are not followed by either client.
        for status in [201, 200, 300, 304] {
            assert!(after(&post("{}"), status, Some("/x")).is_none(), "{status}");
        }
        assert!(after(&post("{}"), 302, None).is_none());
    }

    #[test]
    fn a_redirect_to_another_origin_is_an_error_whatever_its_status() {
        for (status, location) in [
            (302, "http://elsewhere.test/collect"),
            (307, "https://target.test:8080/x"),
            (301, "//target.test:9090/x"),
            (304, "http://elsewhere.test/"),
        ] {
            let status = StatusCode::from_u16(status).unwrap();
            let outcome = post("{}").redirected(status, Some(location), &origin());
            assert!(
                matches!(&outcome, Err(SendError::CrossOriginRedirect(l)) if l == location),
                "{status} {location}: {outcome:?}"
            );
        }
    }
}
