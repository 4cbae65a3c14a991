//! The `session-tools` command line.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use serde_json::{json, Value};
use session_tools_guest::policy::Decision;
use session_tools_guest::ports::{Gateway, HistoryParams, ListParams};
use session_tools_guest::tools::Caller;

use crate::config::default_state_dir;
use crate::conformance;
use crate::engine::EngineOptions;
use crate::gateway::embedded::runtime::{AgentRuntime, EchoRuntime, ScriptedRuntime};
use crate::gateway::embedded::Patch;
use crate::limits::Limits;
use crate::sandbox::{CallError, Runtime};
use crate::service::{stderr_log, ServiceOptions, ToolService};

/// The agent session tools (sessions_list, sessions_history, sessions_send,
/// sessions_spawn, agents_list) as a sandboxed WebAssembly component, over an OpenClaw
/// state directory.
#[derive(Parser, Debug)]
#[command(name = "session-tools", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct Global {
    /// The OpenClaw state directory (default: $OPENCLAW_STATE_DIR, ..., else ~/.openclaw).
    #[arg(long, global = true, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// The config file (default: openclaw.json, moltbot.json or clawdbot.json in the state
    /// directory).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The agent runtime for runs: `echo` (default), or `scripted:FILE` (rules like the
    /// conformance `runs`).
    #[arg(long, global = true, value_name = "RUNTIME", default_value = "echo")]
    pub runtime: String,
    /// Load this component instead of the one built in.
    #[arg(long, global = true, value_name = "FILE")]
    pub component: Option<PathBuf>,
    /// Do not use the compiled-component cache.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Log informational lines too.
    #[arg(long, short, global = true)]
    pub verbose: bool,
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
    /// Call one tool as a session, against the embedded gateway.
    Call(CallArgs),
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
    /// Print what was delivered to channels.
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
    /// Measure the host and the component (see BENCHMARKS.md).
    Bench(crate::bench::BenchArgs),
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
    #[arg(long)]
    pub account_id: Option<String>,
    #[arg(long)]
    pub to: Option<String>,
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

fn runtime_of(spec: &str) -> Result<Arc<dyn AgentRuntime>> {
    match spec.split_once(':') {
        None if spec == "echo" => Ok(Arc::new(EchoRuntime)),
        Some(("scripted", file)) => Ok(Arc::new(ScriptedRuntime::from_file(std::path::Path::new(file)).map_err(anyhow::Error::msg)?)),
        _ => bail!("unknown --runtime {spec:?}: use echo or scripted:FILE"),
    }
}

fn engine_options(global: &Global) -> EngineOptions {
    let mut options = EngineOptions::default();
    if global.no_cache {
        options.cache_dir = None;
    }
    options
}

fn component(global: &Global) -> Result<Option<Arc<[u8]>>> {
    match &global.component {
        Some(path) => Ok(Some(std::fs::read(path).with_context(|| format!("reading the component {}", path.display()))?.into())),
        None => Ok(None),
    }
}

/// Whether a command may create the state directory: only the ones that write on
/// purpose; a read of a directory that does not exist says so.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StateDir {
    MustExist,
    MayCreate,
}

pub fn open_service(global: &Global, state: PathBuf, state_dir: StateDir) -> Result<ToolService> {
    let mut options = ServiceOptions::new(state);
    options.create_state_dir = state_dir == StateDir::MayCreate;
    options.config_path = global.config.clone();
    options.runtime = runtime_of(&global.runtime)?;
    options.engine = engine_options(global);
    options.log = stderr_log(global.verbose);
    options.component = component(global)?;
    ToolService::open(options)
}

