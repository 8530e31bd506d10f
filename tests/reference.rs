//! The reference server driven over HTTP, as a stranger holding only its profile would.
//!
//! Part one: every operation, positive and negative. Part two: for every fault, a probe that
//! sees the deviation with the fault on and does not see it on the clean server; the probe is
//! one exhaustive `match`, so a new fault without a probe does not compile.

use covenant::profile::Profile;
use covenant::reference::{start, Fault, FaultSet, ReferenceConfig, RunningReference};
use reqwest::Method;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

// ------------------------------------------------------------------------ client side

/// A response, read whole.
#[derive(Debug)]
struct Resp {
    status: u16,
    content_type: String,
    text: String,
    json: Option<Value>,
}

impl Resp {
    fn body(&self) -> &Value {
        self.json.as_ref().unwrap_or(&Value::Null)
    }
    fn get(&self, key: &str) -> &Value {
        self.body().get(key).unwrap_or(&Value::Null)
    }
    /// A token member, or "" when it is absent or null.
    fn token(&self, key: &str) -> String {
        self.get(key).as_str().unwrap_or("").to_owned()
    }
    fn has(&self, key: &str) -> bool {
        self.body().get(key).is_some()
    }
    fn ids(&self) -> Vec<String> {
        self.get("data")
            .as_array()
            .map(|a| a.iter().map(|i| i["id"].to_string()).collect())
            .unwrap_or_default()
    }
}

/// A client bound to one server and its profile.
struct Ctx {
    http: reqwest::Client,
    base: String,
    p: Profile,
    counter: AtomicU64,
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("a plain client builds")
}

impl Ctx {
    fn new(server: &RunningReference, http: reqwest::Client) -> Ctx {
        Ctx {
            http,
            base: server.base_url(),
            p: server.profile().clone(),
            counter: AtomicU64::new(0),
        }
    }

    fn fin(&self) -> &covenant::profile::FinopsProfile {
        self.p
            .finops
            .as_ref()
            .expect("the reference profile has finops")
    }
    fn bank(&self) -> &covenant::profile::BankingProfile {
        self.p
            .banking
            .as_ref()
            .expect("the reference profile has banking")
    }

    /// The banking token the reference issued without the velocity-control scope.
    fn scopeless_token(&self) -> String {
        self.bank()
            .token_without_scope
            .as_ref()
            .expect("the reference profile has a token without scope")
            .expose()
            .to_owned()
    }
    fn org(&self) -> &str {
        self.fin().organization_id.as_deref().unwrap()
    }
    fn other_org(&self) -> &str {
        self.fin().other_organization_id.as_deref().unwrap()
    }
    fn counterpart(&self) -> &str {
        self.fin().counterpart_id.as_deref().unwrap()
    }
    fn quote_id(&self) -> &str {
        self.fin().quote_id.as_deref().unwrap()
    }
    fn invoice_id(&self) -> &str {
        self.fin().invoice_id.as_deref().unwrap()
    }
    fn unique(&self, prefix: &str) -> String {
        format!("{prefix}-{}", self.counter.fetch_add(1, Ordering::Relaxed))
    }

    /// A finance request with the token, the version and the organization header.
    fn finance(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.finance_as(method, path, self.org(), self.p.finops_version())
    }

