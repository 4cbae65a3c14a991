//! The embedded gateway: owns an OpenClaw state directory and implements the gateway
//! methods the component imports with their real semantics (reference §1.1, §1.4), over
//! OpenClaw's on-disk format, so an existing state directory loads unchanged and stays
//! usable by OpenClaw.

pub mod canon;
pub mod delivery;
pub mod listing;
pub mod lock;
pub mod outbox;
pub mod rows;
pub mod runs;
pub mod runtime;
pub mod store;
pub mod transcript;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};
use session_tools_guest::keys::{is_subagent_key, normalize_agent_id};
use session_tools_guest::policy::{Decision, PolicyEntry, PolicyInput, SendCommand, SendMode};
use session_tools_guest::ports::*;

use crate::config::{expand_home, DeploymentConfig};
use canon::KeyRules;
use runs::Runs;
use runtime::{AgentRuntime, RunRequest};
use store::{Loaded, SessionStore, StoreError};

/// `label` bounds (`SESSION_LABEL_MAX_LENGTH`).
pub const LABEL_MAX: usize = 64;

/// Evaluates the send policy at the gateway's enforcement points. The logic lives once, in
/// the component; the host gives the gateway an instance of it.
pub trait PolicyEvaluator: Send + Sync {
    fn evaluate(&self, input: &PolicyInput) -> Result<(Decision, String), String>;
    fn parse_command(&self, text: &str) -> Result<Option<SendCommand>, String>;
}

/// The clock the gateway stamps entries and transcripts with.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

pub fn system_clock() -> Clock {
    Arc::new(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
}

/// A fuller `sessions.patch` than the component's (the CLI and owners use it).
#[derive(Debug, Clone, Default)]
pub struct Patch {
    /// `Some(None)` clears.
    pub label: Option<Option<String>>,
    pub model: Option<Option<String>>,
    pub send_policy: Option<Option<String>>,
    /// `Some(None)` asks to clear it (refused once set).
    pub spawned_by: Option<Option<String>>,
}

/// What `sessions.delete` did.
#[derive(Debug, Clone, PartialEq)]
pub struct Deleted {
    pub key: String,
    pub deleted: bool,
    pub archived: Vec<PathBuf>,
}

/// A session found by key.
#[derive(Debug, Clone)]
pub struct Found {
    pub key: String,
    pub agent_id: String,
    pub stored_key: String,
    pub entry: Map<String, Value>,
    pub store: Arc<SessionStore>,
}

pub struct EmbeddedGateway {
    state_dir: PathBuf,
    config: DeploymentConfig,
    rules: KeyRules,
    stores: Mutex<BTreeMap<String, Arc<SessionStore>>>,
    fixed_store: Option<Arc<SessionStore>>,
    runtime: Arc<dyn AgentRuntime>,
    runs: Arc<Runs>,
    outbox: outbox::Outbox,
    policy: Mutex<Option<Arc<dyn PolicyEvaluator>>>,
    clock: Clock,
    /// `sessions.list` rows by store version.
    row_cache: listing::RowCache,
    /// The agent directories on disk, as of the `agents/` directory's modification time.
    agent_dirs: Mutex<Option<(Option<std::time::SystemTime>, Vec<String>)>>,
    /// This gateway, for the threads of its runs.
    me: std::sync::Weak<EmbeddedGateway>,
}

fn gw(message: impl Into<String>) -> GatewayError {
    GatewayError { message: message.into() }
}

fn store_err(e: StoreError) -> GatewayError {
    gw(e.to_string())
}

fn text<'a>(entry: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    entry.get(key).and_then(Value::as_str)
}

/// Channels the gateway knows (built-in chat channels and `webchat`).
pub fn known_channel(channel: &str) -> bool {
    let lower = channel.trim().to_lowercase();
    lower == "webchat" || session_tools_guest::announce::normalize_channel_id(&lower).is_some()
}

