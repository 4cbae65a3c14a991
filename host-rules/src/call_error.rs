//! How a call into the guest failed ([`CallError`]): its kind in a word (what the Rust
//! host's events and metrics name it, and the plugin's errors carry) and its words for
//! people. Every host answers a broken limit, a trap or a refused call with these.

use session_tools_contract::ToolError;

/// Why a call into the guest failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CallError {
    /// The tool answered with an error (bad arguments, an unknown tool, a gateway error it
    /// does not handle).
    Tool(ToolError),
    /// The arguments or the result are larger than the limit allows.
    TooLarge {
        /// What was too large (`tool arguments`, `tool result`, …).
        what: &'static str,
        /// Its size, in bytes.
        size: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The guest used up its CPU budget for the call.
    CpuLimit {
        /// The budget, in ms of guest CPU time.
        budget_ms: u128,
    },
    /// The call took longer than its wall-clock limit.
    WallLimit {
        /// The budget, in ms.
        budget_ms: u128,
    },
    /// The guest tried to grow past its memory cap.
    MemoryLimit {
        /// The cap, in bytes.
        limit: usize,
    },
    /// The guest trapped (panicked, hit unreachable code, overflowed its stack, ...).
    Trap(String),
    /// The guest answered something the host does not accept: a result that is not JSON,
    /// or a job it could not resume. (Strings that are not UTF-8 never get this far: the
    /// canonical ABI refuses them with a trap, which breaks the instance.)
    BadAnswer(String),
    /// The instance could not be created or configured.
    Setup(String),
    /// The host itself failed while serving the call (a bug in the host, caught: the
    /// instance is discarded and the process goes on).
    HostFault(String),
    /// The tool starts agent runs and the gateway has no agent runtime: refused before
    /// anything was written (no run is ever invented).
    NoAgentRuntime {
        /// The tool refused.
        tool: String,
        /// What to do, as the gateway's embedder words it.
        advice: String,
    },
}

impl CallError {
    /// The kind of error, in a word (`tool`, `too_large`, `cpu_limit`, `wall_limit`,
    /// `memory_limit`, `trap`, `bad_answer`, `setup`, `host_fault`, `no_agent_runtime`): the `outcome` of the
    /// library's events and the server's metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            CallError::Tool(_) => "tool",
            CallError::TooLarge { .. } => "too_large",
            CallError::CpuLimit { .. } => "cpu_limit",
            CallError::WallLimit { .. } => "wall_limit",
            CallError::MemoryLimit { .. } => "memory_limit",
            CallError::Trap(_) => "trap",
            CallError::BadAnswer(_) => "bad_answer",
            CallError::Setup(_) => "setup",
            CallError::HostFault(_) => "host_fault",
            CallError::NoAgentRuntime { .. } => "no_agent_runtime",
        }
    }

    /// Whether the error is one of the agent's limits broken (`TooLarge` and the CPU, wall
    /// and memory limits).
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            CallError::TooLarge { .. } | CallError::CpuLimit { .. } | CallError::WallLimit { .. } | CallError::MemoryLimit { .. }
        )
    }

    /// Whether the instance is unusable afterwards (it is then thrown away).
    pub fn discards_instance(&self) -> bool {
        matches!(
            self,
            CallError::CpuLimit { .. }
                | CallError::WallLimit { .. }
                | CallError::MemoryLimit { .. }
                | CallError::Trap(_)
                | CallError::HostFault(_)
        )
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Tool(e) => write!(f, "{e}"),
            CallError::TooLarge { what, size, limit } => write!(f, "{what} too large: {size} bytes (the limit is {limit})"),
            CallError::CpuLimit { budget_ms } => write!(f, "the tool used up its CPU budget of {budget_ms} ms and was stopped"),
            CallError::WallLimit { budget_ms } => write!(f, "the tool took longer than its time limit of {budget_ms} ms and was stopped"),
            CallError::MemoryLimit { limit } => write!(f, "the tool exceeded its memory limit of {} MiB and was stopped", limit >> 20),
            CallError::Trap(msg) => write!(f, "the tool crashed: {msg}"),
            CallError::BadAnswer(msg) => write!(f, "the tool answered something invalid: {msg}"),
            CallError::Setup(msg) => write!(f, "the tool could not start: {msg}"),
            CallError::HostFault(msg) => write!(f, "{msg}; the call was stopped"),
            CallError::NoAgentRuntime { tool, advice } => {
                write!(f, "{tool} starts an agent run, and no agent runtime runs agents here; nothing was written. To run it: {advice}")
            }
        }
    }
}

impl std::error::Error for CallError {}
