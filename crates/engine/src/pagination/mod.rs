//! Cursor pagination invariants of the two list operations (list events, list bank account
//! transactions): full reads end, page sizes agree, limits hold, tokens are stable, opaque and
//! checked.
//!
//! One checker serves any cursor-paginated list: a [`List`] names the path, the credentials and
//! the token fields; [`read`] follows next tokens with cycle and repeat detection. The cases
//! here only read, and every comparison across reads runs `still` (while no writing case runs).
//! This module must never parse, build or modify a token (the tamper case alone changes one, on
//! purpose), and never fail a target on a short page that carries a next token.

mod all;
mod cases;
mod events;
mod kind;
mod list;
mod order;
mod read;
mod transactions;

pub use all::cases;
pub use list::{fetch, item_key, query, short_hash, Fetched, List, ListPage, Query};
pub use read::{
    diff_window, prefix_mismatch, read, skip_new_front, trail, End, ItemLedger, ListRead, PageStep,
    ReadSpec, TokenTrail,
};
