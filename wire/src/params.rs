//! The contract's params as the gateway's JSON params, for each era: camelCase, absent
//! optional values omitted. Both eras' schemas are closed: a
//! field of one era is never sent to the other.

use serde_json::{json, Value};
use session_tools_contract::*;

use crate::era::Era;
use crate::json::Object;

/// The page of a `sessions.list` on protocol 4, where an omitted `limit` means 100 (E6):
/// every list the wire sends there carries its `limit`, and one that wants every row pages.
pub const PAGE: u32 = 1000;

/// The most `chat.history` lets a message's text be on protocol 4 (E4: the raw transcript,
/// as far as the gateway lets it be).
pub const MAX_CHARS: u32 = 500_000;

/// `sessions.list`. On protocol 4, `offset` is the page asked for and the limit is always
/// explicit (the caller's, else one [`PAGE`]); on protocol 3 neither is added.
pub fn list(era: Era, p: &ListParams, offset: u32) -> Value {
    let limit = match era {
        Era::V3 => p.limit,
        Era::V4 => Some(p.limit.unwrap_or(PAGE)),
    };
    Object::new()
        .opt("limit", limit)
        .opt("offset", (era == Era::V4 && offset > 0).then_some(offset))
        .opt("activeMinutes", p.active_minutes)
        .opt("includeGlobal", p.include_global)
        .opt("includeUnknown", p.include_unknown)
        .opt_str("spawnedBy", &p.spawned_by)
        .opt_str("label", &p.label)
        .opt_str("agentId", &p.agent_id)
        .opt_str("search", &p.search)
        .done()
}

/// `sessions.resolve` (the same on both eras).
pub fn resolve(p: &ResolveParams) -> Value {
    Object::new()
        .opt_str("key", &p.key)
        .opt_str("sessionId", &p.session_id)
        .opt_str("label", &p.label)
        .opt_str("agentId", &p.agent_id)
        .opt_str("spawnedBy", &p.spawned_by)
        .opt("includeGlobal", p.include_global)
        .opt("includeUnknown", p.include_unknown)
        .done()
}

/// `chat.history`. On protocol 4 with `maxChars` at its maximum, so text is not cut at
/// 8,000 characters (E4).
pub fn history(era: Era, p: &HistoryParams) -> Value {
    Object::new()
        .set("sessionKey", p.session_key.clone())
        .opt("limit", p.limit)
        .opt("maxChars", (era == Era::V4).then_some(MAX_CHARS))
        .done()
}

/// `agent`. Protocol 4 has no `spawnedBy` (E5: the child is made by `sessions.create`
/// first, see [`create`]), so it is left out there.
pub fn agent(era: Era, p: &AgentParams) -> Value {
    Object::new()
        .set("message", p.message.clone())
        .opt_str("sessionKey", &p.session_key)
        .opt_str("channel", &p.channel)
        .set("idempotencyKey", p.idempotency_key.clone())
        .opt("deliver", p.deliver)
        .opt_str("lane", &p.lane)
        .opt_str("extraSystemPrompt", &p.extra_system_prompt)
        .opt_str("thinking", &p.thinking)
        .opt("timeout", p.timeout)
        .opt_str("label", &p.label)
        .opt_str("spawnedBy", if era == Era::V3 { &p.spawned_by } else { &None })
        .opt_str("groupId", &p.group_id)
        .opt_str("groupChannel", &p.group_channel)
        .opt_str("groupSpace", &p.group_space)
        .done()
}

/// `sessions.create` (protocol 4 only): the child session of a spawn, with its agent and
/// lineage (E5: `{key, agentId, parentSessionKey, label?}`), before its run is started with
/// `agent`. `None` when the params start no child (no session key or no `spawnedBy`).
pub fn create(p: &AgentParams) -> Option<Value> {
    let key = p.session_key.as_ref()?;
    let parent = p.spawned_by.as_ref()?;
    Some(
        Object::new()
            .set("key", key.clone())
            .opt("agentId", agent_of_key(key))
            .set("parentSessionKey", parent.clone())
            .opt_str("label", &p.label)
            .done(),
    )
}

/// The agent of an `agent:<id>:<rest>` key (the tools give a child's key in that form,
/// canonical); `None` for any other key, which the gateway then places itself.
fn agent_of_key(key: &str) -> Option<String> {
    let mut parts = key.splitn(3, ':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("agent"), Some(id), Some(rest)) if !id.is_empty() && !rest.is_empty() => Some(id.to_string()),
        _ => None,
    }
}

/// `agent.wait` (the same on both eras).
pub fn wait(p: &WaitParams) -> Value {
    json!({ "runId": p.run_id, "timeoutMs": p.timeout_ms })
}

