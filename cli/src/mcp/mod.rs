//! `session-tools mcp`: the session tools for any MCP client, each agent in sandboxed
//! instances of its own.
//!
//! - `stdio.rs`: one client over standard input and output, as the `--as` caller.
//! - `http.rs`: streamable HTTP for many agents, each bearer token of the `--agents` file
//!   (`agents.rs`) its own caller.
//! - `server.rs`: the MCP handler; `tools.rs`: the component's tools and results as MCP's.
//! - `tasks.rs`: long calls answered with a task (2026-07-28's tasks extension), kept in
//!   the job store and read after a restart by the caller that made them.
//!
//! The caller is fixed by whoever starts the server (the command line or the agents
//! file), never by a request's arguments. Background work (ping-pong, announces,
//! sub-agent completions) runs while the server lives, is kept in the state directory's
//! job store, and goes on after a restart.

mod agents;
mod http;
mod server;
mod stdio;
mod tasks;
mod tools;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use session_tools_host::{tracing_log, Caller};

use crate::backend::{open, Opened, StateDir};
use crate::call::CallerOptions;
use crate::metrics::Metrics;
use crate::options::Global;
use agents::Agents;
use tools::Tools;

/// `session-tools mcp`.
#[derive(Args, Debug)]
pub struct McpArgs {
    /// The calling session's key (e.g. agent:main:main); every tool call of this server
    /// runs as this session. Required over stdio.
    #[arg(long = "as", value_name = "SESSION_KEY", required_unless_present = "http", conflicts_with = "http")]
    pub as_key: Option<String>,
    /// The caller runs in a sandbox: it sees only its own session and what it spawned.
    #[arg(long, conflicts_with = "http")]
    pub sandboxed: bool,
    /// The caller's channel (and account, target, thread).
    #[arg(long, conflicts_with = "http")]
    pub channel: Option<String>,
    /// The caller's channel account (`agentAccountId`).
    #[arg(long, conflicts_with = "http")]
    pub account_id: Option<String>,
    /// The caller's delivery target on its channel (`agentTo`).
    #[arg(long, conflicts_with = "http")]
    pub to: Option<String>,
    /// The caller's thread on its channel (`agentThreadId`).
    #[arg(long, conflicts_with = "http")]
    pub thread_id: Option<String>,
    /// The requester's agent, when it differs from the session key's.
    #[arg(long, conflicts_with = "http")]
    pub agent_id: Option<String>,
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8765, or a bare port for
    /// loopback) at /mcp, instead of stdio.
    #[arg(long, value_name = "ADDR", requires = "agents")]
    pub http: Option<String>,
    /// With --http: the JSON file mapping bearer tokens to callers
    /// ({"agents": [{"token": "…", "sessionKey": "agent:main:main", "sandboxed": false}]}).
    #[arg(long, value_name = "FILE", requires = "http")]
    pub agents: Option<PathBuf>,
    /// With --http: a `Host` name to accept besides the address itself (repeatable); pages
    /// served from it may also call (`Origin`).
    #[arg(long, value_name = "HOST", requires = "http")]
    pub allowed_host: Vec<String>,
    /// With --http: what one client may hold (connections, streams, sessions) and for how long.
    #[command(flatten)]
    pub limits: http::LimitArgs,
    /// How long background work in flight may go on once the client has gone (or a signal
    /// stopped the server); a second signal ends it at once. What is left goes on at the
    /// next start.
    #[arg(long, default_value_t = 5, value_name = "SECONDS")]
    pub wait: u64,
}

