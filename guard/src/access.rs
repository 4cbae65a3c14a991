//! Who a caller is to the host (N15, N10): the agent whose instances serve it, and whether
//! it is restricted, and to what.
//!
//! Decided from the deployment config, failing closed: every sandboxed caller under
//! `spawned` visibility (N10: the agent's own `sandbox.sessionToolsVisibility`, else the
//! defaults'; absent means `spawned`) is restricted, also where the reference would not
//! restrict (a sandboxed sub-agent session, ref §2.3) or has nothing to restrict to (no
//! session: it sees nothing); and every caller, sandboxed or not, when OpenClaw 2026.9's
//! `tools.sessions.visibility` is `self`, `tree` or `agent` (E3: it narrows, never widens).
//! No logic of the tools takes part: the guard must not depend on what it guards.

use serde_json::Value;
use session_tools_grammar::js::js_trim;
use session_tools_grammar::keys::{normalize_agent_id, parse_agent_key, KeyRules, DEFAULT_AGENT_ID};

/// The caller, as far as access is concerned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CallerIdentity {
    pub agent_session_key: Option<String>,
    pub sandboxed: bool,
    pub requester_agent_id_override: Option<String>,
}

/// How far OpenClaw 2026.9's `tools.sessions.visibility` narrows what a caller sees (E3,
/// with the meaning 2026.9 gives it; the WIT
/// `visibility-scope`). It narrows the documents' rules, never widens them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `all`, unset, or a value 2026.9 does not know: no narrowing.
    All,
    /// `self`: its own session.
    SelfOnly,
    /// `tree`: its own session and the sessions it spawned; from its agent's main
    /// session, every session of its agent.
    Tree,
    /// `agent`: the sessions of its own agent.
    Agent,
}

impl Scope {
    /// The setting's word (for refusals).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::All => "all",
            Scope::SelfOnly => "self",
            Scope::Tree => "tree",
            Scope::Agent => "agent",
        }
    }
}

/// `tools.sessions.visibility` as 2026.9 reads it (trimmed, any case; anything else is
/// `all`, as there). The documents' era has no such setting, so it is absent there.
pub fn sessions_visibility(config: &Value) -> Scope {
    let raw = config.get("tools").and_then(|t| t.get("sessions")).and_then(|s| s.get("visibility")).and_then(Value::as_str);
    match raw.map(|v| js_trim(v).to_lowercase()).as_deref() {
        Some("self") => Scope::SelfOnly,
        Some("tree") => Scope::Tree,
        Some("agent") => Scope::Agent,
        _ => Scope::All,
    }
}

/// A restricted caller: the sessions it may name (its own session; under N15 those
/// spawned from it; under E3 what its scope keeps), and the agents it may spawn sub-agent
/// sessions in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Restriction {
    /// The caller's own session, as the gateway is to be asked for it (`None`: no session).
    pub own: Option<String>,
    /// N15: sandboxed under `spawned` visibility, it may name only its own session and the
    /// sessions spawned from it, transitively.
    pub spawned_only: bool,
    /// E3's narrowing, on top.
    pub scope: Scope,
    /// `*` is in `subagents.allowAgents`.
    pub spawn_any: bool,
    /// The caller's own agent first, then those `subagents.allowAgents` names.
    pub spawn_agents: Vec<String>,
}

impl Restriction {
    /// Whether the caller may spawn sub-agent sessions in `agent`.
    pub fn may_spawn_in(&self, agent: &str) -> bool {
        self.spawn_any || self.spawn_agents.iter().any(|id| id == agent)
    }
}

/// How one caller is served.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Access {
    /// The caller's agent, whose instances serve it.
    pub agent: String,
    pub restriction: Option<Restriction>,
}