    /// A finance request with the token and these organization and version headers.
    fn finance_as(
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
    fn finance_bare(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .header("x-finops-version", self.p.finops_version())
    }

    async fn send(rb: reqwest::RequestBuilder) -> Resp {
        let r = rb.send().await.expect("the reference answers");
        let status = r.status().as_u16();
        let content_type = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let text = r.text().await.expect("a readable body");
        let json = serde_json::from_str(&text).ok();
        Resp {
            status,
            content_type,
            text,
            json,
        }
    }

    fn quote(&self, extra: Value) -> Value {
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

    fn invoice(&self, extra: Value) -> Value {
        let mut body = self.quote(json!({ "type": "invoice" }));
        merge(&mut body, extra);
        body
    }

    async fn quote_created(&self, extra: Value) -> bool {
        self.receivable(self.quote(extra)).await.status == 201
    }

    async fn invoice_created(&self, extra: Value) -> bool {
        self.receivable(self.invoice(extra)).await.status == 201
    }

    async fn control_created(&self, extra: Value) -> bool {
        self.velocity(self.control(extra)).await.status == 201
    }

    async fn receivable(&self, body: Value) -> Resp {
        Self::send(
            self.finance(Method::POST, "/finops/v1/receivables")
                .json(&body),
        )
        .await
    }

    async fn based_on(&self, kind: &str, source: &str) -> Resp {
        self.receivable(json!({ "type": kind, "based_on": source }))
            .await
    }

    async fn create_vat(&self, body: Value) -> Resp {
        let path = format!("/finops/v1/counterparts/{}/vat-ids", self.counterpart());
        Self::send(self.finance(Method::POST, &path).json(&body)).await
    }

    async fn vat(&self) -> Resp {
        self.create_vat(json!({ "value": "GB123456789", "country": "GB", "type": "gb_vat" }))
            .await
    }

    async fn get_vat(&self, id: &str, org: &str) -> Resp {
        let path = format!(
            "/finops/v1/counterparts/{}/vat-ids/{id}",
            self.counterpart()
        );
        Self::send(self.finance_as(Method::GET, &path, org, self.p.finops_version())).await
    }

    async fn patch_comment(&self, id: &str, body: Value) -> Resp {
        let path = format!("/finops/v1/comments/{id}");
        Self::send(self.finance(Method::PATCH, &path).json(&body)).await
    }

    fn comment_id(&self) -> &str {
        &self.fin().comment_ids[0]
    }

    async fn mailbox(&self, domain: &str) -> Resp {
        let rb = self
            .finance_bare(Method::POST, "/finops/v1/mailbox-domains")
            .bearer_auth(self.fin().token.as_ref().unwrap().expose())
            .json(&json!({ "domain": domain }));
        Self::send(rb).await
    }

    async fn delete_tag(&self, i: usize) -> Resp {
        let path = format!("/finops/v1/tags/{}", self.fin().deletable_tag_ids[i]);
        Self::send(self.finance(Method::DELETE, &path)).await
    }

    async fn delete_bank_account(&self, i: usize) -> Resp {
        let ba = &self.fin().deletable_bank_accounts[i];
        let path = format!(
            "/finops/v1/counterparts/{}/bank-accounts/{}",
            ba.counterpart_id, ba.bank_account_id
        );
        Self::send(self.finance(Method::DELETE, &path)).await
    }

    async fn events(&self, query: &str) -> Resp {
        Self::send(self.finance(Method::GET, &format!("/finops/v1/events?{query}"))).await
    }

    async fn bank_token(&self) -> String {
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

    fn banking(&self, method: Method, path: &str, token: Option<&str>) -> reqwest::RequestBuilder {
        let rb = self.http.request(method, format!("{}{path}", self.base));
        match token {
            Some(t) => rb.bearer_auth(t),
            None => rb,
        }
    }

    fn control(&self, extra: Value) -> Value {
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

    async fn velocity_with(&self, body: Value, token: &str) -> Resp {
        let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
        Self::send(self.banking(Method::POST, path, Some(token)).json(&body)).await
    }

    async fn velocity(&self, body: Value) -> Resp {
        let token = self.bank_token().await;
        self.velocity_with(body, &token).await
    }

    fn card(&self) -> &str {
        self.bank().card_id.as_deref().unwrap()
    }

    async fn tx_raw(
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

    async fn tx(&self, query: &str) -> Resp {
        let token = self.bank_token().await;
        let account = self.bank().bank_account_id.as_deref().unwrap();
        self.tx_raw(account, query, Some(&token), None).await
    }

    /// A page of `list`.
    async fn page(&self, list: List, query: &str) -> Resp {
        match list {
            List::Events => self.events(query).await,
            List::Transactions => self.tx(query).await,
        }
    }

    /// The page a token leads to.
    async fn follow(&self, list: List, token: &str) -> Resp {
        self.page(list, &format!("pagination_token={token}")).await
    }

    /// A full read: ids in order, or `None` when it does not end in 300 pages or repeats a
    /// token.
    async fn full_read(&self, list: List, limit: usize) -> Option<Vec<String>> {
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
    async fn two_pages(&self, list: List, limit: usize) -> (Resp, Resp) {
        let first = self.page(list, &format!("limit={limit}")).await;
        let next = first.get(list.next()).as_str().unwrap_or("").to_owned();
        let second = self.follow(list, &next).await;
        (first, second)
    }

    /// The next token of `first` gives `second` again, and `second`'s prev token gives
    /// `first` again.
    async fn assert_token_reusable_and_prev_leads_back(
        &self,
        list: List,
        first: &Resp,
        second: &Resp,
    ) {
        let again = self.follow(list, &first.token(list.next())).await;
        assert_eq!(again.ids(), second.ids(), "{list:?}: a token used again");
        let back = self.follow(list, &second.token(list.prev())).await;
        assert_eq!(back.ids(), first.ids(), "{list:?}: prev from page 2");
    }

    async fn item_repeated(&self, list: List) -> bool {
        let (first, second) = self.two_pages(list, 10).await;
        second.ids().iter().any(|id| first.ids().contains(id))
    }

    async fn item_skipped(&self, list: List) -> bool {
        let (first, second) = self.two_pages(list, 10).await;
        let mut two = first.ids();
        two.extend(second.ids());
        two != self.page(list, "limit=20").await.ids()
    }

    async fn prev_on_first(&self, list: List) -> bool {
        !self.page(list, "limit=10").await.get(list.prev()).is_null()
    }

    async fn token_single_use(&self, list: List) -> bool {
        let first = self.page(list, "limit=10").await;
        let next = first.get(list.next()).as_str().unwrap_or("").to_owned();
        self.follow(list, &next).await;
        self.follow(list, &next).await.status != 200
    }
}

/// The two paginated lists.
#[derive(Debug, Clone, Copy)]
enum List {
    Events,
    Transactions,
}

impl List {
    fn next(self) -> &'static str {
        match self {
            List::Events => "next_pagination_token",
            List::Transactions => "nextPaginationToken",
        }
    }
    fn prev(self) -> &'static str {
        match self {
            List::Events => "prev_pagination_token",
            List::Transactions => "prevPaginationToken",
        }
    }
}

fn merge(body: &mut Value, extra: Value) {
    if let (Some(b), Value::Object(e)) = (body.as_object_mut(), extra) {
        b.extend(e);
    }
}

fn without(mut body: Value, key: &str) -> Value {
    body.as_object_mut().map(|m| m.remove(key));
    body
}

fn is_uuid(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() == 36 && uuid::Uuid::try_parse(s).is_ok())
}

async fn server(faults: FaultSet) -> RunningReference {
    start(ReferenceConfig {
        seed: 7,
        faults,
        port: 0,
    })
    .await
    .expect("the reference starts")
}

async fn clean() -> (RunningReference, Ctx) {
    let s = server(FaultSet::none()).await;
    let c = Ctx::new(&s, client());
    (s, c)
}

// ------------------------------------------------------------------------ part one: operations

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
async fn finance_auth_is_required_and_checked() {
    let (_s, c) = clean().await;
    let missing = Ctx::send(
        c.finance_bare(Method::GET, "/finops/v1/events")
            .header("x-organization-id", c.org()),
    )
    .await;
    assert_eq!(missing.status, 401);
    assert!(missing.body()["error"]["message"].is_string());
    let wrong = Ctx::send(
        c.finance_bare(Method::GET, "/finops/v1/events")
            .bearer_auth("nope")
            .header("x-organization-id", c.org()),
    )
    .await;
    assert_eq!(wrong.status, 401);
}

#[tokio::test]
async fn bearer_scheme_is_case_insensitive() {
    let (_s, c) = clean().await;
    let token = c.fin().token.as_ref().unwrap().expose().to_owned();
    let rb = c
        .finance_bare(Method::GET, "/finops/v1/events")
        .header("authorization", format!("bearer {token}"))
        .header("x-organization-id", c.org());
    assert_eq!(Ctx::send(rb).await.status, 200);
}

#[tokio::test]
async fn finance_headers_are_validated() {
    let (_s, c) = clean().await;
    let version = c.p.finops_version();
    let events = "/finops/v1/events";
    let bad_version = Ctx::send(c.finance_as(Method::GET, events, c.org(), "latest")).await;
    assert_eq!(bad_version.status, 400);
    let rb = c
        .http
        .get(format!("{}/finops/v1/events", c.base))
        .bearer_auth(c.fin().token.as_ref().unwrap().expose())
        .header("x-organization-id", c.org());
    assert_eq!(Ctx::send(rb).await.status, 400, "version missing");
    let bad_org = Ctx::send(c.finance_as(Method::GET, events, "acme", version)).await;
    assert_eq!(bad_org.status, 400);
    let stranger = uuid::Uuid::new_v4().to_string();
    let unknown_org = Ctx::send(c.finance_as(Method::GET, events, &stranger, version)).await;
    assert_eq!(unknown_org.status, 403);
    assert!(unknown_org.body()["error"]["message"].is_string());
}

#[tokio::test]
async fn quote_is_created_with_every_listed_response_field() {
    let (_s, c) = clean().await;
    let r = c
        .receivable(c.quote(json!({ "memo": "thanks", "trade_name": "Acme" })))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert!(r.content_type.starts_with("application/json"));
    for field in [
        "id",
        "created_at",
        "updated_at",
        "attachments",
        "bank_account_id",
        "bank_account_snapshot",
        "bank_account_type",
        "based_on",
        "based_on_document_id",
        "comment",
        "commercial_condition_description",
        "counterpart_billing_address",
        "counterpart_shipping_address",
        "counterpart_business_type",
        "counterpart_contact",
        "counterpart_external_reference",
        "counterpart_id",
        "counterpart_name",
        "counterpart_tax_id",
        "counterpart_type",
        "counterpart_vat_id",
        "currency",
        "deduction_amount",
        "deduction_memo",
        "deductions",
        "discount",
        "discounted_subtotal",
        "document_id",
        "document_rendering",
        "due_date",
        "entity",
        "entity_address",
        "entity_bank_account",
        "entity_user_id",
        "entity_vat_id",
        "expiry_date",
        "file_language",
        "file_url",
        "footer",
        "issue_date",
        "line_items",
        "memo",
    ] {
        assert!(r.has(field), "quote response lacks {field}");
    }
    assert!(is_uuid(r.get("id")));
    assert_eq!(r.get("entity_bank_account"), &Value::Null);
    assert_eq!(r.get("currency"), "EUR");
    assert_eq!(r.get("counterpart_id"), c.counterpart());
    assert_eq!(r.get("memo"), "thanks");
    assert_eq!(r.get("discounted_subtotal"), 3000);
}

#[tokio::test]
async fn invoice_is_created_and_nulls_are_accepted_where_allowed() {
    let (_s, c) = clean().await;
    let nulls = json!({
        "attachments": null, "bank_account_id": null, "bank_account_type": null,
        "commercial_condition_description": null, "counterpart_billing_address_id": null,
        "counterpart_shipping_address_id": null, "counterpart_business_type": null,
        "counterpart_vat_id_id": null, "entity_vat_id_id": null, "deductions": null,
        "discount": null, "document_id": null, "document_rendering": null, "entity": null,
        "footer": null, "memo": null, "project_id": null, "tax_exempt": null,
        "tax_exemption_rationale": null, "tax_mode": null, "trade_name": null,
        "withholding_tax_rate": null, "fulfillment_date": null, "overdue_reminder_id": null,
        "payment_reminder_id": null, "payment_page_url": null, "payment_terms": null,
        "payment_terms_id": null, "purchase_order": null,
    });
    let r = c.receivable(c.invoice(nulls)).await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.get("type"), "invoice");
    let full = json!({
        "attachments": [{ "id": uuid::Uuid::new_v4(), "include_in_email": true }],
        "bank_account_type": "BANK_DETAILS", "counterpart_business_type": "x".repeat(50),
        "deductions": vec![json!({}); 10], "document_id": "d".repeat(100),
        "trade_name": "t".repeat(255), "withholding_tax_rate": 10000,
        "fulfillment_date": "2019-05-01", "payment_page_url": "https://pay.example.com/x",
        "payment_terms": { "term_final": { "end_date": "2030-01-31" } },
        "purchase_order": "p".repeat(100), "partner_metadata": { "k": "v" },
        "tag_ids": [c.fin().deletable_tag_ids[0]], "tax_exempt": false,
    });
    let r = c.receivable(c.invoice(full)).await;
    assert_eq!(r.status, 201, "{}", r.text);
}

#[tokio::test]
async fn each_body_rule_is_enforced_with_422_and_the_validation_body() {
    let (_s, c) = clean().await;
    let long = |n: usize| "x".repeat(n);
    let bad_quotes = [
        json!({ "colour": "red" }),
        json!({ "purchase_order": "PO" }),
        json!({ "fulfillment_date": "2030-01-01" }),
        json!({ "attachments": [] }),
        json!({ "bank_account_type": "SAVINGS" }),
        json!({ "counterpart_business_type": long(51) }),
        json!({ "deductions": vec![json!({}); 11] }),
        json!({ "document_id": "" }),
        json!({ "document_id": long(101) }),
        json!({ "trade_name": long(256) }),
        json!({ "withholding_tax_rate": 10001 }),
        json!({ "withholding_tax_rate": -1 }),
        json!({ "withholding_tax_rate": 1.5 }),
        json!({ "expiry_date": "31/12/2030" }),
        json!({ "quote_accept_page_url": "" }),
        json!({ "quote_accept_page_url": "not a uri" }),
        json!({ "tax_exempt": "yes" }),
        json!({ "tag_ids": ["not-a-uuid"] }),
        json!({ "tag_ids": null }),
        json!({ "partner_metadata": null }),
        json!({ "bank_account_id": "123" }),
        json!({ "type": "bill" }),
        json!({ "line_items": {} }),
    ];
    for extra in bad_quotes {
        let r = c.receivable(c.quote(extra.clone())).await;
        assert_eq!(r.status, 422, "{extra} -> {}", r.text);
        let detail = &r.body()["detail"][0];
        assert!(
            detail["loc"]
                .as_array()
                .is_some_and(|l| l.iter().all(Value::is_string)),
            "{}",
            r.text
        );
        assert!(detail["msg"].is_string() && detail["type"].is_string());
    }
    let bad_invoices = [
        json!({ "expiry_date": "2030-01-01" }),
        json!({ "signature_required": true }),
        json!({ "payment_page_url": format!("https://x.test/{}", long(2070)) }),
        json!({ "purchase_order": long(101) }),
        json!({ "payment_terms": { "term_final": { "end_date": "soon" } } }),
        json!({ "fulfillment_date": "tomorrow" }),
    ];
    for extra in bad_invoices {
        let r = c.receivable(c.invoice(extra.clone())).await;
        assert_eq!(r.status, 422, "{extra} -> {}", r.text);
    }
    for missing in ["type", "currency", "line_items", "counterpart_id"] {
        let r = c.receivable(without(c.quote(json!({})), missing)).await;
        assert_eq!(r.status, 422, "without {missing}");
    }
    let r = c.receivable(json!([1, 2])).await;
    assert_eq!(r.status, 422);
}

#[tokio::test]
async fn unknown_counterpart_is_404() {
    let (_s, c) = clean().await;
    let r = c
        .receivable(c.quote(json!({ "counterpart_id": uuid::Uuid::new_v4() })))
        .await;
    assert_eq!(r.status, 404);
    assert!(r.body()["error"]["message"].is_string());
}

#[tokio::test]
async fn quote_becomes_invoice_becomes_credit_note_and_other_transitions_conflict() {
    let (_s, c) = clean().await;
    let quote = c.receivable(c.quote(json!({}))).await;
    let invoice = c
        .based_on("invoice", quote.get("id").as_str().unwrap())
        .await;
    assert_eq!(invoice.status, 201, "{}", invoice.text);
    assert_eq!(invoice.get("based_on"), quote.get("id"));
    assert_eq!(invoice.get("type"), "invoice");
    let note = c
        .based_on("credit_note", invoice.get("id").as_str().unwrap())
        .await;
    assert_eq!(note.status, 201);
    assert_eq!(note.get("type"), "credit_note");
    let note_id = note.get("id").as_str().unwrap().to_owned();
    for (kind, source) in [
        ("credit_note", c.quote_id()),
        ("invoice", c.invoice_id()),
        ("quote", c.quote_id()),
        ("quote", c.invoice_id()),
        ("invoice", note_id.as_str()),
        ("credit_note", note_id.as_str()),
    ] {
        let r = c.based_on(kind, source).await;
        assert_eq!(r.status, 409, "{kind} from {source}");
        assert!(r.body()["error"]["message"].is_string());
    }
    let unknown = c
        .based_on("invoice", &uuid::Uuid::new_v4().to_string())
        .await;
    assert_eq!(unknown.status, 404);
    let extra = c
        .receivable(json!({ "type": "invoice", "based_on": c.quote_id(), "memo": "x" }))
        .await;
    assert_eq!(extra.status, 422);
    let untyped = c.receivable(json!({ "based_on": c.quote_id() })).await;
    assert_eq!(untyped.status, 422);
}

#[tokio::test]
async fn vat_ids_are_created_read_and_isolated_per_organization() {
    let (_s, c) = clean().await;
    let created = c.vat().await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.get("id").as_str().unwrap().to_owned();
    assert_eq!(created.get("counterpart_id"), c.counterpart());
    let read = c.get_vat(&id, c.org()).await;
    assert_eq!(read.status, 200);
    assert_eq!(read.body(), created.body());
    assert_eq!(c.get_vat(&id, c.other_org()).await.status, 404);
    let unknown = c.get_vat(&uuid::Uuid::new_v4().to_string(), c.org()).await;
    assert_eq!(unknown.status, 404);
    for bad in [
        json!({ "value": "x".repeat(33), "country": "DE", "type": "eu_vat" }),
        json!({ "value": "1", "country": "XX", "type": "eu_vat" }),
        json!({ "value": "1", "country": "DE", "type": "vat" }),
        json!({ "country": "DE", "type": "eu_vat" }),
        json!({ "value": "1", "type": "eu_vat" }),
        json!({ "value": "1", "country": "DE" }),
    ] {
        assert_eq!(c.create_vat(bad.clone()).await.status, 422, "{bad}");
    }
    for (country, kind) in [("IC", "unknown"), ("SX", "za_vat"), ("AN", "ae_trn")] {
        let r = c
            .create_vat(json!({ "value": "x".repeat(32), "country": country, "type": kind }))
            .await;
        assert_eq!(r.status, 201, "{country} {kind}");
    }
    let path = format!("/finops/v1/counterparts/{}/vat-ids", uuid::Uuid::new_v4());
    let r = Ctx::send(
        c.finance(Method::POST, &path)
            .json(&json!({ "value": "1", "country": "DE", "type": "eu_vat" })),
    )
    .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn comment_update_is_applied_and_answered_whole() {
    let (_s, c) = clean().await;
    let user = c.fin().entity_user_id.clone().unwrap();
    let r = c
        .patch_comment(
            c.comment_id(),
            json!({ "text": "Fixed.", "reply_to_entity_user_id": user }),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.get("text"), "Fixed.");
    assert_eq!(r.get("reply_to_entity_user_id"), user.as_str());
    assert_eq!(r.get("status"), "active");
    for f in ["id", "created_by_entity_user_id", "entity_id", "object_id"] {
        assert!(is_uuid(r.get(f)), "{f}");
    }
    assert!(r.get("created_at").is_string() && r.get("object_type").is_string());
    assert_eq!(c.patch_comment(c.comment_id(), json!({})).await.status, 200);
    let bad = c
        .patch_comment(c.comment_id(), json!({ "reply_to_entity_user_id": "bob" }))
        .await;
    assert_eq!(bad.status, 422);
    assert_eq!(
        c.patch_comment(c.comment_id(), json!({ "text": 5 }))
            .await
            .status,
        422
    );
    let unknown = c
        .patch_comment(&uuid::Uuid::new_v4().to_string(), json!({ "text": "x" }))
        .await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test]
async fn mailbox_domain_is_created_without_organization_and_pattern_is_enforced() {
    let (_s, c) = clean().await;
    let r = c.mailbox("mail-1.example.com").await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.get("domain"), "mail-1.example.com");
    assert!(is_uuid(r.get("id")));
    for f in ["status", "dedicated_ip", "last_updated_at"] {
        assert!(r.get(f).is_string(), "{f}");
    }
    for list in ["receiving_dns_records", "sending_dns_records"] {
        for record in r.get("dns_records")[list].as_array().unwrap() {
            assert!(record["is_active"].is_boolean());
            for f in ["record_type", "valid", "value", "name", "record_purpose"] {
                assert!(record[f].is_string(), "{f}");
            }
        }
    }
    for bad in [
        "",
        "-a.com",
        "a-.com",
        "a..com",
        "under_score.com",
        "sp ace.com",
        ".com",
    ] {
        assert_eq!(c.mailbox(bad).await.status, 422, "{bad:?}");
    }
}

#[tokio::test]
async fn deletes_succeed_once_then_404() {
    let (_s, c) = clean().await;
    assert_eq!(c.delete_tag(0).await.status, 204);
    assert_eq!(c.delete_tag(0).await.status, 404);
    assert_eq!(c.delete_bank_account(0).await.status, 204);
    assert_eq!(c.delete_bank_account(0).await.status, 404);
    let path = format!("/finops/v1/tags/{}", c.fin().deletable_tag_ids[1]);
    let foreign =
        Ctx::send(c.finance_as(Method::DELETE, &path, c.other_org(), c.p.finops_version())).await;
    assert_eq!(
        foreign.status, 404,
        "a tag of one organization is not another's"
    );
}

#[tokio::test]
async fn events_page_forward_and_back_in_both_orders() {
    let (_s, c) = clean().await;
    let all = c.full_read(List::Events, 100).await.expect("the read ends");
    assert!(all.len() >= 150, "{}", all.len());
    assert_eq!(c.full_read(List::Events, 7).await.unwrap(), all);
    let first = c.events("limit=10").await;
    assert_eq!(first.get("prev_pagination_token"), &Value::Null);
    let item = &first.get("data")[0];
    for f in ["id", "entity_id"] {
        assert!(is_uuid(&item[f]));
    }
    for f in [
        "action",
        "api_version",
        "description",
        "object_type",
        "created_at",
    ] {
        assert!(item[f].is_string(), "{f}");
    }
    let times = |r: &Resp| -> Vec<String> {
        r.get("data")
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["created_at"].as_str().unwrap().to_owned())
            .collect()
    };
    let asc = times(&c.events("limit=100").await);
    assert!(asc.windows(2).all(|w| w[0] < w[1]));
    let desc = times(&c.events("limit=100&order=desc&sort=created_at").await);
    assert!(desc.windows(2).all(|w| w[0] > w[1]));
    let next = first.token(List::Events.next());
    let second = c
        .events(&format!("pagination_token={next}&limit=3&order=desc"))
        .await;
    assert_eq!(second.ids().len(), 10, "the token's own limit holds");
    c.assert_token_reusable_and_prev_leads_back(List::Events, &first, &second)
        .await;
    for bad in [
        "limit=0",
        "limit=101",
        "limit=ten",
        "order=up",
        "sort=id",
        "pagination_token=zzz",
    ] {
        let s = c.events(bad).await.status;
        assert!((400..500).contains(&s), "{bad} -> {s}");
    }
    let other = Ctx::send(c.finance_as(
        Method::GET,
        "/finops/v1/events",
        c.other_org(),
        c.p.finops_version(),
    ))
    .await;
    assert!(
        other.ids().iter().all(|id| !all.contains(id)),
        "events are per organization"
    );
}

#[tokio::test]
async fn writes_append_events() {
    let (_s, c) = clean().await;
    let before = c.full_read(List::Events, 100).await.unwrap().len();
    c.vat().await;
    c.delete_tag(3).await;
    let after = c.events("limit=2&order=desc&sort=created_at").await;
    assert_eq!(
        c.full_read(List::Events, 100).await.unwrap().len(),
        before + 2
    );
    let types: Vec<&str> = after
        .get("data")
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["object_type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["tag", "counterpart_tax_id"]);
}

#[tokio::test]
async fn oauth_token_endpoint_issues_scoped_tokens() {
    let (_s, c) = clean().await;
    let oauth = c.bank().oauth.clone().unwrap();
    let secret = oauth.client_secret.as_ref().unwrap().expose().to_owned();
    let post =
        |form: Vec<(&'static str, String)>| Ctx::send(c.http.post(&oauth.token_url).form(&form));
    let ok = post(vec![
        ("grant_type", "client_credentials".into()),
        ("client_id", oauth.client_id.clone()),
        ("client_secret", secret.clone()),
        ("scope", "authorization_control:write:org".into()),
    ])
    .await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.get("token_type"), "Bearer");
    assert_eq!(ok.get("scope"), "authorization_control:write:org");
    assert!(ok.get("expires_in").is_u64() && ok.get("access_token").is_string());
    let wrong = post(vec![
        ("grant_type", "client_credentials".into()),
        ("client_id", oauth.client_id.clone()),
        ("client_secret", "wrong".into()),
    ])
    .await;
    assert_eq!(wrong.status, 401);
    let grant = post(vec![("grant_type", "password".into())]).await;
    assert_eq!(grant.status, 400);
    let scope = post(vec![
        ("grant_type", "client_credentials".into()),
        ("client_id", oauth.client_id.clone()),
        ("client_secret", secret),
        ("scope", "admin".into()),
    ])
    .await;
    assert_eq!(scope.status, 400);
}

#[tokio::test]
async fn velocity_controls_are_scoped_to_organization_or_card() {
    let (_s, c) = clean().await;
    let body = c.control(json!({ "mcc": "5411", "usageLimit": -1 }));
    let org = c.velocity(body.clone()).await;
    assert_eq!(org.status, 201, "{}", org.text);
    assert_eq!(org.get("id"), &body["id"]);
    assert_eq!(org.get("active"), false);
    assert_eq!(
        org.get("organizationId"),
        c.bank().organization_id.as_deref().unwrap()
    );
    assert!(!org.has("cardId"));
    assert_eq!(org.get("usageLimit"), -1);
    for f in [
        "createdAt",
        "updatedAt",
        "name",
        "currencyCode",
        "velocityWindow",
    ] {
        assert!(org.get(f).is_string(), "{f}");
    }
    let card = c
        .velocity(c.control(json!({ "cardId": c.card(), "active": true })))
        .await;
    assert_eq!(card.status, 201);
    assert_eq!(card.get("cardId"), c.card());
    assert!(!card.has("organizationId"));
    let dup = c.velocity(body).await;
    assert_eq!(dup.status, 409);
    let foreign = c
        .velocity(c.control(json!({ "cardId": c.bank().foreign_card_id.as_deref().unwrap() })))
        .await;
    assert_eq!(foreign.status, 403);
    assert!(
        !foreign.has("errorCode"),
        "403 is the variant without errorCode"
    );
    let token = c.bank_token().await;
    let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
    let with_header = Ctx::send(
        c.banking(Method::POST, path, Some(&token))
            .header(
                "x-partner-organization-id",
                c.bank().organization_id.as_deref().unwrap(),
            )
            .json(&c.control(json!({}))),
    )
    .await;
    assert_eq!(with_header.status, 201);
    for bad in ["", "not-a-uuid"] {
        let r = Ctx::send(
            c.banking(Method::POST, path, Some(&token))
                .header("x-partner-organization-id", bad)
                .json(&c.control(json!({}))),
        )
        .await;
        assert_eq!(r.status, 400, "{bad:?}");
        assert_eq!(r.get("status"), 400);
    }
}

#[tokio::test]
async fn velocity_control_bodies_and_scopes_are_checked() {
    let (_s, c) = clean().await;
    let bad = [
        json!({ "velocityWindow": "HOUR" }),
        json!({ "velocityWindow": "TRANSACTION", "usageLimit": 3 }),
        json!({ "usageLimit": -2 }),
        json!({ "amountLimit": "100" }),
        json!({ "currencyCode": "euro" }),
        json!({ "active": "yes" }),
        json!({ "cardId": "card-1" }),
    ];
    for extra in bad {
        let r = c.velocity(c.control(extra.clone())).await;
        assert_eq!(r.status, 400, "{extra}");
        for f in ["detail", "errorCode", "instance", "title", "type"] {
            assert!(r.get(f).is_string(), "{f}");
        }
        assert_eq!(r.get("status"), 400);
    }
    for missing in [
        "id",
        "amountLimit",
        "currencyCode",
        "name",
        "velocityWindow",
    ] {
        let r = c.velocity(without(c.control(json!({})), missing)).await;
        assert_eq!(r.status, 400, "without {missing}");
    }
    let tx = c
        .velocity(c.control(json!({ "velocityWindow": "TRANSACTION" })))
        .await;
    assert_eq!(tx.status, 201);
    assert!(!tx.has("usageLimit"));
    let scopeless = c.scopeless_token();
    let r = c.velocity_with(c.control(json!({})), &scopeless).await;
    assert_eq!(r.status, 403);
    let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
    let none = Ctx::send(
        c.banking(Method::POST, path, None)
            .json(&c.control(json!({}))),
    )
    .await;
    assert_eq!(none.status, 401);
    assert_eq!(none.get("status"), 401);
}

#[tokio::test]
async fn transactions_page_with_stable_reusable_tokens() {
    let (_s, c) = clean().await;
    let all = c
        .full_read(List::Transactions, 100)
        .await
        .expect("the read ends");
    assert_eq!(all.len(), covenant::reference::TRANSACTION_COUNT);
    assert_eq!(c.full_read(List::Transactions, 25).await.unwrap(), all);
    assert_eq!(c.full_read(List::Transactions, 1).await.unwrap(), all);
    let first = c.tx("").await;
    assert_eq!(first.ids().len(), 25);
    assert_eq!(first.get("prevPaginationToken"), &Value::Null);
    let second = c
        .follow(List::Transactions, &first.token(List::Transactions.next()))
        .await;
    c.assert_token_reusable_and_prev_leads_back(List::Transactions, &first, &second)
        .await;
    assert_eq!(c.tx("limit=100").await.ids().len(), 100);
    for bad in ["limit=0", "limit=101", "limit=x", "pagination_token=forged"] {
        assert_eq!(c.tx(bad).await.status, 400, "{bad}");
    }
    let token = c.bank_token().await;
    let empty = c
        .tx_raw(
            c.bank().empty_bank_account_id.as_deref().unwrap(),
            "",
            Some(&token),
            None,
        )
        .await;
    assert_eq!(empty.status, 200);
    assert_eq!(
        empty.body(),
        &json!({ "data": [], "nextPaginationToken": null, "prevPaginationToken": null })
    );
    let unknown = c
        .tx_raw(&uuid::Uuid::new_v4().to_string(), "", Some(&token), None)
        .await;
    assert_eq!(unknown.status, 404);
    let account = c.bank().bank_account_id.as_deref().unwrap();
    assert_eq!(c.tx_raw(account, "", None, None).await.status, 401);
    assert_eq!(
        c.tx_raw(account, "", Some("forged"), None).await.status,
        401
    );
    assert_eq!(
        c.tx_raw(account, "", Some(&token), Some("12")).await.status,
        400
    );
    let scopeless = c.scopeless_token();
    assert_eq!(
        c.tx_raw(account, "", Some(&scopeless), None).await.status,
        200
    );
}

#[tokio::test]
async fn unparseable_bodies_get_a_4xx_never_a_5xx() {
    let (_s, c) = clean().await;
    let fin = [
        "/finops/v1/receivables".to_owned(),
        format!("/finops/v1/counterparts/{}/vat-ids", c.counterpart()),
        "/finops/v1/mailbox-domains".to_owned(),
    ];
    for path in fin {
        for body in ["{not json", "", "\u{0}"] {
            let r = Ctx::send(
                c.finance(Method::POST, &path)
                    .header("content-type", "text/plain")
                    .body(body),
            )
            .await;
            assert!(
                (400..500).contains(&r.status),
                "{path} {body:?} -> {}",
                r.status
            );
        }
    }
    let comment = format!("/finops/v1/comments/{}", c.comment_id());
    assert_eq!(
        Ctx::send(c.finance(Method::PATCH, &comment).body("["))
            .await
            .status,
        422
    );
    let token = c.bank_token().await;
    let path = "/embedded-banking/v1/authorization-controls/velocity-controls";
    let r = Ctx::send(c.banking(Method::POST, path, Some(&token)).body("{")).await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn unknown_routes_are_404_and_wrong_methods_405_with_json_bodies() {
    let (_s, c) = clean().await;
    let r = Ctx::send(c.finance(Method::GET, "/finops/v1/nothing")).await;
    assert_eq!(r.status, 404);
    assert!(r.json.is_some());
    let r = Ctx::send(c.finance(Method::GET, "/finops/v1/receivables")).await;
    assert_eq!(r.status, 405);
    assert!(r.body()["error"]["message"].is_string());
    let r = Ctx::send(c.banking(
        Method::GET,
        "/embedded-banking/v1/authorization-controls/velocity-controls",
        None,
    ))
    .await;
    assert_eq!(r.status, 405);
    assert_eq!(r.get("status"), 405);
    assert_eq!(
        Ctx::send(c.finance(Method::GET, "/finops/events"))
            .await
            .status,
        404
    );
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

// ------------------------------------------------------------------------ part two: faults

/// Whether the deviation of `fault` is visible on the server behind `c`.
async fn probe(c: &Ctx, fault: Fault) -> bool {
    use Fault::*;
    let created = |r: &Resp| r.status == 201;
    let long = |n: usize| "x".repeat(n);
    match fault {
        NonJsonBody => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            let r = c.get_vat(&id, c.org()).await;
            r.status == 200 && r.json.is_none()
        }
        JsonAsTextPlain => c.events("").await.content_type.starts_with("text/plain"),
        MailboxIdNotUuid => !is_uuid(c.mailbox("example.com").await.get("id")),
        ServerErrorOnValidRequest => c.events("order=desc").await.status >= 500,
        UnparseableBodyAsEmpty => {
            let path = format!("/finops/v1/comments/{}", c.fin().comment_ids[0]);
            let rb = c.finance(Method::PATCH, &path).body("{oops");
            Ctx::send(rb).await.status == 200
        }
        ServerErrorOnUnparseableBody => {
            let rb = c
                .finance(Method::POST, "/finops/v1/receivables")
                .body("{oops");
            Ctx::send(rb).await.status >= 500
        }
        UsageLimitBelowMinusOneAccepted => c.control_created(json!({ "usageLimit": -5 })).await,
        MemoRejected => {
            c.receivable(c.quote(json!({ "memo": "Thanks!" })))
                .await
                .status
                == 422
        }
        FinMissingTokenAccepted | FinMissingToken403 | FinErrorBodyFlat => {
            let rb = c
                .finance_bare(Method::GET, "/finops/v1/events")
                .header("x-organization-id", c.org());
            let r = Ctx::send(rb).await;
            match fault {
                FinMissingTokenAccepted => r.status == 200,
                FinMissingToken403 => r.status == 403,
                _ => !r.body()["error"]["message"].is_string(),
            }
        }
        FinInvalidTokenAccepted => {
            let rb = c
                .finance_bare(Method::GET, "/finops/v1/events")
                .bearer_auth("guess")
                .header("x-organization-id", c.org());
            Ctx::send(rb).await.status == 200
        }
        BankMissingTokenAccepted
        | BankInvalidToken403
        | BankErrorTitleMissing
        | BankErrorStatus400 => {
            let account = c.bank().bank_account_id.as_deref().unwrap();
            let r = c.tx_raw(account, "", None, None).await;
            match fault {
                BankMissingTokenAccepted => r.status == 200,
                BankInvalidToken403 => r.status == 403,
                BankErrorTitleMissing => !r.has("title"),
                _ => r.get("status").as_u64() != Some(u64::from(r.status)),
            }
        }
        ScopeNotRequired | Scope401 => {
            let token = c.scopeless_token();
            let r = c.velocity_with(c.control(json!({})), &token).await;
            (fault == ScopeNotRequired && r.status == 201) || (fault == Scope401 && r.status == 401)
        }
        OrgHeaderMalformedAccepted => {
            let token = c.bank_token().await;
            let account = c.bank().bank_account_id.as_deref().unwrap();
            c.tx_raw(account, "", Some(&token), Some("org-1"))
                .await
                .status
                == 200
        }
        OrgHeaderRequired => c.tx("").await.status == 400,
        OrgIsolationBroken => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            c.get_vat(&id, c.other_org()).await.status == 200
        }
        MailboxRequiresOrgHeader => c.mailbox("example.org").await.status == 400,
        VersionMalformedAccepted => {
            let rb = c.finance_as(Method::GET, "/finops/v1/events", c.org(), "v2");
            Ctx::send(rb).await.status == 200
        }
        EventsPathWithoutV1 => c.events("").await.status == 404,
        MixedShapeAccepted => c.invoice_created(json!({ "based_on": c.quote_id() })).await,
        UnknownPropsAccepted => c.quote_created(json!({ "colour": "red" })).await,
        UnknownPropsAcceptedBasedOn => {
            let body = json!({ "type": "invoice", "based_on": c.quote_id(), "colour": "red" });
            created(&c.receivable(body).await)
        }
        InvoiceFieldInQuoteAccepted => c.quote_created(json!({ "purchase_order": "PO-1" })).await,
        QuoteFieldInInvoiceAccepted => {
            c.invoice_created(json!({ "expiry_date": "2030-01-01" }))
                .await
        }
        TypeUnchecked => c.quote_created(json!({ "type": "bill" })).await,
        CurrencyAnyString => created(&c.receivable(c.quote(json!({ "currency": "euro" }))).await),
        CurrencyOptional => created(&c.receivable(without(c.quote(json!({})), "currency")).await),
        BasedOnTypeOptional => created(&c.receivable(json!({ "based_on": c.quote_id() })).await),
        FieldTypesLoose => c.quote_created(json!({ "tax_exempt": "yes" })).await,
        NullFooterRejected => {
            c.receivable(c.quote(json!({ "footer": null })))
                .await
                .status
                == 422
        }
        AttachmentsEmptyAccepted => c.quote_created(json!({ "attachments": [] })).await,
        BankAccountTypeAny => {
            c.quote_created(json!({ "bank_account_type": "SAVINGS" }))
                .await
        }
        BusinessTypeMaxIgnored => {
            c.quote_created(json!({ "counterpart_business_type": long(51) }))
                .await
        }
        DeductionsMaxIgnored => {
            c.quote_created(json!({ "deductions": vec![json!({}); 11] }))
                .await
        }
        DocumentIdLenIgnored => c.quote_created(json!({ "document_id": "" })).await,
        TradeNameMaxIgnored => c.quote_created(json!({ "trade_name": long(256) })).await,
        WithholdingRangeIgnored => {
            c.quote_created(json!({ "withholding_tax_rate": 10001 }))
                .await
        }
        ExpiryDateUnchecked => c.quote_created(json!({ "expiry_date": "next week" })).await,
        QuoteAcceptUrlUnchecked => {
            c.quote_created(json!({ "quote_accept_page_url": "not a url" }))
                .await
        }
        FulfillmentDateUnchecked => {
            c.invoice_created(json!({ "fulfillment_date": "soon" }))
                .await
        }
        FulfillmentDatePastRejected => {
            c.receivable(c.invoice(json!({ "fulfillment_date": "2020-01-01" })))
                .await
                .status
                == 422
        }
        PaymentUrlLenIgnored => {
            let url = format!("https://pay.example.com/{}", long(2084 - 24));
            c.invoice_created(json!({ "payment_page_url": url })).await
        }
        PurchaseOrderMaxIgnored => {
            c.invoice_created(json!({ "purchase_order": long(101) }))
                .await
        }
        PaymentTermsUnchecked => {
            let terms = json!({ "payment_terms": { "term_final": { "end_date": "eventually" } } });
            created(&c.receivable(c.invoice(terms)).await)
        }
        Create200 => c.receivable(c.quote(json!({}))).await.status == 200,
        StatusOutsideSet | Transition400 | UnsupportedTransitionAllowed => {
            let s = c.based_on("credit_note", c.quote_id()).await.status;
            match fault {
                StatusOutsideSet => ![201, 400, 401, 403, 404, 405, 409, 422, 500].contains(&s),
                Transition400 => s == 400,
                _ => s == 201,
            }
        }
        QuoteResponseMissingField
        | EntityBankAccountSet
        | DeductionAmountNegative
        | CurrencyNotEchoed => {
            let r = c.receivable(c.quote(json!({}))).await;
            match fault {
                QuoteResponseMissingField => !r.has("updated_at"),
                EntityBankAccountSet => !r.get("entity_bank_account").is_null(),
                DeductionAmountNegative => {
                    r.get("deduction_amount").as_i64().is_some_and(|n| n < 0)
                }
                _ => r.get("currency") != "EUR",
            }
        }
        QuoteToInvoiceRefused => !created(&c.based_on("invoice", c.quote_id()).await),
        InvoiceToCreditNoteRefused => !created(&c.based_on("credit_note", c.invoice_id()).await),
        BasedOnUnknownAccepted => created(
            &c.based_on("invoice", &uuid::Uuid::new_v4().to_string())
                .await,
        ),
        Validation400 => {
            c.receivable(c.quote(json!({ "colour": "red" })))
                .await
                .status
                == 400
        }
        Fin422LocString => {
            let r = c.receivable(c.quote(json!({ "colour": "red" }))).await;
            r.status == 422 && r.body()["detail"][0]["loc"].is_string()
        }
        VatValueMaxIgnored => created(
            &c.create_vat(json!({ "value": long(33), "country": "DE", "type": "eu_vat" }))
                .await,
        ),
        VatCountryAny => created(
            &c.create_vat(json!({ "value": "1", "country": "XX", "type": "eu_vat" }))
                .await,
        ),
        VatTypeAny => created(
            &c.create_vat(json!({ "value": "1", "country": "DE", "type": "xx_vat" }))
                .await,
        ),
        VatResponseTypeMissing => !c.vat().await.has("type"),
        VatCounterpartWrong => c.vat().await.get("counterpart_id") != c.counterpart(),
        VatGetReturnsFirst | VatTypeLost => {
            let id = c.vat().await.get("id").as_str().unwrap().to_owned();
            let r = c.get_vat(&id, c.org()).await;
            match fault {
                VatGetReturnsFirst => r.get("id") != id.as_str(),
                _ => r.get("type") != "gb_vat",
            }
        }
        VatGetUnknown200 => {
            c.get_vat(&uuid::Uuid::new_v4().to_string(), c.org())
                .await
                .status
                == 200
        }
        CommentDatesNotDateTime | CommentStatusUppercase | CommentUpdateNotApplied => {
            let r = c
                .patch_comment(c.comment_id(), json!({ "text": "Updated by the probe" }))
                .await;
            match fault {
                CommentDatesNotDateTime => !r.get("created_at").is_string(),
                CommentStatusUppercase => {
                    !["active", "deleted"].contains(&r.get("status").as_str().unwrap_or(""))
                }
                _ => r.get("text") != "Updated by the probe",
            }
        }
        CommentTypesUnchecked => {
            let body = json!({ "reply_to_entity_user_id": "someone" });
            c.patch_comment(c.comment_id(), body).await.status == 200
        }
        CommentUnknown200 => {
            let id = uuid::Uuid::new_v4().to_string();
            c.patch_comment(&id, json!({ "text": "x" })).await.status == 200
        }
        DomainSegmentEdgesUnchecked => created(&c.mailbox("a-.example").await),
        DomainCharsetUnchecked => created(&c.mailbox("under_score.example").await),
        MailboxDedicatedIpMissing => !c.mailbox("example.net").await.has("dedicated_ip"),
        DnsIsActiveString => {
            let r = c.mailbox("example.net").await;
            !r.get("dns_records")["sending_dns_records"][0]["is_active"].is_boolean()
        }
        DomainNotEchoed => c.mailbox("example.net").await.get("domain") != "example.net",
        TagDeleteNotFound => c.delete_tag(0).await.status == 404,
        TagDeleteIdempotent => {
            c.delete_tag(1).await;
            c.delete_tag(1).await.status == 204
        }
        BankAccountDeleteNotFound => c.delete_bank_account(0).await.status == 404,
        BankAccountDeleteIdempotent => {
            c.delete_bank_account(1).await;
            c.delete_bank_account(1).await.status == 204
        }
        EventsPrevKeyMissing => !c.events("limit=5").await.has("prev_pagination_token"),
        EventDescriptionMissing => c.events("limit=5").await.get("data")[0]
            .get("description")
            .is_none(),
        EventObjectTypeOutsideEnum => {
            let r = c.events("limit=100").await;
            r.get("data")
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["object_type"] == "vat_id")
        }
        EventsLimitPlusOne => c.events("limit=10").await.ids().len() > 10,
        EventsLimitClamped => c.events("limit=0").await.status == 200,
        EventsOrderUnknownIgnored => c.events("order=sideways").await.status == 200,
        EventsDefaultDesc | EventsDefaultSortUpdated | EventsDescIgnored => {
            let query = match fault {
                EventsDefaultDesc => "limit=100&sort=created_at",
                EventsDefaultSortUpdated => "limit=100",
                _ => "limit=100&order=desc&sort=created_at",
            };
            let r = c.events(query).await;
            let times: Vec<&str> = r
                .get("data")
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["created_at"].as_str().unwrap())
                .collect();
            let ascending = times.windows(2).all(|w| w[0] < w[1]);
            if fault == EventsDescIgnored {
                ascending
            } else {
                !ascending
            }
        }
        EventsTokenHonoursParams => {
            let first = c.events("limit=10").await;
            let t = first
                .get("next_pagination_token")
                .as_str()
                .unwrap()
                .to_owned();
            c.events(&format!("pagination_token={t}&limit=5"))
                .await
                .ids()
                .len()
                != 10
        }
        EventsNextCycles => c.full_read(List::Events, 100).await.is_none(),
        EventsItemRepeated => c.item_repeated(List::Events).await,
        EventsItemSkipped => c.item_skipped(List::Events).await,
        EventsPrevOnFirst => c.prev_on_first(List::Events).await,
        EventsTokenSingleUse => c.token_single_use(List::Events).await,
        EventsTamperedRestarts => c.events("pagination_token=bm90LWlzc3VlZA").await.status == 200,
        VelocityCreate200 => c.velocity(c.control(json!({}))).await.status == 200,
        VelocityCreatedAtMissing => !c.velocity(c.control(json!({}))).await.has("createdAt"),
        VelocityBothScopes | VelocityCardDropped => {
            let r = c.velocity(c.control(json!({ "cardId": c.card() }))).await;
            match fault {
                VelocityBothScopes => r.has("organizationId") && r.has("cardId"),
                _ => r.get("cardId") != c.card(),
            }
        }
        VelocityOrgMissingWithoutHeader => {
            !c.velocity(c.control(json!({}))).await.has("organizationId")
        }
        VelocityForeignCardAccepted => {
            let card = c.bank().foreign_card_id.as_deref().unwrap();
            c.control_created(json!({ "cardId": card })).await
        }
        VelocityActiveDefaultTrue => c.velocity(c.control(json!({}))).await.get("active") == true,
        VelocityTransactionUsageAccepted => {
            let body = c.control(json!({ "velocityWindow": "TRANSACTION", "usageLimit": 5 }));
            created(&c.velocity(body).await)
        }
        VelocityUnlimitedRejected => {
            c.velocity(c.control(json!({ "usageLimit": -1 })))
                .await
                .status
                == 400
        }
        VelocityWindowAny => c.control_created(json!({ "velocityWindow": "HOUR" })).await,
        VelocityAmountString => c.control_created(json!({ "amountLimit": "1000" })).await,
        VelocityCurrencyUnchecked => c.control_created(json!({ "currencyCode": "EURO" })).await,
        VelocityDuplicateAccepted | VelocityDuplicate400 => {
            let body = c.control(json!({}));
            c.velocity(body.clone()).await;
            let s = c.velocity(body).await.status;
            (fault == VelocityDuplicateAccepted && s == 201)
                || (fault == VelocityDuplicate400 && s == 400)
        }
        VelocityIdGenerated => {
            let body = c.control(json!({}));
            c.velocity(body.clone()).await.get("id") != &body["id"]
        }
        VelocityAmountMajorUnits => {
            c.velocity(c.control(json!({}))).await.get("amountLimit") != 150000
        }
        BankingSnakeCaseTokens => !c.tx("").await.has("nextPaginationToken"),
        BankingDefaultLimit30 => c.tx("").await.ids().len() != 25,
        BankingLimit101Served => c.tx("limit=101").await.ids().len() > 100,
        BankingLimitClamped => c.tx("limit=500").await.status == 200,
        BankingNextCycles => c.full_read(List::Transactions, 100).await.is_none(),
        BankingItemRepeated => c.item_repeated(List::Transactions).await,
        BankingItemSkipped => c.item_skipped(List::Transactions).await,
        BankingPrevWrongPage => {
            let (first, second) = c.two_pages(List::Transactions, 25).await;
            let prev = second
                .get("prevPaginationToken")
                .as_str()
                .unwrap_or("")
                .to_owned();
            c.follow(List::Transactions, &prev).await.ids() != first.ids()
        }
        BankingPrevOnFirst => c.prev_on_first(List::Transactions).await,
        BankingTokenSingleUse => c.token_single_use(List::Transactions).await,
        BankingTamperedRestarts => c.tx("pagination_token=eyJvZmZzZXQiOjB9").await.status == 200,
        UnknownAccountEmpty => {
            let token = c.bank_token().await;
            c.tx_raw(&uuid::Uuid::new_v4().to_string(), "", Some(&token), None)
                .await
                .status
                == 200
        }
    }
}

