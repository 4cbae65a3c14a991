//! `agents_list`: the agent ids the caller may target with `sessions_spawn` (reference §3.5).

use serde::Serialize;
use std::cmp::Ordering;

use crate::config::Config;
use crate::context::{Caller, Env, ToolOutput};
use crate::json::to_json;
use crate::keys::{normalize_agent_id, parse_agent_key};

/// The requester's agent for spawning: the override (cron/hook runs), else the agent of
/// its session key, else `main` (reference §3.4.2 step 3, §3.5 step 2).
pub fn spawn_requester_agent(cfg: &Config, caller: &Caller) -> String {
    let key = caller.agent_session_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let from_key = key.and_then(|k| {
        let scheme_key = if k == "main" || k == cfg.main_key { None } else { Some(k) };
        scheme_key.and_then(parse_agent_key).map(|p| p.agent_id.into_owned())
    });
    let raw = caller.requester_agent_id_override.clone().or(from_key).unwrap_or_default();
    normalize_agent_id(&raw)
}

/// The requester's `subagents.allowAgents`: whether `*` is in it, and the other ids,
/// normalised, in order, without duplicates.
pub fn allowlist(cfg: &Config, requester: &str) -> (bool, Vec<String>) {
    let allow = cfg.agent(requester).map(|a| a.allow_agents.as_slice()).unwrap_or(&[]);
    let allow_any = allow.iter().any(|v| v.trim() == "*");
    let mut ids: Vec<String> = Vec::new();
    for value in allow {
        let trimmed = value.trim();
        if trimmed.is_empty() || trimmed == "*" {
            continue;
        }
        let id = normalize_agent_id(trimmed);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    (allow_any, ids)
}

/// ICU root collation order for agent ids (`_` < `-` < digits < letters), which is what
/// `localeCompare` gives for `[a-z0-9_-]`.
fn collation_weight(c: char) -> u32 {
    match c {
        '_' => 0,
        '-' => 1,
        '0'..='9' => 10 + (c as u32 - '0' as u32),
        'a'..='z' => 100 + (c as u32 - 'a' as u32),
        other => 1000 + other as u32,
    }
}

pub fn locale_compare(a: &str, b: &str) -> Ordering {
    a.chars().map(collation_weight).cmp(b.chars().map(collation_weight))
}

#[derive(Serialize)]
struct AgentOut<'a> {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    configured: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AgentsResult<'a> {
    requester: String,
    allow_any: bool,
    agents: Vec<AgentOut<'a>>,
}

/// Runs `agents_list`.
pub fn run(env: &Env, caller: &Caller) -> ToolOutput {
    let cfg = env.cfg;
    let requester = spawn_requester_agent(cfg, caller);
    let (allow_any, allow_ids) = allowlist(cfg, &requester);
    let configured: Vec<&str> = cfg.agents.iter().map(|a| a.id.as_str()).collect();
    let mut rest: Vec<String> = Vec::new();
    let candidates: Vec<String> = if allow_any { configured.iter().map(|s| s.to_string()).collect() } else { allow_ids };
    for id in candidates {
        if id != requester && !rest.contains(&id) {
            rest.push(id);
        }
    }
    rest.sort_by(|a, b| locale_compare(a, b));
    let agents = std::iter::once(requester.clone())
        .chain(rest)
        .map(|id| AgentOut { name: cfg.agent(&id).and_then(|a| a.name.as_deref()), configured: configured.contains(&id.as_str()), id })
        .collect();
    ToolOutput::result(to_json(&AgentsResult { requester, allow_any, agents }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collation() {
        let mut ids = vec!["b", "a-x", "a_x", "a1", "research", "coder"];
        ids.sort_by(|a, b| locale_compare(a, b));
        assert_eq!(ids, ["a_x", "a-x", "a1", "b", "coder", "research"]);
    }
}
