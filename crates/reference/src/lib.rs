//! The embedded reference implementation of the API, with deliberate faults.
//!
//! It exists so that covenant can test itself: the clean server keeps every rule of
//! `cases/rules.toml`, and each [`Fault`] breaks exactly one, so that every check is proven
//! able to fail. A server keeps all state in memory per instance (no globals), binds
//! 127.0.0.1 only, starts in milliseconds and can run dozens of times in one process.
//!
//! It must never be mistaken for the contract: where the spec is silent it makes a choice
//! (documented on [`start`]) and the checks must not depend on that choice.

// Handlers return `Result<Response, Response>`: the error is the answer itself, built once
// per request, so boxing it would only add an allocation.
#[allow(clippy::result_large_err)]
mod banking;
mod fault;
#[allow(clippy::result_large_err)]
mod finance;
mod gateway;
mod page;
mod protocol;
mod receivable;
mod reply;
mod store;

pub use banking::ORG_HEADER;
pub use fault::{render_list, Asked, Fault, FaultSet, UnknownFault};
pub use gateway::Gateway;
pub use page::TOKEN_LIFETIME;
pub use store::TRANSACTION_COUNT;

use axum::extract::{MatchedPath, Request, State};
use axum::http::Uri;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{delete, get, patch, post};
use axum::Router;
use covenant_contract::profile::{
    BankingProfile, DeletableBankAccount, FinopsProfile, OAuthProfile, Profile, Secret,
};
use covenant_contract::schema::DEFAULT_FINOPS_VERSION;
use std::net::SocketAddr;
use std::sync::Arc;
use store::App;

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
/// organization header is [`ORG_HEADER`]; tokens come from `POST /oauth/token`.
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

fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/finops/v1/receivables", post(finance::create_receivable))
        .route(
            "/finops/v1/counterparts/{counterpart_id}/vat-ids",
            post(finance::create_vat),
        )
        .route(
            "/finops/v1/counterparts/{counterpart_id}/vat-ids/{vat_id}",
            get(finance::get_vat),
        )
        .route(
            "/finops/v1/comments/{comment_id}",
            patch(finance::update_comment),
        )
        .route(
            "/finops/v1/mailbox-domains",
            post(finance::create_mailbox_domain),
        )
        .route("/finops/v1/tags/{tag_id}", delete(finance::delete_tag))
        .route(
            "/finops/v1/counterparts/{counterpart_id}/bank-accounts/{bank_account_id}",
            delete(finance::delete_bank_account),
        )
        .route("/finops/v1/events", get(finance::list_events_v1))
        .route("/finops/events", get(finance::list_events_bare))
        .route(
            "/embedded-banking/v1/authorization-controls/velocity-controls",
            post(banking::create_velocity_control),
        )
        .route(
            "/embedded-banking/v1/bank-accounts/{id}/transactions",
            get(banking::list_transactions),
        )
        .route("/oauth/token", post(banking::token))
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .with_state(app)
}

async fn no_route(State(app): State<Arc<App>>, uri: Uri) -> Response {
    if uri.path().starts_with("/embedded-banking") {
        banking::route_not_found(&app, &uri)
    } else {
        finance::route_not_found(&app)
    }
}

async fn wrong_method(State(app): State<Arc<App>>, uri: Uri) -> Response {
    let status = axum::http::StatusCode::METHOD_NOT_ALLOWED;
    if app.faults.has(Fault::UnlistedMethodHtml) {
        let page = b"<html><body><h1>405 Method Not Allowed</h1></body></html>".to_vec();
        return reply::with_type(status, page, "text/html; charset=utf-8");
    }
    if app.faults.has(Fault::UnlistedMethodBareBody) {
        return reply::json(
            status,
            &serde_json::json!({ "message": "Method Not Allowed" }),
        );
    }
    if uri.path().starts_with("/embedded-banking") {
        banking::method_not_allowed(&app, &uri)
    } else {
        reply::finance_error(
            &app.faults,
            axum::http::StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed on this route",
        )
    }
}

/// The token of an `Authorization: Bearer <token>` value (the scheme is case-insensitive);
/// "" for any other value.
fn bearer_token(authorization: &str) -> &str {
    match authorization.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
        _ => "",
    }
}

fn profile_of(app: &App, base_url: &str) -> Profile {
    let ids = &app.ids;
    let s = |u: &uuid::Uuid| u.to_string();
    Profile {
        name: None,
        base_url: Some(base_url.to_owned()),
        currency: Some("EUR".to_owned()),
        cases: Vec::new(),
        finops: Some(FinopsProfile {
            token: Some(Secret::new(ids.finance_token.clone())),
            version: Some(DEFAULT_FINOPS_VERSION.to_owned()),
            organization_id: Some(s(&ids.org)),
            other_organization_id: Some(s(&ids.other_org)),
            counterpart_id: Some(s(&ids.counterpart)),
            entity_user_id: Some(s(&ids.entity_user)),
            vat_rate_id: Some(s(&ids.vat_rate)),
            comment_ids: ids.comments[..5].iter().map(s).collect(),
            deletable_tag_ids: ids.tags.iter().map(s).collect(),
            deletable_bank_accounts: ids
                .bank_accounts
                .iter()
                .map(|(cp, ba)| DeletableBankAccount {
                    counterpart_id: s(cp),
                    bank_account_id: s(ba),
                })
                .collect(),
            quote_id: Some(s(&ids.quote)),
            invoice_id: Some(s(&ids.invoice)),
            ..FinopsProfile::default()
        }),
        banking: Some(BankingProfile {
            oauth: Some(OAuthProfile {
                token_url: format!("{base_url}/oauth/token"),
                client_id: ids.client_id.clone(),
                client_secret: Some(Secret::new(ids.client_secret.clone())),
                client_secret_env: None,
                scope: Some(store::WRITE_SCOPE.to_owned()),
            }),
            token_without_scope: Some(Secret::new(ids.scopeless_token.clone())),
            org_header: Some(ORG_HEADER.to_owned()),
            organization_id: Some(s(&ids.bank_org)),
            other_organization_id: Some(s(&ids.foreign_bank_org)),
            card_id: Some(s(&ids.card)),
            foreign_card_id: Some(s(&ids.foreign_card)),
            bank_account_id: Some(s(&ids.bank_account)),
            empty_bank_account_id: Some(s(&ids.empty_bank_account)),
            ..BankingProfile::default()
        }),
    }
}
