//! The in-memory state of one reference server and its seeded fixtures.
//!
//! Everything a server knows lives in one [`App`] per instance: no globals, so that dozens of
//! servers can run at once in one process. Fixture ids come from a seeded generator, so the
//! same seed gives the same ids. Locks are held only for the few lines that touch the data.

use super::fault::FaultSet;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// The scope of the scoped banking client.
pub const WRITE_SCOPE: &str = "authorization_control:write:org";
/// The other scope the scoped client holds (reading transactions needs none here).
pub const READ_SCOPE: &str = "transactions:read";

/// Transactions on the fixture bank account: uneven against every common page size.
pub const TRANSACTION_COUNT: usize = 237;

/// One server: its faults, the fixture ids (fixed for its life) and the mutable data.
pub struct App {
    pub faults: FaultSet,
    pub ids: Ids,
    pub db: Mutex<Db>,
}

impl App {
    /// The data, for a short critical section. A poisoned lock still holds usable data.
    pub fn db(&self) -> std::sync::MutexGuard<'_, Db> {
        self.db.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Fixture ids and credentials, derived from the seed.
#[derive(Debug, Clone)]
pub struct Ids {
    pub seed: u64,
    pub finance_token: String,
    pub org: Uuid,
    pub other_org: Uuid,
    pub counterpart: Uuid,
    pub second_counterpart: Uuid,
    pub other_counterpart: Uuid,
    pub entity_user: Uuid,
    pub vat_rate: Uuid,
    pub comments: Vec<Uuid>,
    pub tags: Vec<Uuid>,
    pub bank_accounts: Vec<(Uuid, Uuid)>,
    pub quote: Uuid,
    pub invoice: Uuid,
    pub credit_note: Uuid,
    pub vat_ids: Vec<Uuid>,
    pub other_vat_id: Uuid,
    pub bank_org: Uuid,
    /// The second banking organization: the partner's token may act for it through the
    /// organization header (`banking.other_organization_id`); it owns the foreign card.
    pub foreign_bank_org: Uuid,
    pub card: Uuid,
    pub foreign_card: Uuid,
    pub bank_account: Uuid,
    pub empty_bank_account: Uuid,
    pub client_id: String,
    pub client_secret: String,
    pub scopeless_client_id: String,
    pub scopeless_client_secret: String,
    pub scopeless_token: String,
}

/// The kinds of receivable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceivableKind {
    Quote,
    Invoice,
    CreditNote,
}

impl ReceivableKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ReceivableKind::Quote => "quote",
            ReceivableKind::Invoice => "invoice",
            ReceivableKind::CreditNote => "credit_note",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Receivable {
    pub org: Uuid,
    pub kind: ReceivableKind,
    pub counterpart_id: Uuid,
    pub currency: String,
    pub line_items: Value,
    pub tag_ids: Vec<Uuid>,
    pub document_id: String,
    /// The receivable it was created from (a based-on creation).
    pub based_on: Option<Uuid>,
}

#[derive(Debug, Clone)]
pub struct Counterpart {
    pub org: Uuid,
    pub name: String,
    pub bank_accounts: HashSet<Uuid>,
}

#[derive(Debug, Clone)]
pub struct VatId {
    pub id: Uuid,
    pub org: Uuid,
    pub counterpart_id: Uuid,
    pub value: String,
    pub country: String,
    pub kind: String,
}

#[derive(Debug, Clone)]
pub struct Comment {
    pub org: Uuid,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub created_by: Uuid,
    pub object_id: Uuid,
    pub reply_to: Uuid,
    pub status: &'static str,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Event {
    pub id: Uuid,
    pub org: Uuid,
    pub created_at: OffsetDateTime,
    /// Not part of the event shape; only `sort=updated_at` reads it.
    pub updated_at: OffsetDateTime,
    pub object_type: &'static str,
    pub action: String,
    pub object: Value,
    /// Recorded for a write the server answered (not seeded): what the
    /// `evt-written-created-at-not-date-time` fault changes.
    pub written: bool,
}

/// Where a page of events starts and how it was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventCursor {
    pub org: Uuid,
    pub limit: usize,
    pub desc: bool,
    pub by_updated: bool,
    pub offset: usize,
    /// The first query named a sort, for the fault that bends sorted reads.
    pub sorted: bool,
    /// The organization's events of writes when the first query was made, for the fault that
    /// honours a later query's parameters once more were written (0 without it).
    pub writes: usize,
}