impl EmbeddedGateway {
    pub fn open(
        state_dir: &Path,
        config: DeploymentConfig,
        runtime: Arc<dyn AgentRuntime>,
        clock: Clock,
    ) -> std::io::Result<Arc<EmbeddedGateway>> {
        let rules =
            KeyRules { main_key: config.main_key.clone(), scope_global: config.scope_global, default_agent: config.default_agent.clone() };
        let fixed_store = config
            .store
            .as_deref()
            .filter(|s| !s.contains("{agentId}"))
            .map(|s| Arc::new(SessionStore::new(&config.default_agent, expand_home(Path::new(s)))));
        let tools_dir = state_dir.join("session-tools");
        let runs = Arc::new(Runs::open(tools_dir.join("runs.json"), clock.clone())?);
        let outbox = outbox::Outbox::open(tools_dir.join("outbox.jsonl"))?;
        Ok(Arc::new_cyclic(|me| EmbeddedGateway {
            state_dir: state_dir.to_path_buf(),
            runs,
            outbox,
            config,
            rules,
            stores: Mutex::new(BTreeMap::new()),
            fixed_store,
            runtime,
            policy: Mutex::new(None),
            clock,
            row_cache: listing::RowCache::default(),
            agent_dirs: Mutex::new(None),
            me: me.clone(),
        }))
    }

