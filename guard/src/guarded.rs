//! The N15 guard: for a restricted caller, every gateway call the component behind it makes
//! is checked against the caller's own session and the sessions spawned from it,
//! transitively (including sessions spawned during the run). Keys are compared in the
//! gateway's canonical form, so no spelling (case, whitespace, `agent:` prefixes, `main`
//! aliases) gets around it. A refused call is a gateway error of kind `forbidden` for the
//! component, and a log line for the host; list answers are filtered.
//!
//! The guard fails closed: a caller with no session sees nothing, and a new sub-agent
//! session joins the tree only in an agent the caller may spawn for
//! (`subagents.allowAgents`, ref §3.4.2), whatever the component asks.
//!
//! Runs are the caller's only when that can be shown: `agent.wait` is answered for a run
//! the host says belongs to a visible session, or that this guard saw the caller start,
//! and refused for any other (unknown included). Every run the caller starts gets an
//! idempotency key derived here from the caller's session and the component's key, never
//! the component's own: a gateway that answers a known key with the run it already has
//! (OpenClaw does) cannot hand the caller a run of another session, a key that is another
//! session's run is refused outright, and the same step made again after a stop is still
//! the same run.
//!
//! What does not resolve and what resolves outside the tree get the same answer, so a
//! restricted caller cannot tell whether a session, a label or a sessionId exists.
//!
//! OpenClaw 2026.9's `tools.sessions.visibility` (E3) narrows on top, for any caller:
//! `self` keeps its own session, `agent` the sessions of its agent, `tree` the sessions it
//! spawned (and, from its agent's main session, every session of its agent). The sessions
//! the caller spawned itself stay within reach under every scope (a cross-agent one only
//! when it is a sub-agent or ACP session, as in 2026.9): the tools' own flows read and wait
//! on the child a spawn started. What the tools show is narrowed exactly as 2026.9 says by
//! the tools themselves; this is the second, independent enforcement (N15), and it never
//! lets more through than the documents' rules do.

use session_tools_grammar::js::js_trim;
use std::cell::RefCell;
// Ordered sets and maps: std's hashed ones would seed themselves from the host's randomness
// (`wasi:random/insecure-seed`), which a component is not given (N16).
use std::collections::{BTreeMap, BTreeSet};

use session_tools_contract::{
    AgentAccepted, AgentParams, DeleteParams, ErrorKind, Gateway, GatewayError, GatewayResult, History, HistoryParams, ListParams,
    PatchParams, ResolveParams, SendParams, SessionList, SessionRow, WaitParams, WaitResult,
};
use session_tools_grammar::channels::target_from_key;
use session_tools_grammar::keys::{is_acp_key, is_subagent_key, normalize_agent_id, parse_agent_key, KeyRules};

use crate::access::{Restriction, Scope};
use crate::run_keys::derived_key;

/// What the guard must know of the sessions beyond the gateway's calls (the WIT `tree`).
pub trait Tree {
    /// The sessions of the spawn trees of `roots` (canonical keys), the roots included.
    fn spawned_trees(&self, roots: &BTreeSet<String>) -> GatewayResult<BTreeSet<String>>;
    /// The rows of these sessions (canonical keys).
    fn rows_of(&self, keys: &BTreeSet<String>) -> GatewayResult<Vec<SessionRow>>;
    /// Whether a session exists (canonical key).
    fn exists(&self, key: &str) -> GatewayResult<bool>;
    /// The session a run belongs to, when the host knows it.
    fn run_session(&self, run_id: &str) -> Option<String>;
}

/// Where the guard reports the calls it refuses (the WIT `audit`).
pub trait Audit {
    /// A call refused: the method, what it named, the caller's own session.
    fn refused(&self, method: &str, what: &str, own: &str);
}

