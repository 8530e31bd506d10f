//! What a test serves and sends with: the runtime its reference or stand-in runs on, and the
//! client builder for its own requests, with the TLS provider the engine installs.

/// A reqwest client builder for a test's own requests, with rustls's provider installed as
/// the engine installs it (reqwest is built without one: see `covenant::client::tls_provider`).
pub fn http() -> reqwest::ClientBuilder {
    covenant::client::tls_provider();
    reqwest::Client::builder()
}

/// The runtime a test serves its reference or stand-in on.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}
