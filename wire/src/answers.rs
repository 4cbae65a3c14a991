//! The gateway's JSON answers as the contract's records, and the few records a host shows
//! as the gateway would (a row, a wait's result). Answers are untrusted: a field of the
//! wrong type is treated as absent, and a row without a non-empty string `key` is dropped.

use serde_json::{json, Value};
use session_tools_contract::*;

use crate::era::Era;
use crate::json::{bool_field, int_field, num_field, str_field, Object};

/// A thread id is a string or a number, and keeps its type (N11).
pub fn thread_id(v: Option<&Value>) -> Option<ThreadId> {
    match v? {
        Value::String(s) => Some(ThreadId::Text(s.clone())),
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()).map(ThreadId::Number),
        _ => None,
    }
}

pub fn delivery_context(v: &Value) -> Option<DeliveryContext> {
    v.as_object()?;
    Some(DeliveryContext {
        channel: str_field(v, "channel"),
        to: str_field(v, "to"),
        account_id: str_field(v, "accountId"),
        thread_id: thread_id(v.get("threadId")),
    })
}

/// One `sessions.list` row; `None` without a non-empty string key. Its parent is
/// `spawnedBy`, else `parentSessionKey` (E5: protocol 4 gives a child made by
/// `sessions.create` only the latter).
pub fn session_row(v: &Value) -> Option<SessionRow> {
    let key = v.get("key")?.as_str().filter(|k| !k.is_empty())?.to_string();
    Some(SessionRow {
        key,
        kind: str_field(v, "kind"),
        channel: str_field(v, "channel"),
        label: str_field(v, "label"),
        display_name: str_field(v, "displayName"),
        delivery_context: v.get("deliveryContext").and_then(delivery_context),
        updated_at: int_field(v, "updatedAt"),
        session_id: str_field(v, "sessionId"),
        model: str_field(v, "model"),
        context_tokens: num_field(v, "contextTokens"),
        total_tokens: num_field(v, "totalTokens"),
        thinking_level: str_field(v, "thinkingLevel"),
        verbose_level: str_field(v, "verboseLevel"),
        system_sent: bool_field(v, "systemSent"),
        aborted_last_run: bool_field(v, "abortedLastRun"),
        send_policy: str_field(v, "sendPolicy"),
        last_channel: str_field(v, "lastChannel"),
        last_to: str_field(v, "lastTo"),
        last_account_id: str_field(v, "lastAccountId"),
        spawned_by: str_field(v, "spawnedBy").or_else(|| str_field(v, "parentSessionKey")),
    })
}

/// A row as the gateway lists it (the inverse of [`session_row`]): camelCase, absent
/// values omitted, in the gateway's key order.
pub fn session_row_json(row: &SessionRow) -> Value {
    let delivery = row.delivery_context.as_ref().map(|d| {
        Object::new()
            .opt_str("channel", &d.channel)
            .opt_str("to", &d.to)
            .opt_str("accountId", &d.account_id)
            .opt("threadId", d.thread_id.as_ref().and_then(|t| serde_json::to_value(t).ok()))
            .done()
    });
    Object::new()
        .set("key", row.key.clone())
        .opt_str("kind", &row.kind)
        .opt_str("label", &row.label)
        .opt_str("displayName", &row.display_name)
        .opt_str("channel", &row.channel)
        .opt("updatedAt", row.updated_at)
        .opt_str("sessionId", &row.session_id)
        .opt("systemSent", row.system_sent)
        .opt("abortedLastRun", row.aborted_last_run)
        .opt_str("thinkingLevel", &row.thinking_level)
        .opt_str("verboseLevel", &row.verbose_level)
        .opt_str("sendPolicy", &row.send_policy)
        .opt("totalTokens", row.total_tokens)
        .opt_str("model", &row.model)
        .opt("contextTokens", row.context_tokens)
        .opt_str("spawnedBy", &row.spawned_by)
        .opt("deliveryContext", delivery)
        .opt_str("lastChannel", &row.last_channel)
        .opt_str("lastTo", &row.last_to)
        .opt_str("lastAccountId", &row.last_account_id)
        .done()
}

