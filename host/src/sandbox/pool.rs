//! Idle instances kept for reuse, by pool: an instance goes back only to the pool it came
//! from (one agent, one visibility scope), so nothing an instance read crosses agents or
//! reaches a restricted caller (N15, N16). The number kept is bounded, and so is the linear
//! memory they hold: past either, the instance idle the longest is dropped, which frees its
//! slot (and its memory) in the engine's pool.

use std::collections::{BTreeMap, HashMap};

use super::Sandbox;

/// The linear memory idle instances may hold together. An instance that served flows with
/// long prompts keeps a heap of a megabyte or more; a thousand agents' instances kept idle
/// would hold a gigabyte for a reuse that saves microseconds (the `jobs` bench: 10,000 flows
/// of 1,000 agents peaked at 703 MiB before this bound).
pub const MAX_IDLE_BYTES: usize = 256 << 20;

/// Idle instances by pool key, least recently returned first out when full.
pub struct IdlePool {
    by_pool: HashMap<String, Vec<(u64, Sandbox)>>,
    /// Return stamp → pool key, for the least recently returned instance.
    order: BTreeMap<u64, String>,
    next_stamp: u64,
    max_idle: usize,
    /// The linear memory of the instances kept.
    bytes: usize,
    max_bytes: usize,
}

impl IdlePool {
    /// An empty pool with this one's bounds.
    pub fn emptied(&self) -> IdlePool {
        IdlePool { max_bytes: self.max_bytes, ..IdlePool::new(self.max_idle) }
    }

    /// A pool keeping at most `max_idle` instances, holding at most [`MAX_IDLE_BYTES`].
    pub fn new(max_idle: usize) -> IdlePool {
        IdlePool { by_pool: HashMap::new(), order: BTreeMap::new(), next_stamp: 0, max_idle, bytes: 0, max_bytes: MAX_IDLE_BYTES }
    }

    /// How many instances are kept.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// An idle instance of the pool, the most recently returned (its memory is warm).
    pub fn take(&mut self, pool: &str) -> Option<Sandbox> {
        let kept = self.by_pool.get_mut(pool)?;
        let (stamp, sandbox) = kept.pop()?;
        if kept.is_empty() {
            self.by_pool.remove(pool);
        }
        self.order.remove(&stamp);
        self.bytes = self.bytes.saturating_sub(sandbox.memory_bytes());
        Some(sandbox)
    }

    /// Keeps an instance for its pool; answers the instances dropped to make room (for the
    /// caller to drop outside its lock).
    pub fn put(&mut self, pool: &str, sandbox: Sandbox) -> Vec<Sandbox> {
        let size = sandbox.memory_bytes();
        if self.max_idle == 0 || size > self.max_bytes {
            return vec![sandbox];
        }
        let mut evicted = Vec::new();
        while !self.order.is_empty() && (self.order.len() >= self.max_idle || self.bytes + size > self.max_bytes) {
            evicted.extend(self.evict_oldest());
        }
        self.bytes += size;
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.by_pool.entry(pool.to_string()).or_default().push((stamp, sandbox));
        self.order.insert(stamp, pool.to_string());
        evicted
    }

    /// Drops the instance idle the longest; answers it.
    pub fn evict_oldest(&mut self) -> Option<Sandbox> {
        let (stamp, pool) = self.order.pop_first()?;
        let kept = self.by_pool.get_mut(&pool)?;
        // The oldest of a pool is its first (instances are pushed in stamp order).
        let index = kept.iter().position(|(s, _)| *s == stamp)?;
        let (_, sandbox) = kept.remove(index);
        if kept.is_empty() {
            self.by_pool.remove(&pool);
        }
        self.bytes = self.bytes.saturating_sub(sandbox.memory_bytes());
        Some(sandbox)
    }
}