/// A gateway as seen by one restricted caller. Single-threaded: a component instance (or
/// a test) owns it.
pub struct Guarded<G, T, H> {
    inner: G,
    tree: T,
    host: H,
    rules: KeyRules,
    restriction: Restriction,
    /// The caller's own session, canonical; `None`: a caller without a session, which
    /// sees nothing.
    own: Option<String>,
    /// The caller's session and its spawned tree, canonical (computed at the first miss,
    /// and again on every miss; N15, for a caller restricted to it).
    visible: RefCell<BTreeSet<String>>,
    /// The sessions spawned from the caller's own, canonical (E3's scopes keep them;
    /// computed with the tree).
    children: RefCell<BTreeSet<String>>,
    /// Sub-agent sessions this caller created through the guard (a spawn's `sessions.patch`
    /// of its child comes before the `agent` call that records the child's parent): they
    /// are in its tree from the moment they are created.
    adopted: RefCell<BTreeSet<String>>,
    /// Runs this caller started through the guard.
    started: RefCell<BTreeSet<String>>,
    /// The idempotency key given to the gateway for each key of the component.
    keys: RefCell<BTreeMap<String, String>>,
}

fn agent_of(canonical: &str) -> Option<String> {
    parse_agent_key(canonical).map(|p| normalize_agent_id(&p.agent_id))
}

impl<G: Gateway, T: Tree, H: Audit> Guarded<G, T, H> {
    /// The gateway as the restricted caller may see it.
    pub fn new(inner: G, tree: T, host: H, rules: KeyRules, restriction: Restriction) -> Self {
        let own = restriction.own.as_deref().map(|key| rules.canonical(key));
        Guarded {
            inner,
            tree,
            host,
            rules,
            restriction,
            own,
            visible: RefCell::new(BTreeSet::new()),
            children: RefCell::new(BTreeSet::new()),
            adopted: RefCell::new(BTreeSet::new()),
            started: RefCell::new(BTreeSet::new()),
            keys: RefCell::new(BTreeMap::new()),
        }
    }

    /// Recomputes what the caller's restriction needs from the host's spawn edges: the
    /// tree under N15, the direct children under E3. When the edges cannot be read, what
    /// could not be read is empty, apart from what this guard saw (fail closed).
    fn refresh(&self) {
        let Some(own) = &self.own else { return };
        let adopted = self.adopted.borrow().clone();
        if self.restriction.spawned_only {
            let mut roots = BTreeSet::from([own.clone()]);
            roots.extend(adopted.iter().cloned());
            let visible = self.tree.spawned_trees(&roots).unwrap_or(roots);
            *self.visible.borrow_mut() = visible;
        }
        if self.restriction.scope != Scope::All {
            let asked = ListParams {
                spawned_by: Some(own.clone()),
                include_global: Some(false),
                include_unknown: Some(false),
                ..ListParams::default()
            };
            let mut children: BTreeSet<String> = match self.inner.sessions_list(&asked) {
                Ok(list) => list.sessions.into_iter().map(|row| self.rules.canonical(&row.key)).collect(),
                Err(_) => BTreeSet::new(),
            };
            children.extend(adopted);
            *self.children.borrow_mut() = children;
        }
    }

    /// Whether a canonical key is within the caller's restriction, by what was last read
    /// (`parent`: the session's parent, where a row says it).
    fn within(&self, canonical: &str, parent: Option<&str>) -> bool {
        let Some(own) = self.own.as_deref() else { return false };
        if canonical == own {
            return true;
        }
        if self.restriction.spawned_only && !self.visible.borrow().contains(canonical) {
            return false;
        }
        let same_agent = agent_of(canonical).is_some_and(|agent| agent_of(own).as_deref() == Some(agent.as_str()));
        // A session the caller spawned; one of another agent only as a sub-agent or ACP
        // session (2026.9's own rule for what a caller owns).
        let child = (parent.is_some_and(|p| self.rules.canonical(p) == own) || self.children.borrow().contains(canonical))
            && (same_agent || is_subagent_key(canonical) || is_acp_key(canonical));
        match self.restriction.scope {
            Scope::All => true,
            Scope::SelfOnly => child,
            Scope::Tree => child || (same_agent && self.rules.is_main(own)),
            Scope::Agent => child || same_agent,
        }
    }

    /// Whether a key (in any spelling) is the caller's or within its restriction.
    pub fn can_see(&self, key: &str) -> bool {
        let canonical = self.rules.canonical(key);
        if self.within(&canonical, None) {
            return true;
        }
        self.refresh();
        self.within(&canonical, None)
    }

