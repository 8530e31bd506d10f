//! The finance operations area (`/finops/v1/...`): eight operations over the in-memory store.
//!
//! Every handler takes the raw body as bytes and parses it itself, so that no input can reach
//! an axum rejection or a panic: a body that is not JSON is a 4xx like any other bad input.
//! Handlers hold the store's lock only while they read or write it. What they share has files
//! of its own: the header gate (`access`), body, path and query parsing (`request`), and the
//! finance error answers (`answer`).

mod access;
mod answer;
mod comments;
mod deletes;
mod events;
mod mailbox;
mod receivables;
mod request;
mod vat;

pub use answer::route_not_found;
pub use comments::update_comment;
pub use deletes::{delete_bank_account, delete_tag};
pub use events::{list_events_bare, list_events_v1};
pub use mailbox::create_mailbox_domain;
pub use receivables::create_receivable;
pub use request::{parse_body, query_map};
pub use vat::{create_vat, get_vat};

use access::{gate, gate_org, owns, OrgHeader};
use answer::{merge, not_found};
use request::path_uuid;
