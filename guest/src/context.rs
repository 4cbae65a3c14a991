//! What every tool and job runs with, shared by all of them (a leaf: it imports no tool):
//! the caller, the environment (gateway, host services, config), what a call answers, and
//! the background jobs a call or a job step starts.

use crate::config::Config;
use crate::ports::{Gateway, GatewayResult, Host, WaitParams, WaitResult};

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

/// What a job waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum Wake {
    Now,
    /// The answer of `agent.wait` with these params (made by the host for the job).
    RunEnd(WaitParams),
    /// A time, in ms since the epoch.
    At(u64),
}

/// Why a job is resumed.
#[derive(Debug, Clone, PartialEq)]
pub enum Wakeup {
    Now,
    RunEnded(GatewayResult<WaitResult>),
    Timer,
}

/// A pending job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: String,
    /// `a2a`, `subagent` or `archive`.
    pub kind: String,
    /// The session the job acts for.
    pub session_key: String,
    /// The flow's private state, as JSON.
    pub state: String,
    pub wake: Wake,
}
