//! What the live client sends and reads differently on a protocol-4 gateway (OpenClaw
//! 2026.5 and later; `../shared/spec/openclaw-2026.9.md` §1.6), on top of the one wire
//! mapping ([`crate::gateway::wire`]): both eras validate params with closed schemas, so a
//! field of one era is refused by the other and each request is built for the protocol
//! `hello-ok` negotiated (E1). Kept apart, and small, so it moves as a whole into the
//! wire component once that is configured with the protocol.

use serde_json::{json, Value};
use session_tools_guest::ports::{AgentParams, HistoryParams, ListParams};

use crate::gateway::wire;

/// The negotiated protocol, for what differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Protocol(pub u64);

/// Rows asked for in one `sessions.list` page on protocol 4 (its RPC has no upper clamp;
/// this keeps one answer well under the payload limit).
pub const PAGE: u32 = 500;

/// `chat.history`'s largest `maxChars` on protocol 4: its display projection cuts text at
/// 8,000 characters unless told otherwise (E4).
const MAX_CHARS: u32 = 500_000;

impl Protocol {
    /// Whether children are made with `sessions.create {parentSessionKey}` and lists
    /// default to 100 rows (protocol 4).
    pub fn is_v4(self) -> bool {
        self.0 >= 4
    }

    /// `sessions.list` params. Protocol 4 answers 100 rows when `limit` is omitted (E6):
    /// a list without a limit is asked a page at a time (`offset`, a protocol-4 field).
    /// Protocol 3 lists every row when `limit` is omitted, and knows no `offset`.
    pub fn list_params(self, p: &ListParams, offset: u32) -> Value {
        let mut params = wire::list_params(p);
        if self.is_v4() {
            if p.limit.is_none() {
                params["limit"] = json!(PAGE);
            }
            if offset > 0 {
                params["offset"] = json!(offset);
            }
        }
        params
    }

    /// The offset of the next page of a protocol-4 answer to a list without a limit,
    /// when it says there is more (`hasMore`, `nextOffset`).
    pub fn next_page(self, p: &ListParams, offset: u32, answer: &Value) -> Option<u32> {
        if !self.is_v4() || p.limit.is_some() || answer.get("hasMore").and_then(Value::as_bool) != Some(true) {
            return None;
        }
        let rows = answer.get("sessions").and_then(Value::as_array).map_or(0, Vec::len) as u32;
        let next = answer.get("nextOffset").and_then(Value::as_u64).map_or(offset + rows, |n| n as u32);
        (next > offset).then_some(next)
    }

    /// `chat.history` params: the whole text on protocol 4 (E4).
    pub fn history_params(self, p: &HistoryParams) -> Value {
        let mut params = wire::history_params(p);
        if self.is_v4() {
            params["maxChars"] = json!(MAX_CHARS);
        }
        params
    }

    /// `agent` params: protocol 4 refuses `spawnedBy` (the child was made by
    /// [`Protocol::create_child`] first, E5) and the label (set by the creation).
    pub fn agent_params(self, p: &AgentParams) -> Value {
        let mut params = wire::agent_params(p);
        if self.is_v4() && p.spawned_by.is_some() {
            if let Some(map) = params.as_object_mut() {
                map.remove("spawnedBy");
                map.remove("label");
            }
        }
        params
    }

    /// On protocol 4, the `sessions.create` params that make a run's child session before
    /// its `agent` (E5): its key, agent, parent and label.
    pub fn create_child(self, p: &AgentParams) -> Option<Value> {
        let parent = p.spawned_by.as_deref().filter(|_| self.is_v4())?;
        let key = p.session_key.as_deref()?;
        let mut params = json!({"key": key, "parentSessionKey": parent});
        if let Some(agent) = key.strip_prefix("agent:").and_then(|rest| rest.split(':').next()).filter(|a| !a.is_empty()) {
            params["agentId"] = json!(agent);
        }
        if let Some(label) = p.label.as_deref() {
            params["label"] = json!(label);
        }
        Some(params)
    }
}

