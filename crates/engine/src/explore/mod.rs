//! The explorer: random command sequences over both organizations of the profile, judged after
//! every step by a model of what the spec states, and a failing sequence shrunk to the fewest
//! steps that still fail, reported once under its rule as a script of curls.
//!
//! Hand-written scenarios name the paths between requests they thought of; a breach found only
//! along a longer path (a page skipped deep in a read, an id accepted again after other creates,
//! a token carried to the other organization, an event missing from a descending read after
//! several writes) needs a model and random paths, as QuickCheck's state machines do. The model
//! ([`Model`]) holds only what the spec states per organization: the velocity control ids taken,
//! the VAT IDs created and what they hold, the ids the service assigned, the quote and invoice a
//! `based_on` chain can start from, the events a full read held, the transactions of the
//! profile's account, and the events tokens issued under the first organization. Where the spec
//! is silent the model expects nothing: a create refused is no failure here (other cases judge
//! it), it only leaves the model unchanged.
//!
//! Every request goes through [`CaseCx::send`], so the generic checks judge it as they judge a
//! case's. The explorer writes only what the suite already writes (bounded creates of velocity
//! controls, VAT IDs, receivables, mailbox domains, and the profile's comment), never deletes a
//! fixture, and under `--read-only` draws reads alone. It must never judge a rule the spec does
//! not state, nor read another module's cases.
//!
//! A delete is modelled as the spec states it: deleting a tag detaches it from every resource
//! and deletes nothing else, so what was made from a document that carried the tag stays usable
//! ([`Action::DetachTag`]). Nothing else of a delete is: there is no read of tags or of
//! counterpart bank accounts, a delete's success status and body are not shown, and which
//! operation emits which event is not shown; "a deleted thing stays gone" would be a rule of
//! ours. A delete uses up a fixture of the profile, so only sequences of `--explore-depth` 2
//! and more delete a tag (a default run takes one deletable tag, for its delete cases), one
//! sequence in four, in its first play only (a shrink's replays would use up the rest), and
//! while the profile keeps another for the next run; its breach is shown as the one step it
//! is, without a shrink.
//!
//! `--explore-depth` makes sequences longer and heavier for nightly runs: more random commands,
//! more writes before the closing reads, deeper page walks.

mod deep;
mod draw;
mod limit;
mod reach;
mod refusal;
mod script;
mod shape;
mod shrink;
mod step;

use crate::case::{case_fn, Case, CaseCx, Need, Outcome};
use crate::schema::OperationId;
use crate::verdict::Exchange;
use std::collections::{BTreeMap, BTreeSet};

/// A VAT ID read back under its organization shows what was written.
pub const READ_SHOWS_WRITE: &str = "EXP-READ-SHOWS-WRITE";
/// Ids stay unique however creates interleave.
pub const ID_UNIQUE: &str = "EXP-ID-UNIQUE-AFTER-WRITES";
/// A full read of transactions holds every item once, at any page size and depth.
pub const FULL_READ: &str = "EXP-FULL-READ-EVERY-ITEM";
/// A token works only under the organization it was issued under.
pub const TOKEN_WHERE_ISSUED: &str = "EXP-TOKEN-WHERE-ISSUED";
/// A token used later, after other writes, with other query parameters still ignores them.
pub const TOKEN_LATER: &str = "EXP-TOKEN-LATER-IGNORES-PARAMS";
/// An event a full read held stays in every later full read, in either order.
pub const BOTH_ORDERS: &str = "EXP-EVENTS-BOTH-ORDERS";
/// A VAT ID of the first organization is not readable under the other (the tenancy rule the
/// hand-written cases judge too).
pub const ISOLATION: &str = "FIN-ORG-ISOLATION";
/// The events of one organization are never listed under the other.
pub const TENANT_EVENTS: &str = "FIN-TENANT-EVENTS";

