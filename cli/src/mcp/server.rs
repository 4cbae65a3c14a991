//! The MCP server: the tools of the component, called as a caller fixed when the server
//! starts (stdio) or by the bearer token of each request (HTTP) — never as anything a
//! request's arguments say.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use session_tools_host::Caller;

use super::agents::Agents;
use super::tools::Tools;

/// Who calls.
#[derive(Clone)]
pub enum Identity {
    /// One caller for the server's life (`--as`).
    Fixed(Arc<Caller>),
    /// The caller of each HTTP request's bearer token.
    Bearer(Arc<Agents>),
}

/// One MCP session's handler (they share the tools and the service).
#[derive(Clone)]
pub struct McpServer {
    tools: Arc<Tools>,
    identity: Identity,
}

impl McpServer {
    pub fn new(tools: Arc<Tools>, identity: Identity) -> McpServer {
        McpServer { tools, identity }
    }

    /// The caller of this request.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
        match &self.identity {
            Identity::Fixed(caller) => Ok(caller.as_ref().clone()),
            Identity::Bearer(agents) => context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| agents.of_request(&parts.headers))
                .map(|agent| agent.caller.clone())
                // The HTTP layer refuses such requests before they get here.
                .ok_or_else(|| ErrorData::invalid_request("no valid bearer token", None)),
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("session-tools", env!("CARGO_PKG_VERSION")).with_title("OpenClaw session tools"))
            .with_instructions(
                "OpenClaw's agent session tools: list sessions, read their history, message them, spawn sub-agents, \
                 list agents. Every call runs as the session this server was started for, in its own sandbox.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.list()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let caller = self.caller(&context)?;
        let name = request.name.to_string();
        if !self.tools.knows(&name) {
            // MCP: an unknown tool is a protocol error (invalid params).
            return Err(ErrorData::invalid_params(format!("unknown tool: {name}"), None));
        }
        let tools = self.tools.clone();
        let arguments = request.arguments;
        let result = tokio::task::spawn_blocking(move || tools.call(&caller, &name, arguments))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the call did not finish: {e}"), None))?;
        Ok(result.into())
    }
}
