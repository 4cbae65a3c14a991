//! The embedded gateway: owns an OpenClaw state directory and implements the gateway
//! methods the component imports with their real semantics (reference §1.1, §1.4), over
//! OpenClaw's on-disk format, so an existing state directory loads unchanged and stays
//! usable by OpenClaw running beside it.
//!
//! Concepts, one module each:
//! - `registry`: which stores there are (one per agent, or one fixed file) and finding a
//!   session in them, legacy spellings of its key merged (G4);
//! - `queries`: the read methods, `sessions.list`, `sessions.resolve`, `chat.history`;
//! - `entries`: changing entries, `sessions.patch`, `sessions.delete`, transcript appends;
//! - `policy_enforcement`: the send policy at the gateway's enforcement points and the owner's
//!   `chat.send` (`/send on|off|inherit`);
//! - `agent_runs`: `agent` and `agent.wait`, over the `runs` registry and a pluggable
//!   [`runtime`];
//! - on disk, in one of two layouts found there (`layout`, E1): OpenClaw 2026.1's files,
//!   `store` (`sessions.json`), `transcript` (`<sessionId>.jsonl`), `lock` (OpenClaw's
//!   lock files); or 2026.9's per-agent databases, `sqlite`. Besides them, `outbox`
//!   (what `send` delivered); `files` (every file born private) and `confined`
//!   (transcripts and the outbox reached without following links);
//! - shared rules: `canon` (keys), `delivery` (delivery fields), `rows` and
//!   `listing` (`sessions.list` rows, built once per store version).

pub(crate) mod agent_runs;
pub(crate) mod canon;
pub(crate) mod confined;
pub(crate) mod delivery;
pub(crate) mod entries;
pub(crate) mod layout;
pub(crate) mod listing;
pub(crate) mod lock;
pub(crate) mod outbox;
pub(crate) mod policy_enforcement;
pub(crate) mod queries;
pub(crate) mod registry;
pub(crate) mod rows;
pub(crate) mod runs;
pub mod runtime;
mod service_builder;
pub(crate) mod sqlite;
pub(crate) mod store;
pub(crate) mod timestamps;
pub(crate) mod transcript;

use session_tools_grammar::js::js_trim;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::clock::{system_clock, Clock};
use crate::config::DeploymentConfig;
use crate::error::{Error, Result};
use crate::gateway::*;
use crate::PolicyEvaluator;
use canon::KeyRules;
use runs::Runs;
use runtime::AgentRuntime;

pub use entries::{Deleted, Patch};
pub use layout::{detect as detect_layout, Layout};
pub use registry::Found;
pub use sqlite::GatewayHold;
pub use transcript::iso_time;

/// `label` bounds (`SESSION_LABEL_MAX_LENGTH`).
pub const LABEL_MAX: usize = 64;

/// The OpenClaw 2026.9 gateway that holds a state directory now (its live `gateway-owner`
/// lease: pid and port), if one does; read-only. A 2026.1 directory has no such lease.
pub fn gateway_holding(state_dir: &Path) -> Option<GatewayHold> {
    sqlite::gateway_hold(state_dir, (system_clock())())
}

/// The gateway over one OpenClaw state directory.
pub struct EmbeddedGateway {
    state_dir: PathBuf,
    config: DeploymentConfig,
    rules: KeyRules,
    registry: registry::Registry,
    /// What runs agents; none chosen: `agent` is refused (nothing invented).
    runtime: Option<Arc<dyn AgentRuntime>>,
    /// What to tell a caller whose run is refused for want of a runtime.
    no_runtime_advice: String,
    runs: Arc<Runs>,
    outbox: outbox::Outbox,
    policy: Mutex<Option<Arc<dyn PolicyEvaluator>>>,
    clock: Clock,
}

fn gw(message: impl Into<String>) -> GatewayError {
    GatewayError::new(message)
}

/// What was named does not exist (OpenClaw's `No session found…`).
fn not_found(message: impl Into<String>) -> GatewayError {
    GatewayError::of(ErrorKind::NotFound, message)
}

/// Params OpenClaw's schema refuses.
fn invalid(message: impl Into<String>) -> GatewayError {
    GatewayError::of(ErrorKind::Invalid, message)
}