/// Walking transactions back by previous tokens and forward again gives each page its items.
pub const PAGES_BOTH_WAYS: &str = "EXP-PAGES-BOTH-WAYS";
/// An id only a refused create named is accepted as a fresh one.
pub const ID_FREE_AFTER_REFUSAL: &str = "EXP-ID-FREE-AFTER-REFUSAL";
/// An id only another organization took is accepted as a fresh one.
pub const ID_PER_ORGANIZATION: &str = "EXP-ID-PER-ORGANIZATION";
/// A quote may name a VAT ID the API created for its counterpart.
pub const CREATED_REFERENCE: &str = "EXP-CREATED-REFERENCE";
/// List transactions states no sort or order parameter: a full read with them is the default.
pub const NO_GLOBAL_ORDER: &str = "BPAG-NO-GLOBAL-ORDER";
/// Deleting a tag detaches it and deletes nothing else.
pub const TAG_DETACH: &str = "TAG-DETACH";

/// An unknown property, of any JSON type, is refused in every receivable body shape.
pub const UNKNOWN_PROPS: &str = "RCV-UNKNOWN-PROPS";

/// The rules the requests of the wire shapes judge besides the generic checks: each breach is
/// one request's, shown under its rule without a shrink.
const SHAPE_RULES: [&str; 4] = [
    UNKNOWN_PROPS,
    "AUTH-FIN-MISSING-401",
    "AUTH-FIN-INVALID-401",
    "BANK-ORG-HEADER-MALFORMED-400",
];

/// The rules a step that uses up a fixture of the profile judges: its breach is shown as that
/// one step, without a shrink (each replay would take another fixture).
const STEP_RULES: [&str; 1] = [TAG_DETACH];

/// The rules the model's post-conditions judge: a breach of one of them is shrunk.
const MODEL_RULES: [&str; 13] = [
    READ_SHOWS_WRITE,
    ID_UNIQUE,
    FULL_READ,
    TOKEN_WHERE_ISSUED,
    TOKEN_LATER,
    BOTH_ORDERS,
    ISOLATION,
    TENANT_EVENTS,
    PAGES_BOTH_WAYS,
    ID_FREE_AFTER_REFUSAL,
    ID_PER_ORGANIZATION,
    CREATED_REFERENCE,
    NO_GLOBAL_ORDER,
];

/// Replays a shrink may make: each replays the candidate sequence against the target.
const SHRINK_REPLAYS: usize = 60;

/// The organization a command acts for: the profile's first, or its other one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Org {
    First,
    Other,
}

impl Org {
    fn index(self) -> usize {
        match self {
            Org::First => 0,
            Org::Other => 1,
        }
    }

    /// The organization that is not this one.
    fn other(self) -> Org {
        match self {
            Org::First => Org::Other,
            Org::Other => Org::First,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Org::First => "the first organization",
            Org::Other => "the other organization",
        }
    }
}

