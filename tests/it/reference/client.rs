//! The client side of the reference tests: a server started from a seed, a client bound to
//! its profile, requests for every operation and reads of the two paginated lists.

use covenant::profile::Profile;
use covenant::reference::{start, FaultSet, ReferenceConfig, RunningReference};
use reqwest::Method;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A response, read whole.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub content_type: String,
    pub text: String,
    pub json: Option<Value>,
}

impl Resp {
    pub fn body(&self) -> &Value {
        self.json.as_ref().unwrap_or(&Value::Null)
    }
    pub fn get(&self, key: &str) -> &Value {
        self.body().get(key).unwrap_or(&Value::Null)
    }
    /// A token member, or "" when it is absent or null.
    pub fn token(&self, key: &str) -> String {
        self.get(key).as_str().unwrap_or("").to_owned()
    }
    pub fn has(&self, key: &str) -> bool {
        self.body().get(key).is_some()
    }
    pub fn ids(&self) -> Vec<String> {
        self.get("data")
            .as_array()
            .map(|a| a.iter().map(|i| i["id"].to_string()).collect())
            .unwrap_or_default()
    }
}

/// A client bound to one server and its profile.
pub struct Ctx {
    pub http: reqwest::Client,
    pub base: String,
    pub p: Profile,
    counter: AtomicU64,
}

pub fn client() -> reqwest::Client {
    crate::support::http()
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("a plain client builds")
}

impl Ctx {
    pub fn new(server: &RunningReference, http: reqwest::Client) -> Ctx {
        Ctx {
            http,
            base: server.base_url(),
            p: server.profile().clone(),
            counter: AtomicU64::new(0),
        }
    }

    pub fn fin(&self) -> &covenant::profile::FinopsProfile {
        self.p
            .finops
            .as_ref()
            .expect("the reference profile has finops")
    }
    pub fn bank(&self) -> &covenant::profile::BankingProfile {
        self.p
            .banking
            .as_ref()
            .expect("the reference profile has banking")
    }

    /// The banking token the reference issued without the velocity-control scope.
    pub fn scopeless_token(&self) -> String {
        self.bank()
            .token_without_scope
            .as_ref()
            .expect("the reference profile has a token without scope")
            .expose()
            .to_owned()
    }
    pub fn org(&self) -> &str {
        self.fin().organization_id.as_deref().unwrap()
    }
    pub fn other_org(&self) -> &str {
        self.fin().other_organization_id.as_deref().unwrap()
    }
    pub fn counterpart(&self) -> &str {
        self.fin().counterpart_id.as_deref().unwrap()
    }
    pub fn quote_id(&self) -> &str {
        self.fin().quote_id.as_deref().unwrap()
    }
    pub fn invoice_id(&self) -> &str {
        self.fin().invoice_id.as_deref().unwrap()
    }
    pub fn unique(&self, prefix: &str) -> String {
        format!("{prefix}-{}", self.counter.fetch_add(1, Ordering::Relaxed))
    }

    /// A finance request with the token, the version and the organization header.
    pub fn finance(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.finance_as(method, path, self.org(), self.p.finops_version())
    }

