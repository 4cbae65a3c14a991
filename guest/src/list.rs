//! `sessions_list` (reference §3.1, with N3, N5, N7, N10, N11).

use serde::Serialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

use crate::args::{floor_u32, Args};
use crate::context::{Caller, Env, ToolError, ToolOutput};
use crate::json::{raw_json, to_json, JsNumber};
use crate::keys::{agent_id_of_key, derive_channel, SessionKind};
use crate::ports::{DeliveryContext, History, HistoryParams, ListParams, LogLevel, SessionRow, ThreadId};
use crate::requester::Requester;
use crate::visibility::{check_narrowing, Action, AgentToAgent};

/// N3: `limit` is clamped to 1..200; N18: without one, it is 200.
pub const MAX_LIMIT: u32 = 200;
/// `messageLimit` is clamped to 0..20.
pub const MAX_MESSAGE_LIMIT: u32 = 20;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListArgs {
    /// `None`: no kind filter.
    pub kinds: Option<Vec<SessionKind>>,
    /// Sent to the gateway as is: clamped (N3), and 200 when absent (N18).
    pub limit: u32,
    pub active_minutes: Option<u32>,
    pub message_limit: u32,
}

impl ListArgs {
    pub fn from_args(args: &Args) -> ListArgs {
        // Unknown kinds are dropped; when none is left there is no filter (reference §3.1.2).
        let kinds: Option<Vec<SessionKind>> =
            args.list("kinds").map(|kinds| kinds.iter().filter_map(|k| SessionKind::parse(&k.trim().to_lowercase())).collect());
        ListArgs {
            kinds: kinds.filter(|k| !k.is_empty()),
            limit: args.num("limit").map_or(MAX_LIMIT, |v| floor_u32(v, 1).min(MAX_LIMIT)),
            active_minutes: args.num("activeMinutes").map(|v| floor_u32(v, 1)),
            message_limit: args.num("messageLimit").map_or(0, |v| floor_u32(v, 0).min(MAX_MESSAGE_LIMIT)),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeliveryOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    channel: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    account_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread_id: Option<&'a ThreadId>,
}

impl<'a> DeliveryOut<'a> {
    /// Present only when at least one field is non-empty; N11 keeps `threadId`.
    fn from(dc: &'a DeliveryContext) -> Option<Self> {
        let out = DeliveryOut {
            channel: dc.channel.as_deref(),
            to: dc.to.as_deref(),
            account_id: dc.account_id.as_deref(),
            thread_id: dc.thread_id.as_ref(),
        };
        let text = [out.channel, out.to, out.account_id].iter().any(|v| v.is_some_and(|s| !s.is_empty()));
        (text || out.thread_id.is_some_and(|t| !t.is_empty())).then_some(out)
    }
}

/// One row of the result, keys in the reference's order (§3.1.4).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Row<'a> {
    key: Cow<'a, str>,
    kind: &'static str,
    channel: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    display_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delivery_context: Option<DeliveryOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_tokens: Option<JsNumber>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total_tokens: Option<JsNumber>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_level: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verbose_level: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_sent: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    aborted_last_run: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    send_policy: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_channel: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_to: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_account_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transcript_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    messages: Option<Vec<Box<RawValue>>>,
}

#[derive(Serialize)]
struct ListResult<'a> {
    count: usize,
    sessions: Vec<Row<'a>>,
}

/// The directory a row's transcript lives in (N7): the store's directory when the
/// gateway named a real file (a `{agentId}` template filled in), else the agent's own
/// store directory under the state directory.
pub fn transcript_dir(store_path: Option<&str>, state_dir_default: impl FnOnce() -> String, agent_id: &str) -> String {
    let real = store_path.filter(|p| p.starts_with('/')).map(|p| p.replace("{agentId}", agent_id));
    match real {
        Some(path) if !path.contains('{') => match path.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => path[..i].to_string(),
            None => state_dir_default(),
        },
        _ => state_dir_default(),
    }
}

pub fn join_path(dir: &str, file: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{file}")
    } else {
        format!("{dir}/{file}")
    }
}

