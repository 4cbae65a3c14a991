//! The global options every command takes, parsed into types: where the state is, which
//! backend and agent runtime, the component and its cache, the log. Which backend a
//! command then works on is `backend.rs`'s decision.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use session_tools_host::gateway::embedded::runtime::{AgentRuntime, EchoRuntime, ScriptedRuntime};
use session_tools_host::EngineOptions;

/// The environment variable that names a running gateway for every command.
pub const GATEWAY_URL_VAR: &str = "OPENCLAW_GATEWAY_URL";
/// The environment variables of the running gateway's secret.
pub const TOKEN_VAR: &str = "OPENCLAW_GATEWAY_TOKEN";
pub const PASSWORD_VAR: &str = "OPENCLAW_GATEWAY_PASSWORD";

#[derive(Args, Debug, Clone)]
pub struct Global {
    /// The OpenClaw state directory (default: $OPENCLAW_STATE_DIR, else ~/.openclaw).
    #[arg(long, global = true, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// The config file (default: openclaw.json, moltbot.json or clawdbot.json in the state
    /// directory).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Work on the state directory's files even while its gateway runs (read-only while an
    /// OpenClaw 2026.9 gateway runs).
    #[arg(long, global = true, help_heading = "Backend")]
    pub files: bool,
    /// The agent runtime for runs on the state directory's files, for a demonstration or a
    /// test: `echo` (replies marked as the echo runtime's) or `scripted:FILE` (rules like
    /// the conformance `runs`). No default: without it, sends and spawns need the running
    /// gateway.
    #[arg(long, global = true, value_name = "echo|scripted:FILE", value_parser = RuntimeChoice::parse, help_heading = "Backend")]
    pub runtime: Option<RuntimeChoice>,
    /// Work through a running OpenClaw gateway: its URL (ws://HOST:PORT), or `local` for
    /// the gateway the state directory's config runs (default: $OPENCLAW_GATEWAY_URL, else
    /// the state directory's gateway when it runs).
    #[arg(long, global = true, value_name = "URL|local", help_heading = "Backend")]
    pub gateway: Option<String>,
    /// The running gateway's token (default: $OPENCLAW_GATEWAY_TOKEN, else
    /// gateway.auth.token of the config).
    #[arg(long, global = true, value_name = "TOKEN", help_heading = "Backend")]
    pub token: Option<String>,
    /// The running gateway's password, instead of a token (default:
    /// $OPENCLAW_GATEWAY_PASSWORD, else gateway.auth.password of the config).
    #[arg(long, global = true, value_name = "PASSWORD", help_heading = "Backend")]
    pub password: Option<String>,
    /// This host's device identity for the running gateway (made on first use, 0600),
    /// presented with a token or password. Needed with a token from another machine on
    /// OpenClaw 2026.5 or later (approve its pairing there: `openclaw devices approve`).
    /// Default with a password: $XDG_CONFIG_HOME/session-tools/device.json.
    #[arg(long, global = true, value_name = "FILE", help_heading = "Backend")]
    pub device_identity: Option<PathBuf>,
    /// Where the background jobs of calls through a running gateway are kept (default:
    /// $XDG_STATE_HOME/session-tools/gateways/HOST_PORT/jobs; for the state directory's
    /// own gateway, its session-tools/gateway-jobs).
    #[arg(long, global = true, value_name = "DIR", help_heading = "Backend")]
    pub jobs_dir: Option<PathBuf>,
    /// Load this component instead of the one built in.
    #[arg(long, global = true, value_name = "FILE", help_heading = "Component")]
    pub component: Option<PathBuf>,
    /// Do not use the compiled-component cache.
    #[arg(long, global = true, help_heading = "Component")]
    pub no_cache: bool,
    /// Log informational lines too, such as which backend a command works on and why.
    #[arg(long, short, global = true, help_heading = "Logging")]
    pub verbose: bool,
    #[command(flatten)]
    pub log: crate::logging::LogArgs,
}

impl Global {
    /// The state directory the options name, and where the name came from.
    pub fn state_dir(&self) -> (PathBuf, &'static str) {
        match &self.state {
            Some(dir) => (dir.clone(), "the --state option"),
            None => {
                let from = ["OPENCLAW_STATE_DIR", "MOLTBOT_STATE_DIR", "CLAWDBOT_STATE_DIR"]
                    .into_iter()
                    .find(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()));
                let why = match from {
                    Some("OPENCLAW_STATE_DIR") => "the environment variable OPENCLAW_STATE_DIR",
                    Some("MOLTBOT_STATE_DIR") => "the environment variable MOLTBOT_STATE_DIR",
                    Some(_) => "the environment variable CLAWDBOT_STATE_DIR",
                    None => "the default (the first of ~/.openclaw, ~/.clawdbot, ~/.moltbot that exists)",
                };
                (session_tools_host::config::default_state_dir(), why)
            }
        }
    }
}

/// The agent runtime `--runtime` chooses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeChoice {
    /// Replies marked as the echo runtime's, no usage.
    Echo,
    /// Replies by the rules of this file.
    Scripted(PathBuf),
}

impl RuntimeChoice {
    /// Reads `echo` or `scripted:FILE`.
    pub fn parse(text: &str) -> std::result::Result<RuntimeChoice, String> {
        match text.trim().split_once(':') {
            None if text.trim() == "echo" => Ok(RuntimeChoice::Echo),
            Some(("scripted", file)) if !file.is_empty() => Ok(RuntimeChoice::Scripted(PathBuf::from(file))),
            Some(("scripted", _)) => Err("scripted needs its rules file: scripted:FILE".into()),
            _ => Err(format!("{text:?} is no agent runtime: use echo or scripted:FILE")),
        }
    }

    /// The runtime, its rules read.
    pub fn open(&self) -> Result<Arc<dyn AgentRuntime>> {
        match self {
            RuntimeChoice::Echo => Ok(Arc::new(EchoRuntime)),
            RuntimeChoice::Scripted(file) => Ok(Arc::new(ScriptedRuntime::from_file(Path::new(file)).map_err(anyhow::Error::msg)?)),
        }
    }
}

impl fmt::Display for RuntimeChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeChoice::Echo => f.write_str("echo"),
            RuntimeChoice::Scripted(file) => write!(f, "scripted:{}", file.display()),
        }
    }
}

pub fn engine_options(global: &Global) -> EngineOptions {
    let mut options = EngineOptions::default();
    if global.no_cache {
        options.cache_dir = None;
    }
    options
}

/// The component `--component` names, if any.
pub fn component(global: &Global) -> Result<Option<Arc<[u8]>>> {
    match &global.component {
        Some(path) => Ok(Some(std::fs::read(path).with_context(|| format!("reading the component {}", path.display()))?.into())),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtimes_are_read_or_refused_by_name() {
        assert_eq!(RuntimeChoice::parse("echo"), Ok(RuntimeChoice::Echo));
        assert_eq!(RuntimeChoice::parse("scripted:rules.json"), Ok(RuntimeChoice::Scripted("rules.json".into())));
        assert!(RuntimeChoice::parse("scripted:").unwrap_err().contains("scripted:FILE"));
        assert!(RuntimeChoice::parse("claude").unwrap_err().contains("use echo or scripted:FILE"));
        assert_eq!(RuntimeChoice::Scripted("r.json".into()).to_string(), "scripted:r.json");
    }
}