    /// A finance request with the token and these organization and version headers.
    pub fn finance_as(
        &self,
        method: Method,
        path: &str,
        org: &str,
        version: &str,
    ) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(self.fin().token.as_ref().unwrap().expose())
            .header("x-finops-version", version)
            .header("x-organization-id", org)
    }

    /// A finance request with only the version header.
    pub fn finance_bare(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .header("x-finops-version", self.p.finops_version())
    }

    /// A finance GET written by hand, with no header but the token, the version and the
    /// organization (reqwest adds `Accept: */*` to every request); the answer as text.
    pub async fn raw_finance_get(&self, path: &str) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let host = self
            .base
            .trim_start_matches("http://")
            .trim_end_matches('/');
        let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
        let token = self.fin().token.as_ref().unwrap().expose();
        let request = format!(
            "GET {path} HTTP/1.1\r\nhost: {host}\r\nauthorization: Bearer {token}\r\n\
             x-finops-version: {}\r\nx-organization-id: {}\r\nconnection: close\r\n\r\n",
            self.p.finops_version(),
            self.org()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).to_lowercase()
    }

    pub async fn send(rb: reqwest::RequestBuilder) -> Resp {
        let r = rb.send().await.expect("the reference answers");
        let status = r.status().as_u16();
        let content_type = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let headers = r.headers().clone();
        // The bytes as they came (`text()` would drop a byte order mark).
        let bytes = r.bytes().await.expect("a readable body");
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let json = serde_json::from_str(&text).ok();
        Resp {
            status,
            headers,
            content_type,
            text,
            json,
        }
    }

    pub fn quote(&self, extra: Value) -> Value {
        let mut body = json!({
            "type": "quote",
            "currency": "EUR",
            "counterpart_id": self.counterpart(),
            "line_items": [{
                "product": { "name": "Audit", "price": { "value": 1500, "currency": "EUR" },
                             "measure_unit": { "name": "hour" } },
                "quantity": 2,
                "vat_rate_id": self.fin().vat_rate_id.as_deref().unwrap(),
            }],
        });
        merge(&mut body, extra);
        body
    }

    pub fn invoice(&self, extra: Value) -> Value {
        let mut body = self.quote(json!({ "type": "invoice" }));
        merge(&mut body, extra);
        body
    }

    pub async fn quote_created(&self, extra: Value) -> bool {
        self.receivable(self.quote(extra)).await.status == 201
    }

    pub async fn invoice_created(&self, extra: Value) -> bool {
        self.receivable(self.invoice(extra)).await.status == 201
    }

    pub async fn control_created(&self, extra: Value) -> bool {
        self.velocity(self.control(extra)).await.status == 201
    }

    pub async fn receivable(&self, body: Value) -> Resp {
        Self::send(
            self.finance(Method::POST, "/finops/v1/receivables")
                .json(&body),
        )
        .await
    }

    pub async fn based_on(&self, kind: &str, source: &str) -> Resp {
        self.receivable(json!({ "type": kind, "based_on": source }))
            .await
    }

    pub async fn create_vat(&self, body: Value) -> Resp {
        let path = format!("/finops/v1/counterparts/{}/vat-ids", self.counterpart());
        Self::send(self.finance(Method::POST, &path).json(&body)).await
    }

    pub async fn vat(&self) -> Resp {
        self.create_vat(json!({ "value": "GB123456789", "country": "GB", "type": "gb_vat" }))
            .await
    }

    pub async fn get_vat(&self, id: &str, org: &str) -> Resp {
        let path = format!(
            "/finops/v1/counterparts/{}/vat-ids/{id}",
            self.counterpart()
        );
        Self::send(self.finance_as(Method::GET, &path, org, self.p.finops_version())).await
    }

    pub async fn patch_comment(&self, id: &str, body: Value) -> Resp {
        let path = format!("/finops/v1/comments/{id}");
        Self::send(self.finance(Method::PATCH, &path).json(&body)).await
    }

    pub fn comment_id(&self) -> &str {
        &self.fin().comment_ids[0]
    }

    pub async fn mailbox(&self, domain: &str) -> Resp {
        let rb = self
            .finance_bare(Method::POST, "/finops/v1/mailbox-domains")
            .bearer_auth(self.fin().token.as_ref().unwrap().expose())
            .json(&json!({ "domain": domain }));
        Self::send(rb).await
    }

    pub async fn delete_tag(&self, i: usize) -> Resp {
        let path = format!("/finops/v1/tags/{}", self.fin().deletable_tag_ids[i]);
        Self::send(self.finance(Method::DELETE, &path)).await
    }

    pub async fn delete_bank_account(&self, i: usize) -> Resp {
        let ba = &self.fin().deletable_bank_accounts[i];
        let path = format!(
            "/finops/v1/counterparts/{}/bank-accounts/{}",
            ba.counterpart_id, ba.bank_account_id
        );
        Self::send(self.finance(Method::DELETE, &path)).await
    }

    pub async fn events(&self, query: &str) -> Resp {
        Self::send(self.finance(Method::GET, &format!("/finops/v1/events?{query}"))).await
    }

    pub async fn bank_token(&self) -> String {
        let oauth = self.bank().oauth.as_ref().unwrap();
        let form = [
            ("grant_type", "client_credentials"),
            ("client_id", oauth.client_id.as_str()),
            (
                "client_secret",
                oauth.client_secret.as_ref().unwrap().expose(),
            ),
        ];
        let r = Self::send(self.http.post(&oauth.token_url).form(&form)).await;
        r.get("access_token").as_str().unwrap().to_owned()
    }

    pub fn banking(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let rb = self.http.request(method, format!("{}{path}", self.base));
        match token {
            Some(t) => rb.bearer_auth(t),
            None => rb,
        }
    }

    pub fn control(&self, extra: Value) -> Value {
        let mut body = json!({
            "id": self.unique("vc"),
            "amountLimit": 150000,
            "currencyCode": "EUR",
            "name": "Daily spend",
            "velocityWindow": "DAY",
        });
        merge(&mut body, extra);
        body
    }

    pub async fn velocity_with(&self, body: Value, token: &str) -> Resp {
        let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
        Self::send(self.banking(Method::POST, path, Some(token)).json(&body)).await
    }

    pub async fn velocity(&self, body: Value) -> Resp {
        let token = self.bank_token().await;
        self.velocity_with(body, &token).await
    }

    pub fn card(&self) -> &str {
        self.bank().card_id.as_deref().unwrap()
    }

    pub async fn tx_raw(
        &self,
        account: &str,
        query: &str,
        token: Option<&str>,
        org: Option<&str>,
    ) -> Resp {
        let path = format!("/embedded-banking/v1/bank-accounts/{account}/transactions?{query}");
        let mut rb = self.banking(Method::GET, &path, token);
        if let Some(org) = org {
            rb = rb.header(self.bank().org_header.as_deref().unwrap(), org);
        }
        Self::send(rb).await
    }

    pub async fn tx(&self, query: &str) -> Resp {
        let token = self.bank_token().await;
        let account = self.bank().bank_account_id.as_deref().unwrap();
        self.tx_raw(account, query, Some(&token), None).await
    }

    /// A page of `list`.
    pub async fn page(&self, list: PagedList, query: &str) -> Resp {
        match list {
            PagedList::Events => self.events(query).await,
            PagedList::Transactions => self.tx(query).await,
        }
    }

    /// The page a token leads to.
    pub async fn follow(&self, list: PagedList, token: &str) -> Resp {
        self.page(list, &format!("pagination_token={token}")).await
    }

    /// A full read: ids in order, or `None` when it does not end in 300 pages or repeats a
    /// token.
    pub async fn full_read(&self, list: PagedList, limit: usize) -> Option<Vec<String>> {
        let mut ids = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut page = self.page(list, &format!("limit={limit}")).await;
        for _ in 0..300 {
            ids.extend(page.ids());
            let Some(next) = page.get(list.next()).as_str().map(str::to_owned) else {
                return Some(ids);
            };
            if !seen.insert(next.clone()) {
                return None;
            }
            page = self.follow(list, &next).await;
        }
        None
    }

    /// The first two pages of `limit` items.
    pub async fn two_pages(&self, list: PagedList, limit: usize) -> (Resp, Resp) {
        let first = self.page(list, &format!("limit={limit}")).await;
        let next = first.get(list.next()).as_str().unwrap_or("").to_owned();
        let second = self.follow(list, &next).await;
        (first, second)
    }

    /// The next token of `first` gives `second` again, and `second`'s prev token gives
    /// `first` again.
    pub async fn assert_token_reusable_and_prev_leads_back(
        &self,
        list: PagedList,
        first: &Resp,
        second: &Resp,
    ) {
        let again = self.follow(list, &first.token(list.next())).await;
        assert_eq!(again.ids(), second.ids(), "{list:?}: a token used again");
        let back = self.follow(list, &second.token(list.prev())).await;
        assert_eq!(back.ids(), first.ids(), "{list:?}: prev from page 2");
    }

    pub async fn item_repeated(&self, list: PagedList) -> bool {
        let (first, second) = self.two_pages(list, 10).await;
        second.ids().iter().any(|id| first.ids().contains(id))
    }

    pub async fn item_skipped(&self, list: PagedList) -> bool {
        let (first, second) = self.two_pages(list, 10).await;
        let mut two = first.ids();
        two.extend(second.ids());
        two != self.page(list, "limit=20").await.ids()
    }

    pub async fn prev_on_first(&self, list: PagedList) -> bool {
        !self.page(list, "limit=10").await.get(list.prev()).is_null()
    }

    pub async fn token_single_use(&self, list: PagedList) -> bool {
        let first = self.page(list, "limit=10").await;
        let next = first.get(list.next()).as_str().unwrap_or("").to_owned();
        self.follow(list, &next).await;
        self.follow(list, &next).await.status != 200
    }

    /// A token that works at once is refused once a little older than its lifetime, although
    /// the same page was issued again meanwhile.
    pub async fn token_expires(&self, list: PagedList) -> bool {
        let first = self.page(list, "limit=10").await;
        let next = first.get(list.next()).as_str().unwrap_or("").to_owned();
        let fresh = self.follow(list, &next).await.status == 200;
        tokio::time::sleep(covenant::reference::TOKEN_LIFETIME / 2).await;
        self.page(list, "limit=10").await;
        tokio::time::sleep(covenant::reference::TOKEN_LIFETIME * 3 / 4).await;
        fresh && self.follow(list, &next).await.status != 200
    }
}

