//! Tokens kept for later: early pagination cases store the token of a first page and the page
//! it gave, and late cases (the last requests of the run) use each token again.
//!
//! The stash holds plain data (the token as the target returned it, the query of the first page,
//! the item keys of the page the token gave): the case layer knows nothing of lists. Tokens stay
//! in memory and are never shown; messages name them by a short hash.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

/// A page a token gave when it was first used, kept for a later use of the same token.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPage {
    /// The case that stored it.
    pub by: String,
    /// The next token of the first page, exactly as the target returned it.
    pub token: String,
    /// The query of the first page; the token is sent again with it.
    pub query: Vec<(String, String)>,
    /// The keys of the items of the page the token gave, in order.
    pub keys: Vec<String>,
    /// Whether that page had a next token: a page that was the last may have grown since.
    pub had_next: bool,
    /// When the first page (and so the token) was received.
    pub at: Instant,
}

/// The stored pages of a run, one per list (the last stored wins).
#[derive(Debug, Default)]
pub struct TokenStash {
    pages: Mutex<BTreeMap<String, StoredPage>>,
}

impl TokenStash {
    /// Stores the page of `list` (a name such as `events`).
    pub fn store(&self, list: &str, page: StoredPage) {
        self.lock().insert(list.to_owned(), page);
    }

    /// The page stored for `list`, if an early case stored one.
    pub fn get(&self, list: &str) -> Option<StoredPage> {
        self.lock().get(list).cloned()
    }

    /// When the youngest stored token was received: once it is old enough, all are.
    pub fn youngest(&self) -> Option<Instant> {
        self.lock().values().map(|p| p.at).max()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, StoredPage>> {
        // Every update is one insert: a poisoned map is still consistent.
        self.pages.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn page(token: &str, at: Instant) -> StoredPage {
        StoredPage {
            by: "events.token-reuse".into(),
            token: token.into(),
            query: vec![("limit".into(), "10".into())],
            keys: vec!["a".into(), "b".into()],
            had_next: true,
            at,
        }
    }

    #[test]
    fn each_list_keeps_its_last_page_and_the_youngest_token_is_the_latest_received() {
        let stash = TokenStash::default();
        assert_eq!(stash.youngest(), None);
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_millis(5);
        stash.store("events", page("e1", t0));
        stash.store("transactions", page("t1", t1));
        stash.store("events", page("e2", t0));
        assert_eq!(stash.get("events").map(|p| p.token), Some("e2".into()));
        assert_eq!(stash.get("nothing"), None);
        assert_eq!(stash.youngest(), Some(t1));
    }
}
