//! The deployment config, in OpenClaw's shape, read once per instance (reference §1.2).
//!
//! Values are read with the reference's leniency (N9 keeps it for config): a value of the
//! wrong type means its default. Only what cannot mean anything is an error: a config
//! that is not a JSON object, and the legacy `match.provider` send-policy key that the
//! reference also rejects.

use serde_json::{Map, Value};

use crate::keys::{normalize_agent_id, normalize_main_key, DEFAULT_AGENT_ID};

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

fn get<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut current = value;
    for key in path {
        current = current.as_object()?.get(*key)?;
    }
    Some(current)
}

fn get_str<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    get(value, path).and_then(Value::as_str)
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    match value.and_then(Value::as_array) {
        Some(items) => items.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        None => Vec::new(),
    }
}

/// A model setting: a non-blank string, or an object's non-blank `primary`.
fn model_ref(value: Option<&Value>) -> Option<String> {
    let raw = match value? {
        Value::String(s) => s.as_str(),
        Value::Object(map) => map.get("primary")?.as_str()?,
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

fn parse_send_policy(value: &Value) -> Result<Option<SendPolicyConfig>, String> {
    let Some(policy) = get(value, &["session", "sendPolicy"]) else {
        return Ok(None);
    };
    let Some(policy) = policy.as_object() else {
        return Ok(None);
    };
    let mut parsed = SendPolicyConfig { default: normalize_send_policy(policy.get("default").and_then(Value::as_str)), rules: Vec::new() };
    if let Some(rules) = policy.get("rules").and_then(Value::as_array) {
        for (index, rule) in rules.iter().enumerate() {
            let Some(rule) = rule.as_object() else {
                continue;
            };
            let matcher = rule.get("match").and_then(Value::as_object);
            if matcher.is_some_and(|m| m.contains_key("provider")) {
                return Err(format!("session.sendPolicy.rules[{index}].match.provider is no longer supported; use match.channel"));
            }
            let field = |name: &str| matcher.and_then(|m| m.get(name)).and_then(Value::as_str).map(str::to_string);
            parsed.rules.push(PolicyRule {
                action: normalize_send_policy(rule.get("action").and_then(Value::as_str)),
                channel: field("channel"),
                chat_type: field("chatType"),
                key_prefix: field("keyPrefix"),
            });
        }
    }
    Ok(Some(parsed))
}

fn parse_agents(value: &Value) -> Vec<AgentEntry> {
    let Some(list) = get(value, &["agents", "list"]).and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(Value::as_object)
        .map(|entry| {
            let entry = Value::Object(entry.clone());
            AgentEntry {
                id: normalize_agent_id(get_str(&entry, &["id"]).unwrap_or("")),
                name: get_str(&entry, &["name"]).map(str::trim).filter(|n| !n.is_empty()).map(str::to_string),
                is_default: get(&entry, &["default"]) == Some(&Value::Bool(true)),
                allow_agents: string_list(get(&entry, &["subagents", "allowAgents"])),
                subagent_model: model_ref(get(&entry, &["subagents", "model"])),
                tools_visibility: get_str(&entry, &["sandbox", "sessionToolsVisibility"]).map(str::to_string),
            }
        })
        .collect()
}

fn parse_prices(value: &Value) -> Vec<ModelPrice> {
    let mut prices = Vec::new();
    let Some(providers) = get(value, &["models", "providers"]).and_then(Value::as_object) else {
        return prices;
    };
    for (provider, entry) in providers {
        let Some(models) = entry.get("models").and_then(Value::as_array) else {
            continue;
        };
        for model in models {
            let (Some(id), Some(input), Some(output)) = (
                get_str(model, &["id"]),
                get(model, &["cost", "input"]).and_then(Value::as_f64),
                get(model, &["cost", "output"]).and_then(Value::as_f64),
            ) else {
                continue;
            };
            prices.push(ModelPrice { provider: provider.clone(), id: id.to_string(), input, output });
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
        let main_key = normalize_main_key(get_str(value, &["session", "mainKey"]));
        let max_ping_pong_turns = match get(value, &["session", "agentToAgent", "maxPingPongTurns"]).and_then(Value::as_f64) {
            Some(turns) if turns.is_finite() => turns.floor().clamp(0.0, DEFAULT_PING_PONG_TURNS as f64) as u32,
            _ => DEFAULT_PING_PONG_TURNS,
        };
        let archive_after_ms = match get(value, &["agents", "defaults", "subagents", "archiveAfterMinutes"]) {
            None | Some(Value::Null) => Some(DEFAULT_ARCHIVE_AFTER_MINUTES),
            Some(v) => v.as_f64(),
        }
        .filter(|m| m.is_finite() && *m > 0.0)
        .map(|m| (m.floor().max(1.0) * 60_000.0).min(u64::MAX as f64) as u64);
        let agent_timeout_seconds = get(value, &["agents", "defaults", "timeoutSeconds"])
            .and_then(Value::as_f64)
            .filter(|v| v.is_finite())
            .unwrap_or(DEFAULT_AGENT_TIMEOUT_SECONDS);
        let agents = parse_agents(value);
        let default_agent = agents
            .iter()
            .find(|a| a.is_default)
            .or_else(|| agents.first())
            .map(|a| a.id.clone())
            .unwrap_or_else(|| DEFAULT_AGENT_ID.to_string());
        let subagent_tools = get(value, &["tools", "subagents", "tools"]);
        Ok(Config {
            main_key,
            scope_global: get_str(value, &["session", "scope"]) == Some("global"),
            max_ping_pong_turns,
            send_policy: parse_send_policy(value)?,
            a2a_enabled: get(value, &["tools", "agentToAgent", "enabled"]) == Some(&Value::Bool(true)),
            a2a_allow: match get(value, &["tools", "agentToAgent", "allow"]).and_then(Value::as_array) {
                // `String(p ?? "")` of each pattern.
                Some(items) => items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => String::new(),
                    })
                    .collect(),
                None => Vec::new(),
            },
            subagent_tools_allow: subagent_tools.and_then(|t| t.get("allow")).filter(|v| v.is_array()).map(|v| string_list(Some(v))),
            subagent_tools_deny: string_list(subagent_tools.and_then(|t| t.get("deny"))),
            default_tools_visibility: get_str(value, &["agents", "defaults", "sandbox", "sessionToolsVisibility"]).map(str::to_string),
            default_subagent_model: model_ref(get(value, &["agents", "defaults", "subagents", "model"])),
            archive_after_ms,
            agent_timeout_seconds,
            agents,
            default_agent,
            prices: parse_prices(value),
            state_dir: state_dir.trim_end_matches('/').to_string(),
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

    #[test]
    fn rejects_what_cannot_mean_anything() {
        assert!(Config::parse("[]", "").is_err());
        assert!(Config::parse("{", "").is_err());
        let err = Config::from_value(&json!({"session": {"sendPolicy": {"rules": [{"action": "deny", "match": {"provider": "x"}}]}}}), "")
            .unwrap_err();
        assert!(err.contains("rules[0].match.provider"), "{err}");
    }
}