/// Refused by a policy.
fn forbidden(message: impl Into<String>) -> GatewayError {
    GatewayError::of(ErrorKind::Forbidden, message)
}

/// Channels the gateway knows (built-in chat channels and `webchat`).
pub fn known_channel(channel: &str) -> bool {
    let lower = js_trim(channel).to_lowercase();
    lower == "webchat" || session_tools_grammar::channels::normalize_channel_id(&lower).is_some()
}

/// What a gateway without an agent runtime tells a caller whose run it refuses, unless
/// the embedder says better ([`EmbeddedBuilder::with_no_runtime_advice`]).
pub const NO_RUNTIME_ADVICE: &str =
    "run the tools through the state directory's running OpenClaw gateway, or give this gateway an agent runtime";

/// How to open an [`EmbeddedGateway`]. Defaults: the config found in the state directory
/// (`openclaw.json`, `moltbot.json` or `clawdbot.json`, else the empty config), no agent
/// runtime (runs are refused: see [`Self::with_runtime`]), the system clock, and a state
/// directory that must exist.
pub struct EmbeddedBuilder {
    state_dir: PathBuf,
    config: Option<DeploymentConfig>,
    config_path: Option<PathBuf>,
    runtime: Option<Arc<dyn AgentRuntime>>,
    no_runtime_advice: String,
    clock: Clock,
    create: bool,
}

impl EmbeddedBuilder {
    /// The deployment config (instead of the one in the state directory).
    pub fn with_config(mut self, config: DeploymentConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// The config file to read (instead of the one in the state directory).
    pub fn with_config_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.config_path = Some(path.into());
        self
    }

    /// What runs the agent runs `agent` starts. Without one, `agent` is refused before
    /// anything is written, and a service over the gateway refuses the tools that start
    /// runs ([`crate::CallError::NoAgentRuntime`]).
    pub fn with_runtime(mut self, runtime: Arc<dyn AgentRuntime>) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// What a refusal for want of a runtime tells the caller to do (default:
    /// [`NO_RUNTIME_ADVICE`]); a command line names its own options here.
    pub fn with_no_runtime_advice(mut self, advice: impl Into<String>) -> Self {
        self.no_runtime_advice = advice.into();
        self
    }

    /// The clock entries and transcripts are stamped with.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Create the state directory when it does not exist (by default that is an error:
    /// a mistyped directory must not be created by a read).
    pub fn create_state_dir(mut self, create: bool) -> Self {
        self.create = create;
        self
    }

    /// Opens the gateway. Reads the config; writes nothing but the state directory when it
    /// is created.
    pub fn open(self) -> Result<Arc<EmbeddedGateway>> {
        let dir = &self.state_dir;
        if !dir.is_dir() {
            if !self.create {
                return Err(Error::StateDir { path: dir.clone(), message: "does not exist".into() });
            }
            crate::private_files::create_private_dir(dir)
                .map_err(|e| Error::io(format!("creating the state directory {}", dir.display()), e))?;
        }
        let config = match self.config {
            Some(config) => config,
            None => DeploymentConfig::load(dir, self.config_path.as_deref())?,
        };
        EmbeddedGateway::open_with(dir, config, self.runtime, self.no_runtime_advice, self.clock)
            .map_err(|e| Error::io(format!("opening the state directory {}", dir.display()), e))
    }
}

impl EmbeddedGateway {
    /// How to open the gateway over a state directory.
    pub fn builder(state_dir: impl Into<PathBuf>) -> EmbeddedBuilder {
        EmbeddedBuilder {
            state_dir: state_dir.into(),
            config: None,
            config_path: None,
            runtime: None,
            no_runtime_advice: NO_RUNTIME_ADVICE.to_string(),
            clock: system_clock(),
            create: false,
        }
    }

    /// Opens the gateway over a state directory with this config and agent runtime.
    /// Nothing is written until a method writes: the directory need not exist for reads.
    pub fn open(
        state_dir: &Path,
        config: DeploymentConfig,
        runtime: Arc<dyn AgentRuntime>,
        clock: Clock,
    ) -> std::io::Result<Arc<EmbeddedGateway>> {
        Self::open_with(state_dir, config, Some(runtime), NO_RUNTIME_ADVICE.to_string(), clock)
    }

