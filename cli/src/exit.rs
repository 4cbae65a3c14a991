//! The command line's exit codes, one rule each:
//!
//! - 0: done; a tool answered `ok` or `accepted` (or a result with no status, a list);
//! - 1: a tool answered `forbidden`, `error` or `timeout` (its JSON still on standard
//!   output), or a command failed;
//! - 2: usage: an unknown tool, arguments the tool refuses as malformed, an option that
//!   does not apply, a run asked for with no agent runtime (clap's own usage errors are 2
//!   as well);
//! - 3: the state directory or the gateway cannot be opened or reached.
//!
//! Commands fail with an [`anyhow::Error`]; one that carries a [`Failure`] exits with its
//! code, any other with 1.

use std::fmt;

use serde_json::Value;
use session_tools_host::{CallError, ToolError};

/// An exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Done, or the tool answered `ok`/`accepted`.
    Ok = 0,
    /// The tool answered `forbidden`, `error` or `timeout`, or the command failed.
    Failed = 1,
    /// The command line was used wrongly.
    Usage = 2,
    /// The state directory or the gateway cannot be opened or reached.
    Unreachable = 3,
}

impl Code {
    /// The code as a process exits with it.
    pub fn value(self) -> i32 {
        self as i32
    }
}

/// An error that says which code the process exits with.
#[derive(Debug)]
pub struct Failure {
    pub code: Code,
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// A usage error (exit 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    Failure { code: Code::Usage, message: message.into() }.into()
}

/// The state directory or the gateway cannot be opened or reached (exit 3), and why.
pub fn unreachable(error: anyhow::Error) -> anyhow::Error {
    match error.downcast::<Failure>() {
        // A usage error found while opening stays one.
        Ok(failure) => failure.into(),
        Err(error) => Failure { code: Code::Unreachable, message: format!("{error:#}") }.into(),
    }
}

/// The code a failed command exits with.
pub fn code_of(error: &anyhow::Error) -> Code {
    error.downcast_ref::<Failure>().map_or(Code::Failed, |f| f.code)
}

/// The code for a tool's JSON result: its `status`.
pub fn of_result(result: &str) -> Code {
    let status = serde_json::from_str::<Value>(result).ok().and_then(|v| v.get("status").and_then(Value::as_str).map(str::to_string));
    match status.as_deref() {
        Some("forbidden" | "error" | "timeout") => Code::Failed,
        _ => Code::Ok,
    }
}

/// The code for a call the service did not answer with a result.
pub fn of_call_error(error: &CallError) -> Code {
    match error {
        CallError::Tool(ToolError::UnknownTool(_) | ToolError::InvalidArguments(_)) => Code::Usage,
        CallError::NoAgentRuntime { .. } => Code::Usage,
        _ => Code::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_by_status() {
        assert_eq!(of_result(r#"{"status":"ok","reply":"x"}"#), Code::Ok);
        assert_eq!(of_result(r#"{"status":"accepted"}"#), Code::Ok);
        assert_eq!(of_result(r#"{"count":0,"sessions":[]}"#), Code::Ok);
        for status in ["forbidden", "error", "timeout"] {
            assert_eq!(of_result(&format!(r#"{{"status":"{status}"}}"#)), Code::Failed, "{status}");
        }
    }

    #[test]
    fn call_errors_by_kind() {
        assert_eq!(of_call_error(&CallError::Tool(ToolError::UnknownTool("x".into()))), Code::Usage);
        assert_eq!(of_call_error(&CallError::Tool(ToolError::InvalidArguments("limit must be a number".into()))), Code::Usage);
        assert_eq!(of_call_error(&CallError::Tool(ToolError::Failed("gateway down".into()))), Code::Failed);
        assert_eq!(of_call_error(&CallError::NoAgentRuntime { tool: "sessions_send".into(), advice: "x".into() }), Code::Usage);
        assert_eq!(of_call_error(&CallError::CpuLimit { budget_ms: 5 }), Code::Failed);
    }

    #[test]
    fn failures_carry_their_code() {
        assert_eq!(code_of(&usage("bad")), Code::Usage);
        assert_eq!(code_of(&unreachable(anyhow::anyhow!("no such directory"))), Code::Unreachable);
        assert_eq!(code_of(&unreachable(usage("--runtime with --gateway"))), Code::Usage);
        assert_eq!(code_of(&anyhow::anyhow!("other")), Code::Failed);
    }
}
