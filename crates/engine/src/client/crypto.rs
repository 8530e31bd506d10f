//! The cryptography under every TLS connection covenant makes: ring, as rustls's process-wide
//! provider.
//!
//! reqwest and the bare hyper client both take rustls's process default. ring is installed as
//! that default before any client is built, rather than aws-lc-rs, reqwest's own choice: both
//! offer the TLS 1.2 and 1.3 suites a target may ask for, and ring builds in a seventh of the
//! time (9 s against aws-lc's 73 s, its C library, in `cargo build --timings`). A default another
//! part of the process installed first is left in place.

use rustls::crypto::CryptoProvider;
use std::sync::Arc;

/// Installs ring as rustls's process default unless one is installed; returns the default.
/// Call it before building a reqwest client: reqwest is built without a provider of its own
/// and panics without one.
pub fn tls_provider() -> Arc<CryptoProvider> {
    if let Some(installed) = CryptoProvider::get_default() {
        return installed.clone();
    }
    // `Err` means another thread installed one first: that one is the default.
    let _ = rustls::crypto::ring::default_provider().install_default();
    CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_can_be_built_once_the_provider_is_installed() {
        let provider = tls_provider();
        assert!(!provider.cipher_suites.is_empty());
        assert!(CryptoProvider::get_default().is_some());
        reqwest::Client::builder().build().expect("a client");
    }
}
