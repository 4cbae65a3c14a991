//! `sessions_send` (reference §3.3, with N4, N13, N17): target resolution, visibility
//! and agent-to-agent checks, the primary run, and the agent-to-agent flow after it.

use serde::Serialize;

use crate::a2a::{A2aFlow, Phase};
use crate::args::{floor_u32, Args};
use crate::context::{Caller, Env, ToolError, ToolOutput};
use crate::context::{Job, Wake};
use crate::flow::{job_of, prompt};
use crate::json::to_json;
use crate::keys::normalize_agent_id;
use crate::ports::{AgentParams, ErrorKind, HistoryParams, ResolveParams, WaitParams};
use crate::reply::{extract_assistant_text, REPLY_HISTORY_LIMIT};
use crate::requester::Requester;
use crate::visibility::{
    check_agent_to_agent, check_narrowing, is_spawned_by_requester, not_visible, resolve_session_reference, spawned_list_params, Action,
    AgentToAgent,
};

/// `timeoutSeconds` when not given.
pub const DEFAULT_TIMEOUT_SECONDS: u32 = 30;
/// The announce timeout of a fire-and-forget send.
pub const FIRE_AND_FORGET_ANNOUNCE_MS: u64 = 30_000;

#[derive(Debug, Clone, PartialEq)]
pub struct SendArgs {
    pub message: String,
    pub session_key: Option<String>,
    pub label: Option<String>,
    pub agent_id: Option<String>,
    pub timeout_seconds: u32,
}