/// Where a page of transactions starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxCursor {
    pub account: Uuid,
    pub limit: usize,
    pub offset: usize,
    /// The first query gave no limit (the default applies), for the faults that bend it.
    pub defaulted: bool,
    /// The token was issued as a prevPaginationToken, for the fault that bends the next token
    /// of a page reached that way (false without it).
    pub via_prev: bool,
}

/// As derived, but `via_prev` is hashed only when set: without its fault, a cursor and so its
/// token are what they were before the flag existed.
impl std::hash::Hash for TxCursor {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.account.hash(state);
        self.limit.hash(state);
        self.offset.hash(state);
        self.defaulted.hash(state);
        if self.via_prev {
            self.via_prev.hash(state);
        }
    }
}

#[derive(Debug, Clone)]
pub struct BankAccount {
    pub org: Uuid,
    pub transactions: Vec<Transaction>,
}

/// A bank account transaction (its fields are not shown by the spec: this shape is ours).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    pub id: Uuid,
    pub amount: i64,
    pub currency: &'static str,
    pub booked_at: String,
    pub description: &'static str,
    pub status: &'static str,
}

/// A cursor the store holds under a token, and when the token was issued.
#[derive(Debug, Clone, Copy)]
pub struct Issued<C> {
    pub cursor: C,
    pub at: Instant,
}

/// The mutable data of one server.
pub struct Db {
    pub rng: SmallRng,
    pub clock: OffsetDateTime,
    pub counterparts: HashMap<Uuid, Counterpart>,
    pub vat_ids: Vec<VatId>,
    pub receivables: HashMap<Uuid, Receivable>,
    pub tags: HashMap<Uuid, Uuid>,
    pub comments: HashMap<Uuid, Comment>,
    pub events: Vec<Event>,
    pub event_cursors: HashMap<String, Issued<EventCursor>>,
    pub mailbox_count: u64,
    /// Issued banking access tokens: token -> whether it holds the write scope.
    pub tokens: HashMap<String, bool>,
    pub token_count: u64,
    /// Velocity control ids taken, per organization.
    pub velocity_ids: HashSet<(Uuid, String)>,
    /// Velocity control ids in the order they were created (the
    /// `vc-duplicate-accepted-after-three-creates` fault reads the last three of each
    /// organization).
    pub velocity_order: Vec<(Uuid, String)>,
    pub bank_accounts: HashMap<Uuid, BankAccount>,
    pub cards: HashMap<Uuid, Uuid>,
    pub tx_cursors: HashMap<String, Issued<TxCursor>>,
    /// Tokens issued so far: makes every issuance distinct under the single-use and expiry
    /// faults.
    pub tokens_issued: u64,
}

impl Db {
    /// A fresh id from the seeded generator.
    pub fn uuid(&mut self) -> Uuid {
        uuid_from(&mut self.rng)
    }

    /// The current time, strictly later than any time handed out before.
    pub fn now(&mut self) -> OffsetDateTime {
        let now = OffsetDateTime::now_utc();
        self.clock = if now > self.clock {
            now
        } else {
            self.clock + Duration::milliseconds(1)
        };
        self.clock
    }

    /// Appends an event for a write.
    pub fn record(&mut self, org: Uuid, object_type: &'static str, action: &str, object: Value) {
        let at = self.now();
        let id = self.uuid();
        self.events.push(Event {
            id,
            org,
            created_at: at,
            updated_at: at,
            object_type,
            action: action.to_owned(),
            object,
            written: true,
        });
    }
}

fn uuid_from(rng: &mut SmallRng) -> Uuid {
    uuid::Builder::from_random_bytes(rng.random::<[u8; 16]>()).into_uuid()
}

fn secret_from(rng: &mut SmallRng, prefix: &str) -> String {
    format!(
        "{prefix}{:016x}{:016x}",
        rng.random::<u64>(),
        rng.random::<u64>()
    )
}

