//! A real gateway process on loopback, and its WebSocket client (protocol 3, or 3..4 for
//! today's gateway).
//!
//! One module each: `launch` (one process started and waited for), `client` (the harness's
//! WebSocket client), `run_config` (the generated config and environment), `process_group`
//! (stopping it with all it started) and `legacy_import` (`openclaw doctor --fix`).

mod client;
mod launch;
mod legacy_import;
mod process_group;
mod run_config;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

pub use client::{Client, RpcError};
pub use legacy_import::import_legacy;

use super::install;
use super::install::{Era, Installation, DEFAULT_PACKAGE};
use super::{file_tail, random_hex};
use launch::{check_unshare, free_port, launch};
use process_group::kill_group;

/// How a gateway is started.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    /// The npm package (`name@version`) to run; default [`DEFAULT_PACKAGE`].
    pub package: String,
    /// Config merged (deep, objects key by key) over the generated one, e.g.
    /// [`MockModel::model_config`](super::MockModel::model_config).
    pub extra_config: Value,
    /// Runs the gateway in a PID namespace of its own (`unshare --pid --fork --mount-proc`),
    /// like a gateway in another container: the pids it writes into lock files are not
    /// processes this side can see. Its pid inside is picked to be one that does not exist
    /// outside ([`Gateway::ns_pid`]); pid 1 would not do, as `/proc/1` exists here too.
    pub pid_namespace: bool,
    /// The shared gateway token; random when `None`.
    pub token: Option<String>,
    /// More environment variables for the gateway process.
    pub env: Vec<(String, String)>,
    /// How long the gateway may take until a `connect` handshake succeeds.
    pub startup_timeout: Duration,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            package: DEFAULT_PACKAGE.to_string(),
            extra_config: Value::Null,
            pid_namespace: false,
            token: None,
            env: Vec::new(),
            startup_timeout: Duration::from_secs(60),
        }
    }
}

/// A real gateway process (`node dist/entry.js gateway run`) on loopback, in a process
/// group of its own, stopped (the whole group) on [`Gateway::stop`] or drop.
pub struct Gateway {
    installation: Installation,
    state_dir: PathBuf,
    dir: Option<tempfile::TempDir>,
    port: u16,
    token: String,
    pid: u32,
    ns_pid: Option<u32>,
    log_path: PathBuf,
    config_path: PathBuf,
    child: Option<Child>,
    client: Mutex<Option<Client>>,
}

impl fmt::Debug for Gateway {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gateway")
            .field("package", &self.installation.package)
            .field("port", &self.port)
            .field("pid", &self.pid)
            .field("ns_pid", &self.ns_pid)
            .field("state_dir", &self.state_dir)
            .field("log_path", &self.log_path)
            .finish()
    }
}

impl Gateway {
    /// Installs (once) the package and starts a gateway on a free loopback port against
    /// `state_dir`, with its config, fake `HOME`, `TMPDIR` and logs in a temporary directory
    /// outside the state dir. Returns once a `connect` handshake succeeds; an error carries
    /// the end of the gateway's log.
    pub fn start(state_dir: &Path, options: GatewayOptions) -> Result<Gateway, String> {
        let installation = install(&options.package)?;
        Gateway::start_installed(installation, state_dir, options)
    }

    /// The era of the gateway's package.
    pub fn era(&self) -> Era {
        self.installation.era
    }

    /// [`Gateway::start`] with an installation at hand (`options.package` is not used).
    pub fn start_installed(installation: Installation, state_dir: &Path, options: GatewayOptions) -> Result<Gateway, String> {
        std::fs::create_dir_all(state_dir).map_err(|e| format!("cannot create the state dir {}: {e}", state_dir.display()))?;
        // Today's gateway refuses a legacy store until its doctor imports it.
        import_legacy(&installation, state_dir)?;
        let state_dir = state_dir.canonicalize().map_err(|e| format!("cannot resolve {}: {e}", state_dir.display()))?;
        let dir = tempfile::Builder::new()
            .prefix("openclaw-gateway-")
            .tempdir()
            .map_err(|e| format!("cannot create a temporary directory for the gateway: {e}"))?;
        let run_dir = dir.path().canonicalize().map_err(|e| e.to_string())?;
        if run_dir.starts_with(&state_dir) {
            return Err(format!(
                "the gateway's temporary directory {} would be inside the state dir; set TMPDIR elsewhere",
                run_dir.display()
            ));
        }
        for sub in ["home", "tmp"] {
            std::fs::create_dir_all(run_dir.join(sub)).map_err(|e| format!("cannot create {}/{sub}: {e}", run_dir.display()))?;
        }
        // The package's transpile cache is shared ($TMPDIR/jiti is where jiti keeps it).
        std::fs::create_dir_all(&installation.jiti_cache)
            .and_then(|()| std::os::unix::fs::symlink(&installation.jiti_cache, run_dir.join("tmp/jiti")))
            .map_err(|e| format!("cannot link the transpile cache {}: {e}", installation.jiti_cache.display()))?;
        if options.pid_namespace {
            check_unshare()?;
        }
        let token = options.token.clone().unwrap_or_else(|| random_hex(16));
        let mut attempt = 0;
        loop {
            attempt += 1;
            let port = free_port()?;
            match launch(&installation, &state_dir, &run_dir, port, &token, &options) {
                Ok((child, ns_pid, client)) => {
                    return Ok(Gateway {
                        installation,
                        state_dir,
                        port,
                        token,
                        pid: child.id(),
                        ns_pid,
                        log_path: run_dir.join("gateway.log"),
                        config_path: run_dir.join("gateway.json"),
                        child: Some(child),
                        client: Mutex::new(Some(client)),
                        dir: Some(dir),
                    });
                }
                Err((message, port_taken)) if port_taken && attempt < 3 => {
                    eprintln!("[openclaw] port {port} was taken, retrying on another: {message}");
                }
                Err((message, _)) => {
                    if std::env::var_os("SESSION_TOOLS_OPENCLAW_KEEP").is_some() {
                        let kept = dir.keep();
                        return Err(format!("{message}\n(the gateway's files are kept in {})", kept.display()));
                    }
                    return Err(message);
                }
            }
        }
    }

