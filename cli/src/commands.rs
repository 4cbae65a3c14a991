//! The `session-tools` command line.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use serde_json::{json, Value};
use session_tools_host::config::default_state_dir;
use session_tools_host::conformance;
use session_tools_host::gateway::scripted::ScriptedGateway;
use session_tools_host::{tracing_log, CallError, Caller, Limits, Runtime, Service};

use crate::options::{component, engine_options, open, Global, StateDir};
use crate::show::{pretty, print_json};

/// The agent session tools (sessions_list, sessions_history, sessions_send,
/// sessions_spawn, agents_list) as a sandboxed WebAssembly component, over an OpenClaw
/// state directory or a running OpenClaw gateway.
#[derive(Parser, Debug)]
#[command(name = "session-tools", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run conformance cases through the component (default: the project's own copy).
    Conformance {
        /// Directories of case files (or $CONFORMANCE_DIR).
        dirs: Vec<PathBuf>,
    },
    /// Print the tool descriptions as JSON.
    Describe,
    /// Call one tool as a session (on the state directory, or the `--gateway`).
    Call(CallArgs),
    /// Serve the tools over MCP (stdio, or streamable HTTP for many agents) as a session.
    Mcp(crate::mcp::McpArgs),
    /// List the sessions of the state directory.
    Sessions {
        /// Only this agent's sessions.
        #[arg(long)]
        agent: Option<String>,
        #[arg(long)]
        limit: Option<u32>,
        /// Print JSON rows instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print a session's transcript messages.
    History {
        key: String,
        #[arg(long)]
        limit: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// Print what the embedded gateway delivered to channels.
    Outbox {
        #[arg(long)]
        json: bool,
    },
    /// The effective send policy of a session, and why.
    Policy { key: String },
    /// Send a message to a session as its owner (also `/send on|off|inherit`).
    Chat { key: String, message: String },
    /// Change a session entry as its owner.
    Patch {
        key: String,
        #[arg(long)]
        label: Option<String>,
        #[arg(long)]
        model: Option<String>,
        /// allow, deny or inherit.
        #[arg(long)]
        send_policy: Option<String>,
    },
    /// Run pending background jobs (flows left over by an earlier process).
    Jobs {
        /// How long to keep running them.
        #[arg(long, default_value_t = 120)]
        wait: u64,
    },
    /// A short demonstration on a state directory (default: ./demo-state, created from the
    /// sample state on first use; it persists, so run it twice).
    Demo,
}

#[derive(Args, Debug)]
pub struct CallArgs {
    /// The calling session's key (e.g. agent:main:main).
    #[arg(long = "as", value_name = "SESSION_KEY")]
    pub as_key: String,
    /// The caller runs in a sandbox.
    #[arg(long)]
    pub sandboxed: bool,
    /// The caller's channel (and account, target, thread).
    #[arg(long)]
    pub channel: Option<String>,
    /// The caller's channel account (`agentAccountId`).
    #[arg(long)]
    pub account_id: Option<String>,
    /// The caller's delivery target on its channel (`agentTo`).
    #[arg(long)]
    pub to: Option<String>,
    /// The caller's thread on its channel (`agentThreadId`).
    #[arg(long)]
    pub thread_id: Option<String>,
    /// The requester's agent, when it differs from the session key's (cron, hooks).
    #[arg(long)]
    pub agent_id: Option<String>,
    /// How long to let background work (ping-pong, announces) run after the call.
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    pub wait: u64,
    /// The tool.
    pub tool: String,
    /// The JSON arguments.
    #[arg(default_value = "{}")]
    pub arguments: String,
}

/// Runs the CLI; answers the exit code.
pub fn run(cli: Cli) -> Result<i32> {
    // Only `mcp --http` serves metrics; other commands do not count.
    let metrics = matches!(&cli.command, Command::Mcp(args) if args.http.is_some()).then(crate::metrics::Metrics::new);
    crate::logging::install(&cli.global.log, cli.global.verbose, metrics.clone())?;
    let state = || cli.global.state.clone().unwrap_or_else(default_state_dir);
    match cli.command {
        Command::Conformance { dirs } => {
            let dirs: Vec<PathBuf> = if dirs.is_empty() {
                std::env::var_os("CONFORMANCE_DIR").map(|d| vec![PathBuf::from(d)]).unwrap_or_default()
            } else {
                dirs
            };
            let mut files = Vec::new();
            if dirs.is_empty() {
                files = conformance::builtin_cases();
            }
            for dir in &dirs {
                files.extend(conformance::load_dir(dir).with_context(|| format!("reading cases from {}", dir.display()))?);
            }
            let bytes = component(&cli.global)?;
            let runtime =
                Runtime::new(bytes.as_deref().unwrap_or(session_tools_host::COMPONENT), &engine_options(&cli.global), &Limits::default())?;
            if let Some(notice) = runtime.cache_outcome().notice() {
                tracing::warn!("{notice}");
            }
            let reports = conformance::run_all(&runtime, &files);
            let passed = conformance::print_reports(&reports, &mut crate::out::Out)?;
            Ok(if passed { 0 } else { 1 })
        }
        Command::Describe => {
            // Describing needs no state: a service over an inert gateway.
            let inert = Arc::new(ScriptedGateway::from_json(None, 0).map_err(anyhow::Error::msg)?);
            let mut builder = Service::builder(inert).with_engine(engine_options(&cli.global)).with_log(tracing_log());
            if let Some(bytes) = component(&cli.global)? {
                builder = builder.with_component(bytes);
            }
            let tools = builder.build()?.describe().map_err(|e| anyhow::anyhow!("{e}"))?;
            let value: Vec<Value> = tools
                .into_iter()
                .map(|t| json!({"name": t.name, "label": t.label, "description": t.description, "parameters": serde_json::from_str::<Value>(&t.parameters).unwrap_or(Value::Null)}))
                .collect();
            print_json(&Value::Array(value))?;
            Ok(0)
        }
        Command::Call(args) => {
            let opened = open(&cli.global, state(), StateDir::MustExist)?;
            let service = &opened.service;
            let stop = crate::stop::Stop::install(Some(service.clone()));
            let caller = Caller {
                agent_session_key: Some(args.as_key.clone()),
                agent_channel: args.channel.clone(),
                agent_account_id: args.account_id.clone(),
                agent_to: args.to.clone(),
                agent_thread_id: args.thread_id.clone(),
                sandboxed: args.sandboxed,
                requester_agent_id_override: args.agent_id.clone(),
                ..Default::default()
            };
            match service.call(&caller, &args.tool, &args.arguments) {
                Ok(result) => {
                    crate::outln!("{}", pretty(&result));
                    crate::out::Out.flush()?;
                    if !stop.requested() {
                        service.run_jobs(Duration::from_secs(args.wait));
                    }
                    // Runs in flight are let end (a run cut short is run again by the next
                    // process, which costs a second run).
                    if !opened.wait_for_runs(Duration::from_secs(args.wait.max(10))) {
                        eprintln!("warning: runs still going on are cut short as the process exits");
                    }
                    Ok(0)
                }
                Err(CallError::Tool(e)) => {
                    eprintln!("error: {e}");
                    Ok(2)
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(1)
                }
            }
        }
        Command::Sessions { agent, limit, json } => {
            crate::owner::sessions(&open(&cli.global, state(), StateDir::MustExist)?, agent, limit, json)
        }
        Command::History { key, limit, json } => {
            crate::owner::history(&open(&cli.global, state(), StateDir::MustExist)?, &key, limit, json)
        }
        Command::Outbox { json } => crate::owner::outbox(&open(&cli.global, state(), StateDir::MustExist)?, json),
        Command::Policy { key } => crate::owner::policy(&open(&cli.global, state(), StateDir::MustExist)?, &key),
        Command::Chat { key, message } => crate::owner::chat(&open(&cli.global, state(), StateDir::MayCreate)?, &key, &message),
        Command::Patch { key, label, model, send_policy } => {
            crate::owner::patch(&open(&cli.global, state(), StateDir::MayCreate)?, &key, label, model, send_policy)
        }
        Command::Jobs { wait } => {
            let opened = open(&cli.global, state(), StateDir::MustExist)?;
            let service = opened.service.clone();
            crate::stop::Stop::install(Some(service.clone()));
            let before = service.pending_jobs().len();
            let steps = {
                // Cleared before the result goes to stdout.
                let progress = crate::progress::Progress::job_steps("jobs");
                progress.detail(format_args!("({before} pending at the start; for up to {wait} s)"));
                let steps = service.run_jobs(Duration::from_secs(wait));
                progress.detail(format_args!("(waiting for the runs still going on)"));
                if !opened.wait_for_runs(Duration::from_secs(wait.max(10))) {
                    crate::note!("warning: runs still going on are cut short as the process exits");
                }
                steps
            };
            let after = service.pending_jobs();
            crate::outln!("{before} pending jobs; {steps} steps run; {} still pending", after.len());
            for job in after {
                crate::outln!("  {} {} for {} (waits for {})", job.kind, job.id, job.session_key, job.waits_for);
            }
            Ok(0)
        }
        Command::Mcp(args) => crate::mcp::run(&cli.global, state(), args, metrics),
        Command::Demo => crate::demo::run(&cli.global),
    }
}
