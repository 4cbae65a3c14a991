//! Which sessions a caller may see: the agent-to-agent policy (reference §2.4), session
//! reference resolution (§2.6), the sandbox's spawned-only rule (§5), and on top the
//! narrowing of OpenClaw 2026.9's `tools.sessions.visibility` with its incognito sessions
//! (E3).

use crate::config::Config;
use crate::keys::{agent_id_of_key, is_acp_key, is_incognito_key, is_subagent_key, should_resolve_as_session_id};
use crate::ports::{Gateway, ListParams, ResolveParams};
use crate::requester::Requester;

/// `createAgentToAgentPolicy`.
pub struct AgentToAgent<'a> {
    pub enabled: bool,
    pub allow: &'a [String],
}

impl<'a> AgentToAgent<'a> {
    pub fn new(cfg: &'a Config) -> Self {
        AgentToAgent { enabled: cfg.a2a_enabled, allow: &cfg.a2a_allow }
    }

    /// An empty allow list matches every agent; `*` globs match case-insensitively.
    pub fn matches_allow(&self, agent_id: &str) -> bool {
        if self.allow.is_empty() {
            return true;
        }
        self.allow.iter().any(|pattern| {
            let p = pattern.trim();
            if p.is_empty() {
                false
            } else if p == "*" {
                true
            } else if !p.contains('*') {
                p == agent_id
            } else {
                glob_matches_ci(p, agent_id)
            }
        })
    }

    /// Same agent: always. Otherwise only when enabled and both sides are allowed.
    pub fn is_allowed(&self, requester: &str, target: &str) -> bool {
        requester == target || (self.enabled && self.matches_allow(requester) && self.matches_allow(target))
    }
}

/// An anchored glob where `*` is any run of characters, compared case-insensitively.
pub fn glob_matches_ci(pattern: &str, value: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().flat_map(char::to_lowercase).collect();
    let value: Vec<char> = value.chars().flat_map(char::to_lowercase).collect();
    let (mut p, mut v) = (0usize, 0usize);
    let (mut star, mut star_v) = (None::<usize>, 0usize);
    while v < value.len() {
        if p < pattern.len() && pattern[p] != '*' && pattern[p] == value[v] {
            p += 1;
            v += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some(p);
            star_v = v;
            p += 1;
        } else if let Some(s) = star {
            p = s + 1;
            star_v += 1;
            v = star_v;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// A session reference the caller gave, resolved (reference §2.6).
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The key to use with the gateway.
    pub key: String,
    /// The key as shown to the caller (N5).
    pub display_key: String,
    /// Resolved through a sessionId lookup (already checked by the gateway's `spawnedBy`).
    pub via_session_id: bool,
}

/// A refusal as the tools report it: `{status, error}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub status: &'static str,
    pub error: String,
}

impl Refusal {
    pub fn forbidden(error: impl Into<String>) -> Self {
        Refusal { status: "forbidden", error: error.into() }
    }

    pub fn error(error: impl Into<String>) -> Self {
        Refusal { status: "error", error: error.into() }
    }
}

pub fn not_visible(what: &str) -> String {
    format!("Session not visible from this sandboxed agent session: {what}")
}

/// `resolveSessionReference`: keys are used as they are; anything else is tried as a key
/// and then as a sessionId through `sessions.resolve`.
pub fn resolve_session_reference(gw: &dyn Gateway, requester: &Requester, input: &str) -> Result<Resolved, Refusal> {
    let raw = input.trim();
    let scheme = requester.scheme();
    let resolved = |key: String, via_session_id: bool| {
        let display_key = scheme.display(&key).into_owned();
        Resolved { key, display_key, via_session_id }
    };
    if !should_resolve_as_session_id(raw) {
        return Ok(resolved(scheme.internal(raw).into_owned(), false));
    }
    let spawned_by = requester.spawned_by();
    let by_key = gw.sessions_resolve(&ResolveParams { key: Some(raw.to_string()), spawned_by: spawned_by.clone(), ..Default::default() });
    if let Ok(key) = by_key {
        let key = key.trim();
        if !key.is_empty() {
            return Ok(resolved(key.to_string(), false));
        }
    }
    let not_found = || format!("Session not found: {raw} (use the full sessionKey from sessions_list)");
    let by_id = gw.sessions_resolve(&ResolveParams {
        session_id: Some(raw.to_string()),
        spawned_by,
        include_global: Some(!requester.restrict),
        include_unknown: Some(!requester.restrict),
        ..Default::default()
    });
    match by_id {
        Ok(key) if !key.trim().is_empty() => Ok(resolved(key.trim().to_string(), true)),
        Ok(_) if requester.restrict => Err(Refusal::forbidden(not_visible(raw))),
        Ok(_) => Err(Refusal::error(not_found())),
        Err(_) if requester.restrict => Err(Refusal::forbidden(not_visible(raw))),
        Err(e) if e.message.is_empty() => Err(Refusal::error(not_found())),
        Err(e) => Err(Refusal::error(e.message)),
    }
}

/// The sandbox probe (G1b): the sessions the caller spawned.
pub fn spawned_list_params(requester: &Requester) -> ListParams {
    ListParams {
        limit: Some(500),
        include_global: Some(false),
        include_unknown: Some(false),
        spawned_by: requester.internal_key.clone(),
        ..Default::default()
    }
}

/// Whether a resolved key is among the sessions the caller spawned. A gateway error
/// counts as not visible.
pub fn is_spawned_visible(gw: &dyn Gateway, requester: &Requester, key: &str) -> bool {
    gw.sessions_list(&spawned_list_params(requester)).map(|list| list.sessions.iter().any(|row| row.key == key)).unwrap_or(false)
}

/// How far OpenClaw 2026.9's `tools.sessions.visibility` narrows what the tools show (E3).
/// It narrows the documents' rules, never widens them: `all`, unset, or a value 2026.9
/// does not know leaves them as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrowing {
    All,
    /// `self`: the caller's own session.
    SelfOnly,
    /// `tree`: its own session and those it spawned; from its agent's main session, every
    /// session of its agent.
    Tree,
    /// `agent`: the sessions of its own agent.
    Agent,
}