/// `send` (the same on both eras).
pub fn send(p: &SendParams) -> Value {
    Object::new()
        .set("to", p.to.clone())
        .set("message", p.message.clone())
        .opt_str("channel", &p.channel)
        .opt_str("accountId", &p.account_id)
        .set("idempotencyKey", p.idempotency_key.clone())
        .done()
}

/// `sessions.patch` (the fields the tools set exist on both eras).
pub fn patch(p: &PatchParams) -> Value {
    Object::new().set("key", p.key.clone()).opt_str("label", &p.label).opt_str("model", &p.model).done()
}

/// `sessions.delete` (the same on both eras).
pub fn delete(p: &DeleteParams) -> Value {
    json!({ "key": p.key, "deleteTranscript": p.delete_transcript })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_omit_absent_values() {
        let p = ListParams { limit: Some(5), include_global: Some(true), ..Default::default() };
        assert_eq!(list(Era::V3, &p, 0), json!({"limit": 5, "includeGlobal": true}));
        assert_eq!(history(Era::V3, &HistoryParams { session_key: "main".into(), limit: None }), json!({"sessionKey": "main"}));
        assert_eq!(wait(&WaitParams { run_id: "r".into(), timeout_ms: 30_000 }), json!({"runId": "r", "timeoutMs": 30000}));
        let send_params = SendParams {
            to: "t".into(),
            message: "m".into(),
            channel: Some("discord".into()),
            account_id: None,
            idempotency_key: "k".into(),
        };
        assert_eq!(send(&send_params), json!({"to": "t", "message": "m", "channel": "discord", "idempotencyKey": "k"}));
        assert_eq!(patch(&PatchParams { key: "k".into(), label: None, model: Some("a/b".into()) }), json!({"key": "k", "model": "a/b"}));
        assert_eq!(delete(&DeleteParams { key: "k".into(), delete_transcript: true }), json!({"key": "k", "deleteTranscript": true}));
        let r = ResolveParams { session_id: Some("x".into()), include_global: Some(false), ..Default::default() };
        assert_eq!(resolve(&r), json!({"sessionId": "x", "includeGlobal": false}));
    }

    fn spawn_params() -> AgentParams {
        AgentParams {
            message: "m".into(),
            session_key: Some("agent:main:subagent:1".into()),
            idempotency_key: "k".into(),
            deliver: Some(false),
            lane: Some("subagent".into()),
            timeout: Some(0),
            label: Some("l".into()),
            spawned_by: Some("agent:main:main".into()),
            ..Default::default()
        }
    }

    #[test]
    fn agent_params_keep_the_gateway_order_and_lineage_per_era() {
        let p = spawn_params();
        let keys = |v: Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            keys(agent(Era::V3, &p)),
            ["message", "sessionKey", "idempotencyKey", "deliver", "lane", "timeout", "label", "spawnedBy"],
            "protocol 3 carries the lineage on the run"
        );
        assert!(agent(Era::V4, &p).get("spawnedBy").is_none(), "protocol 4 refuses spawnedBy on agent (E5)");
        assert_eq!(
            create(&p),
            Some(json!({"key": "agent:main:subagent:1", "agentId": "main", "parentSessionKey": "agent:main:main", "label": "l"})),
            "protocol 4 makes the child with its agent and parent first (E5)"
        );
        let ops = AgentParams { session_key: Some("agent:ops:subagent:2".into()), label: None, ..p.clone() };
        assert_eq!(create(&ops), Some(json!({"key": "agent:ops:subagent:2", "agentId": "ops", "parentSessionKey": "agent:main:main"})));
        let bare = AgentParams { session_key: Some("subagent:3".into()), label: None, ..p.clone() };
        assert_eq!(create(&bare), Some(json!({"key": "subagent:3", "parentSessionKey": "agent:main:main"})), "no agent to name");
        assert_eq!(create(&AgentParams { spawned_by: None, ..p }), None, "a run in an existing session makes no child");
    }

    #[test]
    fn protocol_4_lists_with_an_explicit_limit_and_reads_whole_texts() {
        assert_eq!(list(Era::V3, &ListParams::default(), 0), json!({}), "protocol 3: today's params");
        assert_eq!(list(Era::V4, &ListParams::default(), 0), json!({"limit": PAGE}), "E6: never the gateway's default of 100");
        assert_eq!(list(Era::V4, &ListParams::default(), 2000), json!({"limit": PAGE, "offset": 2000}));
        assert_eq!(list(Era::V4, &ListParams { limit: Some(3), ..Default::default() }, 0), json!({"limit": 3}));
        let h = HistoryParams { session_key: "main".into(), limit: Some(5) };
        assert_eq!(history(Era::V4, &h), json!({"sessionKey": "main", "limit": 5, "maxChars": MAX_CHARS}), "E4");
        assert_eq!(history(Era::V3, &h), json!({"sessionKey": "main", "limit": 5}), "maxChars is unknown to protocol 3");
    }
}