/// Runs the server until its client goes away (stdio) or a signal stops it.
pub fn run(global: &Global, state: PathBuf, args: McpArgs, metrics: Option<Metrics>) -> Result<i32> {
    // What can be wrong with the command line is found before anything is opened.
    let transport = match &args.http {
        Some(addr) => {
            let addr = parse_addr(addr)?;
            let path = args.agents.as_ref().context("--http needs --agents FILE")?;
            let (agents, warnings) = Agents::load(path)?;
            for warning in warnings {
                eprintln!("warning: {warning}");
            }
            let (allowed_hosts, limits, log) = (args.allowed_host.clone(), args.limits.limits()?, tracing_log());
            Transport::Http(Arc::new(agents), http::HttpOptions { addr, allowed_hosts, limits, log, metrics: None })
        }
        None => Transport::Stdio(caller_of(&args)?),
    };
    let opened = Arc::new(open(global, state, StateDir::MustExist)?);
    let tools = Arc::new(Tools::new(opened.service.clone())?);
    let scheduler = opened.service.start_scheduler()?;
    let wait = Duration::from_secs(args.wait);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().thread_name("session-tools-mcp").build()?;
    let service = opened.service.clone();
    let served = runtime.block_on(async move {
        let in_flight = tools.clone();
        let served = match transport {
            Transport::Stdio(caller) => stdio::serve(tools, caller).await,
            Transport::Http(agents, mut options) => {
                options.metrics = metrics.map(|metrics| http::MetricsSource { metrics, service: service.clone() });
                http::serve(tools, agents, options).await
            }
        };
        // A graceful stop (the client went away, or a signal): tool calls in flight end,
        // then the job steps in flight (each bounded by its limits), then background work
        // gets `--wait` to go on; a signal ends all that at once (what is left is kept, and
        // goes on at the next start, once).
        let drain = tokio::task::spawn_blocking(move || {
            session_tools_host::release_fault_points();
            in_flight.wait_idle();
            drop(scheduler);
            finish(&opened, wait);
        });
        tokio::select! {
            _ = drain => {}
            name = crate::stop::stop_signal() => eprintln!("{name}: background work still going on is kept for the next start"),
        }
        served
    });
    // A read of stdin that never ends, or a drain cut short, must not hold the process.
    runtime.shutdown_background();
    served.map(|()| 0)
}

enum Transport {
    Stdio(Caller),
    Http(Arc<Agents>, http::HttpOptions),
}

fn caller_of(args: &McpArgs) -> Result<Caller> {
    let McpArgs { as_key, sandboxed, channel, account_id, to, thread_id, agent_id, .. } = args;
    CallerOptions { session_key: as_key.as_deref(), sandboxed: *sandboxed, channel, account_id, to, thread_id, agent_id }.caller()
}

/// `HOST:PORT` with an IP address, `localhost:PORT`, or a bare port (loopback).
fn parse_addr(text: &str) -> Result<SocketAddr> {
    let text = text.trim();
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    if let Some(port) = text.strip_prefix("localhost:") {
        if let Ok(port) = port.parse::<u16>() {
            return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
        }
    }
    text.parse().map_err(|_| anyhow::anyhow!("--http {text:?}: expected IP:PORT (e.g. 127.0.0.1:8765), localhost:PORT or PORT"))
}

/// Lets background work go on for a while once serving has ended; what is left is kept
/// and resumed by the next start (or `session-tools jobs`).
fn finish(opened: &Opened, wait: Duration) {
    opened.service.run_jobs(wait);
    if !opened.wait_for_runs(wait) {
        eprintln!("warning: runs still going on are cut short as the process exits");
    }
    let pending = opened.service.pending_jobs().len();
    if pending > 0 {
        eprintln!("{pending} background job(s) kept; they go on at the next start");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(parse_addr("8765").unwrap(), "127.0.0.1:8765".parse().unwrap());
        assert_eq!(parse_addr("localhost:0").unwrap(), "127.0.0.1:0".parse().unwrap());
        assert_eq!(parse_addr("[::1]:9").unwrap(), "[::1]:9".parse().unwrap());
        assert!(parse_addr("example.com:80").unwrap_err().to_string().contains("expected IP:PORT"));
        assert!(parse_addr("").is_err() && parse_addr("127.0.0.1").is_err());
    }
}
