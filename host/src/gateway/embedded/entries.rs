//! Changing sessions: creating and changing entries (`sessions.patch`, and the entry
//! changes of `agent`), deleting them (`sessions.delete`), and appending to transcripts.
//! Every change re-reads the store under OpenClaw's lock; an entry stored under legacy
//! spellings of its key is merged and moves to the canonical key (G4).

use std::path::{Path, PathBuf};

use crate::gateway::*;
use serde_json::{json, Map, Value};
use session_tools_guest::keys::{is_subagent_key, normalize_agent_id};

use super::registry::{lookup, spellings, Found};
use super::store::{Entries, StoreError};
use super::{gw, invalid, transcript, EmbeddedGateway, LABEL_MAX};
use crate::config::expand_home;

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
    let label = raw.trim();
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
        change: impl FnOnce(&mut Map<String, Value>, &Entries, &str) -> Result<(), String>,
    ) -> Result<Found, GatewayError> {
        let canonical = self.rules().canonical(key);
        if canonical.is_empty() {
            return Err(gw("key required"));
        }
        let agent = self.rules().agent_of(&canonical);
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
        Ok(Found { key: canonical.clone(), agent_id: agent, stored_keys: vec![canonical], entry, store })
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
                let p = p.trim().to_lowercase();
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
        let reference = raw.trim();
        if reference.is_empty() {
            return Err(invalid("invalid model: empty"));
        }
        let (provider, model) = match reference.split_once('/') {
            Some((p, m)) if !p.trim().is_empty() && !m.trim().is_empty() => (p.trim().to_lowercase(), m.trim().to_string()),
            Some(_) => return Err(invalid(format!("invalid model: {reference}"))),
            None => ("anthropic".to_string(), reference.to_string()),
        };
        let full = format!("{provider}/{model}");
        if let Some(allow) = &self.config().model_allowlist {
            if !allow.iter().any(|a| a.trim().eq_ignore_ascii_case(&full) || a.trim() == reference) {
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
    /// recorded again after its process died half way, issue 20).
    pub fn append_entry(&self, found: &Found, message: &Value, entry_id: &str, check: bool) -> Result<(), GatewayError> {
        let Some(id) = self.session_id(found)? else {
            return Err(gw(format!("session {} has no sessionId", found.key)));
        };
        let file = self.transcript_path(found)?.ok_or_else(|| gw(format!("session {} has no transcript path", found.key)))?;
        let written = |e: std::io::Error| gw(format!("writing the transcript {}: {e}", file.path().display()));
        if check && transcript::has_entry(&file, entry_id).map_err(written)? {
            return Ok(());
        }
        transcript::append_message(&file, id, &self.workspace(&found.agent_id), self.now(), message, Some(entry_id))
            .map(|_| ())
            .map_err(written)
    }
}