impl Access {
    /// The pool of idle instances that may serve the caller: per agent, and per restricted
    /// session (`own <key>` in the gateway's spelling, `canonical`; `none` for a caller
    /// without one) and how it is restricted, or `all` for a caller that sees everything.
    /// An instance keeps what it read in its memory, so a restricted caller is only ever
    /// served by instances that served the same restricted caller, and callers of one
    /// session restricted differently (N15, E3's scopes) are kept apart too.
    pub fn pool(&self, canonical: impl Fn(&str) -> String) -> String {
        let scope = match &self.restriction {
            None => "all".to_string(),
            Some(restriction) => {
                let own = restriction.own.as_deref().map_or_else(|| "none".to_string(), |own| format!("own {}", canonical(own)));
                let spawned = if restriction.spawned_only { "; spawned" } else { "" };
                let narrowed =
                    if restriction.scope == Scope::All { String::new() } else { format!("; visibility {}", restriction.scope.as_str()) };
                format!("{own}{spawned}{narrowed}")
            }
        };
        format!("{}\n{scope}", self.agent)
    }
}

/// The agent of a session key as the tools see it (`agent:<id>:…`, else the default id).
fn agent_of_key(key: Option<&str>) -> String {
    match key.and_then(parse_agent_key) {
        Some(parsed) => normalize_agent_id(&parsed.agent_id),
        None => DEFAULT_AGENT_ID.to_string(),
    }
}

/// The `agents.list` entry of an agent (by normalised id).
fn agent_entry<'a>(config: &'a Value, agent_id: &str) -> Option<&'a Value> {
    config
        .get("agents")?
        .get("list")?
        .as_array()?
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str).is_some_and(|id| normalize_agent_id(id) == agent_id))
}

/// `sandbox.sessionToolsVisibility` of an agent (N10: its own, else the defaults').
pub fn tools_visibility<'a>(config: &'a Value, agent_id: &str) -> Option<&'a str> {
    agent_entry(config, agent_id)
        .and_then(|entry| entry.get("sandbox")?.get("sessionToolsVisibility")?.as_str())
        .or_else(|| config.get("agents")?.get("defaults")?.get("sandbox")?.get("sessionToolsVisibility")?.as_str())
}

