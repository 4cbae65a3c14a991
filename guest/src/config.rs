//! The deployment config, in OpenClaw's shape, read once per instance (reference §1.2).
//!
//! Values are read with the reference's leniency (N9 keeps it for config): a value of the
//! wrong type means its default. Only what cannot mean anything is an error: a config
//! that is not a JSON object, and the legacy `match.provider` send-policy key that the
//! reference also rejects.
//!
//! Every read goes through a [`place::Place`], which knows its path: the guest reads
//! exactly the paths of `wit/config-paths.json`, the only ones the hosts give it (N16;
//! the tests below fail on a read of a path the file does not list, and on a listed path
//! nothing reads).

mod place;

use serde_json::{Map, Value};

use crate::keys::{normalize_agent_id, normalize_main_key, DEFAULT_AGENT_ID};
use place::Place;

/// Ping-pong turns when the config says nothing (reference §2.12).
pub const DEFAULT_PING_PONG_TURNS: u32 = 5;
/// The sub-agent archive delay when the config says nothing (reference §3.4.5).
pub const DEFAULT_ARCHIVE_AFTER_MINUTES: f64 = 60.0;
/// `agents.defaults.timeoutSeconds ?? 600`.
pub const DEFAULT_AGENT_TIMEOUT_SECONDS: f64 = 600.0;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyAction {
    Allow,
    Deny,
}

/// One `session.sendPolicy.rules[]` entry.
#[derive(Debug, Clone, Default)]
pub struct PolicyRule {
    /// `None` when the action is missing or invalid (it then means allow).
    pub action: Option<PolicyAction>,
    pub channel: Option<String>,
    pub chat_type: Option<String>,
    pub key_prefix: Option<String>,
}

/// `session.sendPolicy`.
#[derive(Debug, Clone, Default)]
pub struct SendPolicyConfig {
    pub default: Option<PolicyAction>,
    pub rules: Vec<PolicyRule>,
}

/// One `agents.list[]` entry.
#[derive(Debug, Clone, Default)]
pub struct AgentEntry {
    /// Normalised id.
    pub id: String,
    /// Non-blank name, trimmed.
    pub name: Option<String>,
    pub is_default: bool,
    /// `subagents.allowAgents`, as written.
    pub allow_agents: Vec<String>,
    /// `subagents.model` (a string, or an object's `primary`).
    pub subagent_model: Option<String>,
    /// `sandbox.sessionToolsVisibility` (N10).
    pub tools_visibility: Option<String>,
}

/// A model's price per million tokens (`models.providers.<p>.models[]`).
#[derive(Debug, Clone)]
pub struct ModelPrice {
    pub provider: String,
    pub id: String,
    pub input: f64,
    pub output: f64,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub main_key: String,
    pub scope_global: bool,
    pub max_ping_pong_turns: u32,
    pub send_policy: Option<SendPolicyConfig>,
    pub a2a_enabled: bool,
    pub a2a_allow: Vec<String>,
    /// `tools.subagents.tools.allow` (None when unset).
    pub subagent_tools_allow: Option<Vec<String>>,
    pub subagent_tools_deny: Vec<String>,
    pub default_tools_visibility: Option<String>,
    /// OpenClaw 2026.9's `tools.sessions.visibility` (E3), as written.
    pub sessions_visibility: Option<String>,
    pub default_subagent_model: Option<String>,
    /// `None`: sub-agent sessions are never archived.
    pub archive_after_ms: Option<u64>,
    pub agent_timeout_seconds: f64,
    pub agents: Vec<AgentEntry>,
    pub default_agent: String,
    pub prices: Vec<ModelPrice>,
    /// The gateway's state directory (for derived transcript paths, N7).
    pub state_dir: String,
}

impl Default for Config {
    fn default() -> Self {
        Config::from_value(&Value::Object(Map::new()), "").expect("the empty config is valid")
    }
}

fn string_list(place: &Place<'_>) -> Vec<String> {
    match place.elements() {
        Some(items) => items.iter().filter_map(|item| item.str().map(str::to_string)).collect(),
        None => Vec::new(),
    }
}