    fn open_with(
        state_dir: &Path,
        config: DeploymentConfig,
        runtime: Option<Arc<dyn AgentRuntime>>,
        no_runtime_advice: String,
        clock: Clock,
    ) -> std::io::Result<Arc<EmbeddedGateway>> {
        let rules =
            KeyRules { main_key: config.main_key.clone(), scope_global: config.scope_global, default_agent: config.default_agent.clone() };
        // E1: the layout is found on disk (a `session.store` the config names is a file).
        let layout = match config.store {
            Some(_) => layout::Layout::Files,
            None => layout::detect(state_dir).map_err(std::io::Error::other)?,
        };
        let registry = registry::Registry::new(&config, layout);
        let tools_dir = state_dir.join("session-tools");
        let runs = Arc::new(Runs::open(tools_dir.join("runs"), clock.clone())?);
        let outbox_file = confined::Confined::inside(state_dir, Path::new("session-tools/outbox.jsonl"))
            .ok_or_else(|| std::io::Error::other(format!("{} cannot hold an outbox", state_dir.display())))?;
        let outbox = outbox::Outbox::open(outbox_file)?;
        Ok(Arc::new_cyclic(|me: &std::sync::Weak<EmbeddedGateway>| {
            let steps: std::sync::Weak<dyn runs::RunSteps> = me.clone();
            runs.attach(steps);
            EmbeddedGateway {
                state_dir: state_dir.to_path_buf(),
                runs,
                outbox,
                config,
                rules,
                registry,
                runtime,
                no_runtime_advice,
                policy: Mutex::new(None),
                clock,
            }
        }))
    }

    /// The state directory it serves.
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// Whether it runs agents (an agent runtime was given): without, `agent` is refused.
    pub fn runs_agents(&self) -> bool {
        self.runtime.is_some()
    }

    /// Why it cannot start agent runs, and what to do; `None` when it can.
    pub fn no_runtime(&self) -> Option<&str> {
        self.runtime.is_none().then_some(self.no_runtime_advice.as_str())
    }

    /// The deployment config it reads.
    pub fn config(&self) -> &DeploymentConfig {
        &self.config
    }

    /// The canonical form of a session key under this deployment's config (the main
    /// key's aliases, the default agent), as the gateway stores it.
    pub fn canonical_key(&self, key: &str) -> String {
        self.rules.canonical(key)
    }

    pub(crate) fn rules(&self) -> &KeyRules {
        &self.rules
    }

    /// Now, by the gateway's clock.
    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    /// The clock entries and transcripts are stamped with.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Every message delivered to a channel (the gateway's outbox: the embedded gateway
    /// has no channel connections, so deliveries are kept for the owner to read), oldest
    /// first, as OpenClaw's `send` params.
    pub fn deliveries(&self) -> std::io::Result<Vec<serde_json::Value>> {
        self.outbox.read_all()
    }

    /// Waits until no run this process started is going on, or the timeout passes;
    /// answers whether none is.
    pub fn wait_runs_idle(&self, timeout: std::time::Duration) -> bool {
        self.runs.wait_idle(timeout)
    }

    pub(crate) fn outbox(&self) -> &outbox::Outbox {
        &self.outbox
    }

    /// The runs registry.
    pub(crate) fn runs(&self) -> &Arc<Runs> {
        &self.runs
    }
}

impl Gateway for EmbeddedGateway {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
        Ok(SessionList { path: Some(self.store_path_label()), sessions: self.list_rows(params)? })
    }

    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String> {
        self.resolve(params)
    }

    fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History> {
        self.history(params)
    }

    fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        self.histories(params)
    }

    fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted> {
        self.start_run(params)
    }

    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult> {
        Ok(self.runs.wait(&params.run_id, std::time::Duration::from_millis(params.timeout_ms)))
    }

    fn send(&self, params: &SendParams) -> GatewayResult<()> {
        self.deliver(params)
    }

    fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()> {
        let patch = Patch { label: params.label.clone().map(Some), model: params.model.clone().map(Some), ..Default::default() };
        self.patch(&params.key, &patch).map(|_| ())
    }

    fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()> {
        self.delete(&params.key, params.delete_transcript).map(|_| ())
    }
}
