//! The records of a tool call and of a background job (WIT `tools` and `jobs`): who is
//! calling, what a call answers, and the jobs a call or a job step leaves pending. The
//! tools component builds them and the hosts store and resume them.

/// Who is calling (the WIT `caller-context`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Caller {
    /// The caller's own session key (`agentSessionKey` in OpenClaw's tool context).
    pub agent_session_key: Option<String>,
    /// The channel the caller is talking on.
    pub agent_channel: Option<String>,
    /// The channel account the caller is talking through.
    pub agent_account_id: Option<String>,
    /// Whom the caller's replies go to.
    pub agent_to: Option<String>,
    /// The thread the caller is in.
    pub agent_thread_id: Option<String>,
    /// The group the caller is in.
    pub agent_group_id: Option<String>,
    /// The channel of the group the caller is in.
    pub agent_group_channel: Option<String>,
    /// The space (workspace, guild) of the group.
    pub agent_group_space: Option<String>,
    /// Whether the caller runs sandboxed (N15 restricts what it sees).
    pub sandboxed: bool,
    /// The agent id to act as instead of the one in the caller's key.
    pub requester_agent_id_override: Option<String>,
}

/// Why a tool call failed as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolError {
    /// No tool has this name.
    UnknownTool(String),
    /// The arguments do not fit the tool's schema.
    InvalidArguments(String),
    /// The tool failed (the message says why).
    Failed(String),
    /// The component was called before it was configured.
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

impl std::error::Error for ToolError {}

/// A tool's JSON result and the background work it started.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    /// The tool's result, as JSON.
    pub result: String,
    /// The jobs the call left pending.
    pub jobs: Vec<Job>,
}

impl ToolOutput {
    /// A result that started no job.
    pub fn result(result: String) -> Self {
        ToolOutput { result, jobs: Vec::new() }
    }
}

/// What a job waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum Wake {
    /// Nothing: resume it now.
    Now,
    /// The answer of `agent.wait` with these params (made by the host for the job).
    RunEnd(crate::WaitParams),
    /// A time, in ms since the epoch.
    At(u64),
}

/// Why a job is resumed.
#[derive(Debug, Clone, PartialEq)]
pub enum Wakeup {
    /// It waited for nothing.
    Now,
    /// The run it waited for ended (or the wait failed).
    RunEnded(crate::GatewayResult<crate::WaitResult>),
    /// Its time came.
    Timer,
}

/// A pending job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Its id, unique and stable across resumes.
    pub id: String,
    /// `a2a`, `subagent` or `archive`.
    pub kind: String,
    /// The session the job acts for.
    pub session_key: String,
    /// The flow's private state, as JSON.
    pub state: String,
    /// What it waits for.
    pub wake: Wake,
}
