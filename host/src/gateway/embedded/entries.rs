//! Changing sessions: creating and changing entries (`sessions.patch`, and the entry
//! changes of `agent`), deleting them (`sessions.delete`), and appending to transcripts.
//! Every change re-reads the store under OpenClaw's lock; an entry stored under legacy
//! spellings of its key is merged and moves to the canonical key (G4). On 2026.9's layout
//! the same changes are one SQLite transaction each ([`super::sqlite`]), refused while a
//! gateway holds the state directory.

use session_tools_grammar::js::js_trim;
use std::path::{Path, PathBuf};

use crate::gateway::*;
use serde_json::{json, Map, Value};
use session_tools_grammar::keys::{is_subagent_key, normalize_agent_id};

use super::layout::Layout;
use super::registry::{lookup, spellings, Found, Place};
use super::sqlite::{self, db::describe, events, AgentDb};
use super::store::{Entries, StoreError};
use super::{gw, invalid, transcript, EmbeddedGateway, LABEL_MAX};
use crate::config::expand_home;
use rusqlite::OptionalExtension;
use std::sync::Arc;

/// What a change may ask of the other sessions of its store.
pub trait Labels {
    /// Whether a session other than `except` carries this label.
    fn label_taken(&self, label: &str, except: Option<&str>) -> bool;
}

impl Labels for Entries {
    fn label_taken(&self, label: &str, except: Option<&str>) -> bool {
        Entries::label_taken(self, label, except)
    }
}

/// The sessions of an agent database, inside a write transaction.
struct DbLabels<'a>(&'a rusqlite::Transaction<'a>);

impl Labels for DbLabels<'_> {
    fn label_taken(&self, label: &str, except: Option<&str>) -> bool {
        self.0
            .query_row(
                "SELECT 1 FROM session_nodes WHERE label = ?1 AND session_key IS NOT ?2 AND archived_at IS NULL LIMIT 1",
                rusqlite::params![label, except],
                |_| Ok(()),
            )
            .optional()
            .ok()
            .flatten()
            .is_some()
    }
}

/// A fuller `sessions.patch` than the component's (the CLI and owners use it).
#[derive(Debug, Clone, Default)]
pub struct Patch {
    /// `Some(None)` clears.
    pub label: Option<Option<String>>,
    /// The model override; `Some(None)` clears.
    pub model: Option<Option<String>>,
    /// The session's send-policy override (`allow`, `deny`); `Some(None)` clears.
    pub send_policy: Option<Option<String>>,
    /// `Some(None)` asks to clear it (refused once set).
    pub spawned_by: Option<Option<String>>,
}

/// What `sessions.delete` did.
#[derive(Debug, Clone, PartialEq)]
pub struct Deleted {
    /// The canonical key of the session.
    pub key: String,
    /// Whether an entry was removed.
    pub deleted: bool,
    /// The transcripts archived (renamed `.deleted.<time>`).
    pub archived: Vec<PathBuf>,
}

fn store_err(e: StoreError) -> GatewayError {
    gw(e.to_string())
}

/// `parseSessionLabel` after the method's schema: at most 64 characters as given, not
/// blank once trimmed.
fn check_label(raw: &str, method: &str) -> Result<String, GatewayError> {
    if raw.chars().count() > LABEL_MAX {
        // The real gateway's schema error, word for word (`label` is `string | null`).
        return Err(gw(format!(
            "invalid {method} params: at /label: must NOT have more than {LABEL_MAX} characters; at /label: must be null; at /label: must match a schema in anyOf"
        )));
    }
    let label = js_trim(raw);
    if label.is_empty() {
        return Err(invalid("invalid label: empty"));
    }
    Ok(label.to_string())
}