/// A model setting: a non-blank string, or an object's non-blank `primary`.
fn model_ref(place: &Place<'_>) -> Option<String> {
    let raw = match place.read()? {
        Value::String(s) => s.as_str(),
        Value::Object(_) => place.key("primary").str()?,
        _ => return None,
    };
    let trimmed = raw.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// `normalizeSendPolicy`: trimmed, lower-cased `allow` or `deny`.
pub fn normalize_send_policy(value: Option<&str>) -> Option<PolicyAction> {
    match value?.trim().to_lowercase().as_str() {
        "allow" => Some(PolicyAction::Allow),
        "deny" => Some(PolicyAction::Deny),
        _ => None,
    }
}

fn parse_send_policy(root: &Place<'_>) -> Result<Option<SendPolicyConfig>, String> {
    let policy = root.at(&["session", "sendPolicy"]);
    if policy.object().is_none() {
        return Ok(None);
    }
    let mut parsed = SendPolicyConfig { default: normalize_send_policy(policy.key("default").str()), rules: Vec::new() };
    // The first rule with a `provider` is the error; every rule is read all the same (the
    // tests list what the guest reads whatever the config says).
    let mut legacy = None;
    for (index, rule) in policy.key("rules").elements().unwrap_or_default().iter().enumerate() {
        if rule.object().is_none() {
            continue;
        }
        let matcher = rule.key("match");
        let matcher = matcher.object().map(|_| &matcher);
        if matcher.is_some_and(|m| m.key("provider").read().is_some()) && legacy.is_none() {
            legacy = Some(index);
        }
        let field = |name: &str| matcher.and_then(|m| m.key(name).str()).map(str::to_string);
        parsed.rules.push(PolicyRule {
            action: normalize_send_policy(rule.key("action").str()),
            channel: field("channel"),
            chat_type: field("chatType"),
            key_prefix: field("keyPrefix"),
        });
    }
    match legacy {
        Some(index) => Err(format!("session.sendPolicy.rules[{index}].match.provider is no longer supported; use match.channel")),
        None => Ok(Some(parsed)),
    }
}

fn parse_agents(root: &Place<'_>) -> Vec<AgentEntry> {
    let Some(list) = root.at(&["agents", "list"]).elements() else {
        return Vec::new();
    };
    list.iter()
        .filter(|entry| entry.object().is_some())
        .map(|entry| AgentEntry {
            id: normalize_agent_id(entry.key("id").str().unwrap_or("")),
            name: entry.key("name").str().map(str::trim).filter(|n| !n.is_empty()).map(str::to_string),
            is_default: entry.key("default").is_true(),
            allow_agents: string_list(&entry.at(&["subagents", "allowAgents"])),
            subagent_model: model_ref(&entry.at(&["subagents", "model"])),
            tools_visibility: entry.at(&["sandbox", "sessionToolsVisibility"]).str().map(str::to_string),
        })
        .collect()
}

fn parse_prices(root: &Place<'_>) -> Vec<ModelPrice> {
    let mut prices = Vec::new();
    for (provider, entry) in root.at(&["models", "providers"]).entries() {
        for model in entry.key("models").elements().unwrap_or_default() {
            let (Some(id), Some(input), Some(output)) =
                (model.key("id").str(), model.at(&["cost", "input"]).f64(), model.at(&["cost", "output"]).f64())
            else {
                continue;
            };
            prices.push(ModelPrice { provider: provider.to_string(), id: id.to_string(), input, output });
        }
    }
    prices
}

impl Config {
    /// Reads a config from its JSON text.
    pub fn parse(json: &str, state_dir: &str) -> Result<Config, String> {
        let value: Value = if json.trim().is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str(json).map_err(|e| format!("config is not valid JSON: {e}"))?
        };
        Config::from_value(&value, state_dir)
    }

    pub fn from_value(value: &Value, state_dir: &str) -> Result<Config, String> {
        if !value.is_object() {
            return Err("config must be a JSON object".to_string());
        }
        let root = Place::root(value);
        let main_key = normalize_main_key(root.at(&["session", "mainKey"]).str());
        let max_ping_pong_turns = match root.at(&["session", "agentToAgent", "maxPingPongTurns"]).f64() {
            Some(turns) if turns.is_finite() => turns.floor().clamp(0.0, DEFAULT_PING_PONG_TURNS as f64) as u32,
            _ => DEFAULT_PING_PONG_TURNS,
        };
        let archive_after_ms = match root.at(&["agents", "defaults", "subagents", "archiveAfterMinutes"]).read() {
            None | Some(Value::Null) => Some(DEFAULT_ARCHIVE_AFTER_MINUTES),
            Some(v) => v.as_f64(),
        }
        .filter(|m| m.is_finite() && *m > 0.0)
        .map(|m| (m.floor().max(1.0) * 60_000.0).min(u64::MAX as f64) as u64);
        let agent_timeout_seconds =
            root.at(&["agents", "defaults", "timeoutSeconds"]).f64().filter(|v| v.is_finite()).unwrap_or(DEFAULT_AGENT_TIMEOUT_SECONDS);
        let agents = parse_agents(&root);
        let default_agent = agents
            .iter()
            .find(|a| a.is_default)
            .or_else(|| agents.first())
            .map(|a| a.id.clone())
            .unwrap_or_else(|| DEFAULT_AGENT_ID.to_string());
        let subagent_tools = root.at(&["tools", "subagents", "tools"]);
        // `String(p ?? "")` of each pattern.
        let a2a_allow: Vec<String> = root
            .at(&["tools", "agentToAgent", "allow"])
            .elements()
            .unwrap_or_default()
            .iter()
            .map(|item| match item.read() {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                Some(Value::Bool(b)) => b.to_string(),
                _ => String::new(),
            })
            .collect();
        // Read before the send policy is checked, so that every read happens whatever the
        // policy says (the tests list them; the outcome is the same).
        let send_policy = parse_send_policy(&root);
        Ok(Config {
            main_key,
            scope_global: root.at(&["session", "scope"]).str() == Some("global"),
            max_ping_pong_turns,
            a2a_enabled: root.at(&["tools", "agentToAgent", "enabled"]).is_true(),
            a2a_allow,
            subagent_tools_allow: subagent_tools.key("allow").elements().is_some().then(|| string_list(&subagent_tools.key("allow"))),
            subagent_tools_deny: string_list(&subagent_tools.key("deny")),
            default_tools_visibility: root.at(&["agents", "defaults", "sandbox", "sessionToolsVisibility"]).str().map(str::to_string),
            sessions_visibility: root.at(&["tools", "sessions", "visibility"]).str().map(str::to_string),
            default_subagent_model: model_ref(&root.at(&["agents", "defaults", "subagents", "model"])),
            archive_after_ms,
            agent_timeout_seconds,
            agents,
            default_agent,
            prices: parse_prices(&root),
            state_dir: state_dir.trim_end_matches('/').to_string(),
            send_policy: send_policy?,
        })
    }

    /// The `agents.list` entry of an agent (by normalised id).
    pub fn agent(&self, agent_id: &str) -> Option<&AgentEntry> {
        self.agents.iter().find(|a| a.id == agent_id)
    }

    /// `sessionToolsVisibility` for an agent: its own (N10), else the defaults'.
    pub fn tools_visibility(&self, agent_id: &str) -> Option<&str> {
        self.agent(agent_id).and_then(|a| a.tools_visibility.as_deref()).or(self.default_tools_visibility.as_deref())
    }

    /// The per-agent store directory (N7): `<stateDir>/agents/<agentId>/sessions`.
    pub fn agent_store_dir(&self, agent_id: &str) -> String {
        format!("{}/agents/{agent_id}/sessions", self.state_dir)
    }

    /// The price of a model, given as `provider/model` or a bare model id.
    pub fn price(&self, model: &str) -> Option<&ModelPrice> {
        match model.split_once('/') {
            Some((provider, id)) => self.prices.iter().find(|p| p.provider == provider && p.id == id),
            None => self.prices.iter().find(|p| p.id == model),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeSet;

    #[test]
    fn defaults() {
        let c = Config::default();
        assert_eq!(c.main_key, "main");
        assert_eq!(c.max_ping_pong_turns, 5);
        assert_eq!(c.archive_after_ms, Some(3_600_000));
        assert_eq!(c.default_agent, "main");
        assert!(!c.a2a_enabled);
    }

    #[test]
    fn lenient_values() {
        let c = Config::from_value(
            &json!({"session": {"mainKey": " Home ", "agentToAgent": {"maxPingPongTurns": "3"}},
                    "agents": {"defaults": {"subagents": {"archiveAfterMinutes": 0, "model": {"primary": " m "}}},
                               "list": [{"id": "Ops"}, {"id": "x", "default": true, "name": " "}]}}),
            "/state/",
        )
        .unwrap();
        assert_eq!(c.main_key, "home");
        assert_eq!(c.max_ping_pong_turns, 5);
        assert_eq!(c.archive_after_ms, None);
        assert_eq!(c.default_subagent_model.as_deref(), Some("m"));
        assert_eq!(c.default_agent, "x");
        assert_eq!(c.agents[0].id, "ops");
        assert_eq!(c.agents[1].name, None);
        assert_eq!(c.agent_store_dir("ops"), "/state/agents/ops/sessions");
    }

    /// The paths the hosts give the guest (`wit/config-paths.json`).
    fn listed_paths() -> BTreeSet<String> {
        let file: Value = serde_json::from_str(include_str!("../../wit/config-paths.json")).unwrap();
        file["paths"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
    }

    /// A config with a value at every path: objects and arrays on the way (an array of one
    /// element, an object of one key for `*`), the string `x` where a path ends (an object
    /// where a longer path goes on).
    fn config_at_every_path(paths: &BTreeSet<String>) -> Value {
        let mut root = json!({});
        for path in paths {
            let mut node = &mut root;
            for step in path.split('.') {
                let name = step.trim_end_matches("[]");
                let arrays = (step.len() - name.len()) / 2;
                if !node.is_object() {
                    *node = json!({});
                }
                node = node.as_object_mut().unwrap().entry(if name == "*" { "any" } else { name }).or_insert(Value::Null);
                for _ in 0..arrays {
                    if !node.is_array() {
                        *node = json!([null]);
                    }
                    node = &mut node[0];
                }
            }
            if node.is_null() {
                *node = json!("x");
            }
        }
        root
    }

    #[test]
    fn reads_exactly_the_paths_the_hosts_give_it() {
        let listed = listed_paths();
        let full = config_at_every_path(&listed);
        let (_, reads) = place::record::reads_of(|| Config::from_value(&full, "/state"));
        assert_eq!(reads.leaves, listed, "what the guest reads is what wit/config-paths.json lists");
        for container in &reads.containers {
            assert!(
                listed.iter().any(|p| p.starts_with(&format!("{container}.")) || p.starts_with(&format!("{container}["))),
                "the guest goes into {container}, which no listed path goes through"
            );
        }
        // Whatever the config holds, no other path is read.
        for config in [
            json!({}),
            json!({"session": "x", "agents": {"list": "x", "defaults": []}, "models": {"providers": {"a": 1, "b": {"models": [1, {}]}}}}),
            json!({"session": {"sendPolicy": {"rules": [{"action": "deny", "match": {"channel": "x", "provider": "p"}}]}}}),
            json!({"agents": {"list": [{"id": "a", "subagents": {"model": {"primary": "m", "fallbacks": ["n"]}}, "tools": {"x": 1}}]}}),
        ] {
            let (_, reads) = place::record::reads_of(|| Config::from_value(&config, "/state"));
            assert!(reads.leaves.is_subset(&listed), "{config}: {:?}", reads.leaves.difference(&listed).collect::<Vec<_>>());
        }
    }

    #[test]
    fn rejects_what_cannot_mean_anything() {
        assert!(Config::parse("[]", "").is_err());
        assert!(Config::parse("{", "").is_err());
        let err = Config::from_value(&json!({"session": {"sendPolicy": {"rules": [{"action": "deny", "match": {"provider": "x"}}]}}}), "")
            .unwrap_err();
        assert!(err.contains("rules[0].match.provider"), "{err}");
    }
}
