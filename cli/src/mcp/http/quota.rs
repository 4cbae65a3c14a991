//! A per-token count of something a bearer token holds (connections, open streams) with a
//! cap, the same for a client in a session and a stateless one: a
//! [`Permit`] is one unit, given back when dropped. A token holding nothing has no entry,
//! so the map is as large as the number of tokens holding something.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::TokenHash;

/// Units held per token, at most `limit` each.
#[derive(Debug)]
pub struct Quota {
    limit: usize,
    held: Mutex<HashMap<TokenHash, usize>>,
}

/// One unit of a token's quota, held until dropped.
#[derive(Debug)]
pub struct Permit {
    quota: Arc<Quota>,
    token: TokenHash,
}

impl Quota {
    pub fn new(limit: usize) -> Arc<Quota> {
        Arc::new(Quota { limit, held: Mutex::new(HashMap::new()) })
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// One more unit for `token`, or `None` when it already holds `limit`.
    pub fn acquire(self: &Arc<Self>, token: TokenHash) -> Option<Permit> {
        let mut held = self.held();
        let count = held.entry(token).or_insert(0);
        if *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(Permit { quota: self.clone(), token })
    }

    /// What `token` holds now.
    #[cfg(test)]
    pub fn held_by(&self, token: &TokenHash) -> usize {
        self.held().get(token).copied().unwrap_or(0)
    }

    fn held(&self) -> MutexGuard<'_, HashMap<TokenHash, usize>> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Permit {
    pub fn token(&self) -> &TokenHash {
        &self.token
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut held = self.quota.held();
        if let Some(count) = held.get_mut(&self.token) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.token);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_gets_its_limit_and_no_more_and_others_are_not_counted_with_it() {
        let quota = Quota::new(2);
        let (a, b) = ([1u8; 32], [2u8; 32]);
        let first = quota.acquire(a).unwrap();
        let second = quota.acquire(a).unwrap();
        assert!(quota.acquire(a).is_none());
        assert!(quota.acquire(b).is_some(), "another token has its own quota");
        assert_eq!(quota.held_by(&a), 2);
        drop(first);
        let third = quota.acquire(a).unwrap();
        drop((second, third));
        assert_eq!(quota.held_by(&a), 0);
        assert!(quota.held().is_empty(), "no entry for a token that holds nothing");
    }
}
