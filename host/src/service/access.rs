//! Who a caller is to the host: the agent whose instances serve it, the pool of instances
//! that may serve it, and whether it is restricted (N15).
//!
//! The host decides this itself, from the deployment config, and fails closed: every
//! sandboxed caller under `spawned` visibility (N10: the agent's own
//! `sandbox.sessionToolsVisibility`, else the defaults'; absent means `spawned`) is
//! restricted, also where the reference would not restrict (a sandboxed sub-agent
//! session, ref §2.3) or has nothing to restrict to (no session: it sees nothing). No
//! guest logic takes part: the guard must not depend on what it guards.

use session_tools_guest::keys::{normalize_agent_id, parse_agent_key, DEFAULT_AGENT_ID};
use session_tools_guest::Caller;

use crate::config::DeploymentConfig;
use crate::sandbox::visibility::SpawnAgents;

/// A restricted caller: the only session it may name besides those spawned from it, and
/// the agents it may spawn sub-agent sessions in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Restriction {
    /// The caller's own session, as the gateway is to be asked for it (`None`: no session).
    pub own: Option<String>,
    pub spawn_agents: SpawnAgents,
}

/// How one caller is served.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Access {
    /// The caller's agent, whose instances serve it.
    pub agent: String,
    /// The pool of idle instances that may serve the caller: per agent, and per restricted
    /// session (or `all` for callers that see everything). An instance keeps what it read
    /// in its memory, so a restricted caller is only ever served by instances that served
    /// the same restricted caller.
    pub pool: String,
    pub restriction: Option<Restriction>,
}

/// The agent of a session key as the tools see it (`agent:<id>:…`, else the default id).
fn agent_of_key(key: Option<&str>) -> String {
    match key.and_then(parse_agent_key) {
        Some(parsed) => normalize_agent_id(&parsed.agent_id),
        None => DEFAULT_AGENT_ID.to_string(),
    }
}

/// How `caller` is served under `config`; `canonical` is the gateway's spelling of a key.
pub(crate) fn access(config: &DeploymentConfig, caller: &Caller, canonical: impl Fn(&str) -> String) -> Access {
    let key = caller.agent_session_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let literal_main = |k: &str| k == "main" || k == config.main_key;
    // The agent whose instances serve the caller: the override (cron and hook runs), else
    // the key's agent (the literal main alias names none).
    let from_key = key.filter(|k| !literal_main(k)).and_then(parse_agent_key).map(|p| p.agent_id.into_owned());
    let agent = normalize_agent_id(&caller.requester_agent_id_override.clone().or(from_key).unwrap_or_default());
    // Visibility is the key's agent's (N10).
    let key_agent = agent_of_key(key);
    let restricted = caller.sandboxed && matches!(config.tools_visibility(&key_agent), None | Some("spawned"));
    if !restricted {
        return Access { pool: format!("{agent}\nall"), agent, restriction: None };
    }
    // N6: the literal alias is the caller's own main session.
    let own = key.map(|k| {
        if !literal_main(k) {
            k.to_string()
        } else if config.scope_global {
            "global".to_string()
        } else {
            format!("agent:{key_agent}:{}", config.main_key)
        }
    });
    let (any, mut ids) = config.allow_agents(&agent);
    ids.retain(|id| *id != agent);
    ids.insert(0, agent.clone());
    let scope = own.as_deref().map_or_else(|| "none".to_string(), |own| format!("own {}", canonical(own)));
    Access { pool: format!("{agent}\n{scope}"), agent, restriction: Some(Restriction { own, spawn_agents: SpawnAgents { any, ids } }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(key: &str, sandboxed: bool) -> Caller {
        Caller { agent_session_key: Some(key.into()), sandboxed, ..Caller::default() }
    }

    #[test]
    fn restricts_sandboxed_callers_under_spawned_visibility() {
        let config = DeploymentConfig::parse(
            r#"{"agents": {"list": [{"id": "ops", "sandbox": {"sessionToolsVisibility": "all"}, "subagents": {"allowAgents": ["main"]}}]}}"#,
            "t",
        )
        .unwrap();
        let same = |k: &str| k.to_string();
        assert_eq!(access(&config, &caller("agent:main:main", false), same).restriction, None);
        let main = access(&config, &caller("main", true), same);
        assert_eq!(main.agent, "main");
        assert_eq!(main.restriction.as_ref().unwrap().own.as_deref(), Some("agent:main:main"));
        assert_eq!(main.pool, "main\nown agent:main:main");
        // N10: ops sees everything when sandboxed.
        assert_eq!(access(&config, &caller("agent:ops:main", true), same).restriction, None);
        // A sandboxed sub-agent session is restricted too (fail closed).
        let sub = access(&config, &caller("agent:main:subagent:x", true), same);
        assert!(sub.restriction.is_some());
        // No session: restricted to nothing.
        let nobody = access(&config, &Caller { sandboxed: true, ..Caller::default() }, same);
        assert_eq!(nobody.restriction.unwrap().own, None);
        assert_eq!(nobody.pool, "main\nnone");
    }
}