/// `subagents.allowAgents` of an agent: whether `*` is in it, and the other ids,
/// normalised, in order, without duplicates (reference §3.4.2).
pub fn allow_agents(config: &Value, agent_id: &str) -> (bool, Vec<String>) {
    let allow: Vec<&str> = agent_entry(config, agent_id)
        .and_then(|entry| entry.get("subagents")?.get("allowAgents")?.as_array())
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let any = allow.iter().any(|v| js_trim(v) == "*");
    let mut ids: Vec<String> = Vec::new();
    for value in allow.iter().map(|v| js_trim(v)).filter(|v| !v.is_empty() && *v != "*") {
        let id = normalize_agent_id(value);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    (any, ids)
}

/// How `caller` is served under the deployment `config` (as JSON).
pub fn decide(config: &Value, caller: &CallerIdentity) -> Access {
    let rules = KeyRules::from_config(config);
    let key = caller.agent_session_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let literal_main = |k: &str| k == "main" || k == rules.main_key;
    // The agent whose instances serve the caller: the override (cron and hook runs), else
    // the key's agent (the literal main alias names none).
    let from_key = key.filter(|k| !literal_main(k)).and_then(parse_agent_key).map(|p| p.agent_id.into_owned());
    let agent = normalize_agent_id(&caller.requester_agent_id_override.clone().or(from_key).unwrap_or_default());
    // Visibility is the key's agent's (N10).
    let key_agent = agent_of_key(key);
    let spawned_only = caller.sandboxed && matches!(tools_visibility(config, &key_agent), None | Some("spawned"));
    // E3: 2026.9's setting narrows for every caller, sandboxed or not.
    let scope = sessions_visibility(config);
    if !spawned_only && scope == Scope::All {
        return Access { agent, restriction: None };
    }
    // N6: the literal alias is the caller's own main session.
    let own = key.map(|k| {
        if !literal_main(k) {
            k.to_string()
        } else if rules.scope_global {
            "global".to_string()
        } else {
            format!("agent:{key_agent}:{}", rules.main_key)
        }
    });
    let (spawn_any, mut spawn_agents) = allow_agents(config, &agent);
    spawn_agents.retain(|id| *id != agent);
    spawn_agents.insert(0, agent.clone());
    Access { agent, restriction: Some(Restriction { own, spawned_only, scope, spawn_any, spawn_agents }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(key: &str, sandboxed: bool) -> CallerIdentity {
        CallerIdentity { agent_session_key: Some(key.into()), sandboxed, ..CallerIdentity::default() }
    }

    #[test]
    fn restricts_sandboxed_callers_under_spawned_visibility() {
        let config: Value = serde_json::from_str(
            r#"{"agents": {"list": [{"id": "ops", "sandbox": {"sessionToolsVisibility": "all"}, "subagents": {"allowAgents": ["main"]}}]}}"#,
        )
        .unwrap();
        assert_eq!(decide(&config, &caller("agent:main:main", false)).restriction, None);
        let main = decide(&config, &caller("main", true));
        assert_eq!(main.agent, "main");
        assert_eq!(main.restriction.as_ref().unwrap().own.as_deref(), Some("agent:main:main"));
        // N10: ops sees everything when sandboxed.
        assert_eq!(decide(&config, &caller("agent:ops:main", true)).restriction, None);
        // A sandboxed sub-agent session is restricted too (fail closed).
        assert!(decide(&config, &caller("agent:main:subagent:x", true)).restriction.is_some());
        // No session: restricted to nothing.
        let nobody = decide(&config, &CallerIdentity { sandboxed: true, ..CallerIdentity::default() });
        assert_eq!(nobody.restriction.unwrap().own, None);
    }

    #[test]
    fn sessions_visibility_of_2026_9_restricts_every_caller_and_all_leaves_the_documents_rules() {
        let config =
            |v: &str| -> Value { serde_json::from_str(&format!(r#"{{"tools": {{"sessions": {{"visibility": {v}}}}}}}"#)).unwrap() };
        let open = decide(&config(r#""all""#), &caller("agent:main:main", false));
        assert_eq!(open.restriction, None, "all: the documents' rules only");
        assert_eq!(decide(&config("5"), &caller("agent:main:main", false)).restriction, None, "not a word 2026.9 knows");
        let tree = decide(&config(r#"" Tree ""#), &caller("main", false)).restriction.unwrap();
        assert_eq!((tree.scope, tree.spawned_only, tree.own.as_deref()), (Scope::Tree, false, Some("agent:main:main")));
        assert_eq!(decide(&config(r#""self""#), &caller("agent:ops:main", false)).restriction.unwrap().scope, Scope::SelfOnly);
        let sandboxed = decide(&config(r#""agent""#), &caller("agent:main:main", true)).restriction.unwrap();
        assert_eq!((sandboxed.scope, sandboxed.spawned_only), (Scope::Agent, true), "both narrowings at once");
        let documents = decide(&Value::Null, &caller("agent:main:main", true)).restriction.unwrap();
        assert_eq!((documents.scope, documents.spawned_only), (Scope::All, true));
    }

    #[test]
    fn spawn_agents_put_the_callers_own_first() {
        let config: Value =
            serde_json::from_str(r#"{"agents": {"list": [{"id": "main", "subagents": {"allowAgents": [" Ops ", "main", "*"]}}]}}"#)
                .unwrap();
        let r = decide(&config, &caller("agent:main:main", true)).restriction.unwrap();
        assert_eq!((r.spawn_any, r.spawn_agents), (true, vec!["main".to_string(), "ops".to_string()]));
    }

    #[test]
    fn reads_visibility_and_allow_agents_as_the_config_spells_them() {
        let config: Value = serde_json::from_str(
            r#"{"agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "all"}},
                "list": [{"id": "Ops", "sandbox": {"sessionToolsVisibility": "spawned"}, "subagents": {"allowAgents": [" main ", "*", "MAIN", ""]}}]}}"#,
        )
        .unwrap();
        assert_eq!(tools_visibility(&config, "ops"), Some("spawned"));
        assert_eq!(tools_visibility(&config, "main"), Some("all"));
        assert_eq!(allow_agents(&config, "ops"), (true, vec!["main".to_string()]));
        assert_eq!(allow_agents(&config, "main"), (false, vec![]));
    }
}