impl EmbeddedGateway {
    /// Creates or changes a session entry; answers it. `change` also sees the store's
    /// entries (for label uniqueness). A new entry gets a `sessionId` and `updatedAt`.
    pub(super) fn upsert(
        &self,
        key: &str,
        change: impl FnOnce(&mut Map<String, Value>, &dyn Labels, &str) -> Result<(), String>,
    ) -> Result<Found, GatewayError> {
        let canonical = self.rules().canonical(key);
        if canonical.is_empty() {
            return Err(gw("key required"));
        }
        let agent = self.rules().agent_of(&canonical);
        if self.layout() == Layout::Sqlite {
            return self.upsert_row(&canonical, agent, change);
        }
        let store = self.store_for(&agent);
        let now = self.now();
        let store_agent = store.agent_id.clone();
        let entry = store
            .update(|entries| {
                let (spellings, existing) = lookup(entries, &canonical, &store_agent)?.unwrap_or_default();
                let mut entry = if spellings.is_empty() {
                    let mut fresh = Map::new();
                    fresh.insert("sessionId".into(), Value::String(uuid::Uuid::new_v4().to_string()));
                    fresh.insert("updatedAt".into(), json!(now));
                    fresh
                } else {
                    existing
                };
                change(&mut entry, entries, &canonical)?;
                let updated = entry.get("updatedAt").and_then(Value::as_u64).unwrap_or(0).max(now);
                entry.insert("updatedAt".into(), json!(updated));
                // Legacy spellings move to the canonical key.
                for stored in spellings.iter().filter(|s| **s != canonical) {
                    entries.shift_remove(stored);
                }
                entries.insert(canonical.clone(), &entry);
                Ok(entry)
            })
            .map_err(store_err)?;
        Ok(Found { key: canonical.clone(), agent_id: agent, stored_keys: vec![canonical], entry, place: Place::File(store) })
    }

    /// Refuses a write to 2026.9's databases while a gateway holds the state directory
    /// ([`sqlite`] says why).
    fn refuse_beside_gateway(&self) -> Result<(), GatewayError> {
        match sqlite::gateway_hold(self.state_dir(), self.now()) {
            None => Ok(()),
            Some(hold) => {
                let who = match (hold.pid, hold.port) {
                    (Some(pid), Some(port)) => format!(" (pid {pid}, port {port})"),
                    (Some(pid), None) => format!(" (pid {pid})"),
                    _ => String::new(),
                };
                Err(gw(format!(
                    "an OpenClaw 2026.9 gateway{who} holds the state directory {}: while it runs its own writer owns the session databases, so this host does not write them; use --gateway local to work through that gateway, or stop it first",
                    self.state_dir().display()
                )))
            }
        }
    }

