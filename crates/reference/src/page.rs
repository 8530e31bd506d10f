//! Where a page starts and ends and where its neighbours start, and the tokens that lead
//! there: one plan and one token book for both paginated lists, so that the pagination faults
//! bend both the same way and both issue and redeem their tokens the same way.

use super::fault::Fault;
use super::store::{App, Db, Issued};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

/// How long a token lives under a list's expiry fault.
pub const TOKEN_LIFETIME: Duration = Duration::from_secs(1);

/// The pagination faults that bend a page plan.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageFaults {
    pub plus_one: bool,
    /// A page that has a next page holds one item fewer than `limit`, and the next page starts
    /// right after it (no item skipped).
    pub short: bool,
    pub repeat: bool,
    pub skip: bool,
    pub cycle: bool,
    pub prev_on_first: bool,
    pub prev_off_by_one: bool,
}

/// Which items a page holds and where its next and previous pages start.
#[derive(Debug, Clone, Copy)]
pub struct PagePlan {
    pub start: usize,
    pub end: usize,
    pub next: Option<usize>,
    pub prev: Option<usize>,
}

impl PagePlan {
    /// The page at `offset` of `limit` items out of `total`, bent by `faults`.
    pub fn new(offset: usize, limit: usize, total: usize, faults: PageFaults) -> PagePlan {
        let start = offset.min(total);
        let has_next = start + limit < total;
        let short = faults.short && has_next && limit > 1;
        let size = match (faults.plus_one, short) {
            (true, _) => limit + 1,
            (false, true) => limit - 1,
            (false, false) => limit,
        };
        let end = (start + size).min(total);
        let mut next_offset = if short { end } else { start + limit };
        if faults.skip {
            next_offset += 1;
        }
        if faults.repeat && limit > 1 {
            next_offset -= 1;
        }
        let next = if has_next {
            Some(next_offset)
        } else if faults.cycle {
            Some(0)
        } else {
            None
        };
        let prev = if start > 0 {
            let back = if faults.prev_off_by_one {
                limit - 1
            } else {
                limit
            };
            Some(start.saturating_sub(back))
        } else if faults.prev_on_first {
            Some(0)
        } else {
            None
        };
        PagePlan {
            start,
            end,
            next,
            prev,
        }
    }
}

/// The faults a list's tokens can be given.
#[derive(Debug, Clone, Copy)]
pub struct TokenFaults {
    /// A token is spent when it is used.
    pub single_use: Fault,
    /// A token expires [`TOKEN_LIFETIME`] after it was issued (lists that have such a fault).
    pub expires: Option<Fault>,
}

/// How one paginated list issues and redeems its page tokens: a token names a cursor that the
/// store holds under it, so that the token can be used again.
pub struct TokenBook<C> {
    /// The list's name, hashed into its tokens: a token of one list is never another's.
    list: &'static str,
    /// The server's seed: the same seed issues the same tokens.
    seed: u64,
    /// Under the list's single-use fault, a token is spent when it is used.
    single_use: bool,
    /// Under the list's expiry fault, a token is refused once [`TOKEN_LIFETIME`] old.
    expires: bool,
    /// The list's cursors in the store, by token.
    cursors: fn(&mut Db) -> &mut HashMap<String, Issued<C>>,
}

/// The tokens of a page's neighbours.
pub struct Neighbours {
    pub next: Option<String>,
    pub prev: Option<String>,
}

impl<C: Copy + Hash> TokenBook<C> {
    /// The tokens of the list named `list` on the server `app`, bent by whichever of `faults`
    /// the server has.
    pub fn new(
        app: &App,
        list: &'static str,
        faults: TokenFaults,
        cursors: fn(&mut Db) -> &mut HashMap<String, Issued<C>>,
    ) -> TokenBook<C> {
        TokenBook {
            list,
            seed: app.ids.seed,
            single_use: app.faults.has(faults.single_use),
            expires: faults.expires.is_some_and(|f| app.faults.has(f)),
            cursors,
        }
    }

    /// The tokens of the next and previous pages of `plan`, issued in that order; `at` is the
    /// cursor of the page that starts at an offset.
    pub fn issue(&self, db: &mut Db, plan: &PagePlan, at: impl Fn(usize) -> C) -> Neighbours {
        self.issue_apart(db, plan, &at, &at)
    }

    /// [`TokenBook::issue`] with the cursors of the next page (`next_at`) and of the previous
    /// one (`prev_at`) made apart.
    pub fn issue_apart(
        &self,
        db: &mut Db,
        plan: &PagePlan,
        next_at: impl Fn(usize) -> C,
        prev_at: impl Fn(usize) -> C,
    ) -> Neighbours {
        let next = plan.next.map(|offset| self.issue_one(db, next_at(offset)));
        let prev = plan.prev.map(|offset| self.issue_one(db, prev_at(offset)));
        Neighbours { next, prev }
    }

    fn issue_one(&self, db: &mut Db, cursor: C) -> String {
        // Single-use and expiring tokens are fresh at every issuance, so that a used one stays
        // used and an old one is not renewed by a later issuance of the same page.
        let nonce = if self.single_use || self.expires {
            db.tokens_issued += 1;
            db.tokens_issued
        } else {
            0
        };
        let token = cursor_token(self.seed, self.list, &(&cursor, nonce));
        let issued = Issued {
            cursor,
            at: Instant::now(),
        };
        (self.cursors)(db).insert(token.clone(), issued);
        token
    }

    /// The cursor `token` names, if this list issued it (spent by this use when single-use;
    /// none once expired under the expiry fault).
    pub fn redeem(&self, db: &mut Db, token: &str) -> Option<C> {
        let cursors = (self.cursors)(db);
        let issued = if self.single_use {
            cursors.remove(token)
        } else {
            cursors.get(token).copied()
        }?;
        if self.expires && issued.at.elapsed() >= TOKEN_LIFETIME {
            return None;
        }
        Some(issued.cursor)
    }
}

/// A token string for a cursor: stable for the same cursor and seed, unguessable otherwise.
fn cursor_token<T: Hash>(seed: u64, tag: &str, cursor: &T) -> String {
    let half = |salt: u64| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (seed, salt, tag).hash(&mut h);
        cursor.hash(&mut h);
        h.finish()
    };
    format!("{:016x}{:016x}", half(0x5eed), half(0xc0ffee))
}
