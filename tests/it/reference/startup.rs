//! Starting servers: fast, the same fixtures for the same seed, a profile that round-trips,
//! and many servers at once that all stop cleanly.

use super::client::{clean, client, server, Ctx};
use covenant::profile::Profile;
use covenant::reference::{start, FaultSet, ReferenceConfig, RunningReference};
use std::time::{Duration, Instant};

#[tokio::test]
async fn server_starts_fast_and_same_seed_gives_same_profile_ids() {
    let t = Instant::now();
    let a = server(FaultSet::none()).await;
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let b = server(FaultSet::none()).await;
    let strip = |p: &Profile| {
        let mut p = p.clone();
        p.base_url = None;
        p.banking
            .as_mut()
            .unwrap()
            .oauth
            .as_mut()
            .unwrap()
            .token_url = String::new();
        p
    };
    assert_eq!(strip(a.profile()), strip(b.profile()));
    let other = start(ReferenceConfig {
        seed: 8,
        ..ReferenceConfig::default()
    })
    .await
    .unwrap();
    assert_ne!(
        a.profile().finops.as_ref().unwrap().organization_id,
        other.profile().finops.as_ref().unwrap().organization_id
    );
    a.shutdown().await;
    b.shutdown().await;
    other.shutdown().await;
}

#[tokio::test]
async fn profile_round_trips_through_toml() {
    let (s, _) = clean().await;
    let text = s.profile().to_toml();
    let back = Profile::parse(&text, std::path::Path::new("ref.toml")).unwrap();
    assert_eq!(&back, s.profile());
    assert!(back.finops.as_ref().unwrap().deletable_tag_ids.len() >= 8);
    assert!(back.finops.as_ref().unwrap().deletable_bank_accounts.len() >= 8);
    assert!(back.finops.as_ref().unwrap().comment_ids.len() >= 4);
}
#[tokio::test]
async fn many_servers_run_at_once_and_shut_down_cleanly() {
    let servers: Vec<_> = futures_join(20).await;
    let http = client();
    for s in &servers {
        let c = Ctx::new(s, http.clone());
        assert_eq!(c.events("limit=1").await.status, 200);
    }
    let addr = servers[0].addr();
    for s in servers {
        s.shutdown().await;
    }
    let after = http
        .get(format!("http://{addr}/finops/v1/events"))
        .send()
        .await;
    assert!(after.is_err(), "a stopped server accepts nothing");
}

async fn futures_join(n: usize) -> Vec<RunningReference> {
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..n {
        set.spawn(server(FaultSet::none()));
    }
    let mut out = Vec::new();
    while let Some(s) = set.join_next().await {
        out.push(s.unwrap());
    }
    out
}