/// Builds the state of a server from its seed.
pub fn seed(seed: u64, faults: FaultSet) -> App {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut u = || uuid_from(&mut rng);
    let org = u();
    let other_org = u();
    let counterpart = u();
    let second_counterpart = u();
    let other_counterpart = u();
    let entity_user = u();
    let vat_rate = u();
    let comments: Vec<Uuid> = (0..6).map(|_| u()).collect();
    let tags: Vec<Uuid> = (0..10).map(|_| u()).collect();
    let bank_accounts: Vec<(Uuid, Uuid)> = (0..10)
        .map(|i| {
            let cp = if i % 2 == 0 {
                counterpart
            } else {
                second_counterpart
            };
            (cp, u())
        })
        .collect();
    let quote = u();
    let invoice = u();
    let credit_note = u();
    let vat_ids: Vec<Uuid> = (0..2).map(|_| u()).collect();
    let other_vat_id = u();
    let bank_org = u();
    let foreign_bank_org = u();
    let card = u();
    let foreign_card = u();
    let bank_account = u();
    let empty_bank_account = u();
    let ids = Ids {
        seed,
        finance_token: secret_from(&mut rng, "fin_"),
        org,
        other_org,
        counterpart,
        second_counterpart,
        other_counterpart,
        entity_user,
        vat_rate,
        comments,
        tags,
        bank_accounts,
        quote,
        invoice,
        credit_note,
        vat_ids,
        other_vat_id,
        bank_org,
        foreign_bank_org,
        card,
        foreign_card,
        bank_account,
        empty_bank_account,
        client_id: "covenant-partner-app".to_owned(),
        client_secret: secret_from(&mut rng, "cs_"),
        scopeless_client_id: "covenant-readonly-app".to_owned(),
        scopeless_client_secret: secret_from(&mut rng, "cs_"),
        scopeless_token: secret_from(&mut rng, "at_"),
    };
    let now = OffsetDateTime::now_utc();
    let db = Db {
        clock: now,
        counterparts: seed_counterparts(&ids),
        vat_ids: seed_vat_ids(&ids),
        receivables: seed_receivables(&ids),
        tags: ids
            .tags
            .iter()
            .map(|t| (*t, org))
            .chain((0..2).map(|_| (uuid_from(&mut rng), other_org)))
            .collect(),
        comments: seed_comments(&ids, now),
        events: seed_events(&ids, &mut rng, now),
        event_cursors: HashMap::new(),
        mailbox_count: 0,
        tokens: HashMap::from([(ids.scopeless_token.clone(), false)]),
        token_count: 0,
        velocity_ids: HashSet::new(),
        velocity_order: Vec::new(),
        bank_accounts: seed_bank_accounts(&ids, &mut rng, now),
        cards: HashMap::from([(card, bank_org), (foreign_card, ids.foreign_bank_org)]),
        tx_cursors: HashMap::new(),
        tokens_issued: 0,
        rng,
    };
    App {
        faults,
        ids,
        db: Mutex::new(db),
    }
}

fn seed_counterparts(ids: &Ids) -> HashMap<Uuid, Counterpart> {
    let accounts_of = |cp: Uuid| {
        ids.bank_accounts
            .iter()
            .filter(|(c, _)| *c == cp)
            .map(|(_, b)| *b)
            .collect()
    };
    HashMap::from([
        (
            ids.counterpart,
            Counterpart {
                org: ids.org,
                name: "Acme Trading GmbH".to_owned(),
                bank_accounts: accounts_of(ids.counterpart),
            },
        ),
        (
            ids.second_counterpart,
            Counterpart {
                org: ids.org,
                name: "Borealis Supplies Ltd".to_owned(),
                bank_accounts: accounts_of(ids.second_counterpart),
            },
        ),
        (
            ids.other_counterpart,
            Counterpart {
                org: ids.other_org,
                name: "Cobalt Logistics SA".to_owned(),
                bank_accounts: HashSet::new(),
            },
        ),
    ])
}

fn seed_vat_ids(ids: &Ids) -> Vec<VatId> {
    let vat = |id, org, counterpart_id, value: &str, country: &str, kind: &str| VatId {
        id,
        org,
        counterpart_id,
        value: value.to_owned(),
        country: country.to_owned(),
        kind: kind.to_owned(),
    };
    vec![
        vat(
            ids.vat_ids[0],
            ids.org,
            ids.counterpart,
            "DE811907980",
            "DE",
            "eu_vat",
        ),
        vat(
            ids.vat_ids[1],
            ids.org,
            ids.counterpart,
            "ATU12345678",
            "AT",
            "eu_vat",
        ),
        vat(
            ids.other_vat_id,
            ids.other_org,
            ids.other_counterpart,
            "FR40303265045",
            "FR",
            "eu_vat",
        ),
    ]
}

