//! The commands a session's owner runs beside the tools (`sessions`, `history`, `policy`,
//! `chat`, `patch`, `outbox`), over either gateway. On the embedded gateway they read and
//! write the state directory; on a running gateway they are its RPCs, and the gateway
//! enforces its own rules (its send policy among them).

use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use clap::ValueEnum;
use serde_json::{json, Map, Value};
use session_tools_host::gateway::embedded::iso_time;
use session_tools_host::gateway::embedded::Patch;
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::gateway::{Gateway, HistoryParams, ListParams, SessionTree, WaitParams};
use session_tools_host::{Decision, PolicyEntry, PolicyInput};

use crate::backend::{Backend, Opened};
use crate::exit::{usage, Code};
use crate::show::{print_history, print_json, print_sessions};

/// A session's own send policy, as `patch --send-policy` sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SendPolicyArg {
    /// Sends to the session are allowed.
    Allow,
    /// Sends to the session are blocked.
    Deny,
    /// The session's own policy is cleared: the configured rules apply.
    Inherit,
}

/// How long `chat` waits for the reply.
const CHAT_WAIT: Duration = Duration::from_secs(120);

fn gw(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("{e}")
}

/// `sessions`: every session, newest first.
pub fn sessions(opened: &Opened, agent: Option<String>, limit: Option<u32>, json: bool) -> Result<i32> {
    let params = ListParams { agent_id: agent, limit, include_global: Some(true), include_unknown: Some(true), ..Default::default() };
    let rows = match &opened.backend {
        Backend::Embedded(gateway) => gateway.list_rows(&params).map_err(gw)?,
        Backend::Live(gateway) => gateway.sessions_list(&params).map_err(gw)?.sessions,
    };
    if json {
        print_json(&Value::Array(rows.iter().map(session_tools_host::gateway::wire::answers::session_row_json).collect()))?;
    } else {
        print_sessions(&rows);
    }
    Ok(0)
}

/// `history`: a session's transcript messages.
pub fn history(opened: &Opened, key: &str, limit: Option<u32>, json: bool) -> Result<i32> {
    let (exists, gateway, place): (bool, &dyn Gateway, String) = match &opened.backend {
        Backend::Embedded(g) => (g.find(key).map_err(gw)?.is_some(), g.as_ref(), g.state_dir().display().to_string()),
        Backend::Live(g) => (g.exists(key).map_err(gw)?, g.as_ref(), format!("the gateway at {}", g.url())),
    };
    if !exists {
        bail!("no session {key} in {place}");
    }
    let history = gateway.chat_history(&HistoryParams { session_key: key.to_string(), limit }).map_err(gw)?;
    if json {
        let messages: Vec<Value> = history.messages.iter().filter_map(|m| serde_json::from_str(&m.json).ok()).collect();
        print_json(&json!({"sessionKey": key, "sessionId": history.session_id, "messages": messages}))?;
    } else {
        print_history(&history.messages);
    }
    Ok(0)
}

/// `outbox`: what the embedded gateway delivered to channels.
pub fn outbox(opened: &Opened, json: bool) -> Result<i32> {
    let gateway = match &opened.backend {
        Backend::Embedded(gateway) => gateway,
        Backend::Live(gateway) => {
            return Err(usage(format!(
                "`outbox` shows what was recorded as delivered from the state directory's files, and this command works through \
                 the gateway at {} ({}), which delivers to the channels itself (see its own logs); add --files to read the files",
                gateway.url(),
                opened.choice.source
            )));
        }
    };
    let deliveries = gateway.deliveries()?;
    if json {
        print_json(&Value::Array(deliveries))?;
    } else if deliveries.is_empty() {
        crate::outln!("(nothing delivered yet)");
    } else {
        for d in deliveries {
            let field = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let ts = d.get("ts").and_then(Value::as_u64).map(iso_time).unwrap_or_default();
            crate::outln!(
                "{ts}  {}:{}{}",
                field("channel"),
                field("to"),
                d.get("accountId").and_then(Value::as_str).map(|a| format!(" (account {a})")).unwrap_or_default()
            );
            for line in field("message").lines() {
                crate::outln!("    {line}");
            }
        }
    }
    Ok(0)
}

fn decision_word(decision: Decision) -> &'static str {
    if decision == Decision::Allow {
        "allow"
    } else {
        "deny"
    }
}

/// `policy`: the effective send policy of a session, and why.
pub fn policy(opened: &Opened, key: &str, json: bool) -> Result<i32> {
    let (canonical, (decision, why)) = match &opened.backend {
        Backend::Embedded(gateway) => (gateway.canonical_key(key), gateway.session_policy(key).map_err(gw)?),
        Backend::Live(gateway) => {
            // The component evaluates the gateway's config on the session's row, as the
            // gateway's own enforcement does (ref §4).
            let row = gateway.row(key).map_err(gw)?;
            let text = |k: &str| row.as_ref().and_then(|r| r.get(k)).and_then(Value::as_str).map(str::to_string);
            let input = PolicyInput {
                entry: row.as_ref().map(|_| PolicyEntry {
                    send_policy: text("sendPolicy"),
                    channel: text("channel"),
                    last_channel: text("lastChannel"),
                    chat_type: text("chatType"),
                }),
                session_key: Some(key.to_string()),
                channel: text("channel"),
                chat_type: text("chatType"),
            };
            (gateway.canonical(key), opened.service.evaluate_send_policy(&input).map_err(gw)?)
        }
    };
    if json {
        print_json(&json!({"key": canonical, "decision": decision_word(decision), "why": why}))?;
    } else {
        crate::outln!("{canonical}: {} ({why})", decision_word(decision));
    }
    Ok(0)
}

