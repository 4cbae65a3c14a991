//! What every command needs: the global options, and the service they open over a state
//! directory (the embedded gateway) or a running gateway (`--gateway`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::runtime::{AgentRuntime, EchoRuntime, ScriptedRuntime};
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::{tracing_log, EngineOptions, Service, ServiceBuilder};

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
    /// Log informational lines too (`--log-level info`).
    #[arg(long, short, global = true)]
    pub verbose: bool,
    #[command(flatten)]
    pub log: crate::logging::LogArgs,
    /// Serve against a running OpenClaw gateway instead of the state directory: its URL
    /// (ws://HOST:PORT), or `local` for the gateway the state directory's config runs.
    #[arg(long, global = true, value_name = "URL|local", env = "OPENCLAW_GATEWAY_URL")]
    pub gateway: Option<String>,
    /// The running gateway's token (gateway.auth.token).
    #[arg(long, global = true, value_name = "TOKEN", env = "OPENCLAW_GATEWAY_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The running gateway's password (gateway.auth.password), instead of a token.
    #[arg(long, global = true, value_name = "PASSWORD", env = "OPENCLAW_GATEWAY_PASSWORD", hide_env_values = true)]
    pub password: Option<String>,
    /// This host's device identity for the running gateway (made on first use, 0600),
    /// presented with a token or password. Needed with a token from another machine on
    /// OpenClaw 2026.5 or later (approve its pairing there: `openclaw devices approve`);
    /// default with a password: $XDG_CONFIG_HOME/session-tools/device.json.
    #[arg(long, global = true, value_name = "FILE")]
    pub device_identity: Option<PathBuf>,
    /// Where the background jobs of calls against a running gateway are kept (default:
    /// $XDG_STATE_HOME/session-tools/gateways/HOST_PORT/jobs; with `--gateway local`, the
    /// state directory's session-tools/gateway-jobs).
    #[arg(long, global = true, value_name = "DIR")]
    pub jobs_dir: Option<PathBuf>,
}

/// Whether a command may create the state directory: only the ones that write on
/// purpose; a read of a directory that does not exist says so.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StateDir {
    MustExist,
    MayCreate,
}

/// The gateway a command works on.
pub enum Backend {
    /// A state directory, through the embedded gateway.
    Embedded(Arc<EmbeddedGateway>),
    /// A running gateway.
    Live(Arc<LiveGateway>),
}

/// A gateway opened, and the service over it.
pub struct Opened {
    pub backend: Backend,
    pub service: Service,
}

impl Opened {
    /// Waits (at most `wait`) for the runs this process started to end: the embedded
    /// gateway runs them in this process, so they end with it. A running gateway runs its
    /// own, whatever happens to this process.
    pub fn wait_for_runs(&self, wait: Duration) -> bool {
        match &self.backend {
            Backend::Embedded(gateway) => gateway.wait_runs_idle(wait),
            Backend::Live(_) => true,
        }
    }
}

pub fn runtime_of(spec: &str) -> Result<Arc<dyn AgentRuntime>> {
    match spec.split_once(':') {
        None if spec == "echo" => Ok(Arc::new(EchoRuntime)),
        Some(("scripted", file)) => Ok(Arc::new(ScriptedRuntime::from_file(Path::new(file)).map_err(anyhow::Error::msg)?)),
        _ => bail!("unknown --runtime {spec:?}: use echo or scripted:FILE"),
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

/// Opens the gateway the options name (`--gateway`, else the embedded one over `state`)
/// and the service over it.
pub fn open(global: &Global, state: PathBuf, state_dir: StateDir) -> Result<Opened> {
    match global.gateway.as_deref().map(str::trim) {
        Some("") | None => open_embedded(global, state, state_dir),
        Some(spec) => open_live(global, spec, state),
    }
}

/// Opens the embedded gateway over `state` and the service over it.
pub fn open_embedded(global: &Global, state: PathBuf, state_dir: StateDir) -> Result<Opened> {
    let mut gateway =
        EmbeddedGateway::builder(state).with_runtime(runtime_of(&global.runtime)?).create_state_dir(state_dir == StateDir::MayCreate);
    if let Some(config) = &global.config {
        gateway = gateway.with_config_path(config);
    }
    let gateway = gateway.open()?;
    let mut builder = ServiceBuilder::over_embedded(&gateway).with_engine(engine_options(global)).with_log(tracing_log());
    if let Some(component) = component(global)? {
        builder = builder.with_component(component);
    }
    Ok(Opened { service: builder.build()?, backend: Backend::Embedded(gateway) })
}

/// Opens a running gateway (`spec`: its URL, or `local`) and the service over it.
fn open_live(global: &Global, spec: &str, state: PathBuf) -> Result<Opened> {
    let (mut gateway, tools_dir, jobs_dir) = if spec == "local" {
        if !state.is_dir() {
            bail!("--gateway local reads the gateway's port and secret from the state directory {}, which does not exist", state.display());
        }
        let config = DeploymentConfig::load(&state, global.config.as_deref())?;
        let tools_dir = state.join("session-tools");
        (LiveGateway::local(&config)?, tools_dir.clone(), tools_dir.join("gateway-jobs"))
    } else {
        let tools_dir = gateway_dir(spec)?;
        (LiveGateway::builder(spec), tools_dir.clone(), tools_dir.join("jobs"))
    };
    gateway = match (&global.token, &global.password) {
        (Some(_), Some(_)) => bail!("give the gateway's token or its password, not both"),
        (Some(token), None) => gateway.with_token(token.clone()),
        (None, Some(password)) => gateway.with_password(password.clone()),
        (None, None) => gateway,
    };
    if let Some(path) = &global.device_identity {
        gateway = gateway.with_device_identity(path);
    }
    let gateway = Arc::new(gateway.open()?);
    let mut builder = ServiceBuilder::over_live(&gateway)
        .with_limits_file(tools_dir.join("limits.json"))
        .with_jobs_dir(global.jobs_dir.clone().unwrap_or(jobs_dir))
        .with_engine(engine_options(global))
        .with_log(tracing_log());
    if let Some(component) = component(global)? {
        builder = builder.with_component(component);
    }
    Ok(Opened { service: builder.build()?, backend: Backend::Live(gateway) })
}

/// This host's own directory for a gateway it reaches by URL:
/// `$XDG_STATE_HOME/session-tools/gateways/<host>_<port>` (else `~/.local/state/…`).
fn gateway_dir(url: &str) -> Result<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".local/state")))
        .context("neither XDG_STATE_HOME nor HOME is set: give --jobs-dir")?;
    let authority = url.split_once("://").map_or(url, |(_, rest)| rest).split('/').next().unwrap_or_default();
    // Only ASCII letters, digits, dots and dashes reach the file name.
    let name: String = authority.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect();
    if name.trim_matches(['_', '.']).is_empty() {
        bail!("{url:?} is not a gateway URL: it must look like ws://HOST:PORT");
    }
    Ok(base.join("session-tools").join("gateways").join(name))
}

#[cfg(test)]
mod tests {
    use super::*;
}
