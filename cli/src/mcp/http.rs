//! MCP over streamable HTTP (`--http ADDR --agents FILE`): one server for many agents,
//! each known by its bearer token and served as its own caller, in instances of its own.
//!
//! Every request must carry `Authorization: Bearer <token>` of the agents file; any other
//! is refused with 401 before the MCP layer sees it. A session belongs to the token that
//! opened it: another token's request on it is refused with 403 (each tool call is made
//! as the caller of the request's own token anyway). The endpoint is `/mcp`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::agents::{bearer, hash, Agents};
use super::server::{Identity, McpServer};
use super::tools::Tools;

/// The MCP endpoint's path.
pub const PATH: &str = "/mcp";
/// Connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 256;
/// How long a client may take to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

type Body = BoxBody<Bytes, Infallible>;

/// Where to listen and which `Host` headers to accept.
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Extra accepted `Host` names (besides the loopback names on a loopback address).
    pub allowed_hosts: Vec<String>,
}

/// Serves until a signal asks to stop.
pub async fn serve(tools: Arc<Tools>, agents: Arc<Agents>, options: HttpOptions) -> Result<()> {
    let listener = TcpListener::bind(options.addr).await.with_context(|| format!("cannot listen on {}", options.addr))?;
    let local = listener.local_addr().context("the listening address")?;
    let stop = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    if !local.ip().is_loopback() {
        // rmcp's default (loopback names only) would refuse every request that reaches a
        // non-loopback address; the bearer token is what guards the server there.
        config = if options.allowed_hosts.is_empty() {
            config.disable_allowed_hosts()
        } else {
            config.with_allowed_hosts(options.allowed_hosts.clone())
        };
        eprintln!(
            "warning: serving on {local}, not a loopback address, over plain HTTP: bearer tokens and \
             session data cross the network in clear. Put a TLS-terminating proxy in front, or bind 127.0.0.1."
        );
    } else if !options.allowed_hosts.is_empty() {
        let mut hosts = config.allowed_hosts.clone();
        hosts.extend(options.allowed_hosts.iter().cloned());
        config = config.with_allowed_hosts(hosts);
    }
    let factory_tools = tools.clone();
    let factory_agents = agents.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(factory_tools.clone(), Identity::Bearer(factory_agents.clone()))),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let gate = Arc::new(Gate { agents, mcp, sessions: Mutex::new(HashMap::new()) });
    eprintln!("serving MCP on http://{local}{PATH} for {} agent token(s)", gate.agents.len());

    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let signal = super::stop_signal();
    tokio::pin!(signal);
    loop {
        let next = async {
            let slot = slots.clone().acquire_owned().await;
            (slot, listener.accept().await)
        };
        let (slot, stream) = tokio::select! {
            (slot, accepted) = next => match (slot, accepted) {
                (Ok(slot), Ok((stream, _peer))) => (slot, stream),
                (_, Err(e)) => {
                    eprintln!("warning: accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
                (Err(_), _) => break,
            },
            name = &mut signal => {
                eprintln!("{name}: stopping");
                break;
            }
        };
        let gate = gate.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let gate = gate.clone();
                async move { Ok::<_, Infallible>(gate.handle(request).await) }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                if !e.is_incomplete_message() {
                    eprintln!("[debug] connection: {e}");
                }
            }
            drop(slot);
        });
    }
    stop.cancel();
    Ok(())
}

/// Authentication in front of the MCP service.
struct Gate {
    agents: Arc<Agents>,
    mcp: StreamableHttpService<McpServer, LocalSessionManager>,
    /// Which token (its hash) opened each session.
    sessions: Mutex<HashMap<String, [u8; 32]>>,
}

impl Gate {
    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if request.uri().path() != PATH {
            return plain(StatusCode::NOT_FOUND, &format!("not found: the MCP endpoint is {PATH}"));
        }
        let Some(token) = bearer(request.headers()).filter(|t| self.agents.find(t).is_some()) else {
            let mut response =
                refuse(StatusCode::UNAUTHORIZED, "unauthorized: a valid bearer token is required (Authorization: Bearer <token>)");
            response.headers_mut().insert(http::header::WWW_AUTHENTICATE, http::HeaderValue::from_static("Bearer"));
            return response;
        };
        let owner = hash(token);
        let session = session_id(request.headers());
        if let Some(id) = &session {
            if self.sessions().get(id).is_some_and(|opener| *opener != owner) {
                return refuse(StatusCode::FORBIDDEN, "forbidden: this session was opened with another token");
            }
        }
        let closing = request.method() == http::Method::DELETE;
        let response = self.mcp.handle(request).await;
        match (session, session_id(response.headers())) {
            (_, Some(opened)) => {
                self.sessions().entry(opened).or_insert(owner);
            }
            (Some(id), None) if closing && response.status().is_success() => {
                self.sessions().remove(&id);
            }
            _ => {}
        }
        response
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, [u8; 32]>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn session_id(headers: &http::HeaderMap) -> Option<String> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// A refusal as MCP clients read one: a JSON-RPC error in the body of a 4xx answer.
fn refuse(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": message}});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    response
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{text}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}