/// Runs `sessions_list`.
pub fn run(env: &Env, caller: &Caller, args: ListArgs) -> Result<ToolOutput, ToolError> {
    let requester = Requester::new(env.cfg, caller);
    let scheme = requester.scheme();
    let a2a = AgentToAgent::new(env.cfg);
    let params = ListParams {
        limit: Some(args.limit),
        active_minutes: args.active_minutes,
        include_global: Some(!requester.restrict),
        include_unknown: Some(!requester.restrict),
        spawned_by: requester.spawned_by(),
        ..Default::default()
    };
    let list = env.gw.sessions_list(&params).map_err(|e| ToolError::Failed(e.message))?;
    let store_path = list.path.as_deref();
    let mut rows = Vec::with_capacity(list.sessions.len());
    for entry in &list.sessions {
        if entry.key.is_empty() {
            continue;
        }
        // The agent-to-agent filter runs before the reserved-key check (reference §3.1.3).
        let entry_agent = agent_id_of_key(Some(&entry.key));
        if entry_agent != requester.agent_id && !a2a.is_allowed(&requester.agent_id, &entry_agent) {
            continue;
        }
        if entry.key == "unknown" || (entry.key == "global" && scheme.alias() != "global") {
            continue;
        }
        // E3: 2026.9's narrowing, on the row's own lineage (its rows name their parent).
        let spawned = || requester.internal_key.is_some() && entry.spawned_by == requester.internal_key;
        if check_narrowing(&requester, &entry.key, spawned, Action::List).is_err() {
            continue;
        }
        let kind = scheme.classify(&entry.key, entry.kind.as_deref());
        if args.kinds.as_ref().is_some_and(|kinds| !kinds.contains(&kind)) {
            continue;
        }
        rows.push(build_row(entry, &scheme.display(&entry.key), kind, store_path, env, &entry_agent));
    }
    if args.message_limit > 0 {
        // One history a row, asked for together (the host may answer them concurrently); the
        // first failure in row order fails the tool, as one call after another would.
        let params: Vec<HistoryParams> = rows
            .iter()
            .map(|row| HistoryParams { session_key: scheme.internal(&row.key).into_owned(), limit: Some(args.message_limit) })
            .collect();
        let answers = env.gw.chat_histories(&params);
        if answers.len() != rows.len() {
            return Err(ToolError::Failed(format!("the gateway answered {} histories for {} sessions", answers.len(), rows.len())));
        }
        for ((row, answer), asked) in rows.iter_mut().zip(answers).zip(&params) {
            let history = answer.map_err(|e| ToolError::Failed(e.message))?;
            row.messages = Some(last_messages(env, &asked.session_key, history, args.message_limit));
        }
    }
    Ok(ToolOutput::result(to_json(&ListResult { count: rows.len(), sessions: rows })))
}

fn build_row<'a>(entry: &'a SessionRow, display: &str, kind: SessionKind, store_path: Option<&str>, env: &Env, agent: &str) -> Row<'a> {
    let dc = entry.delivery_context.as_ref();
    // In the tool, deliveryContext wins over the last* fields (reference §3.1.4, Q12).
    let last_channel = dc.and_then(|d| d.channel.as_deref()).or(entry.last_channel.as_deref());
    let last_to = dc.and_then(|d| d.to.as_deref()).or(entry.last_to.as_deref());
    let last_account_id = dc.and_then(|d| d.account_id.as_deref()).or(entry.last_account_id.as_deref());
    let key: Cow<'a, str> = if display == entry.key { Cow::Borrowed(&entry.key) } else { Cow::Owned(display.to_string()) };
    Row {
        channel: derive_channel(&entry.key, kind, entry.channel.as_deref(), last_channel),
        key,
        kind: kind.as_str(),
        label: entry.label.as_deref(),
        display_name: entry.display_name.as_deref(),
        delivery_context: dc.and_then(DeliveryOut::from),
        updated_at: entry.updated_at,
        session_id: entry.session_id.as_deref(),
        model: entry.model.as_deref(),
        context_tokens: entry.context_tokens.map(JsNumber),
        total_tokens: entry.total_tokens.map(JsNumber),
        thinking_level: entry.thinking_level.as_deref(),
        verbose_level: entry.verbose_level.as_deref(),
        system_sent: entry.system_sent,
        aborted_last_run: entry.aborted_last_run,
        send_policy: entry.send_policy.as_deref(),
        last_channel,
        last_to,
        last_account_id,
        transcript_path: entry.session_id.as_deref().map(|id| {
            let dir = transcript_dir(store_path, || env.cfg.agent_store_dir(agent), agent);
            join_path(&dir, &format!("{id}.jsonl"))
        }),
        messages: None,
    }
}

/// The last `limit` messages of a session's history, without tool results.
fn last_messages(env: &Env, session_key: &str, history: History, limit: u32) -> Vec<Box<RawValue>> {
    let kept: Vec<_> = history.messages.into_iter().filter(|m| m.role.as_deref() != Some("toolResult")).collect();
    let skip = kept.len().saturating_sub(limit as usize);
    kept.into_iter()
        .skip(skip)
        .filter_map(|m| {
            let parsed = raw_json(m.json);
            if parsed.is_none() {
                env.host.log(LogLevel::Warn, &format!("sessions_list: dropped a malformed message of {session_key}"));
            }
            parsed
        })
        .collect()
}