/// One command of a sequence: what it does follows from the model when it runs (a read of the
/// n-th VAT ID created, a token issued earlier), so that any subsequence is a sequence too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Creates a velocity control whose id is the sequence's `slot`-th: again when the slot was
    /// taken in that organization, and then it must be refused.
    CreateVelocity {
        org: Org,
        slot: u8,
    },
    /// Creates a VAT ID for the profile's counterpart, under the first organization.
    CreateVat,
    /// Reads the `nth` VAT ID created (modulo their number) under `org`.
    ReadVat {
        org: Org,
        nth: u8,
    },
    CreateQuote,
    /// An invoice based on the last quote created.
    InvoiceFromQuote,
    /// A credit note based on the last invoice created from a quote.
    CreditNoteFromInvoice,
    CreateMailbox,
    UpdateComment,
    /// A full read of `org`'s events at `limit`, ascending or descending.
    ReadEvents {
        org: Org,
        limit: u8,
        desc: bool,
    },
    /// A full read of the profile's account's transactions at `limit`.
    ReadTransactions {
        limit: u8,
    },
    /// The `nth` events token issued under the first organization, sent under the other.
    CarryToken {
        nth: u8,
    },
    /// The first page of the first organization's events at `limit`, sorted by `created_at`
    /// ascending: its next token is kept for a later [`Action::TokenWithParams`].
    IssueToken {
        limit: u8,
    },
    /// The `nth` ascending events token issued under the first organization, sent alone and
    /// then with other query parameters (see [`OTHER_PARAMS`], by `kind`): the same page.
    TokenWithParams {
        nth: u8,
        kind: u8,
    },
    /// A receivable body of shape `shape` (0 quote, 1 invoice, 2 based-on) with an unknown
    /// property whose value is of JSON type `kind` (0 null, 1 boolean, 2 number, 3 string,
    /// 4 array, 5 object): refused, with the finance error body.
    UnknownProperty {
        shape: u8,
        kind: u8,
    },
    /// A request breaking two stated rules at once (see [`BREACHES`]): its answer must be one
    /// the spec allows for each, and the one it names for a cause where it names one.
    TwoBreaches {
        kind: u8,
    },
    /// A velocity control whose name is a mebibyte long: the spec states no payload limit, so
    /// acceptance is fine and a refusal carries the banking error body.
    LargeBody,
    /// Reads the account's transactions at `limit` forward to page `depth` + 1, walks back to
    /// the first page by previous tokens, and forward again by next tokens from the pages the
    /// walk back reached: each page holds what the forward read held at its place.
    WalkBack {
        limit: u8,
        depth: u8,
    },
    /// The first pages of the first organization's events at limit=1 (the smallest page),
    /// ascending, up to five: a read that ends there holds every event a full read held.
    FirstPagesOfOne,
    /// A velocity control create under `org` with the id of `slot` and a body breaking a stated
    /// rule (a usageLimit with the TRANSACTION window): refused, it takes no id.
    RefusedVelocity {
        org: Org,
        slot: u8,
    },
    /// A quote naming the last VAT ID the sequence created as its counterpart_vat_id_id.
    QuoteWithCreatedVat,
    /// Full reads of the account's transactions at `limit`, without and then with query
    /// parameters list transactions does not state (see [`UNSTATED_PARAMS`], by `kind`) on
    /// every page: the same items in the same order.
    ReadTransactionsWith {
        limit: u8,
        kind: u8,
    },
    /// Takes a deletable tag of the profile; creates a quote carrying it and one without it, and
    /// an invoice based on each; deletes the tag; then a credit note based on each invoice: the
    /// one made from the tagged quote is not refused as if it were gone.
    DetachTag,
}

/// The query parameters [`Action::ReadTransactionsWith`] sends, by kind: the area has no
/// global sort or order parameters and list transactions states none of its own.
pub const UNSTATED_PARAMS: [&[(&str, &str)]; 2] = [
    &[("order", "desc")],
    &[("sort", "createdAt"), ("order", "desc")],
];

/// The pairs of breaches [`Action::TwoBreaches`] sends, by kind.
pub const BREACHES: [&str; 4] = [
    "no token and an invalid receivable body",
    "an invalid token and an invalid receivable body",
    "a malformed banking organization header and an invalid velocity control body",
    "no token and a malformed banking organization header",
];

/// The other query parameters [`Action::TokenWithParams`] sends beside a token, by kind: each
/// differs from every first query a kept token came from (`sort=created_at`, ascending).
pub const OTHER_PARAMS: [&[(&str, &str)]; 3] = [
    &[("limit", "3")],
    &[("sort", "created_at"), ("order", "desc")],
    &[("order", "desc"), ("limit", "7")],
];

impl Action {
    /// Whether it creates or updates something.
    pub fn writes(self) -> bool {
        !matches!(
            self,
            Action::ReadVat { .. }
                | Action::ReadEvents { .. }
                | Action::ReadTransactions { .. }
                | Action::CarryToken { .. }
                | Action::IssueToken { .. }
                | Action::TokenWithParams { .. }
                | Action::WalkBack { .. }
                | Action::FirstPagesOfOne
                | Action::ReadTransactionsWith { .. }
        )
    }

