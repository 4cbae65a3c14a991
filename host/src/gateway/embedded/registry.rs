//! Which session stores a state directory has, and finding a session in them.
//!
//! Stores are `agents/<agentId>/sessions/sessions.json` (or the file `session.store`
//! names, with `{agentId}` replaced, or one fixed file for every agent); the agents read
//! are the default one, the configured ones and every agent directory on disk, so no
//! session on disk is hidden. A session is found by any spelling of its key; where a store
//! also holds a legacy un-prefixed spelling (`discord:group:x`, written by older gateways)
//! the entries are merged as the real gateway's `sessions.list` merges them (G4). A store
//! that cannot be read is an error naming the file, never an empty store.
//!
//! On 2026.9's layout ([`Layout::Sqlite`]) an agent's store is its database
//! ([`AgentDb`]), keys are stored canonical, and a session is found by its row.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use session_tools_contract::GatewayResult;
use session_tools_grammar::keys::normalize_agent_id;

use super::canon::merge_entries;
use super::confined::Confined;
use super::layout::Layout;
use super::listing::{Listing, RowCache, StoreRows};
use super::sqlite::{agent_db_path, AgentDb};
use super::store::{Entries, SessionStore};
use super::{gw, transcript, EmbeddedGateway};
use crate::config::{expand_home, DeploymentConfig};

/// The stores of a state directory.
pub struct Registry {
    /// `session.store`, when set.
    template: Option<String>,
    /// The one store of every agent, when `session.store` names a fixed file.
    fixed: Option<Arc<SessionStore>>,
    by_agent: Mutex<BTreeMap<String, Arc<SessionStore>>>,
    /// The agent directories on disk, as of the `agents/` directory's modification time.
    agent_dirs: Mutex<Option<(Option<std::time::SystemTime>, Vec<String>)>>,
    /// `sessions.list` rows by store version.
    rows: RowCache,
    /// Where sessions live.
    layout: Layout,
    /// The agents' databases (2026.9's layout).
    dbs: Mutex<BTreeMap<String, Arc<AgentDb>>>,
}

impl Registry {
    pub fn new(config: &DeploymentConfig, layout: Layout) -> Registry {
        let fixed = config
            .store
            .as_deref()
            .filter(|s| !s.contains("{agentId}"))
            .map(|s| Arc::new(SessionStore::new(&config.default_agent, expand_home(Path::new(s)))));
        Registry {
            template: config.store.clone(),
            fixed,
            by_agent: Mutex::new(BTreeMap::new()),
            agent_dirs: Mutex::new(None),
            rows: RowCache::default(),
            layout,
            dbs: Mutex::new(BTreeMap::new()),
        }
    }
}

/// Where a session's entry lives.
#[derive(Debug, Clone)]
pub enum Place {
    /// A `sessions.json`.
    File(Arc<SessionStore>),
    /// An agent database.
    Db(Arc<AgentDb>),
}

/// A session found by key.
#[derive(Debug, Clone)]
pub struct Found {
    /// The canonical key.
    pub key: String,
    /// The agent whose store holds it.
    pub agent_id: String,
    /// The keys it is stored under (the canonical one and legacy spellings), in file order.
    pub stored_keys: Vec<String>,
    /// The entry (legacy spellings merged in), in the documents' shape.
    pub entry: Map<String, Value>,
    pub(crate) place: Place,
}

impl Found {
    /// A text field of the entry.
    pub fn text(&self, field: &str) -> Option<&str> {
        self.entry.get(field).and_then(Value::as_str)
    }
}

/// Session `key`'s `sessionId`, checked: it names the transcript file, so one that would
/// leave the store's directory is an error.
pub fn checked_session_id<'a>(key: &str, id: Option<&'a str>) -> GatewayResult<Option<&'a str>> {
    match id {
        Some(id) if !transcript::valid_session_id(id) => {
            Err(gw(format!("session {key} has a sessionId that cannot name a transcript file: {id:?}")))
        }
        other => Ok(other),
    }
}

/// The stored keys of a canonical key in one store, in file order. A store lists a bare key
/// `k` as `agent:<store agent>:k` (`for_agent`), so besides the key itself only that one
/// bare spelling can be the same session.
pub fn spellings(entries: &Entries, canonical: &str, store_agent: &str) -> Vec<String> {
    let agent = normalize_agent_id(store_agent);
    let bare = canonical.strip_prefix("agent:").and_then(|r| r.strip_prefix(agent.as_str())).and_then(|r| r.strip_prefix(':'));
    let bare = bare.filter(|b| !(*b == "global" || *b == "unknown" || b.starts_with("agent:")));
    let mut spellings: Vec<&str> = [Some(canonical), bare].into_iter().flatten().filter(|k| entries.contains_key(k)).collect();
    spellings.sort_by_key(|k| entries.position(k));
    spellings.into_iter().map(str::to_string).collect()
}

/// A session's stored keys and its (merged) entry.
pub type Spellings = (Vec<String>, Map<String, Value>);

