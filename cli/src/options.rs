//! What every command needs: the global options, and the service over a state
//! directory they open.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use session_tools_host::gateway::embedded::runtime::{AgentRuntime, EchoRuntime, ScriptedRuntime};
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::{stderr_log, EngineOptions, Service, ServiceBuilder};

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

/// Whether a command may create the state directory: only the ones that write on
/// purpose; a read of a directory that does not exist says so.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StateDir {
    MustExist,
    MayCreate,
}

/// A state directory opened: its embedded gateway, and the service over it.
pub struct Opened {
    pub gateway: Arc<EmbeddedGateway>,
    pub service: Service,
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

/// Opens the embedded gateway over `state` and the service over it.
pub fn open(global: &Global, state: PathBuf, state_dir: StateDir) -> Result<Opened> {
    let mut gateway =
        EmbeddedGateway::builder(state).with_runtime(runtime_of(&global.runtime)?).create_state_dir(state_dir == StateDir::MayCreate);
    if let Some(config) = &global.config {
        gateway = gateway.with_config_path(config);
    }
    let gateway = gateway.open()?;
    let mut builder = ServiceBuilder::over_embedded(&gateway).with_engine(engine_options(global)).with_log(stderr_log(global.verbose));
    if let Some(component) = component(global)? {
        builder = builder.with_component(component);
    }
    Ok(Opened { service: builder.build()?, gateway })
}