impl Narrowing {
    /// The setting as 2026.9 reads it (`resolveSessionToolsVisibility`: trimmed, any case).
    pub fn of(cfg: &Config) -> Narrowing {
        match cfg.sessions_visibility.as_deref().map(|v| v.trim().to_lowercase()).as_deref() {
            Some("self") => Narrowing::SelfOnly,
            Some("tree") => Narrowing::Tree,
            Some("agent") => Narrowing::Agent,
            _ => Narrowing::All,
        }
    }
}

/// What a tool does with a session, as 2026.9's refusals name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    List,
    History,
    Send,
}

impl Action {
    fn prefix(self) -> &'static str {
        match self {
            Action::List => "Session list",
            Action::History => "Session history",
            Action::Send => "Session send",
        }
    }
}

/// Whether E3 lets the requester reach `key` (canonical): never an incognito session;
/// under a narrowing, as 2026.9's `createSessionVisibilityDecisionChecker` decides (its
/// refusals in its words). `spawned`: whether the session was spawned from the caller's
/// (its row's lineage, or the gateway's `spawnedBy` list), asked only where it matters.
/// The documents' rules (a2a, the sandbox) are checked apart, and still apply.
pub fn check_narrowing(requester: &Requester, key: &str, spawned: impl FnOnce() -> bool, action: Action) -> Result<(), Refusal> {
    if is_incognito_key(key) {
        return Err(Refusal::forbidden(format!("Session not visible from session tools: {key}")));
    }
    let narrowing = Narrowing::of(requester.cfg);
    if narrowing == Narrowing::All {
        return Ok(());
    }
    let own = requester.internal_key.as_deref();
    if own == Some(key) {
        return Ok(());
    }
    let target_agent = agent_id_of_key(Some(key));
    let cross_agent = target_agent != requester.agent_id;
    let own_main = own.is_some_and(|own| own == requester.scheme().own_main());
    let owned = (narrowing == Narrowing::Tree && !cross_agent && own_main) || (narrowing == Narrowing::Tree && own.is_some() && spawned());
    if owned && narrowing == Narrowing::Tree && (!cross_agent || is_acp_key(key) || is_subagent_key(key)) {
        return Ok(());
    }
    let prefix = action.prefix();
    if cross_agent {
        return Err(Refusal::forbidden(format!(
            "{prefix} visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access; use tools.agentToAgent to restrict permitted agent pairs."
        )));
    }
    match narrowing {
        Narrowing::SelfOnly => {
            Err(Refusal::forbidden(format!("{prefix} visibility is restricted to the current session (tools.sessions.visibility=self).")))
        }
        Narrowing::Tree if !owned => Err(Refusal::forbidden(format!(
            "{prefix} visibility is restricted to the current session tree (tools.sessions.visibility=tree)."
        ))),
        _ => Ok(()),
    }
}

/// Whether `key` was spawned from the caller's session, as the gateway's `sessions.list
/// {spawnedBy}` says (every row, E6); a gateway error counts as not (fail closed).
pub fn is_spawned_by_requester(gw: &dyn Gateway, requester: &Requester, key: &str) -> bool {
    let Some(own) = requester.internal_key.clone() else { return false };
    let params = ListParams { spawned_by: Some(own), include_global: Some(false), include_unknown: Some(false), ..Default::default() };
    gw.sessions_list(&params).map(|list| list.sessions.iter().any(|row| row.key == key)).unwrap_or(false)
}

