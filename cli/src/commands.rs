//! The `session-tools` command line: its commands, and which module runs each.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use serde_json::{json, Value};
use session_tools_host::conformance;
use session_tools_host::gateway::scripted::ScriptedGateway;
use session_tools_host::{tracing_log, Limits, Runtime, Service};

use crate::backend::{open, StateDir};
use crate::options::{component, engine_options, Global};
use crate::show::print_json;

/// The agent session tools (sessions_list, sessions_history, sessions_send,
/// sessions_spawn, agents_list) as a sandboxed WebAssembly component, over an OpenClaw
/// state directory or a running OpenClaw gateway.
#[derive(Parser, Debug)]
// A repeated option takes its last value (a wrapper's defaults, then the person's own).
#[command(name = "session-tools", version, long_version = crate::version::LONG, about, after_help = DEVELOPER_COMMANDS, args_override_self = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// The developer's commands: not in the list of commands above it (hidden there), listed
/// under their own heading below it.
const DEVELOPER_COMMANDS: &str = "Developer commands:
  conformance  Run conformance cases through the component
  describe     Print the tool descriptions as JSON";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Call one tool as a session (through the running gateway, or on the state directory's files).
    Call(crate::call::CallArgs),
    /// Serve the tools over MCP (stdio, or streamable HTTP for many agents) as a session.
    Mcp(crate::mcp::McpArgs),
    /// List the sessions, newest first.
    Sessions {
        /// Only this agent's sessions.
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
        /// Show at most this many sessions.
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
        /// Print JSON rows instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print a session's transcript messages, oldest first.
    History {
        /// The session's key (e.g. agent:main:main, or main for the default agent's).
        key: String,
        /// Show only the last N messages.
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
        /// Print the messages as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print what was delivered to channels from the state directory's files.
    Outbox {
        /// Print the deliveries as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the effective send policy of a session, and why.
    Policy {
        /// The session's key.
        key: String,
        /// Print the decision as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Send a message to a session as its owner (also `/send on|off|inherit`).
    Chat {
        /// The session's key.
        key: String,
        /// The message, or a `/send on|off|inherit` command.
        message: String,
        /// Print the outcome as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Change a session entry as its owner (prints the entry as JSON).
    Patch {
        /// The session's key.
        key: String,
        /// The session's new label (an empty one clears it).
        #[arg(long)]
        label: Option<String>,
        /// The session's model override (an empty one clears it).
        #[arg(long)]
        model: Option<String>,
        /// The session's own send policy (inherit clears it).
        #[arg(long, value_enum)]
        send_policy: Option<crate::owner_commands::SendPolicyArg>,
    },
    /// Run pending background jobs (flows left over by an earlier process).
    Jobs {
        /// How long to keep running them, in seconds.
        #[arg(long, default_value_t = 120, value_name = "SECONDS")]
        wait: u64,
        /// Print the outcome as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check the set-up: state directory, config, running gateway, backend, cache, jobs.
    Doctor {
        /// Print the findings as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the tools at work, with the echo runtime, on ./demo-state or --state (made from
    /// the built-in sample on first use; run it twice).
    Demo,
    /// Print a shell completion script.
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: crate::completions::Shell,
    },
    /// Run conformance cases through the component (default: the project's own copy).
    #[command(hide = true)]
    Conformance {
        /// Directories of case files (or $CONFORMANCE_DIR).
        dirs: Vec<PathBuf>,
    },
    /// Print the tool descriptions as JSON.
    #[command(hide = true)]
    Describe,
}

/// Runs the CLI; answers the exit code. A failure that names its code (see `exit.rs`) is
/// returned as an error carrying it: [`exit_code`] prints it and answers the code.
pub fn run(cli: Cli) -> Result<i32> {
    // Only `mcp --http` serves metrics; other commands do not count.
    let metrics = matches!(&cli.command, Command::Mcp(args) if args.http.is_some()).then(crate::metrics::Metrics::new);
    crate::logging::install(&cli.global.log, cli.global.verbose, metrics.clone())?;
    let state = || cli.global.state_dir().0;
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
                .map(|t| {
                    let json_of = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
                    let hints = json!({"readOnly": t.hints.read_only, "destructive": t.hints.destructive,
                        "idempotent": t.hints.idempotent, "openWorld": t.hints.open_world});
                    json!({"name": t.name, "label": t.label, "title": t.title, "description": t.description,
                        "parameters": json_of(&t.parameters), "resultSchema": json_of(&t.result_schema), "hints": hints})
                })
                .collect();
            print_json(&Value::Array(value))?;
            Ok(0)
        }
        Command::Call(args) => crate::call::run(&cli.global, state(), &args),
        Command::Sessions { agent, limit, json } => {
            crate::owner_commands::sessions(&open(&cli.global, state(), StateDir::MustExist)?, agent, limit, json)
        }
        Command::History { key, limit, json } => {
            crate::owner_commands::history(&open(&cli.global, state(), StateDir::MustExist)?, &key, limit, json)
        }
        Command::Outbox { json } => crate::owner_commands::outbox(&open(&cli.global, state(), StateDir::MustExist)?, json),
        Command::Policy { key, json } => crate::owner_commands::policy(&open(&cli.global, state(), StateDir::MustExist)?, &key, json),
        Command::Chat { key, message, json } => {
            crate::owner_commands::chat(&open(&cli.global, state(), StateDir::MayCreate)?, &key, &message, json)
        }
        Command::Patch { key, label, model, send_policy } => {
            crate::owner_commands::patch(&open(&cli.global, state(), StateDir::MayCreate)?, &key, label, model, send_policy)
        }
        Command::Jobs { wait, json } => crate::jobs::run(&open(&cli.global, state(), StateDir::MustExist)?, wait, json),
        Command::Doctor { json } => crate::doctor::run(&cli.global, json),
        Command::Completions { shell } => crate::completions::print(shell),
        Command::Mcp(args) => crate::mcp::run(&cli.global, state(), args, metrics),
        Command::Demo => crate::demo::run(&cli.global),
    }
}

/// Runs the CLI and answers the process's exit code (see `exit.rs`); a failure is said on
/// standard error.
pub fn exit_code(cli: Cli) -> std::process::ExitCode {
    let code = match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            crate::exit::code_of(&error).value()
        }
    };
    std::process::ExitCode::from(code.clamp(0, 255) as u8)
}