pub fn session_list(v: &Value) -> SessionList {
    SessionList {
        path: str_field(v, "path"),
        sessions: v.get("sessions").and_then(Value::as_array).map_or_else(Vec::new, |rows| rows.iter().filter_map(session_row).collect()),
    }
}

/// Where the next page of a `sessions.list` starts (protocol 4's `hasMore`/`nextOffset`);
/// `None` on the last page, and on an answer that does not say (protocol 3).
pub fn next_offset(v: &Value) -> Option<u32> {
    if bool_field(v, "hasMore") != Some(true) {
        return None;
    }
    v.get("nextOffset").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok())
}

/// The key of a `sessions.resolve` answer; empty when it has none.
pub fn resolved_key(v: &Value) -> String {
    str_field(v, "key").unwrap_or_default()
}

/// One transcript message as the tools receive it.
pub fn transcript_message(v: &Value) -> TranscriptMessage {
    TranscriptMessage { role: str_field(v, "role"), json: v.to_string() }
}

/// A `chat.history` answer as the transcript holds it: protocol 4 adds its own
/// `__openclaw {id, seq, …}` to every message, which is not the transcript's and is
/// removed (E4).
pub fn history(era: Era, v: &Value) -> History {
    let message = |m: &Value| match (era, m) {
        (Era::V4, Value::Object(fields)) if fields.contains_key("__openclaw") => {
            let mut fields = fields.clone();
            fields.remove("__openclaw");
            transcript_message(&Value::Object(fields))
        }
        _ => transcript_message(m),
    };
    History {
        session_id: str_field(v, "sessionId"),
        messages: v.get("messages").and_then(Value::as_array).map_or_else(Vec::new, |m| m.iter().map(message).collect()),
    }
}

pub fn agent_accepted(v: &Value) -> AgentAccepted {
    AgentAccepted { run_id: str_field(v, "runId") }
}

/// Whose run an `agent` answer says it is (newer gateways answer a known idempotency key
/// with its run, whichever session asked): `None` when it does not say.
pub fn run_owner(v: &Value) -> Option<String> {
    str_field(v, "sessionKey").filter(|k| !k.trim().is_empty())
}

pub fn usage(v: &Value) -> Option<Usage> {
    v.as_object()?;
    Some(Usage {
        input_tokens: num_field(v, "inputTokens").or_else(|| num_field(v, "input")),
        output_tokens: num_field(v, "outputTokens").or_else(|| num_field(v, "output")),
        total_tokens: num_field(v, "totalTokens"),
    })
}

pub fn wait_result(v: &Value) -> WaitResult {
    WaitResult {
        status: str_field(v, "status"),
        error: str_field(v, "error"),
        started_at: int_field(v, "startedAt"),
        ended_at: int_field(v, "endedAt"),
        usage: v.get("usage").and_then(usage),
        model: str_field(v, "model"),
    }
}

