//! The tool entry point: who may call what (N12), argument validation (N9), dispatch.

use crate::args::validate;
use crate::config::Config;
use crate::describe::tool_spec;
use crate::jobs::Job;
use crate::keys::is_subagent_key;
use crate::ports::{Gateway, Host};
use crate::visibility::glob_matches_ci;
use crate::{agents, history, list, send, spawn};

/// Who is calling (the WIT `caller-context`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Caller {
    pub agent_session_key: Option<String>,
    pub agent_channel: Option<String>,
    pub agent_account_id: Option<String>,
    pub agent_to: Option<String>,
    pub agent_thread_id: Option<String>,
    pub agent_group_id: Option<String>,
    pub agent_group_channel: Option<String>,
    pub agent_group_space: Option<String>,
    pub sandboxed: bool,
    pub requester_agent_id_override: Option<String>,
}

/// Why a tool call failed as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    UnknownTool(String),
    InvalidArguments(String),
    Failed(String),
    NotConfigured,
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::UnknownTool(name) => write!(f, "unknown tool: {name}"),
            ToolError::InvalidArguments(msg) | ToolError::Failed(msg) => f.write_str(msg),
            ToolError::NotConfigured => f.write_str("the session tools are not configured"),
        }
    }
}

/// A tool's JSON result and the background work it started.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    pub result: String,
    pub jobs: Vec<Job>,
}

impl ToolOutput {
    pub fn result(result: String) -> Self {
        ToolOutput { result, jobs: Vec::new() }
    }
}

/// What every tool and job runs against.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub gw: &'a dyn Gateway,
    pub host: &'a dyn Host,
    pub cfg: &'a Config,
}

/// The session tools are denied to sub-agent sessions unless allowed (N12, reference
/// §3.4.4): `tools.subagents.tools.allow` lists what they get, and `deny` wins.
fn subagent_may_use(cfg: &Config, tool: &str) -> bool {
    let matches = |pattern: &String| {
        let p = pattern.trim();
        p.eq_ignore_ascii_case(tool) || (p.contains('*') && glob_matches_ci(p, tool))
    };
    let allowed = cfg.subagent_tools_allow.as_ref().is_some_and(|allow| allow.iter().any(matches));
    allowed && !cfg.subagent_tools_deny.iter().any(matches)
}

fn forbidden(error: String) -> ToolOutput {
    ToolOutput::result(crate::json::to_json(&serde_json::json!({ "status": "forbidden", "error": error })))
}

/// Calls a tool with JSON arguments.
pub fn call_tool(env: &Env, name: &str, caller: &Caller, arguments: &str) -> Result<ToolOutput, ToolError> {
    let spec = tool_spec(name).ok_or_else(|| ToolError::UnknownTool(name.to_string()))?;
    if caller.agent_session_key.as_deref().is_some_and(is_subagent_key) {
        // N12: spawning is never allowed from a sub-agent; the other tools only when allowed.
        if name == "sessions_spawn" {
            return Ok(forbidden("sessions_spawn is not allowed from sub-agent sessions".to_string()));
        }
        if !subagent_may_use(env.cfg, name) {
            return Ok(forbidden(format!("{name} is not available to sub-agent sessions")));
        }
    }
    let args = validate(spec, arguments).map_err(ToolError::InvalidArguments)?;
    match name {
        "sessions_list" => list::run(env, caller, list::ListArgs::from_args(&args)),
        "sessions_history" => history::run(env, caller, history::HistoryArgs::from_args(&args)?),
        "sessions_send" => send::run(env, caller, send::SendArgs::from_args(&args)?),
        "sessions_spawn" => spawn::run(env, caller, spawn::SpawnArgs::from_args(&args)?),
        "agents_list" => Ok(agents::run(env, caller)),
        _ => Err(ToolError::UnknownTool(name.to_string())),
    }
}