/// The agent-to-agent check of `sessions_history` and `sessions_send` (§3.2 step 5,
/// §3.3.1 step 10); `action` is `history` or `messaging`.
pub fn check_agent_to_agent(cfg: &Config, requester_agent: &str, target_key: &str, action: &str) -> Result<(), Refusal> {
    let target_agent = crate::keys::agent_id_of_key(Some(target_key));
    if target_agent == requester_agent {
        return Ok(());
    }
    let a2a = AgentToAgent::new(cfg);
    let (what, access) = match action {
        "history" => ("history", "cross-agent access"),
        _ => ("messaging", "cross-agent sends"),
    };
    if !a2a.enabled {
        return Err(Refusal::forbidden(format!(
            "Agent-to-agent {what} is disabled. Set tools.agentToAgent.enabled=true to allow {access}."
        )));
    }
    if !a2a.is_allowed(requester_agent, &target_agent) {
        return Err(Refusal::forbidden(format!("Agent-to-agent {what} denied by tools.agentToAgent.allow.")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_matches_ci("OPS-*", "ops-1"));
        assert!(!glob_matches_ci("ops-*", "main"));
        assert!(glob_matches_ci("*a*b", "xxaxxb"));
        assert!(glob_matches_ci("a.b*", "a.bc"));
        assert!(!glob_matches_ci("a.b*", "axbc"));
    }

    fn requester_of<'a>(cfg: &'a Config, caller: &'a crate::context::Caller) -> Requester<'a> {
        Requester::new(cfg, caller)
    }

    #[test]
    fn the_narrowing_of_2026_9_as_it_decides_and_words_it() {
        let config = |v: &str| Config::from_value(&serde_json::json!({"tools": {"sessions": {"visibility": v}}}), "").unwrap();
        let main = crate::context::Caller { agent_session_key: Some("agent:main:main".into()), ..Default::default() };
        let child = crate::context::Caller { agent_session_key: Some("agent:main:subagent:c".into()), ..Default::default() };
        let yes = || true;
        let no = || false;
        let refused = |r: Result<(), Refusal>| r.unwrap_err().error;

        let all = config("all");
        let r = requester_of(&all, &main);
        assert!(check_narrowing(&r, "agent:ops:main", no, Action::History).is_ok(), "all: the documents' rules only");
        assert_eq!(
            refused(check_narrowing(&r, "agent:main:subagent:incognito-1", yes, Action::List)),
            "Session not visible from session tools: agent:main:subagent:incognito-1",
            "never an incognito session, whatever the setting"
        );

        let own = config(" Self ");
        let r = requester_of(&own, &main);
        assert!(check_narrowing(&r, "agent:main:main", no, Action::Send).is_ok());
        assert_eq!(
            refused(check_narrowing(&r, "agent:main:other", yes, Action::History)),
            "Session history visibility is restricted to the current session (tools.sessions.visibility=self)."
        );

        let tree = config("tree");
        let from_main = requester_of(&tree, &main);
        assert!(check_narrowing(&from_main, "agent:main:discord:group:x", no, Action::List).is_ok(), "main sees its agent");
        assert!(check_narrowing(&from_main, "agent:ops:subagent:x", yes, Action::List).is_ok(), "a cross-agent child it spawned");
        assert!(refused(check_narrowing(&from_main, "agent:ops:main", yes, Action::Send))
            .starts_with("Session send visibility is restricted. Set"));
        let from_child = requester_of(&tree, &child);
        assert!(check_narrowing(&from_child, "agent:main:subagent:g", yes, Action::History).is_ok());
        assert_eq!(
            refused(check_narrowing(&from_child, "agent:main:main", no, Action::History)),
            "Session history visibility is restricted to the current session tree (tools.sessions.visibility=tree)."
        );

        let agent = config("agent");
        let r = requester_of(&agent, &child);
        assert!(check_narrowing(&r, "agent:main:main", no, Action::List).is_ok());
        assert!(check_narrowing(&r, "agent:ops:subagent:x", yes, Action::List).is_err(), "agent: no other agent, spawned or not");
        let mut asked = false;
        let _ = check_narrowing(
            &r,
            "agent:main:x",
            || {
                asked = true;
                true
            },
            Action::History,
        );
        assert!(!asked, "the gateway is asked about lineage only where the answer matters");
    }

    #[test]
    fn agent_to_agent() {
        let allow = vec!["ops-*".to_string()];
        let a2a = AgentToAgent { enabled: true, allow: &allow };
        assert!(!a2a.is_allowed("main", "ops-1"));
        assert!(a2a.is_allowed("main", "main"));
        let allow = vec!["main".to_string(), "OPS-*".to_string()];
        let a2a = AgentToAgent { enabled: true, allow: &allow };
        assert!(a2a.is_allowed("main", "ops-1"));
        let a2a = AgentToAgent { enabled: false, allow: &[] };
        assert!(!a2a.is_allowed("main", "ops"));
    }
}
