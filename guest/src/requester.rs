//! Who is calling, as the tools see it (reference §2.3): the caller's internal session
//! key, its agent, and whether it is restricted to the sessions it spawned.

use crate::config::Config;
use crate::context::Caller;
use crate::keys::{agent_id_of_key, is_subagent_key, KeyScheme};

/// The requester context shared by `sessions_list`, `sessions_history` and `sessions_send`.
#[derive(Debug, Clone)]
pub struct Requester<'a> {
    pub cfg: &'a Config,
    /// The caller's session key as given (trimmed), if any.
    pub raw_key: Option<&'a str>,
    /// The key the gateway knows the caller's session by (N6: `main` canonicalised).
    pub internal_key: Option<String>,
    /// The caller's agent (`main` when there is no caller session).
    pub agent_id: String,
    /// Sandboxed with `spawned` visibility (reference §2.3, N10).
    pub restrict: bool,
}

impl<'a> Requester<'a> {
    pub fn new(cfg: &'a Config, caller: &'a Caller) -> Requester<'a> {
        let raw_key = caller.agent_session_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
        let agent_id = agent_id_of_key(raw_key);
        let mut requester = Requester { cfg, raw_key, internal_key: None, agent_id, restrict: false };
        requester.internal_key = raw_key.map(|k| requester.scheme().internal(k).into_owned());
        let visibility = cfg.tools_visibility(&requester.agent_id);
        requester.restrict = caller.sandboxed
            && matches!(visibility, None | Some("spawned"))
            && requester.internal_key.as_deref().is_some_and(|k| !is_subagent_key(k));
        requester
    }

    /// The key scheme as this caller sees it.
    pub fn scheme(&self) -> KeyScheme<'_> {
        KeyScheme {
            main_key: &self.cfg.main_key,
            scope_global: self.cfg.scope_global,
            caller_agent: &self.agent_id,
            default_agent: &self.cfg.default_agent,
        }
    }

    /// `spawnedBy` for gateway calls when restricted.
    pub fn spawned_by(&self) -> Option<String> {
        if self.restrict {
            self.internal_key.clone()
        } else {
            None
        }
    }

    /// The caller's session as shown in prompts (N13: display keys).
    pub fn display_key(&self) -> Option<String> {
        self.internal_key.as_deref().map(|k| self.scheme().display(k).into_owned())
    }
}