fn seed_receivables(ids: &Ids) -> HashMap<Uuid, Receivable> {
    let line_items = json!([{
        "product": { "name": "Consulting", "price": { "value": 12000, "currency": "EUR" },
                     "measure_unit": { "name": "hour" } },
        "quantity": 10,
        "vat_rate_id": ids.vat_rate.to_string()
    }]);
    let receivable = |kind, tags: &[Uuid], number: &str| Receivable {
        org: ids.org,
        kind,
        counterpart_id: ids.counterpart,
        currency: "EUR".to_owned(),
        line_items: line_items.clone(),
        tag_ids: tags.to_vec(),
        document_id: number.to_owned(),
        based_on: None,
    };
    HashMap::from([
        (
            ids.quote,
            receivable(ReceivableKind::Quote, &ids.tags[0..3], "Q-0001"),
        ),
        (
            ids.invoice,
            receivable(ReceivableKind::Invoice, &ids.tags[2..5], "INV-0001"),
        ),
        (
            ids.credit_note,
            receivable(ReceivableKind::CreditNote, &ids.tags[4..6], "CN-0001"),
        ),
    ])
}

fn seed_comments(ids: &Ids, now: OffsetDateTime) -> HashMap<Uuid, Comment> {
    ids.comments
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let at = now - Duration::days(20 - i as i64);
            let comment = Comment {
                org: if i < 5 { ids.org } else { ids.other_org },
                created_at: at,
                updated_at: at,
                created_by: ids.entity_user,
                object_id: if i % 2 == 0 { ids.quote } else { ids.invoice },
                reply_to: ids.entity_user,
                status: "active",
                text: format!("Please check line {} of the document.", i + 1),
            };
            (*id, comment)
        })
        .collect()
}

/// Object types of the seeded history: a realistic mix from the spec's list.
const SEEDED_OBJECT_TYPES: &[&str] = &[
    "receivable",
    "counterpart",
    "counterpart_tax_id",
    "comment",
    "tag",
    "counterpart_bank_account",
    "payable",
    "payment",
    "entity_user",
    "product",
];

fn seed_events(ids: &Ids, rng: &mut SmallRng, now: OffsetDateTime) -> Vec<Event> {
    let mut events = Vec::new();
    for (org, count) in [(ids.org, 150i64), (ids.other_org, 30)] {
        let span_ms: i64 = 42 * 24 * 3600 * 1000;
        let step_ms = span_ms / count;
        for i in 0..count {
            let jitter = rng.random_range(0..step_ms / 2);
            let created_at = now - Duration::milliseconds(span_ms - step_ms * i - jitter);
            let later = Duration::minutes(rng.random_range(0..60 * 24 * 10));
            let updated_at = (created_at + later).min(now);
            let object_type = SEEDED_OBJECT_TYPES[i as usize % SEEDED_OBJECT_TYPES.len()];
            let action = ["created", "updated", "deleted"][rng.random_range(0..3)];
            let object_id = uuid_from(rng);
            events.push(Event {
                id: uuid_from(rng),
                org,
                created_at,
                updated_at,
                object_type,
                action: format!("{object_type}.{action}"),
                object: json!({ "id": object_id }),
                written: false,
            });
        }
    }
    events
}

fn seed_bank_accounts(
    ids: &Ids,
    rng: &mut SmallRng,
    now: OffsetDateTime,
) -> HashMap<Uuid, BankAccount> {
    const DESCRIPTIONS: &[&str] = &[
        "Card payment",
        "SEPA transfer",
        "Direct debit",
        "ATM withdrawal",
        "Refund",
        "Fee",
    ];
    let mut transactions: Vec<(OffsetDateTime, Uuid, i64, &'static str)> = (0..TRANSACTION_COUNT)
        .map(|_| {
            // Times on a five-minute grid: some transactions share one, so the id tie-break
            // of the default order matters.
            let booked = now - Duration::minutes(rng.random_range(0..60 * 24 * 30) / 5 * 5);
            let id = uuid_from(rng);
            let amount: i64 = rng.random_range(-50_000..50_000);
            let description = DESCRIPTIONS[rng.random_range(0..DESCRIPTIONS.len())];
            (booked, id, amount, description)
        })
        .collect();
    transactions.sort_by_key(|t| (t.0, t.1));
    let rendered = transactions
        .into_iter()
        .map(|(booked, id, amount, description)| Transaction {
            id,
            amount,
            currency: "EUR",
            booked_at: rfc3339(booked),
            description,
            status: "BOOKED",
        })
        .collect();
    HashMap::from([
        (
            ids.bank_account,
            BankAccount {
                org: ids.bank_org,
                transactions: rendered,
            },
        ),
        (
            ids.empty_bank_account,
            BankAccount {
                org: ids.bank_org,
                transactions: Vec::new(),
            },
        ),
    ])
}

/// RFC 3339 text of a time, in UTC with milliseconds.
pub fn rfc3339(at: OffsetDateTime) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    at.to_offset(time::UtcOffset::UTC)
        .format(&format)
        .expect("a UTC time always formats")
}
