//! MCP over streamable HTTP (`--http ADDR --agents FILE`): one server for many agents,
//! each known by its bearer token and served as its own caller, in instances of its own.
//!
//! Every request must carry `Authorization: Bearer <token>` of the agents file; any other
//! is refused with 401 before the MCP layer sees it. A session belongs to the token that
//! opened it: another token's request on it is refused with 403 (each tool call is made
//! as the caller of the request's own token anyway). The endpoint is `/mcp`.
//!
//! `/metrics` (GET) answers the server's metrics (`crate::metrics`) in the Prometheus text
//! format, on the same listener, to the agents file's `metrics` token only (no agent token
//! reads it, and the metrics token calls no tool); without that token it is not served.
//!
//! Both protocol generations are served on the one endpoint: 2026-07-28 without a session
//! (each request carries its revision; rmcp routes it) and the session-based 2025-06-18
//! and 2025-11-25 (`server.rs` names them).
//!
//! No token can starve the others: what one token holds — connections, open
//! streams (and so tool calls in flight), sessions — is capped per token, with or without
//! sessions, listening streams end at a lifetime, idle
//! sessions expire, and connections that have not authenticated are capped together and
//! push out only each other (`limits.rs` has each cap and its reason). A browser page of
//! another site is refused by its `Origin` (`origin.rs`).
//!
//! - `admission.rs`: connections, waiting or held by a token; `quota.rs`: per-token counts.
//! - `sessions.rs`: the live sessions, their owners and activity.
//! - `stream.rs`: an SSE answer holding its slot, with its lifetime.
//! - `refusal.rs`: every refusal as an HTTP answer.

mod admission;
mod limits;
mod origin;
mod quota;
mod refusal;
mod sessions;
mod stream;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use session_tools_host::{LogLevel, LogSink};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::agents::{bearer, hash, Agents};
use super::server::{Identity, McpServer};
use super::tools::Tools;
use crate::metrics::{Metrics, CONTENT_TYPE};
use admission::{Admission, Admitted, Ticket};
use limits::MAX_BODY_BYTES;
pub use limits::{HttpLimits, LimitArgs};
use origin::Origins;
use quota::Quota;
use refusal::Refusal;
use sessions::{Owner, Sessions};
use stream::HeldStream;

/// The MCP endpoint's path.
pub const PATH: &str = "/mcp";

/// The metrics' path.
pub const METRICS_PATH: &str = "/metrics";

type Body = BoxBody<Bytes, Infallible>;

/// A bearer token as the server keeps it: its SHA-256 (`agents::hash`).
type TokenHash = [u8; 32];

/// Where to listen, which `Host` names to accept, and the limits.
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Extra accepted `Host` names (besides the loopback names on a loopback address).
    pub allowed_hosts: Vec<String>,
    pub limits: HttpLimits,
    /// Where the server says what it does (refusals, sessions opened and closed) as
    /// `info`, shown with `--verbose`.
    pub log: LogSink,
    /// What `/metrics` answers.
    pub metrics: Option<MetricsSource>,
}

/// The counters and the service whose state `/metrics` shows.
#[derive(Clone)]
pub struct MetricsSource {
    pub metrics: Metrics,
    pub service: session_tools_host::Service,
}

