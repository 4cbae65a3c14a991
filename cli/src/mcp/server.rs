//! The MCP server: the tools of the component, called as a caller fixed when the server
//! starts (stdio) or by the bearer token of each request (HTTP) — never as anything a
//! request's arguments say.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, DiscoverResult, Implementation, InitializeResult, JsonObject, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::model::{
    CancelTaskMethod, CancelTaskParams, ConstString, GetTaskMethod, GetTaskParams, GetTaskResult, InitializeRequestParams,
    UpdateTaskMethod, UpdateTaskParams, TASKS_EXTENSION_ID,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use session_tools_host::{CallCancel, Caller};

use super::agents::{bearer, Agents};
use super::tasks::{self, Owner};
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

    /// Who owns the tasks this request makes or reads: the stdio caller, or the request's
    /// bearer token (as a fingerprint).
    fn owner(&self, context: &RequestContext<RoleServer>) -> Result<Owner, ErrorData> {
        match &self.identity {
            Identity::Fixed(caller) => Ok(Owner::of_stdio(caller)),
            Identity::Bearer(agents) => context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| bearer(&parts.headers).filter(|token| agents.find(token).is_some()))
                .map(Owner::of_token)
                .ok_or_else(|| ErrorData::invalid_request("no valid bearer token", None)),
        }
    }

    /// The owner of a `tasks/*` request: only on a revision with the tasks extension.
    fn task_owner<M: ConstString>(&self, context: &RequestContext<RoleServer>) -> Result<Owner, ErrorData> {
        if !tasks::modern(context) {
            return Err(ErrorData::method_not_found::<M>());
        }
        self.owner(context)
    }
}

/// The revisions served, each tested (`tests/mcp.rs`): the stateless 2026-07-28 (no
/// `initialize`, each request with its version in `_meta`, `server/discover`), and the two
/// session-based revisions clients in the field speak. A request of another revision is
/// refused (-32022 on 2026-07-28's path; `initialize` answers with one of these).
const SERVED: [ProtocolVersion; 3] = [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// How long a client may keep the tool list and the answer to `server/discover`
/// (2026-07-28's `ttlMs`, which both must carry): the tools are those of the component
/// built into the binary, and the revisions, capabilities and identity those of the
/// binary, the same for every caller while the server lives, so a client need not ask
/// again for a while; an upgrade restarts the server, and a client sees it within this time.
const CACHE_TTL: Duration = Duration::from_secs(300);

/// [`CACHE_TTL`] as `ttlMs`.
fn cache_ttl_ms() -> u64 {
    u64::try_from(CACHE_TTL.as_millis()).unwrap_or(u64::MAX)
}

/// How often a waiting call says it is still waiting, when the client asked for progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

impl ServerHandler for McpServer {
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&SERVED)
    }

    async fn discover(&self, _context: RequestContext<RoleServer>) -> Result<DiscoverResult, ErrorData> {
        // rmcp's default says `ttlMs: 0` (stale at once): nothing here changes while the
        // server lives. Private like the tool list: the answer is to an authenticated request.
        Ok(DiscoverResult::from_server_info(self.supported_protocol_versions().into_owned(), self.get_info())
            .with_ttl_ms(cache_ttl_ms())
            .with_cache_scope(CacheScope::Private))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.list().into_iter().find(|t| t.name == name)
    }

    fn get_info(&self) -> ServerConfig {
        // Tasks (`tasks.rs`) for the revisions that have the extension; `initialize`
        // leaves them out for the session revisions.
        InitializeResult::new(ServerCapabilities::builder().enable_tools().enable_tasks().build())
            .with_server_info(Implementation::new("session-tools", env!("CARGO_PKG_VERSION")).with_title("OpenClaw session tools"))
            .with_instructions(
                "OpenClaw's agent session tools: list sessions, read their history, message them, spawn sub-agents, \
                 list agents. Every call runs as the session this server was started for, in its own sandbox.",
            )
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut info = self.negotiate_initialize(&request)?;
        // The session revisions have no tasks extension (it is 2026-07-28's).
        if let Some(extensions) = info.capabilities.extensions.as_mut() {
            extensions.remove(TASKS_EXTENSION_ID);
            if extensions.is_empty() {
                info.capabilities.extensions = None;
            }
        }
        Ok(info)
    }

    async fn get_task(&self, request: GetTaskParams, context: RequestContext<RoleServer>) -> Result<GetTaskResult, ErrorData> {
        tasks::get(&self.tools, self.task_owner::<GetTaskMethod>(&context)?, request.task_id).await
    }

    async fn update_task(&self, request: UpdateTaskParams, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        tasks::update(&self.tools, self.task_owner::<UpdateTaskMethod>(&context)?, request.task_id).await
    }

    async fn cancel_task(&self, request: CancelTaskParams, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        tasks::cancel(&self.tools, self.task_owner::<CancelTaskMethod>(&context)?, request.task_id).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Private: the answer is to an authenticated request (the list is the same for
        // every caller, but a shared cache has no business keeping it).
        Ok(ListToolsResult::with_all_items(self.tools.list()).with_ttl_ms(cache_ttl_ms()).with_cache_scope(CacheScope::Private))
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
        let waits = waits_for(&name, arguments.as_ref());
        // Long work for a client that takes tasks: answered at once with a task.
        if tasks::wanted(&context, &name, waits.is_some()) {
            return tasks::start(&tools, self.owner(&context)?, caller, name, arguments).await;
        }
        // The client gives up on the call by `notifications/cancelled` (stdio, a session) or
        // by closing the response stream (a stateless HTTP request): either cancels the
        // request's token. A wait in progress then ends at once and the instance is free;
        // if this future is dropped instead of finishing, the guard cancels as well.
        let cancel = CallCancel::new();
        let _on_drop = CancelOnDrop(cancel.clone());
        let call_cancel = cancel.clone();
        let mut call = tokio::task::spawn_blocking(move || tools.call(&caller, &name, arguments, &call_cancel));
        let progress = match (context.meta.get_progress_token(), waits) {
            (Some(token), Some(total)) => Some(tokio::spawn(report_progress(context.peer.clone(), token, total))),
            _ => None,
        };
        let finished = tokio::select! {
            finished = &mut call => finished,
            () = context.ct.cancelled() => {
                cancel.cancel();
                // The call now ends within its guest's CPU budget; its answer goes nowhere.
                call.await
            }
        };
        if let Some(progress) = progress {
            progress.abort();
        }
        let result = finished.map_err(|e| ErrorData::internal_error(format!("the call did not finish: {e}"), None))?;
        Ok(result.into())
    }
}