    /// Gives the gateway the component's send-policy evaluation.
    pub fn set_policy(&self, policy: Arc<dyn PolicyEvaluator>) {
        *self.policy.lock().unwrap_or_else(|p| p.into_inner()) = Some(policy);
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    pub fn config(&self) -> &DeploymentConfig {
        &self.config
    }

    pub fn rules(&self) -> &KeyRules {
        &self.rules
    }

    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    pub fn outbox(&self) -> &outbox::Outbox {
        &self.outbox
    }

    /// `resolveStorePath` for an agent.
    fn store_path(&self, agent_id: &str) -> PathBuf {
        match self.config.store.as_deref() {
            Some(template) if template.contains("{agentId}") => expand_home(Path::new(&template.replace("{agentId}", agent_id))),
            _ => self.state_dir.join("agents").join(agent_id).join("sessions").join("sessions.json"),
        }
    }

    /// The store an agent's sessions live in.
    pub fn store_for(&self, agent_id: &str) -> Arc<SessionStore> {
        if let Some(fixed) = &self.fixed_store {
            return fixed.clone();
        }
        let mut stores = self.stores.lock().unwrap_or_else(|p| p.into_inner());
        stores.entry(agent_id.to_string()).or_insert_with(|| Arc::new(SessionStore::new(agent_id, self.store_path(agent_id)))).clone()
    }

    /// The agents whose stores are read: the default agent, the configured ones, and every
    /// agent directory on disk (so no session on disk is hidden).
    pub fn agent_ids(&self) -> Vec<String> {
        let mut ids = vec![self.config.default_agent.clone()];
        let mut rest: Vec<String> = self.config.agent_ids.clone();
        rest.extend(self.agent_dirs());
        rest.sort();
        rest.dedup();
        ids.extend(rest.into_iter().filter(|id| *id != self.config.default_agent));
        ids
    }

    /// The agent directories under `agents/`, read again only when it changed (a new
    /// directory changes its modification time).
    fn agent_dirs(&self) -> Vec<String> {
        let dir = self.state_dir.join("agents");
        let modified = std::fs::metadata(&dir).and_then(|m| m.modified()).ok();
        let mut cache = self.agent_dirs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((seen, ids)) = cache.as_ref() {
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
        *cache = Some((modified, ids.clone()));
        ids
    }

    /// Every store, with its agent.
    fn stores(&self) -> Vec<(String, Arc<SessionStore>)> {
        if let Some(fixed) = &self.fixed_store {
            return vec![(self.config.default_agent.clone(), fixed.clone())];
        }
        self.agent_ids().into_iter().map(|id| (id.clone(), self.store_for(&id))).collect()
    }

    /// The rows of every store as they are on disk now (see [`listing::deduplicated`]).
    pub fn indexed_stores(&self) -> Vec<Arc<listing::StoreRows>> {
        self.stores().into_iter().map(|(agent, store)| self.row_cache.rows(&agent, store.read(), &self.rules)).collect()
    }

    /// Finds a session by (any spelling of) its key.
    pub fn find(&self, key: &str) -> Option<Found> {
        let canonical = self.rules.canonical(key);
        if canonical.is_empty() {
            return None;
        }
        let agent = self.rules.agent_of(&canonical);
        let store = self.store_for(&agent);
        let loaded = store.read();
        let stored = loaded.find(&canonical, &store.agent_id)?;
        let entry = loaded.entries.get(&stored)?.as_object()?.clone();
        Some(Found { key: canonical, agent_id: agent, stored_key: stored, entry, store })
    }

    /// The rows of `sessions.list` (reference §1.4 filters, in order).
    pub fn list_rows(&self, params: &ListParams) -> Vec<SessionRow> {
        let stores = self.indexed_stores();
        self.select(&stores, params).into_iter().map(|r| r.row.clone()).collect()
    }

    /// The `sessions.list` filters, ordering and limit over built rows, by reference.
    fn select<'a>(&self, stores: &'a [Arc<listing::StoreRows>], params: &ListParams) -> Vec<&'a listing::IndexedRow> {
        let now = self.now() as i64;
        let agent_filter = params.agent_id.as_deref().map(normalize_agent_id);
        let label = params.label.as_deref().map(str::trim).filter(|l| !l.is_empty());
        let spawned_by = params.spawned_by.as_deref().filter(|s| !s.is_empty());
        let mut rows: Vec<&listing::IndexedRow> = listing::deduplicated(stores)
            .into_iter()
            .filter(|r| match r.key.as_str() {
                "global" => params.include_global == Some(true),
                "unknown" => params.include_unknown == Some(true),
                _ => true,
            })
            .filter(|r| agent_filter.as_ref().is_none_or(|agent| !r.is_reserved() && r.key_agent.as_ref() == Some(agent)))
            .filter(|r| spawned_by.is_none_or(|filter| !r.is_reserved() && r.spawned_by.as_deref() == Some(filter)))
            .filter(|r| label.is_none_or(|label| r.label.as_deref() == Some(label)))
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.row.updated_at.unwrap_or(0)));
        if let Some(search) = params.search.as_deref().map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty()) {
            rows.retain(|r| {
                let row = &r.row;
                [row.display_name.as_deref(), row.label.as_deref(), row.session_id.as_deref(), Some(row.key.as_str())]
                    .into_iter()
                    .flatten()
                    .any(|f| f.to_lowercase().contains(&search))
            });
        }
        if let Some(minutes) = params.active_minutes {
            let cutoff = now - i64::from(minutes.max(1)) * 60_000;
            rows.retain(|r| r.row.updated_at.unwrap_or(0) >= cutoff);
        }
        if let Some(limit) = params.limit {
            rows.truncate(limit.max(1) as usize);
        }
        rows
    }

    /// The path `sessions.list` reports.
    pub fn store_path_label(&self) -> String {
        match self.config.store.as_deref() {
            Some(store) => store.to_string(),
            None => "(multiple)".to_string(),
        }
    }

    /// Where a session's transcript is: `sessionFile`, else `<storeDir>/<sessionId>.jsonl`,
    /// else the agent's default store directory; the first that exists (or the second).
    pub fn transcript_candidates(&self, found: &Found) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        if let Some(file) = text(&found.entry, "sessionFile") {
            paths.push(expand_home(Path::new(file)));
        }
        if let Some(id) = text(&found.entry, "sessionId") {
            if let Some(dir) = found.store.path.parent() {
                paths.push(transcript::default_path(dir, id));
            }
            let default = self.state_dir.join("agents").join(&found.agent_id).join("sessions").join(format!("{id}.jsonl"));
            if !paths.contains(&default) {
                paths.push(default);
            }
        }
        paths
    }

    fn transcript_path(&self, found: &Found) -> Option<PathBuf> {
        let candidates = self.transcript_candidates(found);
        candidates.iter().find(|p| p.is_file()).cloned().or_else(|| {
            // New transcripts go next to the store, not to a `sessionFile` we did not write.
            let id = text(&found.entry, "sessionId")?;
            found.store.path.parent().map(|d| transcript::default_path(d, id))
        })
    }

    /// The agent's workspace (the `cwd` of new transcripts).
    fn workspace(&self, agent_id: &str) -> String {
        let raw = &self.config.raw;
        let from_list = raw
            .get("agents")
            .and_then(|a| a.get("list"))
            .and_then(Value::as_array)
            .and_then(|l| l.iter().find(|e| e.get("id").and_then(Value::as_str).map(normalize_agent_id).as_deref() == Some(agent_id)))
            .and_then(|e| e.get("workspace"))
            .and_then(Value::as_str);
        let default = raw.get("agents").and_then(|a| a.get("defaults")).and_then(|d| d.get("workspace")).and_then(Value::as_str);
        let chosen = from_list
            .map(str::to_string)
            .or_else(|| (agent_id == self.config.default_agent).then(|| default.map(str::to_string)).flatten());
        let path =
            chosen.unwrap_or_else(|| if agent_id == self.config.default_agent { "~/clawd".into() } else { format!("~/clawd-{agent_id}") });
        expand_home(Path::new(&path)).display().to_string()
    }

    /// Appends a message to a session's transcript.
    pub fn append(&self, found: &Found, message: &Value) -> Result<(), GatewayError> {
        let Some(id) = text(&found.entry, "sessionId") else {
            return Err(gw(format!("session {} has no sessionId", found.key)));
        };
        let path = self.transcript_path(found).ok_or_else(|| gw("no transcript path"))?;
        transcript::append_message(&path, id, &self.workspace(&found.agent_id), self.now(), message)
            .map(|_| ())
            .map_err(|e| gw(format!("writing the transcript {}: {e}", path.display())))
    }

    /// Creates or changes a session entry; answers it. `change` also sees the store's
    /// other entries (for label uniqueness).
    fn upsert(
        &self,
        key: &str,
        change: impl FnOnce(&mut Map<String, Value>, &Map<String, Value>) -> Result<(), String>,
    ) -> Result<Found, GatewayError> {
        let canonical = self.rules.canonical(key);
        if canonical.is_empty() {
            return Err(gw("key required"));
        }
        let agent = self.rules.agent_of(&canonical);
        let store = self.store_for(&agent);
        let now = self.now();
        let store_agent = store.agent_id.clone();
        let (stored, entry) = store
            .update(|entries| {
                let existing = Loaded::find_in(entries, &canonical, &store_agent);
                // An entry found under a legacy key moves to the canonical key.
                let mut entry = match &existing {
                    Some(stored) => entries.shift_remove(stored).and_then(|v| v.as_object().cloned()).unwrap_or_default(),
                    None => {
                        let mut fresh = Map::new();
                        fresh.insert("sessionId".into(), Value::String(uuid::Uuid::new_v4().to_string()));
                        fresh.insert("updatedAt".into(), json!(now));
                        fresh
                    }
                };
                change(&mut entry, entries)?;
                let updated = entry.get("updatedAt").and_then(Value::as_u64).unwrap_or(0).max(now);
                entry.insert("updatedAt".into(), json!(updated));
                entries.insert(canonical.clone(), Value::Object(entry.clone()));
                Ok((canonical.clone(), entry))
            })
            .map_err(store_err)?;
        Ok(Found { key: stored.clone(), agent_id: agent, stored_key: stored, entry, store })
    }

    /// `sessions.patch`, in full.
    pub fn patch(&self, key: &str, patch: &Patch) -> Result<Found, GatewayError> {
        let canonical = self.rules.canonical(key);
        let model_ref: Option<Option<(String, String)>> = match &patch.model {
            Some(Some(model)) => Some(self.check_model(model)?),
            Some(None) => Some(None),
            None => None,
        };
        let label = match &patch.label {
            Some(Some(label)) => Some(Some(check_label(label, "sessions.patch")?)),
            other => other.clone(),
        };
        let send_policy = match &patch.send_policy {
            Some(Some(p)) => {
                let p = p.trim().to_lowercase();
                if p != "allow" && p != "deny" {
                    return Err(gw(format!("invalid sessions.patch params: sendPolicy must be allow, deny or null (got {p})")));
                }
                Some(Some(p))
            }
            other => other.clone(),
        };
        if patch.spawned_by.is_some() && !is_subagent_key(&canonical) {
            return Err(gw("spawnedBy is only supported for subagent:* sessions"));
        }
        self.upsert(key, |entry, others| {
            if let Some(label) = &label {
                match label {
                    Some(label) => {
                        if label_taken(others, entry, label) {
                            return Err(format!("label already in use: {label}"));
                        }
                        entry.insert("label".into(), Value::String(label.clone()));
                    }
                    None => {
                        entry.shift_remove("label");
                    }
                }
            }
            if let Some(model) = &model_ref {
                match model {
                    Some((provider, model)) => {
                        entry.insert("providerOverride".into(), Value::String(provider.clone()));
                        entry.insert("modelOverride".into(), Value::String(model.clone()));
                    }
                    None => {
                        entry.shift_remove("providerOverride");
                        entry.shift_remove("modelOverride");
                    }
                }
            }
            if let Some(policy) = &send_policy {
                match policy {
                    Some(p) => {
                        entry.insert("sendPolicy".into(), Value::String(p.clone()));
                    }
                    None => {
                        entry.shift_remove("sendPolicy");
                    }
                }
            }
            match &patch.spawned_by {
                Some(Some(parent)) => {
                    let parent = self.rules.canonical(parent);
                    match entry.get("spawnedBy").and_then(Value::as_str) {
                        Some(existing) if existing != parent => return Err("spawnedBy cannot be changed once set".into()),
                        _ => {
                            entry.insert("spawnedBy".into(), Value::String(parent));
                        }
                    }
                }
                Some(None) if entry.contains_key("spawnedBy") => return Err("spawnedBy cannot be cleared once set".into()),
                _ => {}
            }
            Ok(())
        })
    }

    /// Checks a model reference (G2): any `provider/model` without an allowlist; with one,
    /// only what it lists. Answers the override to store: `None` for the configured default
    /// model (which needs none), else `(provider, model)`.
    fn check_model(&self, raw: &str) -> Result<Option<(String, String)>, GatewayError> {
        let reference = raw.trim();
        if reference.is_empty() {
            return Err(gw("invalid model: empty"));
        }
        let (provider, model) = match reference.split_once('/') {
            Some((p, m)) if !p.trim().is_empty() && !m.trim().is_empty() => (p.trim().to_lowercase(), m.trim().to_string()),
            Some(_) => return Err(gw(format!("invalid model: {reference}"))),
            None => ("anthropic".to_string(), reference.to_string()),
        };
        let full = format!("{provider}/{model}");
        if let Some(allow) = &self.config.model_allowlist {
            if !allow.iter().any(|a| a.trim().eq_ignore_ascii_case(&full) || a.trim() == reference) {
                return Err(gw(format!("model not allowed: {full}")));
            }
        }
        if full == self.config.default_model() {
            return Ok(None);
        }
        Ok(Some((provider, model)))
    }

    /// `sessions.delete`: the entry is removed and its transcripts archived; the main
    /// session cannot be deleted.
    pub fn delete(&self, key: &str, delete_transcript: bool) -> Result<Deleted, GatewayError> {
        let canonical = self.rules.canonical(key);
        if canonical.is_empty() {
            return Err(gw("key required"));
        }
        if self.rules.is_main(&canonical) {
            return Err(gw(format!("Cannot delete the main session ({canonical}).")));
        }
        let found = self.find(&canonical);
        let agent = self.rules.agent_of(&canonical);
        let store = self.store_for(&agent);
        let store_agent = store.agent_id.clone();
        let removed = store
            .update(|entries| {
                let stored = Loaded::find_in(entries, &canonical, &store_agent);
                Ok(stored.and_then(|k| entries.shift_remove(&k)).is_some())
            })
            .map_err(store_err)?;
        let mut archived = Vec::new();
        if let (true, Some(found)) = (delete_transcript, &found) {
            for path in self.transcript_candidates(found).into_iter().filter(|p| p.is_file()) {
                match transcript::archive(&path, "deleted", self.now()) {
                    Ok(to) => archived.push(to),
                    Err(e) => return Err(gw(format!("archiving {}: {e}", path.display()))),
                }
            }
        }
        Ok(Deleted { key: canonical, deleted: removed, archived })
    }

    /// Evaluates the send policy for a send to a session (reference §4: the requested key).
    pub fn policy_for(&self, requested_key: &str, entry: Option<&Map<String, Value>>) -> Result<(Decision, String), GatewayError> {
        let policy = self.policy.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let Some(policy) = policy else {
            return Ok((Decision::Allow, "no policy evaluator is attached".into()));
        };
        let input = PolicyInput {
            entry: entry.map(|e| PolicyEntry {
                send_policy: text(e, "sendPolicy").map(str::to_string),
                channel: text(e, "channel").map(str::to_string),
                last_channel: text(e, "lastChannel").map(str::to_string),
                chat_type: text(e, "chatType").map(str::to_string),
            }),
            session_key: Some(requested_key.to_string()),
            channel: entry.and_then(|e| text(e, "channel")).map(str::to_string),
            chat_type: entry.and_then(|e| text(e, "chatType")).map(str::to_string),
        };
        policy.evaluate(&input).map_err(|e| gw(format!("send policy evaluation failed: {e}")))
    }

    /// `chat.send` from the session's owner: a standalone `/send on|off|inherit` changes
    /// the session's override and is answered; anything else is subject to the send
    /// policy and starts a run. Answers the reply to show the owner and the run, if any.
    pub fn chat_send(&self, key: &str, message: &str) -> Result<(String, Option<String>), GatewayError> {
        let policy = self.policy.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let command = match &policy {
            Some(p) => p.parse_command(message).map_err(gw)?,
            None => None,
        };
        if let Some(command) = command {
            let canonical = self.rules.canonical(key);
            return match command {
                SendCommand::Show => {
                    let found = self.find(&canonical);
                    let (decision, why) = self.policy_for(key, found.as_ref().map(|f| &f.entry))?;
                    Ok((format!("Send policy for {canonical}: {} ({why}).", decision_word(decision)), None))
                }
                SendCommand::Set(mode) => {
                    let value = match mode {
                        SendMode::Allow => Some("allow".to_string()),
                        SendMode::Deny => Some("deny".to_string()),
                        SendMode::Inherit => None,
                    };
                    self.patch(&canonical, &Patch { send_policy: Some(value.clone()), ..Default::default() })?;
                    let shown = value.unwrap_or_else(|| "inherit (the configured rules apply)".into());
                    Ok((format!("Send policy for {canonical} set to {shown}."), None))
                }
                SendCommand::Invalid(word) => {
                    Ok((format!("Unknown /send mode \"{word}\". Use /send on, /send off or /send inherit."), None))
                }
            };
        }
        let accepted = self.agent(&AgentParams {
            message: message.to_string(),
            session_key: Some(key.to_string()),
            idempotency_key: uuid::Uuid::new_v4().to_string(),
            deliver: Some(false),
            channel: Some("webchat".into()),
            ..Default::default()
        })?;
        Ok(("accepted".into(), accepted.run_id))
    }

    /// The runs registry.
    pub fn runs(&self) -> &Arc<Runs> {
        &self.runs
    }
}

