//! How the gateway canonicalises keys (reference §1.4, `resolveSessionStoreKey`).

use serde_json::{Map, Value};
use session_tools_grammar::js::js_trim;
use session_tools_grammar::keys::normalize_agent_id;

pub use session_tools_grammar::keys::KeyRules;

/// `canonicalizeSessionKeyForAgent`: how a stored key is listed.
pub fn for_agent(agent_id: &str, key: &str) -> String {
    if key == "global" || key == "unknown" || key.starts_with("agent:") {
        key.to_string()
    } else {
        format!("agent:{}:{key}", normalize_agent_id(agent_id))
    }
}

/// `canonicalizeSpawnedByForAgent`.
pub fn spawned_by_for_agent(agent_id: &str, spawned_by: Option<&str>) -> Option<String> {
    let raw = js_trim(spawned_by?);
    (!raw.is_empty()).then(|| for_agent(agent_id, raw))
}

/// Two entries stored under one canonical key (a legacy un-prefixed spelling and the
/// canonical one, or one key in two stores), merged as the reference's combined store does
/// (`loadCombinedSessionStoreForGateway`, G4): the entry with the newer `updatedAt` wins
/// (on a tie, the later one), field by field; fields only the other has are kept; and
/// `spawnedBy` is the winner's, else the other's, canonical for the agent.
pub fn merge_entries(earlier: Map<String, Value>, later: Map<String, Value>, agent_id: &str) -> Map<String, Value> {
    let updated = |e: &Map<String, Value>| e.get("updatedAt").and_then(Value::as_f64).unwrap_or(0.0);
    let (base, top) = if updated(&earlier) > updated(&later) { (later, earlier) } else { (earlier, later) };
    let spawned = top.get("spawnedBy").and_then(Value::as_str).or_else(|| base.get("spawnedBy").and_then(Value::as_str));
    let spawned = spawned_by_for_agent(agent_id, spawned);
    let mut merged = base;
    for (key, value) in top {
        merged.insert(key, value);
    }
    match spawned {
        Some(parent) => {
            merged.insert("spawnedBy".into(), Value::String(parent));
        }
        None => {
            merged.shift_remove("spawnedBy");
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> KeyRules {
        KeyRules { main_key: "main".into(), scope_global: false, default_agent: "main".into() }
    }

    #[test]
    fn canonicalises_like_the_gateway() {
        let r = rules();
        assert_eq!(r.canonical(" main "), "agent:main:main");
        assert_eq!(r.canonical("agent:ops:main"), "agent:ops:main");
        // Only the normalised spelling is a main alias (compared literally, as the reference).
        assert_eq!(r.canonical("agent:Ops:main"), "agent:Ops:main");
        assert_eq!(r.canonical("agent:ops:Discord:group:X"), "agent:ops:Discord:group:X");
        assert_eq!(r.canonical("discord:group:x"), "agent:main:discord:group:x");
        assert_eq!(r.canonical("global"), "global");
        let g = KeyRules { scope_global: true, ..rules() };
        assert_eq!(g.canonical("main"), "global");
        assert_eq!(g.canonical("agent:ops:main"), "global");
        assert_eq!(for_agent("ops", "main"), "agent:ops:main");
    }

    #[test]
    fn merges_spellings_like_the_combined_store() {
        let obj = |v: serde_json::Value| v.as_object().unwrap().clone();
        let legacy = obj(serde_json::json!({"sessionId": "L", "updatedAt": 5, "subject": "legacy-only", "spawnedBy": "main"}));
        let canon = obj(serde_json::json!({"sessionId": "C", "updatedAt": 3, "groupChannel": "#canon-only"}));
        let merged = merge_entries(legacy.clone(), canon.clone(), "main");
        assert_eq!(
            serde_json::Value::Object(merged),
            serde_json::json!({"sessionId": "L", "updatedAt": 5, "groupChannel": "#canon-only", "subject": "legacy-only", "spawnedBy": "agent:main:main"})
        );
        // A tie goes to the later entry.
        let tie = obj(serde_json::json!({"sessionId": "T", "updatedAt": 5}));
        assert_eq!(merge_entries(legacy, tie, "main")["sessionId"], "T");
    }
}
