//! `sessions_spawn` (reference §3.4, with N1, N2, N12): a background sub-agent run in an
//! isolated session, always non-blocking; the flow in `subagent` announces its result.

use serde::Serialize;

use crate::agents::{allowlist, spawn_requester_agent};
use crate::args::{floor_u32, Args};
use crate::channels::normalize_message_channel;
use crate::context::Wake;
use crate::context::{Caller, Env, ToolError, ToolOutput};
use crate::flow::job_of;
use crate::json::to_json;
use crate::keys::{normalize_agent_id, KeyScheme};
use crate::ports::{AgentParams, PatchParams};
use crate::reply::js_trim;
use crate::subagent::{ArchiveFlow, Origin, Phase, SubagentFlow};

#[derive(Debug, Clone, PartialEq)]
pub struct SpawnArgs {
    pub task: String,
    pub label: Option<String>,
    pub agent_id: Option<String>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    pub run_timeout_seconds: u32,
    /// `keep` (default) or `delete`.
    pub cleanup: &'static str,
}

impl SpawnArgs {
    pub fn from_args(args: &Args) -> Result<SpawnArgs, ToolError> {
        Ok(SpawnArgs {
            task: args.trimmed("task").ok_or_else(|| ToolError::InvalidArguments("task required".into()))?,
            label: args.trimmed("label"),
            agent_id: args.trimmed("agentId"),
            model: args.trimmed("model"),
            thinking: args.trimmed("thinking"),
            // `timeoutSeconds` is the legacy alias (reference §3.4.1).
            run_timeout_seconds: args.num("runTimeoutSeconds").or(args.num("timeoutSeconds")).map_or(0, |v| floor_u32(v, 0)),
            cleanup: if args.str("cleanup") == Some("delete") { "delete" } else { "keep" },
        })
    }
}

/// `normalizeDeliveryContext` of the caller's conversation; `None` when all is blank.
pub fn requester_origin(caller: &Caller) -> Option<Origin> {
    let trimmed = |v: &Option<String>| v.as_deref().map(js_trim).filter(|s| !s.is_empty()).map(str::to_string);
    let origin = Origin {
        channel: caller.agent_channel.as_deref().and_then(normalize_message_channel),
        to: trimmed(&caller.agent_to),
        account_id: trimmed(&caller.agent_account_id),
        thread_id: trimmed(&caller.agent_thread_id),
    };
    (origin != Origin::default()).then_some(origin)
}

/// `normalizeThinkLevel`.
pub fn normalize_think_level(raw: &str) -> Option<&'static str> {
    Some(match raw.trim().to_lowercase().as_str() {
        "off" => "off",
        "on" | "enable" | "enabled" => "low",
        "min" | "minimal" | "think" => "minimal",
        "low" | "thinkhard" | "think-hard" | "think_hard" => "low",
        "mid" | "med" | "medium" | "thinkharder" | "think-harder" | "harder" => "medium",
        "high" | "ultra" | "ultrathink" | "thinkhardest" | "highest" | "max" => "high",
        "xhigh" | "x-high" | "x_high" => "xhigh",
        _ => return None,
    })
}

/// The thinking levels a model accepts, for the error message.
fn thinking_levels(model: Option<&str>) -> String {
    let (provider, model_id) = match model.map(str::trim) {
        // `split("/", 2)`: a third segment is dropped.
        Some(m) if m.contains('/') => {
            let mut parts = m.split('/');
            (parts.next().map(|p| p.trim().to_lowercase()), parts.next().unwrap_or(""))
        }
        Some(m) => (None, m),
        None => (None, ""),
    };
    let provider = provider.map(|p| if p == "z.ai" || p == "z-ai" { "zai".to_string() } else { p });
    if provider.as_deref() == Some("zai") {
        return "off, on".to_string();
    }
    let xhigh = match provider.as_deref() {
        Some("openai") => model_id == "gpt-5.2",
        Some("openai-codex") => model_id == "gpt-5.2-codex" || model_id == "gpt-5.1-codex",
        Some(_) => false,
        None => matches!(model_id, "gpt-5.2" | "gpt-5.2-codex" | "gpt-5.1-codex"),
    };
    let mut levels = "off, minimal, low, medium, high".to_string();
    if xhigh {
        levels.push_str(", xhigh");
    }
    levels
}