/// A `wait-result` as JSON (for recording and display).
pub fn wait_result_json(w: &WaitResult) -> Value {
    Object::new()
        .opt_str("status", &w.status)
        .opt_str("error", &w.error)
        .opt("startedAt", w.started_at.map(|t| json!(t)))
        .opt("endedAt", w.ended_at.map(|t| json!(t)))
        .opt("usage", w.usage.as_ref().and_then(|u| serde_json::to_value(u).ok()))
        .opt_str("model", &w.model)
        .done()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_the_wrong_shape_are_dropped_or_trimmed() {
        let list = session_list(&json!({"path": 5, "sessions": [
            {"key": ""}, {"key": 3}, "x", {"key": "k", "label": 7, "updatedAt": 10.9, "deliveryContext": {"threadId": 42}}
        ]}));
        assert_eq!(list.path, None);
        assert_eq!(list.sessions.len(), 1);
        let row = &list.sessions[0];
        assert_eq!((row.label.as_deref(), row.updated_at), (None, Some(10)));
        assert_eq!(row.delivery_context.as_ref().unwrap().thread_id, Some(ThreadId::Number(42.0)));
        assert_eq!(session_list(&json!({"path": "/p", "sessions": "no"})).sessions.len(), 0);
        assert_eq!(session_row(&json!({"key": "k", "updatedAt": 1e300})).unwrap().updated_at, Some(i64::MAX), "a huge time is clamped");
    }

    #[test]
    fn lineage_is_spawned_by_else_parent_session_key() {
        let spawned = |v: Value| session_row(&v).unwrap().spawned_by;
        assert_eq!(spawned(json!({"key": "c", "spawnedBy": "p"})), Some("p".into()));
        assert_eq!(spawned(json!({"key": "c", "parentSessionKey": "q"})), Some("q".into()), "E5: protocol 4's children");
        assert_eq!(spawned(json!({"key": "c", "spawnedBy": "p", "parentSessionKey": "q"})), Some("p".into()));
        assert_eq!(spawned(json!({"key": "c"})), None);
    }

    #[test]
    fn a_row_reads_back_as_it_was_listed() {
        let listed = json!({"key": "agent:main:main", "kind": "direct", "updatedAt": 5, "spawnedBy": "p",
            "deliveryContext": {"channel": "discord", "threadId": "9"}, "lastTo": "x"});
        assert_eq!(session_row_json(&session_row(&listed).unwrap()), listed);
    }

    #[test]
    fn answers_of_the_wrong_shape_read_as_absent() {
        assert_eq!(resolved_key(&json!({"ok": true, "key": "agent:main:main"})), "agent:main:main");
        assert_eq!(resolved_key(&json!({})), "");
        assert_eq!(resolved_key(&Value::Null), "");
        let h = history(
            Era::V3,
            &json!({"sessionId": "s", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, "odd", {"role": 5}]}),
        );
        assert_eq!(h.session_id.as_deref(), Some("s"));
        assert_eq!(h.messages.iter().map(|m| m.role.as_deref()).collect::<Vec<_>>(), [Some("user"), None, None]);
        assert_eq!(h.messages[0].json, r#"{"role":"user","content":[{"type":"text","text":"hi"}]}"#, "a message keeps its key order");
        assert_eq!(agent_accepted(&json!({"runId": "run-1", "status": "accepted"})).run_id.as_deref(), Some("run-1"));
        assert_eq!(agent_accepted(&json!({"runId": 7})).run_id, None);
        assert_eq!(run_owner(&json!({"sessionKey": " "})), None);
        let w = wait_result(&json!({"runId": "r", "status": "ok", "startedAt": 1000, "endedAt": 2500.7,
            "usage": {"input": 10, "output": 5, "totalTokens": 15}, "model": "m"}));
        assert_eq!(
            wait_result_json(&w),
            json!({"status": "ok", "startedAt": 1000, "endedAt": 2500, "usage": {"inputTokens": 10.0, "outputTokens": 5.0, "totalTokens": 15.0}, "model": "m"})
        );
        assert_eq!(wait_result(&json!({"usage": "x"})).usage, None);
    }

    #[test]
    fn protocol_4s_own_message_fields_are_not_the_transcripts() {
        let answer = json!({"messages": [{"role": "user", "content": "hi", "__openclaw": {"id": "m1", "seq": 1}}, "odd"]});
        let v4 = history(Era::V4, &answer);
        assert_eq!(v4.messages[0].json, r#"{"role":"user","content":"hi"}"#, "E4: the raw transcript, in its key order");
        assert_eq!(v4.messages[1].json, r#""odd""#);
        let v3 = history(Era::V3, &answer);
        assert!(v3.messages[0].json.contains("__openclaw"), "protocol 3 has no such field: a message is kept as it came");
    }

    #[test]
    fn pages_follow_has_more() {
        assert_eq!(next_offset(&json!({"sessions": [], "hasMore": true, "nextOffset": 1000})), Some(1000));
        assert_eq!(next_offset(&json!({"sessions": [], "hasMore": false, "nextOffset": 1000})), None);
        assert_eq!(next_offset(&json!({"sessions": []})), None, "protocol 3 lists in one answer");
    }
}