/// The two paginated lists.
#[derive(Debug, Clone, Copy)]
pub enum PagedList {
    Events,
    Transactions,
}

impl PagedList {
    pub fn next(self) -> &'static str {
        match self {
            PagedList::Events => "next_pagination_token",
            PagedList::Transactions => "nextPaginationToken",
        }
    }
    pub fn prev(self) -> &'static str {
        match self {
            PagedList::Events => "prev_pagination_token",
            PagedList::Transactions => "prevPaginationToken",
        }
    }
}

pub fn merge(body: &mut Value, extra: Value) {
    if let (Some(b), Value::Object(e)) = (body.as_object_mut(), extra) {
        b.extend(e);
    }
}

pub fn without(mut body: Value, key: &str) -> Value {
    body.as_object_mut().map(|m| m.remove(key));
    body
}

pub fn is_uuid(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() == 36 && uuid::Uuid::try_parse(s).is_ok())
}

pub async fn server(faults: FaultSet) -> RunningReference {
    start(ReferenceConfig {
        seed: 7,
        faults,
        ..ReferenceConfig::default()
    })
    .await
    .expect("the reference starts")
}

pub async fn clean() -> (RunningReference, Ctx) {
    let s = server(FaultSet::none()).await;
    let c = Ctx::new(&s, client());
    (s, c)
}
