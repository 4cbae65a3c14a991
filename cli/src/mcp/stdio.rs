//! MCP over standard input and output: one client, one caller. Standard output carries
//! protocol frames only; everything else (the host's log, the guest's output, warnings)
//! goes to standard error.

use std::sync::Arc;

use anyhow::Result;
use rmcp::ServiceExt;
use session_tools_host::Caller;

use super::server::{Identity, McpServer};
use super::tools::Tools;

/// Serves until the client closes standard input, or a signal asks to stop.
pub async fn serve(tools: Arc<Tools>, caller: Caller) -> Result<()> {
    let server = McpServer::new(tools, Identity::Fixed(Arc::new(caller)));
    let running = server.serve(rmcp::transport::io::stdio()).await.map_err(|e| anyhow::anyhow!("starting MCP on stdio: {e}"))?;
    let cancel = running.cancellation_token();
    tokio::select! {
        ended = running.waiting() => {
            if let Err(e) = ended {
                eprintln!("warning: the MCP session ended badly: {e}");
            }
        }
        signal = crate::stop::stop_signal() => {
            eprintln!("{signal}: stopping");
            cancel.cancel();
        }
    }
    Ok(())
}