    fn refuse<R>(&self, method: &str, what: &str) -> GatewayResult<R> {
        let own = self.own.as_deref().unwrap_or("(none)");
        self.host.refused(method, what, own);
        let message = if self.restriction.spawned_only {
            format!("forbidden: {what} is not visible from this sandboxed agent session")
        } else {
            format!("forbidden: {what} is not visible under tools.sessions.visibility={}", self.restriction.scope.as_str())
        };
        Err(GatewayError::of(ErrorKind::Forbidden, message))
    }

    fn check(&self, method: &str, key: &str) -> GatewayResult<()> {
        if self.can_see(key) {
            Ok(())
        } else {
            self.refuse(method, &format!("session {}", js_trim(key)))
        }
    }

    /// Whether `key` names a sub-agent session the caller is creating right now: a key that
    /// does not exist yet, spawned from the caller's tree (`parent`), in an agent the caller
    /// may spawn for. Such a session joins the tree as it is created.
    fn is_new_child(&self, key: &str, parent: Option<&str>) -> bool {
        let canonical = self.rules.canonical(key);
        is_subagent_key(&canonical)
            && matches!(self.tree.exists(&canonical), Ok(false))
            && agent_of(&canonical).is_some_and(|agent| self.restriction.may_spawn_in(&agent))
            && parent.is_some_and(|parent| self.can_see(parent))
    }

    /// A new child joins the caller's tree, and its children.
    fn adopt(&self, key: &str) {
        let canonical = self.rules.canonical(key);
        self.adopted.borrow_mut().insert(canonical.clone());
        self.children.borrow_mut().insert(canonical.clone());
        self.visible.borrow_mut().insert(canonical);
    }

    /// Whether a run is the caller's: the host says it belongs to a visible session, or
    /// (when the host does not know it) the caller started it through this guard.
    fn owns_run(&self, run_id: &str) -> bool {
        match self.tree.run_session(run_id) {
            Some(session) => self.can_see(&session),
            None => self.started.borrow().contains(run_id),
        }
    }

    /// The idempotency key the gateway gets for the component's (see the module).
    fn own_key(&self, guest_key: &str) -> String {
        self.keys
            .borrow_mut()
            .entry(guest_key.to_string())
            .or_insert_with(|| derived_key(self.own.as_deref().unwrap_or(""), guest_key))
            .clone()
    }

    /// The rows of the sessions within the caller's restriction: those of its tree under
    /// N15; else its own, its children's and, where its scope keeps its whole agent, that
    /// agent's (E3).
    fn rows_within(&self) -> Vec<SessionRow> {
        self.refresh();
        let Some(own) = &self.own else { return Vec::new() };
        let mut keys: BTreeSet<String> = if self.restriction.spawned_only {
            self.visible.borrow().clone()
        } else {
            let mut keys = self.children.borrow().clone();
            keys.insert(own.clone());
            keys
        };
        let whole_agent = match self.restriction.scope {
            Scope::Agent => true,
            Scope::Tree => self.rules.is_main(own),
            Scope::All | Scope::SelfOnly => false,
        };
        if whole_agent && !self.restriction.spawned_only {
            let asked =
                ListParams { agent_id: agent_of(own), include_global: Some(false), include_unknown: Some(false), ..ListParams::default() };
            keys.extend(self.inner.sessions_list(&asked).map(|l| l.sessions).unwrap_or_default().into_iter().map(|row| row.key));
        }
        let rows = self.tree.rows_of(&keys).unwrap_or_default();
        rows.into_iter().filter(|row| self.within(&self.rules.canonical(&row.key), row.spawned_by.as_deref())).collect()
    }