/// `buildSubagentSystemPrompt` (reference §3.4.3, unchanged by N1).
pub fn subagent_system_prompt(
    task: &str,
    label: Option<&str>,
    requester_key: Option<&str>,
    requester_channel: Option<&str>,
    child_key: &str,
) -> String {
    let task_text = task.split(crate::reply::js_is_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
    let task_text = if task_text.is_empty() { "{{TASK_DESCRIPTION}}".to_string() } else { task_text };
    let mut lines: Vec<String> = vec![
        "# Subagent Context".into(),
        "".into(),
        "You are a **subagent** spawned by the main agent for a specific task.".into(),
        "".into(),
        "## Your Role".into(),
        format!("- You were created to handle: {task_text}"),
        "- Complete this task. That's your entire purpose.".into(),
        "- You are NOT the main agent. Don't try to be.".into(),
        "".into(),
        "## Rules".into(),
        "1. **Stay focused** - Do your assigned task, nothing else".into(),
        "2. **Complete the task** - Your final message will be automatically reported to the main agent".into(),
        "3. **Don't initiate** - No heartbeats, no proactive actions, no side quests".into(),
        "4. **Be ephemeral** - You may be terminated after task completion. That's fine.".into(),
        "".into(),
        "## Output Format".into(),
        "When complete, your final response should include:".into(),
        "- What you accomplished or found".into(),
        "- Any relevant details the main agent should know".into(),
        "- Keep it concise but informative".into(),
        "".into(),
        "## What You DON'T Do".into(),
        "- NO user conversations (that's main agent's job)".into(),
        "- NO external messages (email, tweets, etc.) unless explicitly tasked".into(),
        "- NO cron jobs or persistent state".into(),
        "- NO pretending to be the main agent".into(),
        "- NO using the `message` tool directly".into(),
        "".into(),
        "## Session Context".into(),
    ];
    if let Some(label) = label {
        lines.push(format!("- Label: {label}"));
    }
    if let Some(key) = requester_key {
        lines.push(format!("- Requester session: {key}."));
    }
    if let Some(channel) = requester_channel {
        lines.push(format!("- Requester channel: {channel}."));
    }
    lines.push(format!("- Your session: {child_key}."));
    lines.push(String::new());
    lines.join("\n")
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SpawnResult {
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    child_session_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_applied: Option<bool>,
}

fn answer(
    status: &'static str,
    error: Option<String>,
    child: Option<String>,
    run_id: Option<String>,
    model_applied: Option<bool>,
) -> ToolOutput {
    ToolOutput::result(to_json(&SpawnResult { status, error, child_session_key: child, run_id, model_applied }))
}

/// Runs `sessions_spawn`. (Sub-agent callers are refused before this, N12.)
pub fn run(env: &Env, caller: &Caller, args: SpawnArgs) -> Result<ToolOutput, ToolError> {
    let cfg = env.cfg;
    let raw_key = caller.agent_session_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let key_agent = crate::keys::agent_id_of_key(raw_key);
    let scheme =
        KeyScheme { main_key: &cfg.main_key, scope_global: cfg.scope_global, caller_agent: &key_agent, default_agent: &cfg.default_agent };
    // No caller session means the main session (reference §3.4.2 step 2, N6).
    let requester_key = match raw_key {
        Some(key) => scheme.internal(key).into_owned(),
        None => scheme.own_main(),
    };
    let requester_display = scheme.display(&requester_key).into_owned();
    let requester_agent = spawn_requester_agent(cfg, caller);
    let target_agent = args.agent_id.as_deref().map_or_else(|| requester_agent.clone(), normalize_agent_id);
    if target_agent != requester_agent {
        let (allow_any, allowed) = allowlist(cfg, &requester_agent);
        if !allow_any && !allowed.contains(&target_agent) {
            let list = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
            return Ok(answer("forbidden", Some(format!("agentId is not allowed for sessions_spawn (allowed: {list})")), None, None, None));
        }
    }
    let child_key = format!("agent:{target_agent}:subagent:{}", env.host.new_uuid());
    let model = args
        .model
        .clone()
        .or_else(|| cfg.agent(&target_agent).and_then(|a| a.subagent_model.clone()))
        .or_else(|| cfg.default_subagent_model.clone());
    let thinking = match &args.thinking {
        Some(raw) => match normalize_think_level(raw) {
            Some(level) => Some(level),
            None => {
                let error = format!("Invalid thinking level \"{raw}\". Use one of: {}.", thinking_levels(model.as_deref()));
                return Ok(answer("error", Some(error), None, None, None));
            }
        },
        None => None,
    };
    if let Some(model) = &model {
        // N2: a model the gateway refuses is an error; no run is started.
        let patch = PatchParams { key: child_key.clone(), label: None, model: Some(model.clone()) };
        if let Err(e) = env.gw.sessions_patch(&patch) {
            return Ok(answer("error", Some(e.message), Some(child_key), None, None));
        }
    }
    let origin = requester_origin(caller);
    let origin_channel = origin.as_ref().and_then(|o| o.channel.clone());
    let system_prompt = subagent_system_prompt(&args.task, args.label.as_deref(), raw_key, origin_channel.as_deref(), &child_key);
    let child_idem = env.host.new_uuid();
    let params = AgentParams {
        message: args.task.clone(),
        session_key: Some(child_key.clone()),
        channel: origin_channel,
        idempotency_key: child_idem.clone(),
        deliver: Some(false),
        lane: Some("subagent".into()),
        extra_system_prompt: Some(system_prompt),
        thinking: thinking.map(str::to_string),
        timeout: (args.run_timeout_seconds > 0).then_some(args.run_timeout_seconds),
        label: args.label.clone(),
        spawned_by: Some(requester_key.clone()),
        group_id: caller.agent_group_id.clone(),
        group_channel: caller.agent_group_channel.clone(),
        group_space: caller.agent_group_space.clone(),
    };
    let run_id = match env.gw.agent(&params) {
        Ok(accepted) => accepted.run_id.filter(|r| !r.is_empty()).unwrap_or(child_idem),
        Err(e) => return Ok(answer("error", Some(e.message), Some(child_key), Some(child_idem), None)),
    };
    let now = env.host.now_ms();
    let wait_timeout_ms = if args.run_timeout_seconds > 0 {
        u64::from(args.run_timeout_seconds) * 1000
    } else {
        (cfg.agent_timeout_seconds * 1000.0).floor().clamp(1.0, u64::MAX as f64) as u64
    };
    let flow = SubagentFlow {
        run_id: run_id.clone(),
        child_session_key: child_key.clone(),
        requester_session_key: requester_key.clone(),
        requester_display_key: requester_display,
        requester_origin: origin,
        task: args.task.clone(),
        cleanup: args.cleanup.to_string(),
        label: args.label.clone(),
        wait_timeout_ms,
        created_at: now,
        started_at: Some(now as i64),
        ended_at: None,
        outcome: None,
        usage: None,
        model: None,
        stats: None,
        result: None,
        phase: Phase::AwaitRun,
    };
    let mut jobs = vec![job_of(env.host.new_uuid(), &flow, flow.run_wake())];
    if let Some(after) = cfg.archive_after_ms {
        let archive = ArchiveFlow {
            child_session_key: child_key.clone(),
            requester_session_key: requester_key,
            archive_at_ms: now.saturating_add(after),
        };
        jobs.push(job_of(env.host.new_uuid(), &archive, Wake::At(archive.archive_at_ms)));
    }
    let result = answer("accepted", None, Some(child_key), Some(run_id), model.map(|_| true));
    Ok(ToolOutput { jobs, ..result })
}