    /// The operations its requests are of.
    fn operations(self) -> &'static [OperationId] {
        use OperationId::*;
        match self {
            Action::CreateVelocity { .. } => &[CreateVelocityControl],
            Action::CreateVat => &[CreateVatId],
            Action::ReadVat { .. } => &[GetVatId],
            Action::CreateQuote | Action::InvoiceFromQuote | Action::CreditNoteFromInvoice => {
                &[CreateReceivable]
            }
            Action::CreateMailbox => &[CreateMailboxDomain],
            Action::UpdateComment => &[UpdateComment],
            Action::ReadEvents { .. }
            | Action::CarryToken { .. }
            | Action::IssueToken { .. }
            | Action::TokenWithParams { .. } => &[ListEvents],
            Action::ReadTransactions { .. } => &[ListTransactions],
            Action::UnknownProperty { .. } => &[CreateReceivable],
            Action::TwoBreaches { .. } => &[CreateReceivable, CreateVelocityControl],
            Action::LargeBody | Action::RefusedVelocity { .. } => &[CreateVelocityControl],
            Action::WalkBack { .. } | Action::ReadTransactionsWith { .. } => &[ListTransactions],
            Action::FirstPagesOfOne => &[ListEvents],
            Action::QuoteWithCreatedVat => &[CreateReceivable],
            Action::DetachTag => &[CreateReceivable, DeleteTag],
        }
    }

    /// What it does, in a few words, for the script.
    pub fn describe(self) -> String {
        match self {
            Action::CreateVelocity { org, slot } => {
                format!("create velocity control #{slot} under {}", org.name())
            }
            Action::CreateVat => "create a VAT ID for the counterpart".to_owned(),
            Action::ReadVat { org, nth } => {
                format!("read VAT ID #{nth} (of those created) under {}", org.name())
            }
            Action::CreateQuote => "create a quote".to_owned(),
            Action::InvoiceFromQuote => "create an invoice based on the last quote".to_owned(),
            Action::CreditNoteFromInvoice => {
                "create a credit note based on the last invoice".to_owned()
            }
            Action::CreateMailbox => "create a mailbox domain".to_owned(),
            Action::UpdateComment => "update the profile's comment".to_owned(),
            Action::ReadEvents { org, limit, desc } => format!(
                "read every event of {} at limit={limit}, {}",
                org.name(),
                if desc { "descending" } else { "ascending" }
            ),
            Action::ReadTransactions { limit } => {
                format!("read every transaction of the account at limit={limit}")
            }
            Action::CarryToken { nth } => format!(
                "send events token #{nth} of the first organization under the other organization"
            ),
            Action::IssueToken { limit } => format!(
                "read the first page of the first organization's events at limit={limit} and \
                 keep its next token"
            ),
            Action::TokenWithParams { nth, kind } => {
                let pairs = OTHER_PARAMS[kind as usize % OTHER_PARAMS.len()];
                let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!(
                    "send ascending events token #{nth} of the first organization alone, then \
                     with {}",
                    query.join("&")
                )
            }
            Action::UnknownProperty { shape, kind } => format!(
                "create {} with an unknown property whose value is {}",
                ["a quote", "an invoice", "a receivable based on a quote"][shape as usize % 3],
                [
                    "null",
                    "a boolean",
                    "a number",
                    "a string",
                    "an array",
                    "an object"
                ][kind as usize % 6]
            ),
            Action::TwoBreaches { kind } => {
                format!("send {}", BREACHES[kind as usize % BREACHES.len()])
            }
            Action::LargeBody => "create a velocity control whose name is 1 MiB long".to_owned(),
            Action::WalkBack { limit, depth } => format!(
                "read the transactions at limit={limit} to page {}, walk back to the first page \
                 by previous tokens and forward again by next tokens",
                u32::from(depth) + 1
            ),
            Action::FirstPagesOfOne => "read the first organization's events at limit=1, \
                 ascending, up to five pages"
                .to_owned(),
            Action::RefusedVelocity { org, slot } => format!(
                "create velocity control #{slot} under {} with a usageLimit and the TRANSACTION \
                 window (refused)",
                org.name()
            ),
            Action::QuoteWithCreatedVat => {
                "create a quote naming the last VAT ID created as its counterpart_vat_id_id"
                    .to_owned()
            }
            Action::ReadTransactionsWith { limit, kind } => {
                let pairs = UNSTATED_PARAMS[kind as usize % UNSTATED_PARAMS.len()];
                let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!(
                    "read every transaction at limit={limit}, then again with {} on every page",
                    query.join("&")
                )
            }
            Action::DetachTag => "take a deletable tag; create a quote carrying it, one \
                 without it and an invoice based on each; delete the tag; create a credit note \
                 based on each invoice"
                .to_owned(),
        }
    }
}

