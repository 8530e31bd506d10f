//! A reference server's life: started on 127.0.0.1 from a [`ReferenceConfig`], its layers put
//! round the router (the sites faults are asked about, the gateway, HTTP's headers), and
//! stopped by its [`RunningReference`]. The choices it makes where the spec is silent are
//! documented on [`start`], in one place.

use crate::fault::{Asked, Fault, FaultSet};
use crate::profile::profile_of;
use crate::router::router;
use crate::{gateway, protocol, store};
use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use covenant_contract::profile::Profile;
use std::net::SocketAddr;
use std::sync::Arc;

/// How to start a reference server.
#[derive(Debug, Clone, Default)]
pub struct ReferenceConfig {
    /// Seed of the fixtures: the same seed gives the same ids and credentials.
    pub seed: u64,
    pub faults: FaultSet,
    /// 0 picks a free port.
    pub port: u16,
    /// Added to every answer, as a remote target's network would (`serve --latency-ms`).
    pub latency: std::time::Duration,
    /// Requests per second a gateway's token bucket lets through (a burst of 0.2 s of them);
    /// the rest are answered 429 with `Retry-After` (`serve --rate-limit`). `None`: no limit.
    pub rate_limit: Option<f64>,
}

/// A server that is listening. Dropping it stops the server too; [`RunningReference::shutdown`]
/// also waits until it has stopped.
pub struct RunningReference {
    addr: SocketAddr,
    profile: Profile,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
    asked: Asked,
}

impl RunningReference {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A complete profile for this server: credentials and fixture ids.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The routes on which each fault was asked about so far (see [`Asked`]).
    pub fn sites(&self) -> std::collections::BTreeMap<Fault, std::collections::BTreeSet<String>> {
        self.asked.sites()
    }

    /// Stops accepting, lets requests in flight finish (at most one second), then returns.
    pub async fn shutdown(self) {
        let _ = self.stop.send(());
        let mut task = self.task;
        if tokio::time::timeout(std::time::Duration::from_secs(1), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
    }
}

/// Starts a reference server on 127.0.0.1.
///
/// Choices where the spec is silent: finance errors are 400 for a missing or malformed
/// `x-finops-version` or `x-organization-id`, 403 for an organization the token may not act
/// for; success of create VAT ID and create mailbox domain is 201, of update comment 200, of
/// the deletes 204 without a body; list events defaults to 100 items; the banking
/// organization header is [`ORG_HEADER`](crate::ORG_HEADER); tokens come from
/// `POST /oauth/token`.
pub async fn start(config: ReferenceConfig) -> std::io::Result<RunningReference> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port)).await?;
    let addr = listener.local_addr()?;
    let listener = protocol::Connections {
        listener,
        faults: config.faults,
    };
    let app = Arc::new(store::seed(config.seed, config.faults));
    let profile = profile_of(&app, &format!("http://{addr}"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let asked = Asked::default();
    let mut router =
        router(app.clone()).layer(axum::middleware::from_fn_with_state(asked.clone(), site));
    if let Some(gateway) = gateway::Gateway::new(config.latency, config.rate_limit) {
        router = router.layer(axum::middleware::from_fn_with_state(gateway, gateway::pass));
    }
    // Around the whole router, so that it sees the `Allow` the router puts on a 405.
    let router = Router::new()
        .fallback_service(router)
        .layer(axum::middleware::from_fn_with_state(app, protocol::headers));
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await;
    });
    Ok(RunningReference {
        addr,
        profile,
        stop,
        task,
        asked,
    })
}

/// Serves a request noting the faults its handler asks about under its route (`?` for the
/// fallback of unknown paths).
async fn site(State(asked): State<Asked>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("?", |p| p.as_str())
        .to_owned();
    asked.serve(&route, next.run(request)).await
}