/// Serves until a signal asks to stop.
pub async fn serve(tools: Arc<Tools>, agents: Arc<Agents>, options: HttpOptions) -> Result<()> {
    let listener = TcpListener::bind(options.addr).await.with_context(|| format!("cannot listen on {}", options.addr))?;
    let local = listener.local_addr().context("the listening address")?;
    let limits = options.limits;
    let stop = CancellationToken::new();
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()).with_max_request_body_bytes(MAX_BODY_BYTES);
    // Browser pages may come from the server's own names, whatever the `Host` rule.
    let loopback_names = config.allowed_hosts.clone();
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
    let own_ip = (!local.ip().is_unspecified()).then(|| local.ip().to_string());
    let origins = Origins::new(loopback_names.iter().chain(&options.allowed_hosts).chain(&own_ip).map(String::as_str));

    // Sessions end by the gate's rules (`sessions.rs`), which know about open streams and
    // calls in flight; rmcp's own idle timer counts neither, and would close a session
    // whose client listens quietly, or one call that outlasts it.
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = None;
    let manager = Arc::new(manager);
    let factory_tools = tools.clone();
    let factory_agents = agents.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(factory_tools.clone(), Identity::Bearer(factory_agents.clone()))),
        manager.clone(),
        config,
    );
    let gate = Arc::new(Gate {
        agents,
        mcp,
        manager,
        origins,
        sessions: Sessions::new(limits.max_sessions_per_token, limits.session_idle),
        streams: Quota::new(limits.max_streams_per_token),
        stream_lifetime: limits.stream_lifetime,
        log: options.log,
        metrics: options.metrics,
    });
    eprintln!("serving MCP on http://{local}{PATH} for {} agent token(s)", gate.agents.len());
    eprintln!("limits: {limits}");

    let sweeper = tokio::spawn(expire_sessions(gate.clone()));
    let admission = Admission::new(limits.max_connections, limits.max_unauthenticated, limits.max_connections_per_token);
    let signal = crate::stop::stop_signal();
    tokio::pin!(signal);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    eprintln!("warning: accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            name = &mut signal => {
                eprintln!("{name}: stopping");
                break;
            }
        };
        match admission.admit() {
            Admitted::Serve { ticket, pushed_out } => {
                if pushed_out {
                    gate.info(&format!(
                        "closed the oldest connection that had not authenticated: {} are waiting (the limit; --max-unauthenticated)",
                        admission.max_waiting()
                    ));
                }
                tokio::spawn(serve_connection(gate.clone(), stream, ticket, limits.header_timeout));
            }
            Admitted::Refuse(refusing) => {
                gate.info(&Refusal::ServerFull { limit: admission.max_connections() }.to_string());
                tokio::spawn(refuse_connection(stream, admission.max_connections(), limits.header_timeout, refusing));
            }
            Admitted::Drop => drop(stream),
        }
    }
    sweeper.abort();
    stop.cancel();
    Ok(())
}