/// What the spec states of the state a sequence built, per organization.
#[derive(Debug, Default)]
pub struct Model {
    /// Distinguishes the ids of one play of a sequence from those of its replays.
    pub salt: String,
    /// The run's seed and the sequence's number: the shapes of its requests are drawn from them.
    pub seed: u64,
    pub k: u32,
    /// The place of the step being played in the sequence as drawn, and the requests it sent
    /// so far: a request's shape follows from both, whichever steps a shrink kept.
    pub origin: usize,
    pub sent: usize,
    /// Velocity control ids taken, per organization: per slot, the number of creates sent
    /// before it (the message says how many came between).
    pub velocity: [BTreeMap<u8, String>; 2],
    /// VAT IDs created under the first organization: id and the body sent.
    pub vat: Vec<(String, serde_json::Value)>,
    /// Ids the service assigned, per kind of resource.
    pub assigned: BTreeMap<&'static str, BTreeSet<String>>,
    pub quotes: Vec<String>,
    pub invoices: Vec<String>,
    /// Event ids a full read held, per organization.
    pub events: [BTreeSet<String>; 2],
    /// The transactions a first full read held, in its order.
    pub transactions: Option<Vec<String>>,
    /// Next tokens of first pages of events read under the first organization.
    pub tokens: Vec<String>,
    /// Those of them whose first query was `sort=created_at&limit=N` (ascending), with N.
    pub ascending: Vec<(String, u8)>,
    /// Ids the script names as shell variables: the value and the step (from 1) that made it.
    pub named: Vec<(String, usize)>,
    /// Creates sent so far in this play: numbers the values made unique.
    pub creates: usize,
    /// Velocity control slots only refused creates named, per organization.
    pub refused_velocity: [BTreeSet<u8>; 2],
    /// Whether a create of a fresh velocity control id was accepted, per organization: what a
    /// refused create of an id free there is judged beside.
    pub fresh_velocity: [bool; 2],
    /// Whether a quote without references the sequence made was accepted.
    pub quote_accepted: bool,
    /// A replay of a shrink (or the replay after it): it takes no fixture of the profile.
    pub replay: bool,
}

impl Model {
    fn new(salt: String, seed: u64, k: u32) -> Model {
        Model {
            salt,
            seed,
            k,
            ..Model::default()
        }
    }

    /// The model of a replay of sequence `k`: it takes no fixture of the profile.
    fn replay(salt: String, seed: u64, k: u32) -> Model {
        Model {
            replay: true,
            ..Model::new(salt, seed, k)
        }
    }

    /// The shape of the step's next request.
    pub fn shape(&mut self) -> shape::RequestForm {
        self.sent += 1;
        shape::RequestForm::draw(self.seed, self.k, self.origin, self.sent - 1)
    }

    /// Names `id` as a variable of the script, made by step `step` (from 1).
    pub fn name(&mut self, id: &str, step: usize) {
        if !self.named.iter().any(|(v, _)| v == id) {
            self.named.push((id.to_owned(), step));
        }
    }
}

