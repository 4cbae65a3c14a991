//! `session-tools call`: one tool call as a session; its JSON result on standard output,
//! and the exit code its status says (`exit.rs`). The background work it starts (ping-pong,
//! announces) is run before the process ends, unless `--wait 0` leaves it to `jobs`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use session_tools_host::Caller;

use crate::backend::{open, StateDir};
use crate::exit;
use crate::options::Global;
use crate::show::pretty;

#[derive(Args, Debug)]
pub struct CallArgs {
    /// The calling session's key (e.g. agent:main:main).
    #[arg(long = "as", value_name = "SESSION_KEY")]
    pub as_key: String,
    /// The caller runs in a sandbox (it sees only the sessions it spawned).
    #[arg(long)]
    pub sandboxed: bool,
    /// The caller's channel (e.g. discord).
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
    /// How long to stay for the background work (ping-pong, announces) after the call; 0
    /// leaves it to `session-tools jobs`.
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    pub wait: u64,
    /// The tool: sessions_list, sessions_history, sessions_send, sessions_spawn or agents_list.
    pub tool: String,
    /// The tool's arguments, as a JSON object.
    #[arg(default_value = "{}")]
    pub arguments: String,
}

/// The caller a command's tool calls run as, as its options name it: `--as` and the caller
/// options that `call` and `mcp` both take (each command declares its own, for its help).
pub struct CallerOptions<'a> {
    /// `--as`, as given (`None`: not given).
    pub session_key: Option<&'a str>,
    pub sandboxed: bool,
    pub channel: &'a Option<String>,
    pub account_id: &'a Option<String>,
    pub to: &'a Option<String>,
    pub thread_id: &'a Option<String>,
    pub agent_id: &'a Option<String>,
}

impl CallerOptions<'_> {
    /// The caller they name: the session key trimmed; none, or only spaces, is a usage
    /// error.
    pub fn caller(&self) -> Result<Caller> {
        let key = self.session_key.map(str::trim).unwrap_or_default();
        if key.is_empty() {
            return Err(exit::usage("--as needs a session key (e.g. --as agent:main:main)"));
        }
        Ok(Caller {
            agent_session_key: Some(key.to_string()),
            agent_channel: self.channel.clone(),
            agent_account_id: self.account_id.clone(),
            agent_to: self.to.clone(),
            agent_thread_id: self.thread_id.clone(),
            sandboxed: self.sandboxed,
            requester_agent_id_override: self.agent_id.clone(),
            ..Caller::default()
        })
    }
}

pub fn run(global: &Global, state: PathBuf, args: &CallArgs) -> Result<i32> {
    // A caller the options cannot name is refused before anything is opened.
    let CallArgs { as_key, sandboxed, channel, account_id, to, thread_id, agent_id, .. } = args;
    let caller =
        CallerOptions { session_key: Some(as_key), sandboxed: *sandboxed, channel, account_id, to, thread_id, agent_id }.caller()?;
    let opened = open(global, state, StateDir::MustExist)?;
    let service = &opened.service;
    let stop = crate::stop::Stop::install(Some(service.clone()));
    let result = match service.call(&caller, &args.tool, &args.arguments) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(exit::of_call_error(&e).value());
        }
    };
    crate::outln!("{}", pretty(&result));
    crate::out::Out.flush()?;
    if !stop.requested() {
        if args.wait > 0 && std::io::stderr().is_terminal() && !service.pending_jobs().is_empty() {
            eprintln!(
                "finishing the call's background work (ping-pong, announces) for up to {} s; \
                 Ctrl-C (or --wait 0 next time) leaves it to `session-tools jobs`",
                args.wait
            );
        }
        service.run_jobs(Duration::from_secs(args.wait));
    }
    // Runs in flight are let end (a run cut short is run again by the next process, which
    // costs a second run).
    if !opened.wait_for_runs(Duration::from_secs(args.wait.max(10))) {
        eprintln!("warning: runs still going on are cut short as the process exits");
    }
    Ok(exit::of_result(&result).value())
}
