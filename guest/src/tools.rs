//! The tool entry point: who may call what (N12), argument validation (N9), dispatch.

use crate::args::validate;
use crate::config::Config;
use crate::context::{Caller, Env, ToolError, ToolOutput};
use crate::describe::tool_spec;
use crate::keys::is_subagent_key;
use crate::visibility::glob_matches_ci;
use crate::{agents, history, list, send, spawn};

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
