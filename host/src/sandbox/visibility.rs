//! Host-side visibility (N15): for a sandboxed agent whose visibility is `spawned`, every
//! gateway call its guest makes is checked by the host against the caller's own session
//! and the sessions spawned from it, transitively (including sessions spawned during the
//! run). Keys are compared in the gateway's canonical form, so no spelling (case,
//! whitespace, `agent:` prefixes, `main` aliases) gets around it. A refused call is a
//! gateway error for the guest and a log line for the host; list answers are filtered.
//!
//! The guard fails closed: a caller with no session sees nothing, and a new sub-agent
//! session joins the tree only in an agent the caller may spawn for
//! (`subagents.allowAgents`, ref §3.4.2), whatever the guest asks.
//!
//! Runs are the caller's only when that can be shown: `agent.wait` is answered for a run
//! the gateway says belongs to a visible session, or that this guard saw the caller start,
//! and refused for any other (unknown included). Every run the caller starts gets an
//! idempotency key derived here from the caller's session and the guest's key, never the
//! guest's own: a gateway that answers a known key with the run it already has (OpenClaw
//! does) cannot hand the caller a run of another session, a key that is another session's
//! run is refused outright, and the same step made again after a stop is still the same
//! run (issue 20).
//!
//! What does not resolve and what resolves outside the tree get the same answer, so a
//! restricted caller cannot tell whether a session, a label or a sessionId exists.
//!
//! The guard works over any gateway: what it needs to know of the spawn tree is the
//! narrow [`SessionTree`] trait.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use super::Services;
use crate::gateway::*;
use session_tools_guest::channels::target_from_key;
use session_tools_guest::keys::{is_subagent_key, normalize_agent_id, parse_agent_key};
use session_tools_guest::ports::LogLevel;

/// The agents a restricted caller may spawn sub-agent sessions in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpawnAgents {
    /// `*` is in `subagents.allowAgents`.
    pub any: bool,
    /// The caller's own agent and the agents `subagents.allowAgents` names.
    pub ids: Vec<String>,
}

impl SpawnAgents {
    fn allows(&self, agent: &str) -> bool {
        self.any || self.ids.iter().any(|id| id == agent)
    }
}

/// A gateway as seen by one restricted caller.
pub struct VisibilityGuard {
    inner: Arc<dyn Gateway>,
    tree: Arc<dyn SessionTree>,
    services: Arc<dyn Services>,
    /// The caller's own session, canonical; `None`: a caller without a session, which
    /// sees nothing.
    own: Option<String>,
    spawn_agents: SpawnAgents,
    /// The caller's session and its spawned tree, canonical (computed at the first miss,
    /// and again on every miss).
    visible: Mutex<HashSet<String>>,
    /// Sub-agent sessions this caller created through the guard (a spawn's `sessions.patch`
    /// of its child comes before the `agent` call that records the child's parent): they
    /// are in its tree from the moment they are created.
    adopted: Mutex<HashSet<String>>,
    /// Runs this caller started through the guard.
    started: Mutex<HashSet<String>>,
    /// The idempotency key given to the gateway for each key of the guest.
    keys: Mutex<HashMap<String, String>>,
}