/// Runs the probe of `fault` against a server with that fault and a clean one.
async fn probe_pair(fault: Fault, http: reqwest::Client) -> Result<(), String> {
    let faulty = server(FaultSet::only(fault)).await;
    let clean = server(FaultSet::none()).await;
    let on = probe(&Ctx::new(&faulty, http.clone()), fault).await;
    let off = probe(&Ctx::new(&clean, http), fault).await;
    faulty.shutdown().await;
    clean.shutdown().await;
    match (on, off) {
        (true, false) => Ok(()),
        (false, _) => Err(format!("{fault}: deviation not seen with the fault on")),
        (true, true) => Err(format!("{fault}: deviation seen on the clean server")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_is_observable_and_absent_on_the_clean_server() {
    let http = client();
    let gate = Arc::new(tokio::sync::Semaphore::new(16));
    let mut set = tokio::task::JoinSet::new();
    for fault in Fault::all() {
        let (http, gate) = (http.clone(), gate.clone());
        let fault = *fault;
        set.spawn(async move {
            let _permit = gate.acquire().await.expect("the semaphore stays open");
            probe_pair(fault, http).await
        });
    }
    let mut failures = Vec::new();
    let mut done = 0;
    while let Some(result) = set.join_next().await {
        done += 1;
        if let Err(e) = result.expect("a probe does not panic") {
            failures.push(e);
        }
    }
    assert_eq!(done, Fault::all().len(), "a probe for every fault");
    assert!(
        failures.is_empty(),
        "{} of {done}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------------------------------ the commands

#[test]
fn list_faults_prints_every_fault_and_the_count() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(["list", "faults"])
        .output()
        .expect("the binary runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for fault in Fault::all() {
        assert!(
            text.contains(fault.name()) && text.contains(fault.rule()),
            "{fault}"
        );
    }
    assert!(text
        .trim_end()
        .ends_with(&format!("{} faults", Fault::all().len())));
}

#[test]
fn serve_refuses_an_unknown_fault_with_a_usage_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(["serve", "--port", "0", "--fault", "no-such-fault"])
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-fault") && err.contains("covenant list faults"),
        "{err}"
    );
}

#[test]
fn serve_writes_a_loadable_profile_and_stops_on_sigterm() {
    let dir = std::env::temp_dir().join(format!("covenant-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("profile.toml");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args([
            "serve",
            "--port",
            "0",
            "--fault",
            "rcv-create-200",
            "--profile-out",
        ])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // The server says where it listens and that the profile is written, then serves.
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let mut said = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let done = line.starts_with("profile written");
        said.push(line);
        if done {
            break;
        }
    }
    let said = said.join("\n");
    assert!(
        said.contains("covenant reference listening on http://127.0.0.1:"),
        "{said}"
    );
    assert!(said.contains("rcv-create-200"), "{said}");
    let profile = Profile::load(&path).expect("the written profile loads");
    assert!(profile.base_url.unwrap().starts_with("http://127.0.0.1:"));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}
