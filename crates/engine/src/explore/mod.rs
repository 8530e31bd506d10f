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
//! Every request goes through [`CaseCx::send`](crate::case::CaseCx::send), so the generic checks
//! judge it as they judge a case's. The explorer writes only what the suite already writes (bounded
//! creates of velocity controls, VAT IDs, receivables, mailbox domains, and the profile's comment),
//! never deletes a fixture, and under `--read-only` draws reads alone. It must never judge a rule
//! the spec does not state, nor read another module's cases.
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

mod action;
mod deep;
mod draw;
mod limit;
mod model;
mod reach;
mod refusal;
mod rules;
mod script;
mod sequence;
mod shape;
mod shrink;
mod step;

pub use action::{Action, Org, BREACHES, OTHER_PARAMS, UNSTATED_PARAMS};
pub use model::Model;
pub use rules::{
    BOTH_ORDERS, CREATED_REFERENCE, FULL_READ, ID_FREE_AFTER_REFUSAL, ID_PER_ORGANIZATION,
    ID_UNIQUE, ISOLATION, MODEL_RULES, NO_GLOBAL_ORDER, PAGES_BOTH_WAYS, READ_SHOWS_WRITE,
    SHAPE_RULES, STEP_RULES, TAG_DETACH, TENANT_EVENTS, TOKEN_LATER, TOKEN_WHERE_ISSUED,
    UNKNOWN_PROPS,
};
pub use script::Exchanges;
pub use sequence::cases;
pub use step::StepRecord;