fn print_json(value: &Value) -> Result<()> {
    let mut out = crate::out::Out;
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

fn pretty(json: &str) -> String {
    serde_json::from_str::<Value>(json).and_then(|v| serde_json::to_string_pretty(&v)).unwrap_or_else(|_| json.to_string())
}

/// Runs the CLI; answers the exit code.
pub fn run(cli: Cli) -> Result<i32> {
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
            let runtime = Runtime::new(bytes.as_deref().unwrap_or(crate::COMPONENT), &engine_options(&cli.global), &Limits::default())?;
            let reports = conformance::run_all(&runtime, &files);
            let passed = conformance::print_reports(&reports, &mut crate::out::Out)?;
            Ok(if passed { 0 } else { 1 })
        }
        Command::Describe => {
            // Describing needs no state: an instance with an inert gateway.
            let bytes = component(&cli.global)?;
            let runtime = Runtime::new(bytes.as_deref().unwrap_or(crate::COMPONENT), &engine_options(&cli.global), &Limits::default())?;
            let setup = crate::sandbox::AgentSetup {
                name: "describe".into(),
                gateway: Arc::new(crate::gateway::scripted::ScriptedGateway::from_json(None, 0).map_err(anyhow::Error::msg)?),
                services: Arc::new(crate::service::SystemServices::new(stderr_log(cli.global.verbose))),
                config_json: "{}".into(),
                state_dir: String::new(),
                limits: Limits::default(),
            };
            let tools = runtime.instantiate(&setup).and_then(|mut s| s.describe()).map_err(|e| anyhow::anyhow!("{e}"))?;
            let value: Vec<Value> = tools
                .into_iter()
                .map(|t| json!({"name": t.name, "label": t.label, "description": t.description, "parameters": serde_json::from_str::<Value>(&t.parameters).unwrap_or(Value::Null)}))
                .collect();
            print_json(&Value::Array(value))?;
            Ok(0)
        }
        Command::Call(args) => {
            let service = open_service(&cli.global, state(), StateDir::MustExist)?;
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
                    service.run_jobs(Duration::from_secs(args.wait));
                    if !service.wait_for_runs(Duration::from_secs(args.wait.max(10))) {
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
            let service = open_service(&cli.global, state(), StateDir::MustExist)?;
            let rows = service
                .gateway()
                .list_rows(&ListParams { agent_id: agent, limit, include_global: Some(true), include_unknown: Some(true), ..Default::default() })
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                let value: Vec<Value> = rows.iter().map(row_json).collect();
                print_json(&Value::Array(value))?;
            } else {
                print_sessions(&rows);
            }
            Ok(0)
        }
        Command::History { key, limit, json } => {
            let service = open_service(&cli.global, state(), StateDir::MustExist)?;
            if service.gateway().find(&key).map_err(|e| anyhow::anyhow!("{e}"))?.is_none() {
                bail!("no session {key} in {}", service.state_dir().display());
            }
            let history =
                service.gateway().chat_history(&HistoryParams { session_key: key.clone(), limit }).map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                let messages: Vec<Value> = history.messages.iter().filter_map(|m| serde_json::from_str(&m.json).ok()).collect();
                print_json(&json!({"sessionKey": key, "sessionId": history.session_id, "messages": messages}))?;
            } else {
                print_history(&history.messages);
            }
            Ok(0)
        }
        Command::Outbox { json } => {
            let service = open_service(&cli.global, state(), StateDir::MustExist)?;
            let deliveries = service.gateway().outbox().read_all()?;
            if json {
                print_json(&Value::Array(deliveries))?;
            } else if deliveries.is_empty() {
                crate::outln!("(nothing delivered yet)");
            } else {
                for d in deliveries {
                    let field = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                    let ts = d.get("ts").and_then(Value::as_u64).map(crate::gateway::embedded::transcript::iso_time).unwrap_or_default();
                    crate::outln!(
                        "{ts}  {}:{}{}",
                        field("channel"),
                        field("to"),
                        d.get("accountId").and_then(Value::as_str).map(|a| format!(" (account {a})")).unwrap_or_default()
                    );
                    for line in field("message").lines() {
                        crate::outln!("    {line}");
                    }
                }
            }
            Ok(0)
        }
        Command::Policy { key } => {
            let service = open_service(&cli.global, state(), StateDir::MustExist)?;
            let canonical = service.gateway().rules().canonical(&key);
            let (decision, why) = service.policy(&key).map_err(|e| anyhow::anyhow!("{e}"))?;
            let word = if decision == Decision::Allow { "allow" } else { "deny" };
            crate::outln!("{canonical}: {word} ({why})");
            Ok(0)
        }
        Command::Chat { key, message } => {
            let service = open_service(&cli.global, state(), StateDir::MayCreate)?;
            match service.gateway().chat_send(&key, &message) {
                Ok((reply, run)) => {
                    match run {
                        Some(run_id) => {
                            let wait = service
                                .gateway()
                                .agent_wait(&session_tools_guest::ports::WaitParams { run_id: run_id.clone(), timeout_ms: 120_000 });
                            crate::outln!("run {run_id}: {}", wait.ok().and_then(|w| w.status).unwrap_or_default());
                        }
                        None => crate::outln!("{reply}"),
                    }
                    Ok(0)
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(2)
                }
            }
        }
        Command::Patch { key, label, model, send_policy } => {
            let service = open_service(&cli.global, state(), StateDir::MayCreate)?;
            let patch = Patch {
                label: label.map(|l| (!l.is_empty()).then_some(l)),
                model: model.map(|m| (!m.is_empty()).then_some(m)),
                send_policy: send_policy.map(|p| (p != "inherit").then_some(p)),
                spawned_by: None,
            };
            match service.gateway().patch(&key, &patch) {
                Ok(found) => {
                    print_json(&json!({"key": found.key, "entry": Value::Object(found.entry)}))?;
                    Ok(0)
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Ok(2)
                }
            }
        }
        Command::Jobs { wait } => {
            let service = open_service(&cli.global, state(), StateDir::MustExist)?;
            let before = service.pending_jobs().len();
            let steps = service.run_jobs(Duration::from_secs(wait));
            let after = service.pending_jobs();
            crate::outln!("{before} pending jobs; {steps} steps run; {} still pending", after.len());
            for job in after {
                crate::outln!("  {} {} for {} ({:?})", job.kind, job.id, job.session_key, job.wake);
            }
            Ok(0)
        }
        Command::Demo => crate::demo::run(&cli.global),
        Command::Bench(args) => crate::bench::run(&args),
    }
}