/// The stored keys of a canonical key in one store ([`spellings`]), and its entry (merged
/// when there are several). `Err` names an entry that is an object this host cannot read
/// (a string with a lone surrogate): it is neither taken for a missing session nor
/// replaced by a new one (which would lose its `sessionId`, its transcript).
pub fn lookup(entries: &Entries, canonical: &str, store_agent: &str) -> Result<Option<Spellings>, String> {
    let agent = normalize_agent_id(store_agent);
    let spellings = spellings(entries, canonical, store_agent);
    let mut merged: Option<Map<String, Value>> = None;
    for stored in &spellings {
        let Some(entry) = entries.read(stored)? else { continue };
        merged = Some(match merged {
            None => entry,
            Some(earlier) => merge_entries(earlier, entry, &agent),
        });
    }
    Ok(merged.map(|entry| (spellings, entry)))
}

impl EmbeddedGateway {
    /// `resolveStorePath` for an agent.
    fn store_path(&self, agent_id: &str) -> PathBuf {
        match self.registry.template.as_deref() {
            Some(template) if template.contains("{agentId}") => expand_home(Path::new(&template.replace("{agentId}", agent_id))),
            _ => self.state_dir.join("agents").join(agent_id).join("sessions").join("sessions.json"),
        }
    }

    /// The store an agent's sessions live in.
    pub fn store_for(&self, agent_id: &str) -> Arc<SessionStore> {
        if let Some(fixed) = &self.registry.fixed {
            return fixed.clone();
        }
        let mut stores = crate::poison::lock_rebuilt(&self.registry.by_agent);
        stores.entry(agent_id.to_string()).or_insert_with(|| Arc::new(SessionStore::new(agent_id, self.store_path(agent_id)))).clone()
    }

    /// The layout of the state directory.
    pub fn layout(&self) -> Layout {
        self.registry.layout
    }

    /// An agent's database (2026.9's layout).
    pub fn db_for(&self, agent_id: &str) -> Arc<AgentDb> {
        let mut dbs = crate::poison::lock_rebuilt(&self.registry.dbs);
        dbs.entry(agent_id.to_string())
            .or_insert_with(|| Arc::new(AgentDb::new(agent_id, agent_db_path(&self.state_dir, agent_id))))
            .clone()
    }

    /// The agents whose stores are read: the default agent, the configured ones, and every
    /// agent directory on disk.
    pub fn agent_ids(&self) -> Vec<String> {
        let default = &self.config().default_agent;
        let mut rest: Vec<String> = self.config().agent_ids.clone();
        rest.extend(self.agent_dirs());
        rest.sort();
        rest.dedup();
        let mut ids = vec![default.clone()];
        ids.extend(rest.into_iter().filter(|id| id != default));
        ids
    }

