//! The sessions of every store as `sessions.list` rows (reference §1.4, G1), built once per
//! version of a store file and kept until the file changes: a list call filters, orders
//! and cuts rows it already has instead of rebuilding thousands of them (BENCHMARKS.md).
//! A row keeps what the filters read and the row itself, not the entry: the entries stay
//! in the store as raw text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use session_tools_guest::keys::{normalize_agent_id, parse_agent_key};
use session_tools_guest::ports::SessionRow;

use super::canon::{for_agent, merge_entries, spawned_by_for_agent, KeyRules};
use super::rows::build_row;
use super::store::Loaded;

/// One session of a store, ready for `sessions.list`.
#[derive(Debug, Clone)]
pub struct IndexedRow {
    /// The canonical key.
    pub key: String,
    /// The key it is stored under.
    stored: String,
    /// The agent of an `agent:<id>:…` key, normalised (for `agentId` filters).
    pub key_agent: Option<String>,
    /// `spawnedBy`, canonical for the key's agent.
    pub spawned_by: Option<String>,
    pub label: Option<String>,
    pub row: SessionRow,
}

impl IndexedRow {
    fn build(key: String, stored: String, entry: &Map<String, Value>, rules: &KeyRules) -> IndexedRow {
        let text = |name: &str| entry.get(name).and_then(Value::as_str);
        let spawned_by = spawned_by_for_agent(&rules.agent_of(&key), text("spawnedBy"));
        IndexedRow {
            key_agent: parse_agent_key(&key).map(|p| normalize_agent_id(&p.agent_id)),
            label: text("label").map(str::to_string),
            row: build_row(&key, entry, spawned_by.clone()),
            spawned_by,
            stored,
            key,
        }
    }

    /// `global` or `unknown`.
    pub fn is_reserved(&self) -> bool {
        self.key == "global" || self.key == "unknown"
    }
}

/// The rows of one version of a store.
pub struct StoreRows {
    agent: String,
    /// The version they were built from (compared by identity: a store re-read from disk
    /// is a new `Loaded`).
    loaded: Arc<Loaded>,
    rows: Vec<IndexedRow>,
}

impl StoreRows {
    fn build(agent: &str, loaded: Arc<Loaded>, rules: &KeyRules) -> StoreRows {
        let mut rows = Vec::with_capacity(loaded.entries.len());
        for (stored, _) in loaded.entries.iter() {
            let Some(entry) = loaded.entries.get(stored) else { continue };
            rows.push(IndexedRow::build(for_agent(agent, stored), stored.to_string(), &entry, rules));
        }
        StoreRows { agent: normalize_agent_id(agent), loaded, rows }
    }

    fn entry(&self, row: &IndexedRow) -> Map<String, Value> {
        self.loaded.entries.get(&row.stored).unwrap_or_default()
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

/// A listed session: one stored entry, or several spellings of one key merged.
enum Slot<'a> {
    One(&'a IndexedRow, &'a StoreRows),
    Merged(Box<(IndexedRow, Map<String, Value>)>),
}

/// Every session of the stores, one row per canonical key, in store order. Entries that
/// share a canonical key (a legacy spelling beside the canonical one, or one key in two
/// stores) are merged as the reference's combined store merges them (G4,
/// [`merge_entries`]); only those rows are rebuilt.
pub fn deduplicated<'a>(stores: &'a [Arc<StoreRows>], rules: &KeyRules) -> Vec<Cow<'a, IndexedRow>> {
    let mut slots: Vec<Slot<'a>> = Vec::with_capacity(stores.iter().map(|s| s.rows.len()).sum());
    let mut seen: HashMap<&'a str, usize> = HashMap::with_capacity(slots.capacity());
    for store in stores {
        for row in &store.rows {
            let Some(&at) = seen.get(row.key.as_str()) else {
                seen.insert(&row.key, slots.len());
                slots.push(Slot::One(row, store));
                continue;
            };
            let earlier = match std::mem::replace(&mut slots[at], Slot::One(row, store)) {
                Slot::One(first, first_store) => first_store.entry(first),
                Slot::Merged(merged) => merged.1,
            };
            let merged = merge_entries(earlier, store.entry(row), &store.agent);
            let rebuilt = IndexedRow::build(row.key.clone(), row.stored.clone(), &merged, rules);
            slots[at] = Slot::Merged(Box::new((rebuilt, merged)));
        }
    }
    slots
        .into_iter()
        .map(|slot| match slot {
            Slot::One(row, _) => Cow::Borrowed(row),
            Slot::Merged(merged) => Cow::Owned(merged.0),
        })
        .collect()
}
