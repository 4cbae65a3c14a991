//! `POST /tools/invoke` on a gateway on loopback: OpenClaw's own session tools (and the
//! plugin's), called the way its HTTP API exposes them, for the benchmarks' comparison
//! (the client is the harness's, [`openclaw_harness::invoke_tool`]).

use anyhow::{anyhow, Result};
use serde_json::Value;

/// Calls one of the gateway's tools; answers its `details` (the tool's JSON result).
pub fn invoke_tool(port: u16, token: &str, tool: &str, args: &Value, session_key: &str) -> Result<Value> {
    let invoked = openclaw_harness::invoke_tool(port, token, tool, args, session_key).map_err(|e| anyhow!(e))?;
    invoked.details().cloned().ok_or_else(|| anyhow!("/tools/invoke {tool}: HTTP {}: {}", invoked.status, invoked.body))
}