impl SendArgs {
    pub fn from_args(args: &Args) -> Result<SendArgs, ToolError> {
        Ok(SendArgs {
            message: args.trimmed("message").ok_or_else(|| ToolError::InvalidArguments("message required".into()))?,
            session_key: args.trimmed("sessionKey"),
            label: args.trimmed("label"),
            agent_id: args.trimmed("agentId"),
            timeout_seconds: args.num("timeoutSeconds").map_or(DEFAULT_TIMEOUT_SECONDS, |v| floor_u32(v, 0)),
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Delivery {
    status: &'static str,
    mode: &'static str,
}

const PENDING_ANNOUNCE: Delivery = Delivery { status: "pending", mode: "announce" };

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SendResult {
    run_id: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reply: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delivery: Option<Delivery>,
}

impl SendResult {
    fn refusal(run_id: String, status: &'static str, error: String, session_key: Option<String>) -> ToolOutput {
        ToolOutput::result(to_json(&SendResult { run_id, status, reply: None, error: Some(error), session_key, delivery: None }))
    }
}

/// Runs `sessions_send`.
pub fn run(env: &Env, caller: &Caller, args: SendArgs) -> Result<ToolOutput, ToolError> {
    let requester = Requester::new(env.cfg, caller);
    let uuid = || env.host.new_uuid();
    if args.session_key.is_some() && args.label.is_some() {
        return Ok(SendResult::refusal(uuid(), "error", "Provide either sessionKey or label (not both).".into(), None));
    }
    let mut session_key = args.session_key.clone();
    if session_key.is_none() {
        if let Some(label) = &args.label {
            match resolve_label(env, &requester, label, args.agent_id.as_deref()) {
                Ok(key) => session_key = Some(key),
                Err((status, error)) => return Ok(SendResult::refusal(uuid(), status, error, None)),
            }
        }
    }
    let Some(session_key) = session_key else {
        return Ok(SendResult::refusal(uuid(), "error", "Either sessionKey or label is required".into(), None));
    };
    let resolved = match resolve_session_reference(env.gw, &requester, &session_key) {
        Ok(resolved) => resolved,
        Err(refusal) => return Ok(SendResult::refusal(uuid(), refusal.status, refusal.error, None)),
    };
    if requester.restrict && !resolved.via_session_id {
        // Unlike history, a failing probe is an error of the tool (reference §3.3.1 step 8).
        let spawned = env.gw.sessions_list(&spawned_list_params(&requester)).map_err(|e| ToolError::Failed(e.message))?;
        if !spawned.sessions.iter().any(|row| row.key == resolved.key) {
            return Ok(SendResult::refusal(uuid(), "forbidden", not_visible(&session_key), Some(resolved.display_key)));
        }
    }
    // E3: 2026.9's narrowing before the documents' agent-to-agent check, as 2026.9 orders them.
    let spawned = || is_spawned_by_requester(env.gw, &requester, &resolved.key);
    if let Err(refusal) = check_narrowing(&requester, &resolved.key, spawned, Action::Send) {
        return Ok(SendResult::refusal(uuid(), refusal.status, refusal.error, Some(resolved.display_key)));
    }
    if let Err(refusal) = check_agent_to_agent(env.cfg, &requester.agent_id, &resolved.key, "messaging") {
        return Ok(SendResult::refusal(uuid(), refusal.status, refusal.error, Some(resolved.display_key)));
    }

    let timeout_ms = u64::from(args.timeout_seconds) * 1000;
    let announce_timeout_ms = if args.timeout_seconds == 0 { FIRE_AND_FORGET_ANNOUNCE_MS } else { timeout_ms };
    let idempotency_key = uuid();
    let requester_display = requester.display_key();
    let requester_channel = caller.agent_channel.as_deref().map(str::trim).filter(|c| !c.is_empty()).map(str::to_string);
    let context = prompt(&[
        Some("Agent-to-agent message context:".into()),
        requester_display.as_ref().map(|k| format!("Agent 1 (requester) session: {k}.")),
        requester_channel.as_ref().map(|c| format!("Agent 1 (requester) channel: {c}.")),
        Some(format!("Agent 2 (target) session: {}.", resolved.display_key)),
    ]);
    let params = AgentParams {
        message: args.message.clone(),
        session_key: Some(resolved.key.clone()),
        idempotency_key: idempotency_key.clone(),
        deliver: Some(false),
        channel: Some("webchat".into()),
        lane: Some("nested".into()),
        extra_system_prompt: Some(context),
        ..Default::default()
    };
    let scheme = requester.scheme();
    let flow = A2aFlow {
        target_key: resolved.key.clone(),
        display_key: resolved.display_key.clone(),
        message: args.message.clone(),
        announce_timeout_ms,
        max_turns: env.cfg.max_ping_pong_turns,
        requester_key: requester.internal_key.clone(),
        requester_display,
        requester_channel,
        // N13: the requester's own session is never pinged as if it were another.
        distinct_sessions: requester.internal_key.as_deref().is_some_and(|k| scheme.canonical(k) != scheme.canonical(&resolved.key)),
        primary: None,
        latest: None,
        target: None,
        turn: 0,
        current: String::new(),
        next: String::new(),
        phase: Phase::Begin,
    };
    let display_key = resolved.display_key.clone();
    let error_result =
        |run_id: String, status: &'static str, error: String| SendResult::refusal(run_id, status, error, Some(display_key.clone()));

    let accepted = match env.gw.agent(&params) {
        Ok(accepted) => accepted,
        Err(e) => return Ok(error_result(idempotency_key, "error", non_empty(e.message, "error"))),
    };
    let run_id = accepted.run_id.filter(|r| !r.is_empty()).unwrap_or(idempotency_key);

    if args.timeout_seconds == 0 {
        let flow = A2aFlow { phase: Phase::AwaitPrimary { run_id: run_id.clone() }, ..flow };
        let wake = flow.wake_for_primary(&run_id);
        let job = job_of(uuid(), &flow, wake);
        let result = SendResult {
            run_id,
            status: "accepted",
            reply: None,
            error: None,
            session_key: Some(resolved.display_key),
            delivery: Some(PENDING_ANNOUNCE),
        };
        return Ok(ToolOutput { result: to_json(&result), jobs: vec![job] });
    }

    let wait = match env.gw.agent_wait(&WaitParams { run_id: run_id.clone(), timeout_ms }) {
        Ok(wait) => wait,
        Err(e) => {
            let status = if e.kind == ErrorKind::Timeout { "timeout" } else { "error" };
            return Ok(error_result(run_id, status, non_empty(e.message, "error")));
        }
    };
    match wait.status.as_deref() {
        Some("timeout") => {
            // N4: a timeout always says what happened.
            let error = wait.error.filter(|e| !e.is_empty()).unwrap_or_else(|| {
                format!("timed out after {}s waiting for the run; it continues, call sessions_history later", args.timeout_seconds)
            });
            return Ok(error_result(run_id, "timeout", error));
        }
        Some("error") => {
            return Ok(error_result(run_id, "error", wait.error.filter(|e| !e.is_empty()).unwrap_or_else(|| "agent error".into())))
        }
        _ => {}
    }
    let history = env
        .gw
        .chat_history(&HistoryParams { session_key: resolved.key.clone(), limit: Some(REPLY_HISTORY_LIMIT) })
        .map_err(|e| ToolError::Failed(e.message))?;
    let last = history.messages.iter().rev().find(|m| m.role.as_deref() != Some("toolResult"));
    let reply = last
        .filter(|m| m.role.as_deref() == Some("assistant"))
        .and_then(|m| serde_json::from_str::<serde_json::Value>(&m.json).ok())
        .and_then(|v| extract_assistant_text(&v));
    let jobs: Vec<Job> = match &reply {
        // With no round-1 reply the flow would stop at once (reference §3.3.3 step 3).
        Some(text) => vec![job_of(uuid(), &A2aFlow { primary: Some(text.clone()), latest: Some(text.clone()), ..flow }, Wake::Now)],
        None => Vec::new(),
    };
    let result =
        SendResult { run_id, status: "ok", reply, error: None, session_key: Some(resolved.display_key), delivery: Some(PENDING_ANNOUNCE) };
    Ok(ToolOutput { result: to_json(&result), jobs })
}

fn non_empty(message: String, fallback: &str) -> String {
    if message.is_empty() {
        fallback.to_string()
    } else {
        message
    }
}

/// The label path (reference §3.3.1 step 5, N17): a label is looked up within the
/// caller's agent unless another agent is named, and naming another agent is subject to
/// the sandbox and agent-to-agent rules first.
fn resolve_label(env: &Env, requester: &Requester, label: &str, agent_id: Option<&str>) -> Result<String, (&'static str, String)> {
    let requester_agent = requester.internal_key.as_ref().map(|_| requester.agent_id.as_str());
    let requested_agent = agent_id.map(normalize_agent_id);
    if let (Some(requested), Some(own)) = (requested_agent.as_deref(), requester_agent) {
        if requested != own {
            if requester.restrict {
                return Err(("forbidden", "Sandboxed sessions_send label lookup is limited to this agent".into()));
            }
            let a2a = AgentToAgent::new(env.cfg);
            if !a2a.enabled {
                return Err((
                    "forbidden",
                    "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends.".into(),
                ));
            }
            if !a2a.is_allowed(own, requested) {
                return Err(("forbidden", "Agent-to-agent messaging denied by tools.agentToAgent.allow.".into()));
            }
        }
    }
    let lookup_agent = requested_agent.unwrap_or_else(|| requester.agent_id.clone());
    let params = ResolveParams {
        label: Some(label.to_string()),
        agent_id: Some(lookup_agent),
        spawned_by: requester.spawned_by(),
        ..Default::default()
    };
    let not_found = || format!("No session found with label: {label}");
    match env.gw.sessions_resolve(&params) {
        Ok(key) if !key.trim().is_empty() => Ok(key.trim().to_string()),
        _ if requester.restrict => Err(("forbidden", not_visible(&format!("label={label}")))),
        Ok(_) => Err(("error", not_found())),
        Err(e) => Err(("error", non_empty(e.message, &not_found()))),
    }
}
