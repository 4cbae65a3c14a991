//! The gateway calls in OpenClaw's wire shape (JSON, camelCase, absent optional values
//! omitted): typed params to JSON, and JSON answers to typed results. Answers are
//! untrusted: a field of the wrong type is treated as absent, and a row without a
//! non-empty string `key` is dropped.

use serde_json::{json, Map, Value};
use session_tools_guest::ports::*;

fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        map.insert(key.to_string(), value);
    }
}

fn s(v: &Option<String>) -> Option<Value> {
    v.as_ref().map(|s| Value::String(s.clone()))
}

fn b(v: Option<bool>) -> Option<Value> {
    v.map(Value::Bool)
}

fn n(v: Option<u32>) -> Option<Value> {
    v.map(|n| json!(n))
}

pub fn list_params(p: &ListParams) -> Value {
    let mut m = Map::new();
    put(&mut m, "limit", n(p.limit));
    put(&mut m, "activeMinutes", n(p.active_minutes));
    put(&mut m, "includeGlobal", b(p.include_global));
    put(&mut m, "includeUnknown", b(p.include_unknown));
    put(&mut m, "spawnedBy", s(&p.spawned_by));
    put(&mut m, "label", s(&p.label));
    put(&mut m, "agentId", s(&p.agent_id));
    put(&mut m, "search", s(&p.search));
    Value::Object(m)
}

pub fn resolve_params(p: &ResolveParams) -> Value {
    let mut m = Map::new();
    put(&mut m, "key", s(&p.key));
    put(&mut m, "sessionId", s(&p.session_id));
    put(&mut m, "label", s(&p.label));
    put(&mut m, "agentId", s(&p.agent_id));
    put(&mut m, "spawnedBy", s(&p.spawned_by));
    put(&mut m, "includeGlobal", b(p.include_global));
    put(&mut m, "includeUnknown", b(p.include_unknown));
    Value::Object(m)
}

pub fn history_params(p: &HistoryParams) -> Value {
    let mut m = Map::new();
    m.insert("sessionKey".into(), Value::String(p.session_key.clone()));
    put(&mut m, "limit", n(p.limit));
    Value::Object(m)
}

pub fn agent_params(p: &AgentParams) -> Value {
    let mut m = Map::new();
    m.insert("message".into(), Value::String(p.message.clone()));
    put(&mut m, "sessionKey", s(&p.session_key));
    put(&mut m, "channel", s(&p.channel));
    m.insert("idempotencyKey".into(), Value::String(p.idempotency_key.clone()));
    put(&mut m, "deliver", b(p.deliver));
    put(&mut m, "lane", s(&p.lane));
    put(&mut m, "extraSystemPrompt", s(&p.extra_system_prompt));
    put(&mut m, "thinking", s(&p.thinking));
    put(&mut m, "timeout", n(p.timeout));
    put(&mut m, "label", s(&p.label));
    put(&mut m, "spawnedBy", s(&p.spawned_by));
    put(&mut m, "groupId", s(&p.group_id));
    put(&mut m, "groupChannel", s(&p.group_channel));
    put(&mut m, "groupSpace", s(&p.group_space));
    Value::Object(m)
}

pub fn wait_params(p: &WaitParams) -> Value {
    json!({ "runId": p.run_id, "timeoutMs": p.timeout_ms })
}

pub fn send_params(p: &SendParams) -> Value {
    let mut m = Map::new();
    m.insert("to".into(), Value::String(p.to.clone()));
    m.insert("message".into(), Value::String(p.message.clone()));
    put(&mut m, "channel", s(&p.channel));
    put(&mut m, "accountId", s(&p.account_id));
    m.insert("idempotencyKey".into(), Value::String(p.idempotency_key.clone()));
    Value::Object(m)
}

pub fn patch_params(p: &PatchParams) -> Value {
    let mut m = Map::new();
    m.insert("key".into(), Value::String(p.key.clone()));
    put(&mut m, "label", s(&p.label));
    put(&mut m, "model", s(&p.model));
    Value::Object(m)
}

pub fn delete_params(p: &DeleteParams) -> Value {
    json!({ "key": p.key, "deleteTranscript": p.delete_transcript })
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn num_field(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64).filter(|n| n.is_finite())
}

fn int_field(v: &Value, key: &str) -> Option<i64> {
    num_field(v, key).map(|n| n.floor() as i64)
}

/// A thread id is a string or a number, and keeps its type (N11).
pub fn thread_id(v: Option<&Value>) -> Option<ThreadId> {
    match v? {
        Value::String(s) => Some(ThreadId::Text(s.clone())),
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()).map(ThreadId::Number),
        _ => None,
    }
}

pub fn delivery_context(v: &Value) -> Option<DeliveryContext> {
    let v = v.as_object()?;
    let v = Value::Object(v.clone());
    Some(DeliveryContext {
        channel: str_field(&v, "channel"),
        to: str_field(&v, "to"),
        account_id: str_field(&v, "accountId"),
        thread_id: thread_id(v.get("threadId")),
    })
}