    /// `ws://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The pid of the process started (node, or `unshare` with `pid_namespace`); also the
    /// id of the process group that is stopped.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// With `pid_namespace`: node's pid inside its namespace (what it writes into locks).
    pub fn ns_pid(&self) -> Option<u32> {
        self.ns_pid
    }

    /// The gateway's stdout and stderr.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// The gateway's own file log (`logging.file`).
    pub fn file_log_path(&self) -> PathBuf {
        self.log_path.with_file_name("openclaw.log")
    }

    /// The config file written for this gateway.
    pub fn config_path(&self) -> &Path {
        &self.config_path
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    pub fn installation(&self) -> &Installation {
        &self.installation
    }

    /// The last `lines` lines of the gateway's stdout/stderr.
    pub fn log_tail(&self, lines: usize) -> String {
        file_tail(&self.log_path, lines)
    }

    /// Whether the gateway process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.as_mut().is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// A new connection of its own (for use from another thread, or to collect events).
    pub fn client(&self) -> Result<Client, RpcError> {
        Client::connect_offering(self.port, &self.token, Duration::from_secs(10), self.installation.era.max_protocol())
    }

    /// One RPC over the gateway's shared connection (reconnected after a transport error).
    pub fn rpc(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.with_client(|c| c.rpc(method, params))
    }

    /// One RPC, waiting past `accepted` for the final answer (`agent`).
    pub fn rpc_final(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        self.with_client(|c| c.rpc_final(method, params))
    }

    /// One RPC with a time limit; `expect_final` waits past `accepted`.
    pub fn request(&self, method: &str, params: Value, expect_final: bool, timeout: Duration) -> Result<Value, RpcError> {
        self.with_client(|c| c.request(method, params, expect_final, timeout))
    }

    fn with_client<T>(&self, call: impl FnOnce(&mut Client) -> Result<T, RpcError>) -> Result<T, RpcError> {
        let mut guard = self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if guard.is_none() {
            *guard = Some(self.client()?);
        }
        let result = call(guard.as_mut().expect("connected just now"));
        if matches!(result, Err(RpcError::Transport(_))) {
            *guard = None;
        }
        result
    }

    /// Stops the gateway: SIGTERM to its process group, SIGKILL after 5 s. Errors when a
    /// process of the group is still alive afterwards. Idempotent.
    pub fn stop(&mut self) -> Result<(), String> {
        if let Some(client) = self.client.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            client.close();
        }
        let Some(mut child) = self.child.take() else { return Ok(()) };
        let left = kill_group(&mut child, Duration::from_secs(5));
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("processes of the gateway's group {} still alive after SIGKILL: {left:?}", self.pid))
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("[openclaw] {e}");
        }
        if std::env::var_os("SESSION_TOOLS_OPENCLAW_KEEP").is_some() {
            if let Some(dir) = self.dir.take() {
                eprintln!("[openclaw] the gateway's files are kept in {}", dir.keep().display());
            }
        }
    }
}

/// Starts and stops a gateway of a fresh installation once, on an empty state dir, so its
/// transpile cache is filled (under the install lock) before tests start gateways.
pub(crate) fn warm_up(installation: &Installation) -> Result<(), String> {
    let state = tempfile::Builder::new()
        .prefix("openclaw-warm-up-state-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary state dir: {e}"))?;
    std::fs::create_dir_all(state.path().join("agents/main/sessions")).map_err(|e| e.to_string())?;
    let options =
        GatewayOptions { package: installation.package.clone(), startup_timeout: Duration::from_secs(300), ..GatewayOptions::default() };
    let mut gateway = Gateway::start_installed(installation.clone(), state.path(), options)?;
    gateway.stop()
}