/// A row as JSON (the gateway's wire shape, for `sessions --json`).
pub fn row_json(row: &session_tools_guest::ports::SessionRow) -> Value {
    let mut value = json!({
        "key": row.key, "kind": row.kind, "channel": row.channel, "label": row.label, "displayName": row.display_name,
        "updatedAt": row.updated_at, "sessionId": row.session_id, "model": row.model, "totalTokens": row.total_tokens,
        "sendPolicy": row.send_policy, "lastChannel": row.last_channel, "lastTo": row.last_to, "spawnedBy": row.spawned_by,
    });
    if let Value::Object(map) = &mut value {
        map.retain(|_, v| !v.is_null());
    }
    value
}

fn print_sessions(rows: &[session_tools_guest::ports::SessionRow]) {
    if rows.is_empty() {
        crate::outln!("(no sessions)");
        return;
    }
    crate::outln!("{:<58} {:<7} {:<9} {:<24} {:<6} LABEL / NAME", "KEY", "KIND", "CHANNEL", "UPDATED", "POLICY");
    for r in rows {
        let updated = r.updated_at.map(|t| crate::gateway::embedded::transcript::iso_time(t.max(0) as u64)).unwrap_or_default();
        let name = r.label.clone().or_else(|| r.display_name.clone()).unwrap_or_default();
        crate::outln!(
            "{:<58} {:<7} {:<9} {:<24} {:<6} {}",
            r.key,
            r.kind.as_deref().unwrap_or(""),
            r.channel.as_deref().or(r.last_channel.as_deref()).unwrap_or("-"),
            updated,
            r.send_policy.as_deref().unwrap_or("-"),
            name
        );
    }
}

/// The text of a message's content, for display.
pub fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => b.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
                Some("toolCall") => format!("[tool call {}]", b.get("name").and_then(Value::as_str).unwrap_or("?")),
                Some("thinking") => "[thinking]".to_string(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

fn print_history(messages: &[session_tools_guest::ports::TranscriptMessage]) {
    if messages.is_empty() {
        crate::outln!("(no messages)");
    }
    for m in messages {
        let value: Value = serde_json::from_str(&m.json).unwrap_or(Value::Null);
        let role = m.role.as_deref().unwrap_or("?");
        let text = message_text(&value);
        let mut lines = text.lines();
        crate::outln!("{role:>10}: {}", lines.next().unwrap_or(""));
        for line in lines {
            crate::outln!("{:>10}  {line}", "");
        }
    }
}