    /// Delivery targets the caller may post to: those of the sessions within its restriction.
    fn may_send_to(&self, channel: Option<&str>, to: &str) -> bool {
        let rows = self.rows_within();
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

impl<G: Gateway, T: Tree, H: Audit> Gateway for Guarded<G, T, H> {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
        let mut list = self.inner.sessions_list(params)?;
        self.refresh();
        list.sessions.retain(|row| self.within(&self.rules.canonical(&row.key), row.spawned_by.as_deref()));
        Ok(list)
    }

    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String> {
        let asked = match (&params.key, &params.session_id, &params.label) {
            (Some(key), _, _) => format!("session {}", js_trim(key)),
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
                return self.refuse("agent", &format!("session {}", js_trim(key)));
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
            self.started.borrow_mut().insert(run.clone());
        }
        self.refresh(); // a child it just spawned joins the tree
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
        // create that session, and nothing else outside its tree (the reference's spawn does the same).
        if !self.can_see(&params.key) {
            if !self.is_new_child(&params.key, self.own.as_deref()) {
                return self.refuse("sessions.patch", &format!("session {}", js_trim(&params.key)));
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
    use super::*;
    use crate::access::{decide, CallerIdentity};
    use std::cell::Cell;

    /// A gateway of rows `(key, parent)`, answering lists by `spawnedBy` and `agentId`.
    struct Rows(Vec<(&'static str, Option<&'static str>)>, Cell<usize>);

    fn row(key: &str, parent: Option<&str>) -> SessionRow {
        SessionRow { key: key.into(), spawned_by: parent.map(str::to_string), last_to: Some(format!("to:{key}")), ..SessionRow::default() }
    }

    impl Gateway for &Rows {
        fn sessions_list(&self, p: &ListParams) -> GatewayResult<SessionList> {
            self.1.set(self.1.get() + 1);
            let sessions = self
                .0
                .iter()
                .filter(|(_, parent)| p.spawned_by.as_deref().is_none_or(|by| *parent == Some(by)))
                .filter(|(k, _)| p.agent_id.as_deref().is_none_or(|a| agent_of(k).as_deref() == Some(a)))
                .map(|(k, parent)| row(k, *parent))
                .collect();
            Ok(SessionList { path: None, sessions })
        }
        fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
            Ok(p.key.clone().unwrap_or_default())
        }
        fn chat_history(&self, _: &HistoryParams) -> GatewayResult<History> {
            Ok(History::default())
        }
        fn agent(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
            Ok(AgentAccepted { run_id: Some(p.idempotency_key.clone()) })
        }
        fn agent_wait(&self, _: &WaitParams) -> GatewayResult<WaitResult> {
            Ok(WaitResult::default())
        }
        fn send(&self, _: &SendParams) -> GatewayResult<()> {
            Ok(())
        }
        fn sessions_patch(&self, _: &PatchParams) -> GatewayResult<()> {
            Ok(())
        }
        fn sessions_delete(&self, _: &DeleteParams) -> GatewayResult<()> {
            Ok(())
        }
    }

    impl Tree for &Rows {
        fn spawned_trees(&self, roots: &BTreeSet<String>) -> GatewayResult<BTreeSet<String>> {
            let mut seen = roots.clone();
            loop {
                let next: Vec<String> = self
                    .0
                    .iter()
                    .filter(|(k, p)| p.is_some_and(|p| seen.contains(p)) && !seen.contains(*k))
                    .map(|(k, _)| k.to_string())
                    .collect();
                if next.is_empty() {
                    return Ok(seen);
                }
                seen.extend(next);
            }
        }
        fn rows_of(&self, keys: &BTreeSet<String>) -> GatewayResult<Vec<SessionRow>> {
            Ok(self.0.iter().filter(|(k, _)| keys.contains(*k)).map(|(k, p)| row(k, *p)).collect())
        }
        fn exists(&self, key: &str) -> GatewayResult<bool> {
            Ok(self.0.iter().any(|(k, _)| *k == key))
        }
        fn run_session(&self, _: &str) -> Option<String> {
            None
        }
    }

    struct Quiet;
    impl Audit for Quiet {
        fn refused(&self, _: &str, _: &str, _: &str) {}
    }

    const MAIN: &str = "agent:main:main";
    const CHILD: &str = "agent:main:subagent:c";
    const GRANDCHILD: &str = "agent:main:subagent:g";
    const OPS_CHILD: &str = "agent:ops:subagent:o";

    fn rows() -> Rows {
        Rows(
            vec![
                (MAIN, None),
                (CHILD, Some(MAIN)),
                (GRANDCHILD, Some(CHILD)),
                (OPS_CHILD, Some(MAIN)),
                ("agent:main:discord:group:x", None),
                ("agent:ops:main", None),
            ],
            Cell::new(0),
        )
    }

    /// What `key` (a caller) sees under `visibility` (2026.9's setting), sandboxed or not.
    fn sees(gw: &Rows, visibility: &str, key: &str, sandboxed: bool) -> Vec<String> {
        let config: serde_json::Value = serde_json::json!({"tools": {"sessions": {"visibility": visibility}}});
        let caller = CallerIdentity { agent_session_key: Some(key.into()), sandboxed, ..CallerIdentity::default() };
        let Some(restriction) = decide(&config, &caller).restriction else {
            return gw.0.iter().map(|(k, _)| k.to_string()).collect();
        };
        let guard = Guarded::new(gw, gw, Quiet, KeyRules::from_config(&config), restriction);
        let listed = guard.sessions_list(&ListParams::default()).unwrap();
        // A key is named alike by every method: what the list keeps is what a read may name.
        for r in &listed.sessions {
            assert!(guard.chat_history(&HistoryParams { session_key: r.key.clone(), limit: None }).is_ok(), "{}", r.key);
        }
        for (k, _) in &gw.0 {
            if !listed.sessions.iter().any(|r| r.key == *k) {
                let refused = guard.chat_history(&HistoryParams { session_key: k.to_string(), limit: None }).unwrap_err();
                assert_eq!(refused.kind, ErrorKind::Forbidden, "{k}");
                assert!(!guard.may_send_to(None, &format!("to:{k}")), "no delivery target outside: {k}");
            }
        }
        listed.sessions.into_iter().map(|r| r.key).collect()
    }

    #[test]
    fn the_narrowing_of_2026_9_keeps_what_its_scope_says_and_never_more_than_n15() {
        let gw = rows();
        assert_eq!(sees(&gw, "all", CHILD, false).len(), 6, "all: no restriction");
        assert_eq!(sees(&gw, "self", MAIN, false), [MAIN, CHILD, OPS_CHILD], "self: its own, and the children its flows read");
        assert_eq!(sees(&gw, "self", CHILD, false), [CHILD, GRANDCHILD]);
        assert_eq!(
            sees(&gw, "tree", MAIN, false),
            [MAIN, CHILD, GRANDCHILD, OPS_CHILD, "agent:main:discord:group:x"],
            "tree from the main session: its agent, and its cross-agent sub-agent child"
        );
        assert_eq!(sees(&gw, "tree", CHILD, false), [CHILD, GRANDCHILD], "tree: the sessions it spawned");
        assert_eq!(sees(&gw, "agent", CHILD, false), [MAIN, CHILD, GRANDCHILD, "agent:main:discord:group:x"], "agent: its agent");
        // Sandboxed under `spawned` (N15) as well: the two narrowings at once.
        assert_eq!(sees(&gw, "all", MAIN, true), [MAIN, CHILD, GRANDCHILD, OPS_CHILD]);
        assert_eq!(
            sees(&gw, "agent", MAIN, true),
            [MAIN, CHILD, GRANDCHILD, OPS_CHILD],
            "the tree, within its agent and its own children (the tools show only its agent's)"
        );
        assert_eq!(sees(&gw, "agent", CHILD, true), [CHILD, GRANDCHILD], "never past its N15 tree");
        assert_eq!(sees(&gw, "self", MAIN, true), [MAIN, CHILD, OPS_CHILD]);
    }

    #[test]
    fn a_refusal_under_the_narrowing_names_the_setting() {
        let gw = rows();
        let config = serde_json::json!({"tools": {"sessions": {"visibility": "self"}}});
        let caller = CallerIdentity { agent_session_key: Some(CHILD.into()), ..CallerIdentity::default() };
        let restriction = decide(&config, &caller).restriction.unwrap();
        let guard = Guarded::new(&gw, &gw, Quiet, KeyRules::from_config(&config), restriction);
        let e = guard.chat_history(&HistoryParams { session_key: MAIN.into(), limit: None }).unwrap_err();
        assert_eq!(e.message, "forbidden: session agent:main:main is not visible under tools.sessions.visibility=self");
    }
}