/// What one step of a play did: its command, the exchanges it kept, and the first post-condition
/// it broke.
#[derive(Debug, Clone)]
pub struct StepRecord {
    pub command: Action,
    /// The exchanges of the step, as indices into the play's record.
    pub exchanges: std::ops::Range<usize>,
    /// Why it sent nothing (the model gave it nothing to act on).
    pub idle: Option<&'static str>,
    /// The first rule of the model it broke, and how.
    pub broke: Option<(String, String)>,
}

/// The explorer's cases: one per sequence, `explore.sequence.N`, so that shards split them and
/// a filter replays one.
pub fn cases(run: &crate::case::RunCx) -> Vec<Case> {
    let read_only = run.target.read_only();
    (1..=run.generation.explore)
        .map(|k| sequence_case(k, read_only))
        .collect()
}

fn sequence_case(k: u32, read_only: bool) -> Case {
    let mut rules: Vec<&'static str> = MODEL_RULES.to_vec();
    if !read_only {
        rules.extend(SHAPE_RULES);
        rules.extend(STEP_RULES);
    }
    let commands = draw::shape(read_only);
    let mut case = Case::new(
        &format!("explore.sequence.{k}"),
        OperationId::ListEvents,
        &rules,
        case_fn(move |cx| Box::pin(sequence(cx, k, read_only))),
    )
    .suite("explore")
    .other_organization()
    // Plays beside the other cases; a shrink waits until they have all finished, so that no
    // request of theirs lands between its replays.
    .waits_for_others()
    .requests(draw::REQUESTS);
    for op in commands.iter().flat_map(|c| c.operations()) {
        case = case.also(*op);
    }
    if read_only {
        case
    } else {
        // Velocity controls are created under the banking area's other organization too.
        case.needs(&[Need::BankingOtherOrg]).writes()
    }
}

/// Plays sequence `k`; when a post-condition of the model breaks, shrinks the sequence to the
/// fewest steps that still break it and shows that script once, under the rule.
///
/// Sequences play together and beside the other cases, but a shrink runs alone: it waits until
/// every case that is no sequence has finished (giving up its place meanwhile), and holds the
/// run's explorer lock for writing while plays hold it for reading, so no other request changes
/// the target between the replays of a shrink and the script it prints. The script is what the last replay did: its failing step is
/// marked, and the finding shows that step's diff, request and answer.
async fn sequence(cx: &mut CaseCx, k: u32, read_only: bool) -> Outcome {
    let seed = cx.run.generation.seed;
    let run = cx.run.clone();
    let depth = run.generation.explore_depth;
    let commands: Vec<(usize, Action)> = draw::draw(seed, k, read_only, depth)
        .into_iter()
        .enumerate()
        .collect();
    let mut part = cx.fork();
    let mut model = Model::new(format!("s{k}"), seed, k);
    let playing = run.explore_lock.read().await;
    let played = step::play_steps(&mut part, &commands, &mut model).await;
    drop(playing);
    let broken = part
        .findings
        .iter()
        .find(|f| MODEL_RULES.contains(&f.rule.as_str()))
        .map(|f| f.rule.clone());
    // Unbroken, or broken in a run that asks only whether (the self-test): shown as played.
    let Some(rule) = broken.filter(|_| run.shrink) else {
        cx.join(part);
        return played.map(|_| ());
    };
    // A failing case's exchanges go into report.json: the play's keep those its findings
    // point at (the script is the last replay's), unless every exchange is asked for.
    if !run.keep_exchanges {
        part.keep_cited();
    }
    // The steps up to the one that broke the rule are the first candidate.
    let upto = played.as_ref().ok().and_then(|steps| {
        let at = steps
            .iter()
            .position(|s| s.broke.as_ref().is_some_and(|b| b.0 == rule));
        at.map(|at| at + 1)
    });
    cx.wait_for_others().await;
    let alone = run.explore_lock.write().await;
    let (kept, replays) = shrink_sequence(cx, &commands, &rule, k, upto).await;
    let mut last = cx.fork();
    last.keep_all = true;
    let mut model = Model::replay(format!("s{k}m"), seed, k);
    let steps = step::play_steps(&mut last, &kept, &mut model).await;
    drop(alone);
    let steps: Vec<StepRecord> = steps.unwrap_or_default();
    let header = format!(
        "shrunk from {} to {} steps in {replays} replays (seed {seed}; replay: {})",
        commands.len(),
        kept.len(),
        replay_command(cx, k, read_only),
    );
    let bodies = run.report_dir.as_deref();
    let text = script::render(
        &header,
        &steps,
        &last.exchanges,
        &model.named,
        &rule,
        bodies,
    );
    // The breach is shown once, under its rule, with the script: the last replay's finding
    // (its step's diff, request and answer) where that replay broke the rule again, else the
    // play's first, saying the script did not.
    let again = last.findings.iter().position(|f| f.rule == rule);
    let (holder, note) = match again {
        Some(_) => (&mut last, ""),
        None => (
            &mut part,
            "\n(the shrunk script, replayed once more, did not break the rule again: the target \
             may depend on more than these steps)",
        ),
    };
    let mut shown = false;
    holder.findings.retain_mut(|f| {
        if f.rule != rule {
            return true;
        }
        if shown {
            return false;
        }
        shown = true;
        f.message = format!("{}\n{text}{note}", f.message);
        true
    });
    cx.join(match again {
        Some(_) => {
            part.findings.retain(|f| f.rule != rule);
            part
        }
        None => part,
    });
    // The replay's own finding and the exchanges it points at; what else the replay met, the
    // play met first. (Its requests count with the case's, joined or not.)
    if again.is_some() {
        last.findings.retain(|f| f.rule == rule);
        if !run.keep_exchanges {
            last.keep_cited();
        }
        cx.join(last);
    }
    played.map(|_| ())
}

