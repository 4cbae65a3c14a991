//! What one bearer token of `mcp --http` may hold, and for how long: the caps that keep one
//! agent (or a crowd of sockets that never authenticate) from starving the others.
//!
//! The caps are per token, whatever revision its client speaks: a stateless client
//! (2026-07-28: no session, each call its own POST) is held by the connection, stream and
//! body caps exactly as a client in a session is; only the session cap is for the
//! session-based revisions (2025-06-18, 2025-11-25). A token's tool calls in flight are
//! at most its streams (each call's answer is a stream while it runs), and the bodies it
//! has being read at once at most its connections, each at most [`MAX_BODY_BYTES`].
//!
//! Each default is a named constant with the reason for its value; the flags of
//! [`LimitArgs`] override them (docs/mcp.md, "Limits per token").

use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;

/// Connections served at once, all agents together; beyond it a new connection is
/// answered 503 (once no connection waiting to authenticate is left to close for it).
/// A backstop for the process's file descriptors, which the state directory's files and
/// the compiled-component cache share; the per-token cap, not this one, keeps one agent
/// from taking them: at 16 a token, 32 agents must all be at their cap to fill it.
pub const MAX_CONNECTIONS: usize = 512;

/// Connections that have not (yet) sent a request with a valid token. A new connection
/// beyond it closes the oldest of them, so sockets that never authenticate (the issue
/// measured 300 idle ones delaying every client by 29 s) push out only each other, never
/// an agent's. A real client sends its headers within a round trip of connecting
/// (microseconds on loopback, milliseconds across a network): it is pushed out only if 128
/// other connections arrive in that time.
pub const MAX_UNAUTHENTICATED: usize = 128;

/// How long a client may take to send a request's headers; hyper's header-read timer also
/// closes a kept-alive connection idle that long between requests. 10 s: far above any
/// real client's round trip; above the keep-alive expiry of common HTTP clients (httpx
/// 5 s, Node's undici 4 s), so a pooled connection is dropped by its client rather than
/// closed under a request it is sending; a third of the former 30 s, so a slow socket
/// holds its slot a third as long.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections one token may hold (serving, or kept alive between requests). An MCP
/// client uses one for its listening stream and one per request in flight, and its HTTP
/// client keeps a few idle ones pooled; 16 leaves room for several calls in parallel and
/// keeps the 512-connection backstop far out of one token's reach. A connection beyond
/// it is answered 429 and closed.
pub const MAX_CONNECTIONS_PER_TOKEN: usize = 16;

/// SSE streams one token may hold open: listening streams (GET) and answers in flight
/// (rmcp answers a POSTed request as a stream that ends with the result, in a session or
/// not): so also the most tool calls one token has in flight, stateless or not. Half the
/// connection cap, so a token with all its streams open still has connections for what
/// does not stream: `notifications/cancelled` to stop a call, DELETE to end a session.
pub const MAX_STREAMS_PER_TOKEN: usize = 8;

/// Live sessions one token may have (the session-based revisions; a 2026-07-28 client has
/// none). A session costs a task and its handler's state (the
/// issue measured ≈ 55 KiB each: 15,000 took the server from 73 to 894 MiB). A token at
/// its cap that opens one more closes its own least recently used idle session (no stream
/// open, no request in flight), so clients that end without DELETE (the TypeScript SDK's
/// `close()`) do not lock their agent out; it is refused (429) only when every one of its
/// sessions is busy.
pub const MAX_SESSIONS_PER_TOKEN: usize = 16;

/// How long a listening stream (GET) lives before the server ends it; the client opens
/// another (the MCP SDKs reconnect after the `retry` the stream announced, 3 s). It bounds
/// how long a forgotten listener, or one whose client vanished, holds a stream slot of its
/// token; at 5 min a reconnect costs nothing. Answers to POSTed requests are never cut:
/// their result would be lost (no event store to resume from); they end with their call,
/// which the per-agent wall-time limit bounds.
pub const STREAM_LIFETIME: Duration = Duration::from_secs(300);

