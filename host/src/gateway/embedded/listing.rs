//! The sessions of every store as `sessions.list` rows (reference §1.4, G1), built once per
//! version of a store file and kept until the file changes: a list call filters, orders
//! and cuts rows it already has instead of rebuilding thousands of them (BENCHMARKS.md).
//! A row keeps what the filters read and the row itself, not the entry: the entries stay
//! in the store as raw text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use session_tools_contract::SessionRow;
use session_tools_grammar::keys::{normalize_agent_id, parse_agent_key};

use super::canon::{for_agent, merge_entries, spawned_by_for_agent, KeyRules};
use super::rows::build_row;
use super::sqlite::{entries as era2, AgentDb, Node};
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

    /// A row of 2026.9's layout: its parent is `spawnedBy` or `parentSessionKey` (E5), its
    /// display name 2026.9's.
    /// Takes the node: what is read of its stored (2026.9) shape is read first, then the
    /// entry itself is reshaped, not copied (every row of a database passes here).
    fn from_node(node: Node, rules: &KeyRules) -> IndexedRow {
        let agent = rules.agent_of(&node.key);
        let parent = era2::parent(&node.entry).or(node.spawned_by.as_deref()).or(node.parent_session_key.as_deref());
        let spawned_by = spawned_by_for_agent(&agent, parent);
        let display_name = era2::display_name(&node.key, &node.entry);
        let entry = era2::documents_shape(node.entry);
        let mut row = build_row(&node.key, &entry, spawned_by.clone());
        row.display_name = display_name;
        IndexedRow {
            key_agent: parse_agent_key(&node.key).map(|p| normalize_agent_id(&p.agent_id)),
            label: entry.get("label").and_then(Value::as_str).map(str::to_string),
            row,
            spawned_by,
            stored: node.key.clone(),
            key: node.key,
        }
    }

    /// `global` or `unknown`.
    pub fn is_reserved(&self) -> bool {
        self.key == "global" || self.key == "unknown"
    }
}

/// What a store's rows were built from.
enum Source {
    /// A version of a `sessions.json` (compared by identity: a store re-read from disk is a
    /// new `Loaded`).
    File(Arc<Loaded>),
    /// An agent database at a `data_version`.
    Db(Arc<AgentDb>, i64),
}

/// The rows of one version of a store.
pub struct StoreRows {
    agent: String,
    source: Source,
    rows: Vec<IndexedRow>,
}

impl StoreRows {
    fn build(agent: &str, loaded: Arc<Loaded>, rules: &KeyRules) -> StoreRows {
        let mut rows = Vec::with_capacity(loaded.entries.len());
        for (stored, _) in loaded.entries.iter() {
            let Some(entry) = loaded.entries.get(stored) else { continue };
            rows.push(IndexedRow::build(for_agent(agent, stored), stored.to_string(), &entry, rules));
        }
        StoreRows { agent: normalize_agent_id(agent), source: Source::File(loaded), rows }
    }

    fn entry(&self, row: &IndexedRow) -> Map<String, Value> {
        match &self.source {
            Source::File(loaded) => loaded.entries.get(&row.stored).unwrap_or_default(),
            Source::Db(db, _) => db.node(&row.stored).ok().flatten().map(|n| era2::documents_shape(n.entry)).unwrap_or_default(),
        }
    }
}

/// Built rows by agent store.
#[derive(Default)]
pub struct RowCache {
    by_agent: Mutex<HashMap<String, Arc<StoreRows>>>,
    listing: Mutex<Option<Arc<Listing>>>,
}

impl RowCache {
    /// The listing of these versions of the stores, built if it is not kept yet.
    pub fn listing(&self, stores: Vec<Arc<StoreRows>>, rules: &KeyRules) -> Arc<Listing> {
        {
            let mut kept = crate::poison::lock_rebuilt(&self.listing);
            match kept.as_ref() {
                Some(listing) if listing.is_of(&stores) => return listing.clone(),
                // The old rows go before the new listing is built (N18: one version in memory).
                _ => *kept = None,
            }
        }
        let built = Arc::new(Listing::build(stores, rules));
        *crate::poison::lock_rebuilt(&self.listing) = Some(built.clone());
        built
    }

    /// The rows of this version of an agent's store, built if they are not kept yet.
    pub fn rows(&self, agent: &str, loaded: Arc<Loaded>, rules: &KeyRules) -> Arc<StoreRows> {
        if let Some(kept) = crate::poison::lock_rebuilt(&self.by_agent).get(agent) {
            if matches!(&kept.source, Source::File(kept) if Arc::ptr_eq(kept, &loaded)) {
                return kept.clone();
            }
        }
        // Built outside the lock: other agents' lists need not wait for this one.
        let built = Arc::new(StoreRows::build(agent, loaded, rules));
        crate::poison::lock_rebuilt(&self.by_agent).insert(agent.to_string(), built.clone());
        built
    }

