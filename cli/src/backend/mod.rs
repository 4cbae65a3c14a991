//! The backend a command works on, opened, and the service over it: the state directory's
//! files through the embedded gateway, or a running gateway. `choice` decides which;
//! options that do not apply to the backend chosen are refused here, not ignored.

pub mod choice;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::EmbeddedGateway;
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::{tracing_log, Service, ServiceBuilder};

use crate::exit::{unreachable, usage};
use crate::options::{component, engine_options, Global, PASSWORD_VAR, TOKEN_VAR};
pub use choice::{Choice, Source, Target};

/// What a refused run tells the person to do: this command line's options.
pub const NO_RUNTIME_ADVICE: &str = "use the state directory's running OpenClaw gateway (it is found when it runs, \
     or name it with --gateway local or --gateway URL), or choose an agent runtime for a demonstration or a test: \
     --runtime echo or --runtime scripted:FILE";

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

/// A gateway opened, the service over it, and why it was chosen.
pub struct Opened {
    pub backend: Backend,
    pub service: Service,
    pub choice: Choice,
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

    /// The backend in words, for `-v` and `doctor`.
    pub fn describe(&self) -> String {
        match &self.backend {
            Backend::Embedded(gateway) => format!("the state directory's files ({})", gateway.state_dir().display()),
            Backend::Live(gateway) => format!("the gateway at {}", gateway.url()),
        }
    }
}

/// Opens the backend the options and the state directory choose (see [`choice`]), and
/// the service over it. A state directory or gateway that cannot be opened is exit 3.
pub fn open(global: &Global, state: PathBuf, state_dir: StateDir) -> Result<Opened> {
    let choice = choice::choose(global, &state)?;
    refuse_what_does_not_apply(global, &choice)?;
    let opened = match &choice.target {
        Target::Files => open_embedded(global, state.clone(), state_dir, choice.clone()).map(Some),
        Target::Local | Target::Url(_) => open_live(global, &state, choice.clone()),
    };
    let opened = match opened {
        Ok(Some(opened)) => opened,
        // The gateway that answered serves another directory: the files, then.
        Ok(None) => open_embedded(global, state, state_dir, Choice { target: Target::Files, source: Source::NoneRunning })?,
        Err(e) => return Err(unreachable(e)),
    };
    tracing::info!("working on {} ({})", opened.describe(), opened.choice.source);
    Ok(opened)
}

/// Options given for the other backend are an error, not silently dropped.
fn refuse_what_does_not_apply(global: &Global, choice: &Choice) -> Result<()> {
    match choice.target {
        Target::Files => {
            let given = [
                ("--token", global.token.is_some()),
                ("--password", global.password.is_some()),
                ("--device-identity", global.device_identity.is_some()),
                ("--jobs-dir", global.jobs_dir.is_some()),
            ];
            if let Some((option, _)) = given.iter().find(|(_, given)| *given) {
                return Err(usage(format!(
                    "{option} is for a running gateway, and this command works on the state directory's files ({}); \
                     name the gateway with --gateway, or drop {option}",
                    choice.source
                )));
            }
        }
        Target::Local | Target::Url(_) => {
            if let Some(runtime) = &global.runtime {
                return Err(usage(format!(
                    "--runtime {runtime} chooses who answers runs on the state directory's files, and this command works through \
                     a running gateway ({}), whose agents answer; drop --runtime, or add --files to work on the files",
                    choice.source
                )));
            }
        }
    }
    Ok(())
}

/// Opens the embedded gateway over `state` (with `--runtime`'s runtime, if any) and the
/// service over it.
pub fn open_embedded(global: &Global, state: PathBuf, state_dir: StateDir, choice: Choice) -> Result<Opened> {
    let mut gateway =
        EmbeddedGateway::builder(state).with_no_runtime_advice(NO_RUNTIME_ADVICE).create_state_dir(state_dir == StateDir::MayCreate);
    if let Some(runtime) = &global.runtime {
        gateway = gateway.with_runtime(runtime.open()?);
    }
    if let Some(config) = &global.config {
        gateway = gateway.with_config_path(config);
    }
    let gateway = gateway.open()?;
    let mut builder = ServiceBuilder::over_embedded(&gateway).with_engine(engine_options(global)).with_log(tracing_log());
    if let Some(component) = component(global)? {
        builder = builder.with_component(component);
    }
    Ok(Opened { service: builder.build()?, backend: Backend::Embedded(gateway), choice })
}

/// Opens a running gateway and the service over it; `None` when the gateway found on the
/// configured port serves another state directory.
fn open_live(global: &Global, state: &std::path::Path, choice: Choice) -> Result<Option<Opened>> {
    let (mut gateway, tools_dir, jobs_dir) = match &choice.target {
        Target::Local => {
            if !state.is_dir() {
                bail!(
                    "the state directory's gateway is reached with the port and secret of its config, and the state directory {} does not exist",
                    state.display()
                );
            }
            let config = DeploymentConfig::load(state, global.config.as_deref())?;
            let tools_dir = state.join("session-tools");
            (LiveGateway::local(&config)?, tools_dir.clone(), tools_dir.join("gateway-jobs"))
        }
        Target::Url(url) => {
            let tools_dir = gateway_dir(url)?;
            let secret = |var: &str| std::env::var(var).ok().filter(|v| !v.is_empty());
            let mut gateway = LiveGateway::builder(url);
            match (secret(TOKEN_VAR), secret(PASSWORD_VAR)) {
                (Some(token), _) => gateway = gateway.with_token(token),
                (None, Some(password)) => gateway = gateway.with_password(password),
                (None, None) => {}
            }
            (gateway, tools_dir.clone(), tools_dir.join("jobs"))
        }
        Target::Files => unreachable!("the files are opened by open_embedded"),
    };
    gateway = match (&global.token, &global.password) {
        (Some(_), Some(_)) => return Err(usage("give the gateway's token or its password, not both")),
        (Some(token), None) => gateway.with_token(token.clone()),
        (None, Some(password)) => gateway.with_password(password.clone()),
        (None, None) => gateway,
    };
    if let Some(path) = &global.device_identity {
        gateway = gateway.with_device_identity(path);
    }
    let url = gateway.url().to_string();
    let gateway = match gateway.open() {
        Ok(gateway) => Arc::new(gateway),
        Err(e) => {
            let hint = match &choice.source {
                Source::Found(finding) => format!(
                    "; it was found running ({finding}): give its secret (--token or --password), or work on the files with --files"
                ),
                _ => String::new(),
            };
            return Err(anyhow::Error::new(e).context(format!("cannot work through the gateway at {url} ({}){hint}", choice.source)));
        }
    };
    if let (Source::Found(_), Some(named)) = (&choice.source, gateway.state_dir()) {
        if !choice::serves(named, state) {
            tracing::info!("the gateway at {url} serves {named}, not {}: working on the files", state.display());
            return Ok(None);
        }
    }
    let mut builder = ServiceBuilder::over_live(&gateway)
        .with_limits_file(tools_dir.join("limits.json"))
        .with_jobs_dir(global.jobs_dir.clone().unwrap_or(jobs_dir))
        .with_engine(engine_options(global))
        .with_log(tracing_log());
    if let Some(component) = component(global)? {
        builder = builder.with_component(component);
    }
    Ok(Some(Opened { service: builder.build()?, backend: Backend::Live(gateway), choice }))
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