/// Cancels a call whose handler was dropped before the call ended.
struct CancelOnDrop(CallCancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Whether a call may wait for a run's end, and at most how long when it says: a
/// `sessions_send` with a `timeoutSeconds` above zero, or without one (the tool's default
/// wait). A spawn never waits in its call: its run's end is waited for by its background
/// flow.
fn waits_for(tool: &str, arguments: Option<&JsonObject>) -> Option<Option<Duration>> {
    if tool != "sessions_send" {
        return None;
    }
    match arguments.and_then(|a| a.get("timeoutSeconds")) {
        None => Some(None),
        Some(Value::Number(n)) => {
            let seconds = n.as_f64()?.floor();
            (seconds.is_finite() && seconds >= 1.0).then(|| Some(Duration::from_secs_f64(seconds.min(86_400.0))))
        }
        // A bad value is the tool's to refuse.
        Some(_) => None,
    }
}

/// `notifications/progress` every [`PROGRESS_EVERY`] while a call waits: the seconds waited
/// (of the most it will wait, when the call says). The reply itself comes as the result.
async fn report_progress(peer: Peer<RoleServer>, token: ProgressToken, total: Option<Duration>) {
    let started = Instant::now();
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + PROGRESS_EVERY, PROGRESS_EVERY);
    loop {
        ticks.tick().await;
        let mut waited = started.elapsed();
        let mut note = ProgressNotificationParam::new(token.clone(), 0.0);
        note = match total {
            Some(total) => {
                waited = waited.min(total);
                note.with_total(total.as_secs_f64()).with_message(format!(
                    "waiting for the reply: {} s of at most {} s",
                    waited.as_secs(),
                    total.as_secs()
                ))
            }
            None => note.with_message(format!("waiting for the reply: {} s", waited.as_secs())),
        };
        note.progress = waited.as_secs_f64().floor();
        if peer.notify_progress(note).await.is_err() {
            // The client has gone; the call's cancel takes care of the rest.
            return;
        }
    }
}