    /// The rows of an agent's database as it is now, built again only after a commit to it
    /// (its `data_version` changed); an error names the database.
    pub fn db_rows(&self, db: Arc<AgentDb>, rules: &KeyRules) -> Result<Arc<StoreRows>, String> {
        let version = db.version()?;
        if let Some(kept) = crate::poison::lock_rebuilt(&self.by_agent).get(&db.agent_id) {
            if matches!(&kept.source, Source::Db(kept_db, v) if Arc::ptr_eq(kept_db, &db) && *v == version) {
                return Ok(kept.clone());
            }
        }
        let rows = db.map_nodes(|node| IndexedRow::from_node(node, rules))?;
        let built = Arc::new(StoreRows { agent: normalize_agent_id(&db.agent_id), source: Source::Db(db.clone(), version), rows });
        crate::poison::lock_rebuilt(&self.by_agent).insert(db.agent_id.clone(), built.clone());
        Ok(built)
    }
}

/// A listed session: one row of a store (by index), or several spellings of one key
/// merged into a row of its own.
enum Listed {
    At(usize, usize),
    Merged(Box<IndexedRow>),
}

/// Every session of the stores, one row per canonical key: rows of entries that share a
/// canonical key (a legacy spelling beside the canonical one, or one key in two stores) are
/// merged as the reference's combined store merges them (G4, [`merge_entries`]); only those
/// rows are rebuilt. Built once per set of store versions, with the order `sessions.list`
/// answers in (newest `updatedAt` first, store order among equals) worked out then, so a
/// list call walks rows in order and stops at its limit instead of hashing, sorting and
/// moving every row again (BENCHMARKS.md, the SQLite layout's list).
pub struct Listing {
    stores: Vec<Arc<StoreRows>>,
    /// Store order.
    rows: Vec<Listed>,
    /// Indexes into `rows`, newest first.
    newest_first: Vec<u32>,
}

impl Listing {
    fn build(stores: Vec<Arc<StoreRows>>, rules: &KeyRules) -> Listing {
        /// A row while the stores are read: a merged one keeps its merged entry, for a
        /// third spelling.
        enum Slot {
            At(usize, usize),
            Merged(Box<(IndexedRow, Map<String, Value>)>),
        }
        let mut slots: Vec<Slot> = Vec::with_capacity(stores.iter().map(|s| s.rows.len()).sum());
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(slots.capacity());
        for (s, store) in stores.iter().enumerate() {
            for (r, row) in store.rows.iter().enumerate() {
                let Some(&at) = seen.get(row.key.as_str()) else {
                    seen.insert(&row.key, slots.len());
                    slots.push(Slot::At(s, r));
                    continue;
                };
                let earlier = match std::mem::replace(&mut slots[at], Slot::At(s, r)) {
                    Slot::At(fs, fr) => stores[fs].entry(&stores[fs].rows[fr]),
                    Slot::Merged(merged) => merged.1,
                };
                let merged = merge_entries(earlier, store.entry(row), &store.agent);
                let rebuilt = IndexedRow::build(row.key.clone(), row.stored.clone(), &merged, rules);
                slots[at] = Slot::Merged(Box::new((rebuilt, merged)));
            }
        }
        drop(seen);
        let rows: Vec<Listed> = slots
            .into_iter()
            .map(|slot| match slot {
                Slot::At(s, r) => Listed::At(s, r),
                Slot::Merged(merged) => Listed::Merged(Box::new(merged.0)),
            })
            .collect();
        let listing = Listing { stores, rows, newest_first: Vec::new() };
        let mut order: Vec<u32> = (0..listing.rows.len() as u32).collect();
        order.sort_by_key(|i| std::cmp::Reverse(listing.row(&listing.rows[*i as usize]).row.updated_at.unwrap_or(0)));
        Listing { newest_first: order, ..listing }
    }

    fn row<'a>(&'a self, listed: &'a Listed) -> &'a IndexedRow {
        match listed {
            Listed::At(s, r) => &self.stores[*s].rows[*r],
            Listed::Merged(row) => row,
        }
    }

    /// Whether this listing was built from exactly these versions of the stores.
    fn is_of(&self, stores: &[Arc<StoreRows>]) -> bool {
        self.stores.len() == stores.len() && self.stores.iter().zip(stores).all(|(a, b)| Arc::ptr_eq(a, b))
    }

    /// The rows in store order.
    pub fn in_store_order(&self) -> impl Iterator<Item = &IndexedRow> {
        self.rows.iter().map(|listed| self.row(listed))
    }

    /// The rows newest first (`updatedAt`; store order among equals), as `sessions.list`
    /// orders them.
    pub fn newest_first(&self) -> impl Iterator<Item = &IndexedRow> {
        self.newest_first.iter().map(|i| self.row(&self.rows[*i as usize]))
    }
}