    /// [`Self::upsert`] on 2026.9's layout: the entry read, changed and written back in one
    /// transaction, with the columns the gateway projects from it; a new session gets its
    /// transcript generation (`session_windows`), as the gateway's entry writer makes it.
    fn upsert_row(
        &self,
        canonical: &str,
        agent: String,
        change: impl FnOnce(&mut Map<String, Value>, &dyn Labels, &str) -> Result<(), String>,
    ) -> Result<Found, GatewayError> {
        self.refuse_beside_gateway()?;
        let db = self.db_for(&agent);
        let now = self.now();
        let sql = |e: rusqlite::Error| describe(&db.path, &e);
        let entry = db
            .write(|tx| {
                let existing: Option<(String, Option<i64>)> = tx
                    .query_row("SELECT entry_json, archived_at FROM session_nodes WHERE session_key = ?1", [canonical], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })
                    .optional()
                    .map_err(sql)?;
                let fresh = existing.is_none();
                let mut entry = match existing {
                    Some((_, Some(_))) => return Err(format!("session {canonical} is archived; unarchive it in OpenClaw first")),
                    Some((json, None)) => match serde_json::from_str::<Value>(&json) {
                        Ok(Value::Object(entry)) => entry,
                        _ => {
                            return Err(format!(
                                "the entry of {canonical} in {} is not a JSON object; refusing to replace it",
                                db.path.display()
                            ))
                        }
                    },
                    None => {
                        let mut fresh = Map::new();
                        fresh.insert("sessionId".into(), Value::String(uuid::Uuid::new_v4().to_string()));
                        fresh.insert("lifecycleRevision".into(), Value::String(uuid::Uuid::new_v4().to_string()));
                        fresh.insert("updatedAt".into(), json!(now));
                        fresh.insert("createdVia".into(), json!("operator"));
                        fresh.insert("createdAt".into(), json!(now));
                        fresh
                    }
                };
                change(&mut entry, &DbLabels(tx), canonical)?;
                let updated = entry.get("updatedAt").and_then(Value::as_u64).unwrap_or(0).max(now);
                entry.insert("updatedAt".into(), json!(updated));
                // 2026.9 derives a session's channel from its delivery; a child's parent is
                // `parentSessionKey` as well as `spawnedBy` (E5), as its own spawn writes it.
                entry.shift_remove("channel");
                let spawned_by = entry.get("spawnedBy").and_then(Value::as_str).map(str::to_string);
                if let (Some(parent), false) = (&spawned_by, entry.contains_key("parentSessionKey")) {
                    entry.insert("parentSessionKey".into(), Value::String(parent.clone()));
                }
                if fresh && spawned_by.is_some() {
                    entry.insert("createdVia".into(), json!("spawn"));
                }
                sqlite::db::put_node(tx, canonical, &entry, fresh, now as i64).map_err(sql)?;
                let session_id = entry.get("sessionId").and_then(Value::as_str).map(str::to_string).unwrap_or_default();
                let label = entry.get("label").and_then(Value::as_str).map(str::to_string);
                events::ensure_window(tx, &session_id, canonical, label.as_deref(), now as i64).map_err(sql)?;
                Ok(entry)
            })
            .map_err(gw)?;
        let entry = sqlite::entries::documents_shape(entry);
        Ok(Found { key: canonical.to_string(), agent_id: agent, stored_keys: vec![canonical.to_string()], entry, place: Place::Db(db) })
    }

    /// `sessions.patch`, in full.
    pub fn patch(&self, key: &str, patch: &Patch) -> Result<Found, GatewayError> {
        let canonical = self.rules().canonical(key);
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
                let p = js_trim(p).to_lowercase();
                if p != "allow" && p != "deny" {
                    return Err(invalid(format!("invalid sessions.patch params: sendPolicy must be allow, deny or null (got {p})")));
                }
                Some(Some(p))
            }
            other => other.clone(),
        };
        if patch.spawned_by.is_some() && !is_subagent_key(&canonical) {
            return Err(gw("spawnedBy is only supported for subagent:* sessions"));
        }
        self.upsert(key, |entry, others, canonical| {
            if let Some(label) = &label {
                match label {
                    Some(label) => {
                        // Only `sessions.patch` keeps labels unique in a store (the real
                        // gateway's `agent` does not check).
                        if others.label_taken(label, Some(canonical)) && entry.get("label").and_then(Value::as_str) != Some(label) {
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
                    let parent = self.rules().canonical(parent);
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
        let reference = js_trim(raw);
        if reference.is_empty() {
            return Err(invalid("invalid model: empty"));
        }
        let (provider, model) = match reference.split_once('/') {
            Some((p, m)) if !js_trim(p).is_empty() && !js_trim(m).is_empty() => (js_trim(p).to_lowercase(), js_trim(m).to_string()),
            Some(_) => return Err(invalid(format!("invalid model: {reference}"))),
            None => ("anthropic".to_string(), reference.to_string()),
        };
        let full = format!("{provider}/{model}");
        if let Some(allow) = &self.config().model_allowlist {
            if !allow.iter().any(|a| js_trim(a).eq_ignore_ascii_case(&full) || js_trim(a) == reference) {
                return Err(invalid(format!("model not allowed: {full}")));
            }
        }
        if full == self.config().default_model() {
            return Ok(None);
        }
        Ok(Some((provider, model)))
    }

    /// `sessions.delete`: the entry (every spelling of its key) is removed and its
    /// transcripts archived; the main session cannot be deleted.
    pub fn delete(&self, key: &str, delete_transcript: bool) -> Result<Deleted, GatewayError> {
        let canonical = self.rules().canonical(key);
        if canonical.is_empty() {
            return Err(gw("key required"));
        }
        if self.rules().is_main(&canonical) {
            return Err(gw(format!("Cannot delete the main session ({canonical}).")));
        }
        let found = self.find(&canonical)?;
        let agent = self.rules().agent_of(&canonical);
        if self.layout() == Layout::Sqlite {
            return self.delete_row(&canonical, &agent);
        }
        let store = self.store_for(&agent);
        let store_agent = store.agent_id.clone();
        let removed = store
            .update(|entries| {
                let spellings = spellings(entries, &canonical, &store_agent);
                for stored in &spellings {
                    entries.shift_remove(stored);
                }
                Ok(!spellings.is_empty())
            })
            .map_err(store_err)?;
        let mut archived = Vec::new();
        if let (true, Some(found)) = (delete_transcript, &found) {
            for file in self.transcript_candidates(found)?.into_iter().filter(|f| f.exists()) {
                match transcript::archive(&file, "deleted", self.now()) {
                    Ok(to) => archived.push(to),
                    Err(e) => return Err(gw(format!("archiving {}: {e}", file.path().display()))),
                }
            }
        }
        Ok(Deleted { key: canonical, deleted: removed, archived })
    }

    /// [`Self::delete`] on 2026.9's layout: the row and its transcript generations go (the
    /// schema's foreign keys take the events with them), after the transcript's lines are
    /// archived as `<sessionId>.jsonl.deleted.<time>` in the agent's `sessions/` directory,
    /// whether or not `deleteTranscript` asks: a transcript is never lost.
    fn delete_row(&self, canonical: &str, agent: &str) -> Result<Deleted, GatewayError> {
        self.refuse_beside_gateway()?;
        let db = self.db_for(agent);
        if !db.exists() {
            return Ok(Deleted { key: canonical.to_string(), deleted: false, archived: Vec::new() });
        }
        let now = self.now();
        let sessions_dir = self.state_dir().join("agents").join(agent).join("sessions");
        let sql = |e: rusqlite::Error| describe(&db.path, &e);
        let (deleted, archived) = db
            .write(|tx| {
                let session_id: Option<String> = tx
                    .query_row("SELECT current_session_id FROM session_nodes WHERE session_key = ?1", [canonical], |r| r.get(0))
                    .optional()
                    .map_err(sql)?;
                let Some(session_id) = session_id else { return Ok((false, Vec::new())) };
                let mut archived = Vec::new();
                let windows: Vec<String> = {
                    let mut stmt = tx.prepare("SELECT session_id FROM session_windows WHERE session_key = ?1").map_err(sql)?;
                    let ids =
                        stmt.query_map([canonical], |r| r.get(0)).map_err(sql)?.collect::<rusqlite::Result<Vec<String>>>().map_err(sql)?;
                    ids
                };
                let mut ids = windows;
                if !ids.contains(&session_id) {
                    ids.push(session_id);
                }
                for id in ids.iter().filter(|id| transcript::valid_session_id(id)) {
                    let lines = events::lines(tx, id).map_err(sql)??;
                    if lines.is_empty() {
                        continue;
                    }
                    let stamp = super::timestamps::iso_time(now).replace(':', "-");
                    let file = sessions_dir.join(format!("{id}.jsonl.deleted.{stamp}"));
                    let mut text = lines.join("\n");
                    text.push('\n');
                    crate::private_files::create_private_dir(&sessions_dir)
                        .and_then(|()| {
                            crate::private_files::write_atomically(&file, text.as_bytes(), crate::private_files::Durability::Synced)
                        })
                        .map_err(|e| format!("archiving the transcript of {canonical} to {}: {e}", file.display()))?;
                    archived.push(file);
                }
                tx.execute("DELETE FROM session_windows WHERE session_key = ?1", [canonical]).map_err(sql)?;
                tx.execute("DELETE FROM session_nodes WHERE session_key = ?1", [canonical]).map_err(sql)?;
                Ok((true, archived))
            })
            .map_err(gw)?;
        Ok(Deleted { key: canonical.to_string(), deleted, archived })
    }

    /// Appends a message line to a session's transcript in its agent database.
    fn append_row(&self, found: &Found, db: &Arc<AgentDb>, message: &Value, entry_id: &str, check: bool) -> Result<bool, GatewayError> {
        self.refuse_beside_gateway()?;
        let Some(id) = self.session_id(found)? else {
            return Err(gw(format!("session {} has no sessionId", found.key)));
        };
        let cwd = self.workspace(&found.agent_id);
        let now = self.now();
        let sql = |e: rusqlite::Error| describe(&db.path, &e);
        db.write(|tx| {
            if check && events::has_event(tx, id, entry_id).map_err(sql)? {
                return Ok(false);
            }
            events::append(tx, id, &found.key, &cwd, now, message, entry_id)
                .map(|()| true)
                .map_err(|e| format!("writing the transcript of {} in {}: {e}", found.key, db.path.display()))
        })
        .map_err(gw)
    }

    /// The agent's workspace (the `cwd` of new transcripts).
    fn workspace(&self, agent_id: &str) -> String {
        let raw = &self.config().raw;
        let default_agent = &self.config().default_agent;
        let from_list = raw
            .get("agents")
            .and_then(|a| a.get("list"))
            .and_then(Value::as_array)
            .and_then(|l| l.iter().find(|e| e.get("id").and_then(Value::as_str).map(normalize_agent_id).as_deref() == Some(agent_id)))
            .and_then(|e| e.get("workspace"))
            .and_then(Value::as_str);
        let default = raw.get("agents").and_then(|a| a.get("defaults")).and_then(|d| d.get("workspace")).and_then(Value::as_str);
        let chosen = from_list.map(str::to_string).or_else(|| (agent_id == default_agent).then(|| default.map(str::to_string)).flatten());
        let path = chosen.unwrap_or_else(|| if agent_id == default_agent { "~/clawd".into() } else { format!("~/clawd-{agent_id}") });
        expand_home(Path::new(&path)).display().to_string()
    }

    /// Appends a message to a session's transcript.
    pub fn append(&self, found: &Found, message: &Value) -> Result<(), GatewayError> {
        if let Place::Db(db) = &found.place {
            return self.append_row(found, db, message, &super::runs::new_entry_id(), false).map(|_| ());
        }
        let Some(id) = self.session_id(found)? else {
            return Err(gw(format!("session {} has no sessionId", found.key)));
        };
        let file = self.transcript_path(found)?.ok_or_else(|| gw(format!("session {} has no transcript path", found.key)))?;
        transcript::append_message(&file, id, &self.workspace(&found.agent_id), self.now(), message, None)
            .map(|_| ())
            .map_err(|e| gw(format!("writing the transcript {}: {e}", file.path().display())))
    }

    /// Appends a message to a session's transcript under a chosen entry id; with `check`,
    /// only if the transcript has no entry with that id yet (a run's message or reply
    /// recorded again after its process died half way). Answers whether it was
    /// appended now.
    pub fn append_entry(&self, found: &Found, message: &Value, entry_id: &str, check: bool) -> Result<bool, GatewayError> {
        if let Place::Db(db) = &found.place {
            return self.append_row(found, db, message, entry_id, check);
        }
        let Some(id) = self.session_id(found)? else {
            return Err(gw(format!("session {} has no sessionId", found.key)));
        };
        let file = self.transcript_path(found)?.ok_or_else(|| gw(format!("session {} has no transcript path", found.key)))?;
        let written = |e: std::io::Error| gw(format!("writing the transcript {}: {e}", file.path().display()));
        if check && transcript::has_entry(&file, entry_id).map_err(written)? {
            return Ok(false);
        }
        transcript::append_message(&file, id, &self.workspace(&found.agent_id), self.now(), message, Some(entry_id))
            .map(|_| true)
            .map_err(written)
    }
}