fn decision_word(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Deny => "deny",
    }
}

/// A label: at most 64 characters (the method's schema), not blank once trimmed.
/// Whether another entry of the store already carries `label` (an entry keeping its own
/// label is not a conflict).
fn label_taken(others: &Map<String, Value>, entry: &Map<String, Value>, label: &str) -> bool {
    entry.get("label").and_then(Value::as_str) != Some(label)
        && others.values().any(|other| other.get("label").and_then(Value::as_str) == Some(label))
}

fn check_label(raw: &str, method: &str) -> Result<String, GatewayError> {
    if raw.chars().count() > LABEL_MAX {
        // The real gateway's schema error, word for word (`label` is `string | null`).
        return Err(gw(format!(
            "invalid {method} params: at /label: must NOT have more than {LABEL_MAX} characters; at /label: must be null; at /label: must match a schema in anyOf"
        )));
    }
    let label = raw.trim();
    if label.is_empty() {
        return Err(gw("invalid label: empty"));
    }
    Ok(label.to_string())
}

impl Loaded {
    /// The stored key of a canonical key in this store.
    pub fn find(&self, canonical: &str, store_agent: &str) -> Option<String> {
        Self::find_in(&self.entries, canonical, store_agent)
    }

    pub fn find_in(entries: &Map<String, Value>, canonical: &str, store_agent: &str) -> Option<String> {
        if entries.contains_key(canonical) {
            return Some(canonical.to_string());
        }
        // Otherwise only a bare key can list as `canonical` (`for_agent` prefixes it with
        // this store's agent), and only one: look it up instead of listing every key.
        let agent = normalize_agent_id(store_agent);
        let bare = canonical.strip_prefix("agent:")?.strip_prefix(agent.as_str())?.strip_prefix(':')?;
        let listed_as_is = bare == "global" || bare == "unknown" || bare.starts_with("agent:");
        (!listed_as_is && entries.contains_key(bare)).then(|| bare.to_string())
    }
}