/// The command that plays sequence `k` again against this run's target, as printed: the target
/// as the run was given it, the seed and the sequence (and `--read-only`, which draws other
/// sequences).
fn replay_command(cx: &CaseCx, k: u32, read_only: bool) -> String {
    let seed = cx.run.generation.seed;
    let read_only = if read_only { " --read-only" } else { "" };
    let depth = match cx.run.generation.explore_depth {
        1 => String::new(),
        d => format!(" --explore-depth {d}"),
    };
    let target = &cx.run.replay_target;
    format!("covenant run{target}{read_only}{depth} --explore-replay {seed}:{k}")
}

/// Delta debugging over the steps: the fewest steps (as far as ddmin finds) whose replay against
/// the target, each with fresh ids, still breaks `rule`. Returns them and the replays made.
async fn shrink_sequence(
    cx: &mut CaseCx,
    commands: &[(usize, Action)],
    rule: &str,
    k: u32,
    upto: Option<usize>,
) -> (Vec<(usize, Action)>, usize) {
    let mut search = shrink::Ddmin::new(commands.len());
    if let Some(upto) = upto.filter(|n| *n < commands.len()) {
        search.prefer((0..upto).collect());
    }
    let mut replays = 0;
    while let Some(keep) = search.candidate() {
        if replays >= SHRINK_REPLAYS {
            break;
        }
        replays += 1;
        let candidate: Vec<(usize, Action)> = keep.iter().map(|i| commands[*i]).collect();
        let mut part = cx.fork();
        part.keep_all = false;
        let seed = cx.run.generation.seed;
        let mut model = Model::replay(format!("s{k}r{replays}"), seed, k);
        let outcome = step::play_steps(&mut part, &candidate, &mut model).await;
        if matches!(outcome, Err(crate::case::Abort::Skip(_))) {
            break;
        }
        let fails = part.findings.iter().any(|f| f.rule == rule);
        search.answer(fails);
    }
    let kept = search.best().iter().map(|i| commands[*i]).collect();
    (kept, replays)
}

/// The exchanges of a play, for the script (re-exported for the script's tests).
pub type Exchanges = [Exchange];