/// What `chat` shows: a reply to a command, or a run's outcome.
fn said(json: bool, value: Value, text: String) -> Result<()> {
    if json {
        print_json(&value)
    } else {
        crate::outln!("{text}");
        Ok(())
    }
}

/// `chat`: a message to a session as its owner (also `/send on|off|inherit`).
pub fn chat(opened: &Opened, key: &str, message: &str, json: bool) -> Result<i32> {
    match &opened.backend {
        Backend::Embedded(gateway) => match gateway.chat_send(key, message) {
            Ok((reply, run)) => {
                match run {
                    Some(run_id) => {
                        let wait = gateway.agent_wait(&WaitParams { run_id: run_id.clone(), timeout_ms: CHAT_WAIT.as_millis() as u64 });
                        let status = wait.ok().and_then(|w| w.status).unwrap_or_default();
                        said(json, json!({"runId": run_id, "status": status}), format!("run {run_id}: {status}"))?;
                    }
                    None => said(json, json!({"reply": reply}), reply.clone())?,
                }
                Ok(0)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(Code::Failed.value())
            }
        },
        Backend::Live(gateway) => chat_live(gateway, key, message, json),
    }
}

/// `chat.send`, then the run's outcome from the gateway's `chat` events (the method only
/// acknowledges; ref protocol §5).
fn chat_live(gateway: &LiveGateway, key: &str, message: &str, json: bool) -> Result<i32> {
    let events = gateway.subscribe("chat");
    let run_id = uuid::Uuid::new_v4().to_string();
    let params = json!({"sessionKey": key, "message": message, "idempotencyKey": run_id});
    // The idempotency key makes a resend after a dropped connection safe.
    if let Err(e) = gateway.request("chat.send", params, true) {
        eprintln!("error: {e}");
        return Ok(Code::Failed.value());
    }
    let until = Instant::now() + CHAT_WAIT;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let event = match events.recv_timeout(left) {
            Ok(event) => event,
            Err(_) => {
                let text = format!("run {run_id}: no outcome within {} s (it goes on in the gateway)", CHAT_WAIT.as_secs());
                said(json, json!({"runId": run_id, "status": "timeout"}), text)?;
                return Ok(Code::Failed.value());
            }
        };
        if event.get("runId").and_then(Value::as_str) != Some(run_id.as_str()) {
            continue;
        }
        match event.get("state").and_then(Value::as_str) {
            Some("final") => {
                let text = message_text(event.get("message"));
                let shown = if text.is_empty() { format!("run {run_id}: ok") } else { format!("{text}\nrun {run_id}: ok") };
                said(json, json!({"runId": run_id, "status": "ok", "reply": text}), shown)?;
                return Ok(0);
            }
            Some("error") => {
                let why = event.get("errorMessage").and_then(Value::as_str).unwrap_or("the run failed");
                eprintln!("error: run {run_id}: {why}");
                return Ok(Code::Failed.value());
            }
            Some("aborted") => {
                said(json, json!({"runId": run_id, "status": "aborted"}), format!("run {run_id}: aborted"))?;
                return Ok(0);
            }
            _ => continue,
        }
    }
}

/// The text blocks of a transcript message.
fn message_text(message: Option<&Value>) -> String {
    let Some(content) = message.and_then(|m| m.get("content")) else { return String::new() };
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `patch`: changes a session entry as its owner (an empty value, or `inherit` for the
/// send policy, clears the field).
pub fn patch(opened: &Opened, key: &str, label: Option<String>, model: Option<String>, send_policy: Option<SendPolicyArg>) -> Result<i32> {
    let label = label.map(|l| (!l.is_empty()).then_some(l));
    let model = model.map(|m| (!m.is_empty()).then_some(m));
    let send_policy = send_policy.map(|p| match p {
        SendPolicyArg::Allow => Some("allow".to_string()),
        SendPolicyArg::Deny => Some("deny".to_string()),
        SendPolicyArg::Inherit => None,
    });
    let answer = match &opened.backend {
        Backend::Embedded(gateway) => gateway
            .patch(key, &Patch { label, model, send_policy, spawned_by: None })
            .map(|found| json!({"key": found.key, "entry": Value::Object(found.entry)})),
        Backend::Live(gateway) => {
            let mut params = Map::new();
            params.insert("key".into(), json!(key));
            for (field, value) in [("label", label), ("model", model), ("sendPolicy", send_policy)] {
                if let Some(value) = value {
                    params.insert(field.into(), value.map_or(Value::Null, Value::String));
                }
            }
            // Not resent after a drop: a label set twice is refused the second time.
            gateway
                .request("sessions.patch", Value::Object(params), false)
                .map(|answer| json!({"key": answer.get("key"), "entry": answer.get("entry")}))
        }
    };
    match answer {
        Ok(value) => {
            print_json(&value)?;
            Ok(0)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(Code::Failed.value())
        }
    }
}