impl Gateway for EmbeddedGateway {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
        Ok(SessionList { path: Some(self.store_path_label()), sessions: self.list_rows(params) })
    }

    fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
        if p.label.as_deref().is_some_and(|l| l.chars().count() > LABEL_MAX) {
            return Err(gw(format!("invalid sessions.resolve params: at /label: must NOT have more than {LABEL_MAX} characters")));
        }
        // Blank values count as absent.
        let present = |v: &Option<String>| v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let (key, session_id, label) = (present(&p.key), present(&p.session_id), present(&p.label));
        let given = [key.is_some(), session_id.is_some(), label.is_some()].iter().filter(|b| **b).count();
        if given > 1 {
            return Err(gw("Provide either key, sessionId, or label (not multiple)"));
        }
        if given == 0 {
            return Err(gw("Either key, sessionId, or label is required"));
        }
        if let Some(key) = key {
            return match self.find(&key) {
                Some(found) => Ok(found.key),
                None => Err(gw(format!("No session found: {key}"))),
            };
        }
        let stores = self.indexed_stores();
        let list = |label: Option<String>, limit: u32| {
            self.select(
                &stores,
                &ListParams {
                    limit: Some(limit),
                    include_global: p.include_global,
                    include_unknown: p.include_unknown,
                    spawned_by: p.spawned_by.clone(),
                    label,
                    agent_id: p.agent_id.clone(),
                    search: None,
                    active_minutes: None,
                },
            )
        };
        if let Some(id) = session_id {
            let id = id.as_str();
            let rows: Vec<&SessionRow> =
                list(None, u32::MAX).into_iter().map(|r| &r.row).filter(|r| r.session_id.as_deref() == Some(id) || r.key == id).collect();
            return match rows.as_slice() {
                [] => Err(gw(format!("No session found: {id}"))),
                [one] => Ok(one.key.clone()),
                many => Err(gw(format!(
                    "Multiple sessions found for sessionId: {id} ({})",
                    many.iter().map(|r| r.key.as_str()).collect::<Vec<_>>().join(", ")
                ))),
            };
        }
        let label = label.unwrap_or_default();
        let rows = list(Some(label.clone()), 2);
        match rows.as_slice() {
            [] => Err(gw(format!("No session found with label: {label}"))),
            [one] => Ok(one.key.clone()),
            many => Err(gw(format!(
                "Multiple sessions found with label: {label} ({})",
                many.iter().map(|r| r.key.as_str()).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    fn chat_history(&self, p: &HistoryParams) -> GatewayResult<History> {
        let limit = p.limit.map_or(transcript::DEFAULT_LIMIT, |l| l as usize);
        if limit == 0 {
            return Err(gw("invalid chat.history params: at /limit: must be >= 1"));
        }
        if limit > transcript::MAX_LIMIT {
            return Err(gw(format!("invalid chat.history params: at /limit: must be <= {}", transcript::MAX_LIMIT)));
        }
        let Some(found) = self.find(&p.session_key) else {
            return Ok(History::default());
        };
        let session_id = text(&found.entry, "sessionId").map(str::to_string);
        let Some(path) = self.transcript_candidates(&found).into_iter().find(|p| p.is_file()) else {
            return Ok(History { session_id, messages: Vec::new() });
        };
        let messages = transcript::read_messages(&path, limit).map_err(|e| gw(format!("reading {}: {e}", path.display())))?;
        Ok(History { session_id, messages })
    }

    fn agent(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
        if p.message.trim().is_empty() {
            return Err(gw("invalid agent params: at /message: must NOT have fewer than 1 characters"));
        }
        if let Some(channel) = p.channel.as_deref() {
            if !known_channel(channel) {
                return Err(gw(format!("invalid agent params: unknown channel: {channel}")));
            }
        }
        if let Some(label) = &p.label {
            let n = label.chars().count();
            if n == 0 {
                return Err(gw("invalid agent params: at /label: must NOT have fewer than 1 characters"));
            }
            if n > LABEL_MAX {
                return Err(gw(format!("invalid agent params: at /label: must NOT have more than {LABEL_MAX} characters")));
            }
        }
        if let Some(done) = self.runs.get(&p.idempotency_key) {
            // The same idempotency key is the same run.
            return Ok(AgentAccepted { run_id: Some(done) });
        }
        let requested = p.session_key.clone().unwrap_or_else(|| "main".into());
        let existing = self.find(&requested);
        let (decision, _why) = self.policy_for(&requested, existing.as_ref().map(|f| &f.entry))?;
        if decision == Decision::Deny {
            return Err(gw("send blocked by session policy"));
        }
        let parent = p.spawned_by.as_deref().and_then(|s| self.find(s));
        let found = self.upsert(&requested, |entry, others| {
            if let Some(label) = &p.label {
                let label = label.trim();
                if label_taken(others, entry, label) {
                    return Err(format!("label already in use: {label}"));
                }
                entry.insert("label".into(), Value::String(label.to_string()));
            }
            if let Some(spawned_by) = &p.spawned_by {
                if !entry.contains_key("spawnedBy") {
                    entry.insert("spawnedBy".into(), Value::String(self.rules.canonical(spawned_by)));
                }
            }
            if let Some(channel) = p.channel.as_deref().filter(|c| !c.eq_ignore_ascii_case("webchat")) {
                if !entry.contains_key("channel") {
                    entry.insert("channel".into(), Value::String(channel.trim().to_lowercase()));
                }
            }
            // Group fields come from the params, else from the spawning session.
            for (param, field) in [(&p.group_id, "groupId"), (&p.group_channel, "groupChannel"), (&p.group_space, "space")] {
                let inherited = parent.as_ref().and_then(|f| f.entry.get(field)).cloned();
                if let Some(value) = param.clone().map(Value::String).or(inherited) {
                    entry.entry(field.to_string()).or_insert(value);
                }
            }
            if let Some(thinking) = &p.thinking {
                if thinking != "off" {
                    entry.insert("thinkingLevel".into(), Value::String(thinking.clone()));
                }
            }
            Ok(())
        })?;
        let now = self.now();
        self.append(&found, &json!({"role": "user", "content": [{"type": "text", "text": p.message}], "timestamp": now}))?;
        let timeout_s = p.timeout.map_or(self.config.agent_timeout_seconds, u64::from);
        let request = RunRequest {
            run_id: p.idempotency_key.clone(),
            session_key: found.key.clone(),
            agent_id: found.agent_id.clone(),
            message: p.message.clone(),
            extra_system_prompt: p.extra_system_prompt.clone(),
            lane: p.lane.clone(),
            channel: p.channel.clone(),
            params: crate::gateway::wire::agent_params(p),
        };
        let me = self.me.clone();
        self.runs.start(request, std::time::Duration::from_secs(timeout_s.max(1)), self.runtime.clone(), move |request, result| {
            if let Some(gateway) = me.upgrade() {
                gateway.finish_run(request, result);
            }
        });
        Ok(AgentAccepted { run_id: Some(p.idempotency_key.clone()) })
    }

    fn agent_wait(&self, p: &WaitParams) -> GatewayResult<WaitResult> {
        Ok(self.runs.wait(&p.run_id, std::time::Duration::from_millis(p.timeout_ms)))
    }

    fn send(&self, p: &SendParams) -> GatewayResult<()> {
        if p.to.trim().is_empty() {
            return Err(gw("invalid send params: at /to: must NOT have fewer than 1 characters"));
        }
        if p.message.is_empty() {
            return Err(gw("invalid send params: at /message: must NOT have fewer than 1 characters"));
        }
        if let Some(channel) = &p.channel {
            if !known_channel(channel) || channel.eq_ignore_ascii_case("webchat") {
                return Err(gw(format!("unsupported channel: {channel}")));
            }
        }
        self.outbox.deliver(p, self.now()).map_err(|e| gw(format!("recording the delivery: {e}")))
    }

    fn sessions_patch(&self, p: &PatchParams) -> GatewayResult<()> {
        let patch = Patch { label: p.label.clone().map(Some), model: p.model.clone().map(Some), ..Default::default() };
        self.patch(&p.key, &patch).map(|_| ())
    }

    fn sessions_delete(&self, p: &DeleteParams) -> GatewayResult<()> {
        self.delete(&p.key, p.delete_transcript).map(|_| ())
    }
}

impl EmbeddedGateway {
    /// Records a finished run: the reply in the transcript, usage and model on the entry.
    fn finish_run(&self, request: &RunRequest, result: &runs::Finished) {
        let gateway = self;
        let Some(found) = gateway.find(&request.session_key) else {
            return;
        };
        if let Some(reply) = &result.reply {
            let mut message = json!({
                "role": "assistant",
                "content": [{"type": "text", "text": reply}],
                "stopReason": if result.status == "ok" { "stop" } else { "error" },
                "timestamp": result.ended_at,
            });
            if let Some(model) = &result.model {
                let (provider, id) = model.split_once('/').unwrap_or(("", model.as_str()));
                message["provider"] = json!(provider);
                message["model"] = json!(id);
            }
            if let Some(usage) = &result.usage {
                message["usage"] = json!({"input": usage.input_tokens, "output": usage.output_tokens, "totalTokens": usage.total_tokens});
            }
            let _ = gateway.append(&found, &message);
        }
        let _ = gateway.upsert(&request.session_key, |entry, _| {
            if let Some(model) = &result.model {
                let (provider, id) = model.split_once('/').unwrap_or(("", model.as_str()));
                if !provider.is_empty() {
                    entry.insert("modelProvider".into(), json!(provider));
                }
                entry.insert("model".into(), json!(id));
            }
            if let Some(usage) = &result.usage {
                for (field, value) in [("inputTokens", usage.input_tokens), ("outputTokens", usage.output_tokens)] {
                    if let Some(v) = value {
                        entry.insert(field.into(), json!(v as u64));
                    }
                }
                let total = usage.total_tokens.or(usage.input_tokens);
                if let Some(t) = total {
                    entry.insert("totalTokens".into(), json!(t as u64));
                }
            }
            entry.insert("abortedLastRun".into(), Value::Bool(result.status == "timeout"));
            Ok(())
        });
    }
}
