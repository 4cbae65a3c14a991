//! The config of OpenClaw 2026.9 in the documents' shape (E2): the component, the hosts'
//! key rules and the N15 guard read one shape, whichever era wrote the config. Each host
//! converts what it receives at its edge with this one copy: the Rust host natively when it
//! reads a config (`host/src/config.rs`), the plugin through the wire component's
//! `documents-config` (OpenClaw hands a plugin its config in the gateway's own shape).
//!
//! 2026.9 keeps its agents in a keyed `agents.entries{<id>: {…}}` (no `agents.list[]`) and
//! names its default agent in `agents.defaults.systemAgent.agentId` (no `default: true`);
//! it retired
//! `session.agentToAgent.maxPingPongTurns` (fixed at 5, which is the documents' default).

use serde_json::{Map, Value};
use session_tools_grammar::keys::normalize_agent_id;

/// `raw` with `agents.entries` turned into `agents.list` (in the map's order, the system
/// agent marked `default: true`) and, in such a config, the retired ping-pong setting
/// removed. A config of the documents' shape (an `agents.list`, or no `agents.entries`)
/// is returned as it is.
pub fn documents_shape(mut raw: Value) -> Value {
    let Some(agents) = raw.get_mut("agents").and_then(Value::as_object_mut) else { return raw };
    if agents.contains_key("list") {
        return raw;
    }
    let Some(Value::Object(entries)) = agents.remove("entries") else { return raw };
    let system = agents
        .get("defaults")
        .and_then(|d| d.get("systemAgent"))
        .and_then(|s| s.get("agentId"))
        .and_then(Value::as_str)
        .map(normalize_agent_id);
    let list: Vec<Value> = entries
        .into_iter()
        .map(|(id, entry)| {
            let mut agent = match entry {
                Value::Object(fields) => fields,
                _ => Map::new(),
            };
            // An entry's key is its id; a retired per-entry `default` marker says nothing.
            agent.remove("default");
            if system.as_deref() == Some(normalize_agent_id(&id).as_str()) {
                agent.insert("default".into(), Value::Bool(true));
            }
            let mut ordered = Map::new();
            ordered.insert("id".into(), Value::String(id));
            ordered.extend(agent);
            Value::Object(ordered)
        })
        .collect();
    agents.insert("list".into(), Value::Array(list));
    if let Some(a2a) = raw.get_mut("session").and_then(|s| s.get_mut("agentToAgent")).and_then(Value::as_object_mut) {
        a2a.remove("maxPingPongTurns");
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keyed_entries_become_the_list_with_the_system_agent_default() {
        let raw = json!({
            "agents": {"defaults": {"systemAgent": {"agentId": "Work"}, "sandbox": {"mode": "all"}},
                       "entries": {"main": {}, "work": {"subagents": {"allowAgents": ["main"]}, "default": false}, "odd": 5}},
            "session": {"agentToAgent": {"maxPingPongTurns": 2}, "mainKey": "main"}
        });
        assert_eq!(
            documents_shape(raw),
            json!({
                "agents": {"defaults": {"systemAgent": {"agentId": "Work"}, "sandbox": {"mode": "all"}},
                           "list": [{"id": "main"}, {"id": "work", "subagents": {"allowAgents": ["main"]}, "default": true}, {"id": "odd"}]},
                "session": {"agentToAgent": {}, "mainKey": "main"}
            })
        );
        // The documents' shape is left alone, ping-pong setting included.
        let documents = json!({"agents": {"list": [{"id": "main"}]}, "session": {"agentToAgent": {"maxPingPongTurns": 2}}});
        assert_eq!(documents_shape(documents.clone()), documents);
        assert_eq!(documents_shape(json!({"x": 1})), json!({"x": 1}));
    }
}