/// How long a session may sit idle (no request, no stream open) before the server closes
/// and forgets it. Memory is bounded by the per-token cap whatever this is; the expiry only
/// clears what clients left behind. 30 min lets an agent think between tool calls and keep
/// its session (a client whose session expired gets 404 and must initialize again, MCP
/// streamable HTTP, "Session Management").
pub const SESSION_IDLE: Duration = Duration::from_secs(1800);

/// The largest POST body read: rmcp's own default, 4 MiB (the host caps tool arguments at
/// 1 MiB; the rest is envelope). The gate reads a body to know, before the MCP layer acts
/// on it, whether it opens a session and whether its answer will stream.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The `Retry-After` of a refusal: every cap is freed as soon as one of the client's own
/// streams, calls or connections ends, so a short wait is the honest hint.
pub const RETRY_AFTER: Duration = Duration::from_secs(2);

/// The limits of one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpLimits {
    pub max_connections: usize,
    pub max_unauthenticated: usize,
    pub header_timeout: Duration,
    pub max_connections_per_token: usize,
    pub max_streams_per_token: usize,
    pub max_sessions_per_token: usize,
    pub stream_lifetime: Duration,
    pub session_idle: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_connections: MAX_CONNECTIONS,
            max_unauthenticated: MAX_UNAUTHENTICATED,
            header_timeout: HEADER_TIMEOUT,
            max_connections_per_token: MAX_CONNECTIONS_PER_TOKEN,
            max_streams_per_token: MAX_STREAMS_PER_TOKEN,
            max_sessions_per_token: MAX_SESSIONS_PER_TOKEN,
            stream_lifetime: STREAM_LIFETIME,
            session_idle: SESSION_IDLE,
        }
    }
}

impl std::fmt::Display for HttpLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} connections ({} unauthenticated, {} a token), {} streams and {} sessions a token, \
             listening streams end after {} s, idle sessions after {} s, headers within {} s",
            self.max_connections,
            self.max_unauthenticated,
            self.max_connections_per_token,
            self.max_streams_per_token,
            self.max_sessions_per_token,
            self.stream_lifetime.as_secs(),
            self.session_idle.as_secs(),
            self.header_timeout.as_secs(),
        )
    }
}

/// The limit flags of `mcp --http` (defaults: the constants above).
#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// With --http: connections served at once, all agents together (more are answered 503).
    #[arg(long, value_name = "N", default_value_t = MAX_CONNECTIONS, requires = "http")]
    pub max_connections: usize,
    /// With --http: connections that have not sent a valid token yet; beyond it the oldest
    /// of them is closed.
    #[arg(long, value_name = "N", default_value_t = MAX_UNAUTHENTICATED, requires = "http")]
    pub max_unauthenticated: usize,
    /// With --http: seconds a client may take to send a request's headers (and a kept-alive
    /// connection may sit idle).
    #[arg(long, value_name = "SECONDS", default_value_t = HEADER_TIMEOUT.as_secs(), requires = "http")]
    pub header_timeout: u64,
    /// With --http: connections one agent token may hold (more are answered 429).
    #[arg(long, value_name = "N", default_value_t = MAX_CONNECTIONS_PER_TOKEN, requires = "http")]
    pub max_connections_per_token: usize,
    /// With --http: SSE streams (listening streams and answers in flight) one agent token
    /// may hold open (more are answered 429).
    #[arg(long, value_name = "N", default_value_t = MAX_STREAMS_PER_TOKEN, requires = "http")]
    pub max_streams_per_token: usize,
    /// With --http: live MCP sessions one agent token may have; one more closes its least
    /// recently used idle one, or is answered 429 when all are busy.
    #[arg(long, value_name = "N", default_value_t = MAX_SESSIONS_PER_TOKEN, requires = "http")]
    pub max_sessions_per_token: usize,
    /// With --http: seconds a listening (GET) stream lives before the server ends it (the
    /// client reconnects).
    #[arg(long, value_name = "SECONDS", default_value_t = STREAM_LIFETIME.as_secs(), requires = "http")]
    pub stream_lifetime: u64,
    /// With --http: seconds a session may sit idle before it is closed and forgotten.
    #[arg(long, value_name = "SECONDS", default_value_t = SESSION_IDLE.as_secs(), requires = "http")]
    pub session_idle: u64,
}