/// A `chat.history` answer as the transcript holds it: protocol 4 adds its own
/// `__openclaw {id, seq, …}` to every message, which is not the transcript's (E4).
pub fn history_answer(protocol: Protocol, mut answer: Value) -> Value {
    if protocol.is_v4() {
        if let Some(messages) = answer.get_mut("messages").and_then(Value::as_array_mut) {
            for message in messages.iter_mut().filter_map(Value::as_object_mut) {
                message.remove("__openclaw");
            }
        }
    }
    answer
}

/// A `sessions.list` answer with each row's parent as `spawnedBy`: a child made by
/// `sessions.create` (2026.9) carries `parentSessionKey` instead (E5).
pub fn with_lineage(mut answer: Value) -> Value {
    if let Some(rows) = answer.get_mut("sessions").and_then(Value::as_array_mut) {
        for row in rows.iter_mut().filter_map(Value::as_object_mut) {
            let has_spawned_by = row.get("spawnedBy").and_then(Value::as_str).is_some_and(|s| !s.trim().is_empty());
            let parent = row.get("parentSessionKey").and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(str::to_string);
            if let (false, Some(parent)) = (has_spawned_by, parent) {
                row.insert("spawnedBy".into(), Value::String(parent));
            }
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_protocol_gets_only_its_own_fields() {
        let (v3, v4) = (Protocol(3), Protocol(4));
        let all = ListParams { spawned_by: Some("agent:main:main".into()), ..Default::default() };
        assert_eq!(v3.list_params(&all, 0), json!({"spawnedBy": "agent:main:main"}));
        assert_eq!(v4.list_params(&all, 0), json!({"spawnedBy": "agent:main:main", "limit": PAGE}));
        assert_eq!(v4.list_params(&all, 500)["offset"], 500);
        let five = ListParams { limit: Some(5), ..Default::default() };
        assert_eq!(v4.list_params(&five, 0), json!({"limit": 5}));
        assert_eq!(v4.next_page(&all, 0, &json!({"sessions": [{}, {}], "hasMore": true, "nextOffset": 2})), Some(2));
        assert_eq!(v4.next_page(&all, 0, &json!({"sessions": [{}, {}], "hasMore": true})), Some(2));
        assert_eq!(v4.next_page(&all, 0, &json!({"sessions": [], "hasMore": false})), None);
        assert_eq!(v4.next_page(&five, 0, &json!({"sessions": [], "hasMore": true})), None);
        assert_eq!(v3.next_page(&all, 0, &json!({"hasMore": true, "nextOffset": 2})), None);

        let spawn = AgentParams {
            message: "t".into(),
            session_key: Some("agent:ops:subagent:1".into()),
            idempotency_key: "i".into(),
            label: Some("l".into()),
            spawned_by: Some("agent:main:main".into()),
            ..Default::default()
        };
        assert_eq!(v3.agent_params(&spawn)["spawnedBy"], "agent:main:main");
        assert_eq!(v3.create_child(&spawn), None);
        let sent = v4.agent_params(&spawn);
        assert!(sent.get("spawnedBy").is_none() && sent.get("label").is_none(), "{sent}");
        assert_eq!(
            v4.create_child(&spawn),
            Some(json!({"key": "agent:ops:subagent:1", "parentSessionKey": "agent:main:main", "agentId": "ops", "label": "l"}))
        );
        let history = HistoryParams { session_key: "main".into(), limit: None };
        assert!(v3.history_params(&history).get("maxChars").is_none());
        assert_eq!(v4.history_params(&history)["maxChars"], MAX_CHARS);
    }

    #[test]
    fn a_parent_session_key_is_a_parent() {
        let answer = with_lineage(json!({"sessions": [
            {"key": "a", "parentSessionKey": "p"}, {"key": "b", "spawnedBy": "q", "parentSessionKey": "p"}, {"key": "c"}
        ]}));
        let parents: Vec<&Value> = answer["sessions"].as_array().unwrap().iter().map(|r| &r["spawnedBy"]).collect();
        assert_eq!(parents, [&json!("p"), &json!("q"), &Value::Null]);
        let answer = json!({"messages": [{"role": "user", "__openclaw": {"seq": 1}}]});
        assert_eq!(history_answer(Protocol(4), answer.clone()), json!({"messages": [{"role": "user"}]}));
        assert_eq!(history_answer(Protocol(3), answer.clone()), answer);
    }
}
