//! The sessions of every store as `sessions.list` rows (reference §1.4, G1), built once per
//! version of a store file and kept until the file changes: a list call filters, orders
//! and cuts rows it already has instead of rebuilding thousands of them (BENCHMARKS.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use session_tools_guest::keys::{normalize_agent_id, parse_agent_key};
use session_tools_guest::ports::SessionRow;

use super::canon::{for_agent, spawned_by_for_agent, KeyRules};
use super::rows::build_row;
use super::store::Loaded;

/// One session of a store, ready for `sessions.list`.
pub struct IndexedRow {
    /// The canonical key.
    pub key: String,
    /// The agent of an `agent:<id>:…` key, normalised (for `agentId` filters).
    pub key_agent: Option<String>,
    /// `updatedAt` as stored (of duplicates, the newer entry wins).
    updated: f64,
    /// `spawnedBy`, canonical for the store's agent.
    pub spawned_by: Option<String>,
    pub label: Option<String>,
    pub row: SessionRow,
}

impl IndexedRow {
    /// `global` or `unknown`.
    pub fn is_reserved(&self) -> bool {
        self.key == "global" || self.key == "unknown"
    }
}

/// The rows of one version of a store.
pub struct StoreRows {
    /// The version they were built from (compared by identity: a store re-read from disk
    /// is a new `Loaded`).
    loaded: Arc<Loaded>,
    rows: Vec<IndexedRow>,
}

impl StoreRows {
    fn build(agent: &str, loaded: Arc<Loaded>, rules: &KeyRules) -> StoreRows {
        let mut rows = Vec::with_capacity(loaded.entries.len());
        for (stored, entry) in &loaded.entries {
            let Some(entry) = entry.as_object() else { continue };
            let key = for_agent(agent, stored);
            let text = |name: &str| entry.get(name).and_then(Value::as_str);
            let spawned_by = spawned_by_for_agent(&rules.agent_of(&key), text("spawnedBy"));
            rows.push(IndexedRow {
                key_agent: parse_agent_key(&key).map(|p| normalize_agent_id(&p.agent_id)),
                updated: entry.get("updatedAt").and_then(Value::as_f64).unwrap_or(0.0),
                label: text("label").map(str::to_string),
                row: build_row(&key, entry, spawned_by.clone()),
                spawned_by,
                key,
            });
        }
        StoreRows { loaded, rows }
    }
}

/// Built rows by agent store.
#[derive(Default)]
pub struct RowCache {
    by_agent: Mutex<HashMap<String, Arc<StoreRows>>>,
}

impl RowCache {
    /// The rows of this version of an agent's store, built if they are not kept yet.
    pub fn rows(&self, agent: &str, loaded: Arc<Loaded>, rules: &KeyRules) -> Arc<StoreRows> {
        if let Some(kept) = self.by_agent.lock().unwrap_or_else(|p| p.into_inner()).get(agent) {
            if Arc::ptr_eq(&kept.loaded, &loaded) {
                return kept.clone();
            }
        }
        // Built outside the lock: other agents' lists need not wait for this one.
        let built = Arc::new(StoreRows::build(agent, loaded, rules));
        self.by_agent.lock().unwrap_or_else(|p| p.into_inner()).insert(agent.to_string(), built.clone());
        built
    }
}

/// Every session of the stores, in store order; of entries with the same canonical key,
/// the newer one stands in the place of the first.
pub fn deduplicated(stores: &[Arc<StoreRows>]) -> Vec<&IndexedRow> {
    let mut out: Vec<&IndexedRow> = Vec::with_capacity(stores.iter().map(|s| s.rows.len()).sum());
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(out.capacity());
    for row in stores.iter().flat_map(|s| s.rows.iter()) {
        match seen.get(row.key.as_str()) {
            Some(&i) => {
                if row.updated >= out[i].updated {
                    out[i] = row;
                }
            }
            None => {
                seen.insert(&row.key, out.len());
                out.push(row);
            }
        }
    }
    out
}