/// Serves one connection until it ends or is pushed out.
async fn serve_connection(gate: Arc<Gate>, stream: TcpStream, ticket: Ticket, header_timeout: Duration) {
    let closed = ticket.closed();
    let ticket = Arc::new(ticket);
    let service_gate = gate.clone();
    let service = hyper::service::service_fn(move |request| {
        let (gate, ticket) = (service_gate.clone(), ticket.clone());
        async move { Ok::<_, Infallible>(gate.handle(request, &ticket).await) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        served = connection => {
            if let Err(e) = served {
                if e.is_timeout() {
                    gate.info(&format!("closed a connection that sent no request within {} s (--header-timeout)", header_timeout.as_secs()));
                } else if !e.is_incomplete_message() {
                    gate.info(&format!("connection: {e}"));
                }
            }
        }
        // Pushed out: dropping the connection closes the socket.
        () = closed.cancelled() => {}
    }
}

/// Answers one request 503 and closes: every connection is held by a token.
async fn refuse_connection(stream: TcpStream, limit: usize, header_timeout: Duration, refusing: admission::Refusing) {
    let service = hyper::service::service_fn(move |_request| async move { Ok::<_, Infallible>(Refusal::ServerFull { limit }.response()) });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    let _ = tokio::time::timeout(header_timeout, connection).await;
    drop(refusing);
}

/// Closes the sessions idle past their expiry, a few times an expiry.
async fn expire_sessions(gate: Arc<Gate>) {
    let period = (gate.sessions.idle() / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let expired = gate.sessions.expire(Instant::now());
        if expired.is_empty() {
            continue;
        }
        let count = expired.len();
        for id in expired {
            gate.close_session(id).await;
        }
        gate.info(&format!("{count} idle session(s) expired; {} session(s) live", gate.sessions.live()));
    }
}

/// Authentication, the `Origin` check and the per-token caps in front of the MCP service.
struct Gate {
    agents: Arc<Agents>,
    mcp: StreamableHttpService<McpServer, LocalSessionManager>,
    manager: Arc<LocalSessionManager>,
    origins: Origins,
    sessions: Arc<Sessions>,
    /// Open SSE streams per token.
    streams: Arc<Quota>,
    stream_lifetime: Duration,
    log: LogSink,
    metrics: Option<MetricsSource>,
}

/// What a request is, as far as the caps care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// GET: a listening stream.
    Listen,
    /// POST of `initialize` without a session: opens one.
    Initialize,
    /// POST of a request: answered as a stream.
    Request,
    /// POST of a notification or a response: answered 202.
    Message,
    /// DELETE: ends a session.
    End,
    /// Anything else (rmcp answers 405).
    Other,
}

impl Kind {
    fn of(method: &Method, body: &[u8], in_session: bool) -> Kind {
        match *method {
            Method::GET => Kind::Listen,
            Method::DELETE => Kind::End,
            Method::POST => {
                /// Just enough of a JSON-RPC message to tell what it is.
                #[derive(serde::Deserialize)]
                struct Probe {
                    method: Option<String>,
                    id: Option<serde::de::IgnoredAny>,
                }
                match serde_json::from_slice::<Probe>(body) {
                    Ok(Probe { method: Some(method), .. }) if method == "initialize" && !in_session => Kind::Initialize,
                    Ok(Probe { method: Some(_), id: Some(_) }) => Kind::Request,
                    Ok(_) => Kind::Message,
                    // Not one message (rmcp answers 400): counted as if it could stream.
                    Err(_) => Kind::Request,
                }
            }
            _ => Kind::Other,
        }
    }

    fn streams(self) -> bool {
        matches!(self, Kind::Listen | Kind::Initialize | Kind::Request)
    }
}

impl Gate {
    async fn handle(&self, request: Request<Incoming>, ticket: &Ticket) -> Response<Body> {
        match self.admit(request, ticket).await {
            Ok(response) => response,
            Err((refusal, who)) => {
                if let Some(who) = who {
                    self.info(&format!("refused {who}: {refusal}"));
                }
                refusal.response()
            }
        }
    }

    /// The request through the checks and the MCP layer; a refusal, with who was refused
    /// when it is a limit worth logging.
    async fn admit(&self, request: Request<Incoming>, ticket: &Ticket) -> Result<Response<Body>, (Refusal, Option<String>)> {
        if request.uri().path() == METRICS_PATH {
            return self.metrics(request, ticket).await;
        }
        if request.uri().path() != PATH {
            return Ok(plain(StatusCode::NOT_FOUND, &format!("not found: the MCP endpoint is {PATH}")));
        }
        // MCP streamable HTTP, "Security Warning": on every request, before anything else.
        self.origins.check(request.headers()).map_err(|r| (r, Some("a request".to_string())))?;
        let (token, agent) = bearer(request.headers())
            .and_then(|t| self.agents.find(t).map(|agent| (hash(t), agent)))
            .ok_or((Refusal::Unauthorized, None))?;
        let who = || Some(agent.name.clone());
        ticket.authenticate(&token).map_err(|r| (r, who()))?;
        let session = session_id(request.headers());
        if let Some(id) = &session {
            if self.sessions.owner(id, &token) == Owner::Another {
                return Err((Refusal::NotYourSession, who()));
            }
        }

        let (parts, body) = request.into_parts();
        let body = read_body(body).await.map_err(|r| (r, who()))?;
        let kind = Kind::of(&parts.method, &body, session.is_some());
        // An answer that streams holds one of its token's stream slots while it is open.
        let slot = match kind.streams() {
            true => Some(self.streams.acquire(token).ok_or((Refusal::TooManyStreams { limit: self.streams.limit() }, who()))?),
            false => None,
        };
        let opening = match kind {
            Kind::Initialize => {
                let (opening, evicted) = self.sessions.open(token).map_err(|r| (r, who()))?;
                if let Some(id) = evicted {
                    // Closed before the new one opens: the token never has more than its cap.
                    self.close_session(id).await;
                    self.info(&format!(
                        "{} opens a session over its cap: its least recently used idle one is closed; {} session(s) live",
                        agent.name,
                        self.sessions.live()
                    ));
                }
                Some(opening)
            }
            _ => None,
        };
        let activity = session.as_deref().and_then(|id| self.sessions.use_session(id));

        let response = self.mcp.handle(Request::from_parts(parts, Full::new(body))).await;

        let activity = match (opening, session_id(response.headers())) {
            (Some(opening), Some(opened)) => {
                let activity = opening.opened(opened);
                self.info(&format!(
                    "{} opened a session ({} of its own); {} session(s) live",
                    agent.name,
                    self.sessions.live_of(&token),
                    self.sessions.live()
                ));
                Some(activity)
            }
            _ => activity,
        };
        if let Some(id) = &session {
            let ended = kind == Kind::End && response.status().is_success();
            // 404: rmcp no longer knows the session (MCP: the client starts another).
            if (ended || response.status() == StatusCode::NOT_FOUND) && self.sessions.forget(id) {
                self.info(&format!("{} ended a session; {} session(s) live", agent.name, self.sessions.live()));
            }
        }
        let streaming = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        Ok(match (slot, streaming) {
            (Some(slot), true) => {
                let lifetime = (kind == Kind::Listen).then_some(self.stream_lifetime);
                response.map(|body| HeldStream::new(body, slot, activity, lifetime).boxed())
            }
            _ => response,
        })
    }

    /// `/metrics`: to the metrics token only, GET only.
    async fn metrics(&self, request: Request<Incoming>, ticket: &Ticket) -> Result<Response<Body>, (Refusal, Option<String>)> {
        let Some(source) = self.metrics.clone().filter(|_| self.agents.has_metrics()) else {
            return Ok(plain(StatusCode::NOT_FOUND, "not found: no metrics token in the agents file"));
        };
        self.origins.check(request.headers()).map_err(|r| (r, Some("a metrics request".to_string())))?;
        let token = bearer(request.headers()).filter(|t| self.agents.reads_metrics(t)).ok_or((Refusal::Unauthorized, None))?;
        ticket.authenticate(&hash(token)).map_err(|r| (r, Some("the metrics reader".to_string())))?;
        if request.method() != Method::GET {
            return Ok(plain(StatusCode::METHOD_NOT_ALLOWED, "/metrics answers GET only"));
        }
        // Reads the job store: off the async threads.
        let Ok(text) = tokio::task::spawn_blocking(move || source.metrics.render(&source.service)).await else {
            return Ok(plain(StatusCode::INTERNAL_SERVER_ERROR, "the metrics could not be read"));
        };
        let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
        response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(CONTENT_TYPE));
        Ok(response)
    }

    /// Closes a session in rmcp (it is no longer in `sessions`).
    async fn close_session(&self, id: String) {
        // An error means its worker had already ended: closed either way.
        let _ = self.manager.close_session(&id.into()).await;
    }

    fn info(&self, message: &str) {
        (self.log)(LogLevel::Info, &format!("mcp: {message}"));
    }
}