/// One `sessions.list` row; `None` without a non-empty string key.
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
        system_sent: v.get("systemSent").and_then(Value::as_bool),
        aborted_last_run: v.get("abortedLastRun").and_then(Value::as_bool),
        send_policy: str_field(v, "sendPolicy"),
        last_channel: str_field(v, "lastChannel"),
        last_to: str_field(v, "lastTo"),
        last_account_id: str_field(v, "lastAccountId"),
        spawned_by: str_field(v, "spawnedBy"),
    })
}

/// A row as the gateway lists it (the inverse of [`session_row`]): camelCase, absent
/// values omitted, in the gateway's key order.
pub fn session_row_json(row: &SessionRow) -> Value {
    let mut m = Map::new();
    m.insert("key".into(), Value::String(row.key.clone()));
    put(&mut m, "kind", s(&row.kind));
    put(&mut m, "label", s(&row.label));
    put(&mut m, "displayName", s(&row.display_name));
    put(&mut m, "channel", s(&row.channel));
    put(&mut m, "updatedAt", row.updated_at.map(Value::from));
    put(&mut m, "sessionId", s(&row.session_id));
    put(&mut m, "systemSent", b(row.system_sent));
    put(&mut m, "abortedLastRun", b(row.aborted_last_run));
    put(&mut m, "thinkingLevel", s(&row.thinking_level));
    put(&mut m, "verboseLevel", s(&row.verbose_level));
    put(&mut m, "sendPolicy", s(&row.send_policy));
    put(&mut m, "totalTokens", row.total_tokens.map(Value::from));
    put(&mut m, "model", s(&row.model));
    put(&mut m, "contextTokens", row.context_tokens.map(Value::from));
    put(&mut m, "spawnedBy", s(&row.spawned_by));
    if let Some(d) = &row.delivery_context {
        let mut dc = Map::new();
        put(&mut dc, "channel", s(&d.channel));
        put(&mut dc, "to", s(&d.to));
        put(&mut dc, "accountId", s(&d.account_id));
        put(&mut dc, "threadId", d.thread_id.as_ref().and_then(|t| serde_json::to_value(t).ok()));
        m.insert("deliveryContext".into(), Value::Object(dc));
    }
    put(&mut m, "lastChannel", s(&row.last_channel));
    put(&mut m, "lastTo", s(&row.last_to));
    put(&mut m, "lastAccountId", s(&row.last_account_id));
    Value::Object(m)
}

pub fn session_list(v: &Value) -> SessionList {
    SessionList {
        path: str_field(v, "path"),
        sessions: v.get("sessions").and_then(Value::as_array).map_or_else(Vec::new, |rows| rows.iter().filter_map(session_row).collect()),
    }
}

/// The key of a `sessions.resolve` answer; empty when it has none.
pub fn resolved_key(v: &Value) -> String {
    str_field(v, "key").unwrap_or_default()
}

/// One transcript message as the guest receives it.
pub fn transcript_message(v: &Value) -> TranscriptMessage {
    TranscriptMessage { role: str_field(v, "role"), json: v.to_string() }
}

pub fn history(v: &Value) -> History {
    History {
        session_id: str_field(v, "sessionId"),
        messages: v.get("messages").and_then(Value::as_array).map_or_else(Vec::new, |m| m.iter().map(transcript_message).collect()),
    }
}

pub fn agent_accepted(v: &Value) -> AgentAccepted {
    AgentAccepted { run_id: str_field(v, "runId") }
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
    let mut m = Map::new();
    put(&mut m, "status", s(&w.status));
    put(&mut m, "error", s(&w.error));
    put(&mut m, "startedAt", w.started_at.map(|t| json!(t)));
    put(&mut m, "endedAt", w.ended_at.map(|t| json!(t)));
    if let Some(u) = &w.usage {
        put(&mut m, "usage", serde_json::to_value(u).ok());
    }
    put(&mut m, "model", s(&w.model));
    Value::Object(m)
}

/// The kind of a gateway error frame (`ErrorShape`), from its code and, where OpenClaw
/// gives one code to several failures, its message: this is the one place that reads an
/// error's words.
pub fn error_kind(code: &str, message: &str) -> ErrorKind {
    match code {
        "UNAVAILABLE" => ErrorKind::Unavailable,
        "FORBIDDEN" | "MISSING_SCOPE" | "NOT_PAIRED" | "UNAUTHORIZED" => ErrorKind::Forbidden,
        "NOT_FOUND" => ErrorKind::NotFound,
        "AGENT_TIMEOUT" | "TIMEOUT" => ErrorKind::Timeout,
        _ if message.starts_with("No session found") => ErrorKind::NotFound,
        _ if message.starts_with("send blocked by session policy") => ErrorKind::Forbidden,
        "INVALID_REQUEST" => ErrorKind::Invalid,
        _ => ErrorKind::Other,
    }
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
    }

    #[test]
    fn params_omit_absent_values() {
        let p = ListParams { limit: Some(5), include_global: Some(true), ..Default::default() };
        assert_eq!(list_params(&p), json!({"limit": 5, "includeGlobal": true}));
    }
}
