//! Who a caller is to the host: the agent whose instances serve it, the pool of instances
//! that may serve it, and whether it is restricted (N15). Who is restricted, and to what,
//! is the guard's rule (`session_tools_guard::access`, the same code the guard component is
//! built from), and so is the pool of instances that may serve the caller.

use session_tools_contract::Caller;
use session_tools_guard::access::{decide, CallerIdentity, Restriction};

use crate::config::DeploymentConfig;

/// How one caller is served.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Access {
    /// The caller's agent, whose instances serve it.
    pub agent: String,
    /// The pool of idle instances that may serve the caller: per agent, and per restricted
    /// session (or `all` for callers that see everything). An instance keeps what it read
    /// in its memory, so a restricted caller is only ever served by instances that served
    /// the same restricted caller (and they are guarded instances; `all` ones are not).
    pub pool: String,
    pub restriction: Option<Restriction>,
}

/// How `caller` is served under `config`; `canonical` is the gateway's spelling of a key.
pub(crate) fn access(config: &DeploymentConfig, caller: &Caller, canonical: impl Fn(&str) -> String) -> Access {
    let identity = CallerIdentity {
        agent_session_key: caller.agent_session_key.clone(),
        sandboxed: caller.sandboxed,
        requester_agent_id_override: caller.requester_agent_id_override.clone(),
    };
    let decided = decide(&config.raw, &identity);
    // The pool is the guard's rule, the plugin's too (the guard component's `decide`).
    let pool = decided.pool(canonical);
    Access { pool, agent: decided.agent, restriction: decided.restriction }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_keep_restricted_callers_apart() {
        let config =
            DeploymentConfig::parse(r#"{"agents": {"list": [{"id": "ops", "sandbox": {"sessionToolsVisibility": "all"}}]}}"#, "test")
                .unwrap();
        let caller = |key: &str, sandboxed: bool| Caller { agent_session_key: Some(key.into()), sandboxed, ..Caller::default() };
        let lower = |k: &str| k.to_lowercase();
        assert_eq!(access(&config, &caller("agent:main:main", false), lower).pool, "main\nall");
        assert_eq!(access(&config, &caller("agent:main:Main", true), lower).pool, "main\nown agent:main:main; spawned");
        assert_eq!(access(&config, &caller("main", true), lower).pool, "main\nown agent:main:main; spawned");
        assert_eq!(access(&config, &caller("agent:ops:main", true), lower).pool, "ops\nall");
        let nobody = Caller { sandboxed: true, ..Caller::default() };
        assert_eq!(access(&config, &nobody, lower).pool, "main\nnone; spawned");
        // E3: 2026.9's setting restricts unsandboxed callers too, apart from the sandboxed.
        let tree = DeploymentConfig::parse(r#"{"tools": {"sessions": {"visibility": "tree"}}}"#, "test").unwrap();
        assert_eq!(access(&tree, &caller("agent:main:main", false), lower).pool, "main\nown agent:main:main; visibility tree");
        assert_eq!(access(&tree, &caller("agent:main:main", true), lower).pool, "main\nown agent:main:main; spawned; visibility tree");
    }
}