/// The whole body, within the limit.
async fn read_body(body: Incoming) -> Result<Bytes, Refusal> {
    match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => Err(Refusal::BodyTooLarge { limit: MAX_BODY_BYTES }),
        Err(_) => Err(Refusal::BodyUnreadable),
    }
}

fn session_id(headers: &http::HeaderMap) -> Option<String> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string)
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{text}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_told_apart_by_what_they_hold() {
        let post = |body: &str, in_session| Kind::of(&Method::POST, body.as_bytes(), in_session);
        assert_eq!(post(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#, false), Kind::Initialize);
        assert_eq!(post(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#, true), Kind::Request);
        assert_eq!(post(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call"}"#, true), Kind::Request);
        assert_eq!(post(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#, true), Kind::Message);
        assert_eq!(post(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#, true), Kind::Message);
        assert_eq!(post("[{}]", true), Kind::Request);
        assert_eq!(post("not json", true), Kind::Request);
        assert_eq!(Kind::of(&Method::GET, b"", true), Kind::Listen);
        assert_eq!(Kind::of(&Method::DELETE, b"", true), Kind::End);
        assert_eq!(Kind::of(&Method::PUT, b"", true), Kind::Other);
        assert!(Kind::Listen.streams() && Kind::Request.streams() && !Kind::Message.streams() && !Kind::End.streams());
    }
}
