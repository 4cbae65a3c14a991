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
//! The guard works over any gateway: what it needs to know of the spawn tree is the
//! narrow [`SessionTree`] trait.

use std::collections::HashSet;
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
        }
    }

    /// Recomputes the caller's tree from the gateway's spawn edges; answers it, kept. When
    /// the edges cannot be read the tree is the caller's own session only (fail closed).
    fn refresh(&self) -> MutexGuard<'_, HashSet<String>> {
        let Some(own) = &self.own else { return self.visible.lock().unwrap_or_else(|p| p.into_inner()) };
        let mut roots = HashSet::from([own.clone()]);
        roots.extend(self.adopted.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned());
        // Asked without holding the lock: a live gateway answers over the network.
        let visible = self.tree.spawned_trees(&roots).unwrap_or(roots);
        let mut kept = self.visible.lock().unwrap_or_else(|p| p.into_inner());
        *kept = visible;
        kept
    }

    /// Whether a key (in any spelling) is the caller's or in its tree.
    pub fn can_see(&self, key: &str) -> bool {
        let canonical = self.tree.canonical_key(key);
        if self.visible.lock().unwrap_or_else(|p| p.into_inner()).contains(&canonical) {
            return true;
        }
        self.refresh().contains(&canonical)
    }

    fn refuse<T>(&self, method: &str, what: &str) -> GatewayResult<T> {
        let line = format!("{method}: {what}");
        let own = self.own.as_deref().unwrap_or("(none)");
        self.services.log(LogLevel::Warn, &format!("N15: refused {line} for sandboxed session {own}"));
        Err(GatewayError { message: format!("forbidden: {what} is not visible from this sandboxed agent session") })
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
        self.adopted.lock().unwrap_or_else(|p| p.into_inner()).insert(canonical.clone());
        self.visible.lock().unwrap_or_else(|p| p.into_inner()).insert(canonical);
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
        if let Some(key) = &params.key {
            self.check("sessions.resolve", key)?;
        }
        let key = self.inner.sessions_resolve(params)?;
        if key.is_empty() || self.can_see(&key) {
            return Ok(key);
        }
        // The answer names a session outside the tree: refuse without naming it.
        let asked = params
            .session_id
            .as_deref()
            .map(|s| format!("sessionId {s}"))
            .or_else(|| params.label.as_deref().map(|l| format!("label {l}")))
            .unwrap_or_default();
        self.refuse("sessions.resolve", &asked)
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
        let accepted = self.inner.agent(params)?;
        drop(self.refresh()); // a child it just spawned joins the tree
        Ok(accepted)
    }

    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult> {
        match self.tree.run_session(&params.run_id) {
            Some(session) if !self.can_see(&session) => self.refuse("agent.wait", &format!("run {}", params.run_id)),
            _ => self.inner.agent_wait(params),
        }
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