    /// The agent directories under `agents/`, read again only when it changed (a new
    /// directory changes its modification time); the directory is read with no lock held.
    fn agent_dirs(&self) -> Vec<String> {
        let dir = self.state_dir.join("agents");
        let modified = std::fs::metadata(&dir).and_then(|m| m.modified()).ok();
        if let Some((seen, ids)) = crate::poison::lock_rebuilt(&self.registry.agent_dirs).as_ref() {
            if modified.is_some() && *seen == modified {
                return ids.clone();
            }
        }
        let ids: Vec<String> = std::fs::read_dir(&dir)
            .map(|dirs| {
                dirs.filter_map(|d| d.ok())
                    .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()) || d.path().is_dir())
                    .map(|d| normalize_agent_id(&d.file_name().to_string_lossy()))
                    .collect()
            })
            .unwrap_or_default();
        *crate::poison::lock_rebuilt(&self.registry.agent_dirs) = Some((modified, ids.clone()));
        ids
    }

    /// Every store, with its agent.
    fn stores(&self) -> Vec<(String, Arc<SessionStore>)> {
        if let Some(fixed) = &self.registry.fixed {
            return vec![(self.config().default_agent.clone(), fixed.clone())];
        }
        self.agent_ids().into_iter().map(|id| (id.clone(), self.store_for(&id))).collect()
    }

    /// The rows of every store as they are on disk now (see [`Listing`]);
    /// an error names a store that cannot be read.
    pub fn indexed_stores(&self) -> GatewayResult<Vec<Arc<StoreRows>>> {
        if self.layout() == Layout::Sqlite {
            return self
                .agent_ids()
                .into_iter()
                .map(|agent| self.db_for(&agent))
                .filter(|db| db.exists())
                .map(|db| self.registry.rows.db_rows(db, self.rules()).map_err(gw))
                .collect();
        }
        self.stores()
            .into_iter()
            .map(|(agent, store)| {
                let loaded = store.read();
                loaded.check().map_err(gw)?;
                Ok(self.registry.rows.rows(&agent, loaded, self.rules()))
            })
            .collect()
    }

    /// Every session of the stores as they are on disk now, deduplicated and ordered
    /// ([`Listing`]); an error names a store that cannot be read.
    pub fn listing(&self) -> GatewayResult<Arc<Listing>> {
        Ok(self.registry.rows.listing(self.indexed_stores()?, self.rules()))
    }

    /// Finds a session by (any spelling of) its key; an error names a store that cannot be
    /// read.
    pub fn find(&self, key: &str) -> GatewayResult<Option<Found>> {
        self.find_in_snapshot(key, &mut std::collections::HashMap::new())
    }

    /// [`Self::find`], reading each store at most once for all the lookups that share
    /// `snapshots`.
    pub(super) fn find_in_snapshot(
        &self,
        key: &str,
        snapshots: &mut std::collections::HashMap<String, Arc<super::store::Loaded>>,
    ) -> GatewayResult<Option<Found>> {
        let canonical = self.rules().canonical(key);
        if canonical.is_empty() {
            return Ok(None);
        }
        let agent = self.rules().agent_of(&canonical);
        if self.layout() == Layout::Sqlite {
            let db = self.db_for(&agent);
            if !db.exists() {
                return Ok(None);
            }
            let node = db.node(&canonical).map_err(gw)?;
            return Ok(node.map(|node| Found {
                key: canonical.clone(),
                agent_id: agent,
                stored_keys: vec![canonical],
                entry: super::sqlite::entries::documents_shape(node.entry),
                place: Place::Db(db),
            }));
        }
        let store = self.store_for(&agent);
        let loaded = snapshots.entry(agent.clone()).or_insert_with(|| store.read()).clone();
        let entries = loaded.check().map_err(gw)?;
        let found = lookup(entries, &canonical, &store.agent_id).map_err(|e| gw(format!("{e} (in {})", store.path.display())))?;
        Ok(found.map(|(stored_keys, entry)| Found { key: canonical, agent_id: agent, stored_keys, entry, place: Place::File(store) }))
    }

    /// The path `sessions.list` reports.
    pub fn store_path_label(&self) -> String {
        if self.layout() == Layout::Sqlite {
            return "(multiple)".to_string();
        }
        match self.registry.template.as_deref() {
            Some(store) => store.to_string(),
            None => "(multiple)".to_string(),
        }
    }

    /// The session's `sessionId`, checked: it names the transcript file, so one that would
    /// leave the store's directory is an error.
    pub fn session_id<'a>(&self, found: &'a Found) -> GatewayResult<Option<&'a str>> {
        checked_session_id(&found.key, found.text("sessionId"))
    }

    /// The directories a session's transcripts may be in: its store's, and its agent's
    /// default sessions directory (where OpenClaw's auto-reply path puts a `sessionFile`,
    /// whatever the store).
    fn transcript_dirs(&self, found: &Found) -> Vec<PathBuf> {
        let Place::File(store) = &found.place else { return Vec::new() };
        let store_dir = store.path.parent().map(Path::to_path_buf).unwrap_or_default();
        let agent_dir = self.state_dir.join("agents").join(&found.agent_id).join("sessions");
        if agent_dir == store_dir {
            vec![store_dir]
        } else {
            vec![store_dir, agent_dir]
        }
    }

    /// Where a session's transcript may be, in OpenClaw's order: `sessionFile` (a `.jsonl`
    /// file inside one of `Self::transcript_dirs`), else `<storeDir>/<sessionId>.jsonl`,
    /// else the agent's default sessions directory. Each is reached from the state
    /// directory (or, for a store the config puts elsewhere, from the store's directory)
    /// without following links.
    ///
    /// The entry is read from disk: its `sessionFile` may name a transcript, never any other
    /// file. One outside those directories (`../../etc/x.jsonl`, an absolute path elsewhere)
    /// is not used, and the next candidates are tried, as for a `sessionFile` that does not
    /// exist (README, deviations: OpenClaw 2026.1 follows it; later versions refuse the call).
    pub fn transcript_candidates(&self, found: &Found) -> GatewayResult<Vec<Confined>> {
        let dirs = self.transcript_dirs(found);
        let mut files: Vec<Confined> = Vec::new();
        if let Some(file) = found.text("sessionFile").map(|f| expand_home(Path::new(f))) {
            if file.extension().is_some_and(|e| e == "jsonl") {
                files.extend(dirs.iter().find_map(|dir| Confined::inside(dir, &file)).map(|f| f.reached_from(&self.state_dir)));
            }
        }
        if let Some(id) = self.session_id(found)? {
            for dir in &dirs {
                let Some(file) = Confined::inside(dir, &transcript::file_name(id)).map(|f| f.reached_from(&self.state_dir)) else {
                    continue;
                };
                if !files.contains(&file) {
                    files.push(file);
                }
            }
        }
        Ok(files)
    }

    /// The transcript a session's messages are appended to: the first candidate that
    /// exists, else a new file next to the store (never a `sessionFile` we did not write).
    pub fn transcript_path(&self, found: &Found) -> GatewayResult<Option<Confined>> {
        let candidates = self.transcript_candidates(found)?;
        if let Some(existing) = candidates.iter().find(|f| f.exists()) {
            return Ok(Some(existing.clone()));
        }
        let Some(id) = self.session_id(found)? else { return Ok(None) };
        let Place::File(store) = &found.place else { return Ok(None) };
        let store_dir = store.path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(Confined::inside(&store_dir, &transcript::file_name(id)).map(|f| f.reached_from(&self.state_dir)))
    }
}