impl LimitArgs {
    /// The limits, checked: an error names the flag.
    pub fn limits(&self) -> Result<HttpLimits> {
        for (flag, value) in [
            ("--max-connections", self.max_connections),
            ("--max-unauthenticated", self.max_unauthenticated),
            ("--max-connections-per-token", self.max_connections_per_token),
            ("--max-streams-per-token", self.max_streams_per_token),
            ("--max-sessions-per-token", self.max_sessions_per_token),
        ] {
            if value == 0 {
                bail!("{flag} 0: every client would be refused; give at least 1");
            }
        }
        for (flag, value) in
            [("--header-timeout", self.header_timeout), ("--stream-lifetime", self.stream_lifetime), ("--session-idle", self.session_idle)]
        {
            if value == 0 {
                bail!("{flag} 0: give at least 1 second");
            }
        }
        if self.max_connections_per_token > self.max_connections {
            bail!(
                "--max-connections-per-token {} is above --max-connections {}: one agent could take every connection",
                self.max_connections_per_token,
                self.max_connections
            );
        }
        Ok(HttpLimits {
            max_connections: self.max_connections,
            max_unauthenticated: self.max_unauthenticated,
            header_timeout: Duration::from_secs(self.header_timeout),
            max_connections_per_token: self.max_connections_per_token,
            max_streams_per_token: self.max_streams_per_token,
            max_sessions_per_token: self.max_sessions_per_token,
            stream_lifetime: Duration::from_secs(self.stream_lifetime),
            session_idle: Duration::from_secs(self.session_idle),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[arg(long)]
        http: Option<String>,
        #[command(flatten)]
        limits: LimitArgs,
    }

    fn parse(args: &[&str]) -> Result<HttpLimits> {
        let mut argv = vec!["t", "--http", "8765"];
        argv.extend_from_slice(args);
        Cli::try_parse_from(argv).map_err(anyhow::Error::from)?.limits.limits()
    }

    #[test]
    fn defaults_are_the_constants_and_flags_override_them() {
        assert_eq!(parse(&[]).unwrap(), HttpLimits::default());
        let limits = parse(&["--max-streams-per-token", "3", "--session-idle", "5", "--header-timeout", "2"]).unwrap();
        assert_eq!(limits.max_streams_per_token, 3);
        assert_eq!(limits.session_idle, Duration::from_secs(5));
        assert_eq!(limits.header_timeout, Duration::from_secs(2));
        assert_eq!(limits.max_connections, MAX_CONNECTIONS);
        // The defaults keep one token well inside the whole.
        const { assert!(MAX_CONNECTIONS_PER_TOKEN * 8 <= MAX_CONNECTIONS && MAX_STREAMS_PER_TOKEN < MAX_CONNECTIONS_PER_TOKEN) };
    }

    #[test]
    fn bad_limits_name_their_flag() {
        for (args, expected) in [
            (&["--max-sessions-per-token", "0"][..], "--max-sessions-per-token 0"),
            (&["--stream-lifetime", "0"][..], "--stream-lifetime 0"),
            (&["--max-connections", "8", "--max-connections-per-token", "9"][..], "one agent could take every connection"),
        ] {
            let error = parse(args).unwrap_err().to_string();
            assert!(error.contains(expected), "{args:?}: {error}");
        }
        assert!(parse(&["--max-connections", "-1"]).is_err());
    }

    #[test]
    fn the_limits_need_http() {
        let error = Cli::try_parse_from(["t", "--max-connections", "3"]).err().unwrap().to_string();
        assert!(error.contains("--http"), "{error}");
    }
}