/// `own_key`'s derivation: SHA-256 of a domain tag and the two keys, length-prefixed, its
/// first 16 bytes with the UUID v4 version and variant bits.
fn derived_key(own: &str, guest_key: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut digest = Sha256::new();
    for part in ["session-tools/n15-run-key", own, guest_key] {
        digest.update((part.len() as u64).to_le_bytes());
        digest.update(part.as_bytes());
    }
    let mut bytes: [u8; 16] = digest.finalize()[..16].try_into().unwrap_or([0; 16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    uuid::Uuid::from_bytes(bytes).to_string()
}

fn agent_of(canonical: &str) -> Option<String> {
    parse_agent_key(canonical).map(|p| normalize_agent_id(&p.agent_id))
}

impl VisibilityGuard {
    /// The gateway as `caller_key` may see it (`None`: a caller without a session).
    pub fn new(
        inner: Arc<dyn Gateway>,
        tree: Arc<dyn SessionTree>,
        services: Arc<dyn Services>,
        caller_key: Option<&str>,
        spawn_agents: SpawnAgents,
    ) -> VisibilityGuard {
        let own = caller_key.map(|key| tree.canonical_key(key));
        VisibilityGuard {
            inner,
            tree,
            services,
            own,
            spawn_agents,
            visible: Mutex::new(HashSet::new()),
            adopted: Mutex::new(HashSet::new()),
            started: Mutex::new(HashSet::new()),
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Recomputes the caller's tree from the gateway's spawn edges; answers it, kept. When
    /// the edges cannot be read the tree is the caller's own session only (fail closed).
    fn refresh(&self) -> MutexGuard<'_, HashSet<String>> {
        let Some(own) = &self.own else { return crate::poison::lock_rebuilt(&self.visible) };
        let mut roots = HashSet::from([own.clone()]);
        roots.extend(crate::poison::lock_rebuilt(&self.adopted).iter().cloned());
        // Asked without holding the lock: a live gateway answers over the network.
        let visible = self.tree.spawned_trees(&roots).unwrap_or(roots);
        let mut kept = crate::poison::lock_rebuilt(&self.visible);
        *kept = visible;
        kept
    }

    /// Whether a key (in any spelling) is the caller's or in its tree.
    pub fn can_see(&self, key: &str) -> bool {
        let canonical = self.tree.canonical_key(key);
        if crate::poison::lock_rebuilt(&self.visible).contains(&canonical) {
            return true;
        }
        self.refresh().contains(&canonical)
    }

    fn refuse<T>(&self, method: &str, what: &str) -> GatewayResult<T> {
        let line = format!("{method}: {what}");
        let own = self.own.as_deref().unwrap_or("(none)");
        self.services.log(LogLevel::Warn, &format!("N15: refused {line} for sandboxed session {own}"));
        crate::telemetry::n15_refusal(own, method);
        Err(GatewayError::of(ErrorKind::Forbidden, format!("forbidden: {what} is not visible from this sandboxed agent session")))
    }

    fn check(&self, method: &str, key: &str) -> GatewayResult<()> {
        if self.can_see(key) {
            Ok(())
        } else {
            self.refuse(method, &format!("session {}", key.trim()))
        }
    }

    /// Whether `key` names a sub-agent session the caller is creating right now: a key that
    /// does not exist yet, spawned from the caller's tree (`parent`), in an agent the caller
    /// may spawn for. Such a session joins the tree as it is created.
    fn is_new_child(&self, key: &str, parent: Option<&str>) -> bool {
        let canonical = self.tree.canonical_key(key);
        is_subagent_key(&canonical)
            && matches!(self.tree.exists(&canonical), Ok(false))
            && agent_of(&canonical).is_some_and(|agent| self.spawn_agents.allows(&agent))
            && parent.is_some_and(|parent| self.can_see(parent))
    }

    /// A new child joins the caller's tree.
    fn adopt(&self, key: &str) {
        let canonical = self.tree.canonical_key(key);
        crate::poison::lock_rebuilt(&self.adopted).insert(canonical.clone());
        crate::poison::lock_rebuilt(&self.visible).insert(canonical);
    }

    /// Whether a run is the caller's: the gateway says it belongs to a visible session, or
    /// (when the gateway does not know it) the caller started it through this guard.
    fn owns_run(&self, run_id: &str) -> bool {
        match self.tree.run_session(run_id) {
            Some(session) => self.can_see(&session),
            None => crate::poison::lock_rebuilt(&self.started).contains(run_id),
        }
    }

    /// The idempotency key the gateway gets for the guest's: derived from the caller's own
    /// session and the guest's key (SHA-256, in UUID v4 form). The same key from the same
    /// caller is the same run — a flow step or a call made again after a stop (issue 20)
    /// sends the key it sent before, which the gateway de-duplicates — and no key a guest
    /// chooses can name another caller's run (that would take a preimage of SHA-256).
    fn own_key(&self, guest_key: &str) -> String {
        let mut keys = crate::poison::lock_rebuilt(&self.keys);
        keys.entry(guest_key.to_string()).or_insert_with(|| derived_key(self.own.as_deref().unwrap_or(""), guest_key)).clone()
    }

    /// Delivery targets the caller may post to: those of its visible sessions.
    fn may_send_to(&self, channel: Option<&str>, to: &str) -> bool {
        let visible = self.refresh().clone();
        let rows = self.tree.rows_of(&visible).unwrap_or_default();
        rows.iter().any(|row| {
            let dc = row.delivery_context.as_ref();
            let channel_ok = |c: Option<&str>| channel.is_none_or(|want| c.is_some_and(|c| c.eq_ignore_ascii_case(want)));
            let from_row = (dc.and_then(|d| d.to.as_deref()) == Some(to) && channel_ok(dc.and_then(|d| d.channel.as_deref())))
                || (row.last_to.as_deref() == Some(to) && channel_ok(row.last_channel.as_deref()));
            let from_key = target_from_key(&row.key).is_some_and(|t| t.to == to && channel_ok(Some(&t.channel)));
            from_row || from_key
        })
    }
}

impl Gateway for VisibilityGuard {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
        let mut list = self.inner.sessions_list(params)?;
        let visible = self.refresh();
        list.sessions.retain(|row| visible.contains(&row.key));
        Ok(list)
    }

    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String> {
        let asked = match (&params.key, &params.session_id, &params.label) {
            (Some(key), _, _) => format!("session {}", key.trim()),
            (None, Some(id), _) => format!("sessionId {id}"),
            (None, None, Some(label)) => format!("label {label}"),
            (None, None, None) => "session".to_string(),
        };
        if params.key.as_deref().is_some_and(|key| !self.can_see(key)) {
            return self.refuse("sessions.resolve", &asked);
        }
        match self.inner.sessions_resolve(params) {
            Ok(key) if !key.is_empty() && self.can_see(&key) => Ok(key),
            // Nothing found, a session outside the tree, or a failure: one answer, which
            // names nothing the caller did not ask for (the component masks them alike).
            _ => self.refuse("sessions.resolve", &asked),
        }
    }

    fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History> {
        self.check("chat.history", &params.session_key)?;
        self.inner.chat_history(params)
    }

    fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        // Each key checked; only the visible ones go to the gateway, and the answers are
        // put back in their places.
        let checked: Vec<GatewayResult<()>> = params.iter().map(|p| self.check("chat.history", &p.session_key)).collect();
        let allowed: Vec<HistoryParams> = params.iter().zip(&checked).filter(|(_, c)| c.is_ok()).map(|(p, _)| p.clone()).collect();
        let mut answers = self.inner.chat_histories(&allowed).into_iter();
        checked
            .into_iter()
            .map(|check| match check {
                Ok(()) => answers.next().unwrap_or_else(|| Err(GatewayError::new("the gateway answered too few histories"))),
                Err(refusal) => Err(refusal),
            })
            .collect()
    }

    fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted> {
        let key = params.session_key.as_deref().unwrap_or("main");
        if !self.can_see(key) {
            if !self.is_new_child(key, params.spawned_by.as_deref()) {
                return self.refuse("agent", &format!("session {}", key.trim()));
            }
            self.adopt(key);
        }
        // A run of another session keeps its session (first writer wins): its key is
        // refused, and the gateway gets a key of the guard's own for every run.
        let guest_key = &params.idempotency_key;
        if self.tree.run_session(guest_key).is_some_and(|session| !self.can_see(&session)) {
            return self.refuse("agent", &format!("run {guest_key}"));
        }
        let key = self.own_key(guest_key);
        let accepted = self.inner.agent(&AgentParams { idempotency_key: key.clone(), ..params.clone() })?;
        let run = accepted.run_id.filter(|r| !r.is_empty()).unwrap_or(key);
        if self.tree.run_session(&run).is_none_or(|session| self.can_see(&session)) {
            crate::poison::lock_rebuilt(&self.started).insert(run.clone());
        }
        drop(self.refresh()); // a child it just spawned joins the tree
        Ok(AgentAccepted { run_id: Some(run) })
    }

    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult> {
        if !self.owns_run(&params.run_id) {
            return self.refuse("agent.wait", &format!("run {}", params.run_id));
        }
        self.inner.agent_wait(params)
    }

    fn send(&self, params: &SendParams) -> GatewayResult<()> {
        if !self.may_send_to(params.channel.as_deref(), &params.to) {
            return self.refuse("send", &format!("target {}:{}", params.channel.as_deref().unwrap_or("?"), params.to));
        }
        self.inner.send(params)
    }

    fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()> {
        // A spawn configures its new child (its model) before it starts it: the caller may
        // create that session, and nothing else outside its tree (issue 11).
        if !self.can_see(&params.key) {
            if !self.is_new_child(&params.key, self.own.as_deref()) {
                return self.refuse("sessions.patch", &format!("session {}", params.key.trim()));
            }
            self.adopt(&params.key);
        }
        self.inner.sessions_patch(params)
    }

    fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()> {
        self.check("sessions.delete", &params.key)?;
        self.inner.sessions_delete(params)
    }
}

#[cfg(test)]
mod tests {
    /// The shared vectors (`tests/fixtures/derived-run-keys.json`, made by an independent
    /// implementation), which the plugin's guard checks too.
    #[test]
    fn run_keys_are_derived_as_both_hosts_derive_them() {
        let text = include_str!("../../../tests/fixtures/derived-run-keys.json");
        let file: serde_json::Value = serde_json::from_str(text).unwrap();
        let vectors = file["vectors"].as_array().unwrap();
        assert!(!vectors.is_empty());
        for v in vectors {
            let (own, guest, key) = (v["own"].as_str().unwrap(), v["guestKey"].as_str().unwrap(), v["key"].as_str().unwrap());
            assert_eq!(super::derived_key(own, guest), key, "{v}");
        }
    }
}
