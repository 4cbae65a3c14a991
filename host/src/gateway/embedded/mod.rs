//! The embedded gateway: owns an OpenClaw state directory and implements the gateway
//! methods the component imports with their real semantics (reference §1.1, §1.4), over
//! OpenClaw's on-disk format, so an existing state directory loads unchanged and stays
//! usable by OpenClaw running beside it.
//!
//! Concepts, one module each:
//! - [`registry`]: which stores there are (one per agent, or one fixed file) and finding a
//!   session in them, legacy spellings of its key merged (G4);
//! - [`queries`]: the read methods, `sessions.list`, `sessions.resolve`, `chat.history`;
//! - [`entries`]: changing entries, `sessions.patch`, `sessions.delete`, transcript appends;
//! - [`owner`]: the send policy at the gateway's enforcement points and the owner's
//!   `chat.send` (`/send on|off|inherit`);
//! - [`agent_runs`]: `agent` and `agent.wait`, over the [`runs`] registry and a pluggable
//!   [`runtime`];
//! - on disk: [`store`] (`sessions.json`), [`transcript`] (`<sessionId>.jsonl`), [`lock`]
//!   (OpenClaw's lock files), [`outbox`] (what `send` delivered);
//! - shared rules: [`canon`] (keys), [`delivery`] (delivery fields), [`rows`] and
//!   [`listing`] (`sessions.list` rows, built once per store version).

pub mod agent_runs;
pub mod canon;
pub mod delivery;
pub mod entries;
pub mod listing;
pub mod lock;
pub mod outbox;
pub mod owner;
pub mod queries;
pub mod registry;
pub mod rows;
pub mod runs;
pub mod runtime;
pub mod store;
pub mod transcript;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use session_tools_guest::ports::*;

use crate::config::DeploymentConfig;
use canon::KeyRules;
use runs::Runs;
use runtime::AgentRuntime;

pub use entries::{Deleted, Patch};
pub use owner::PolicyEvaluator;
pub use registry::Found;

/// `label` bounds (`SESSION_LABEL_MAX_LENGTH`).
pub const LABEL_MAX: usize = 64;

/// The clock the gateway stamps entries and transcripts with.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

pub fn system_clock() -> Clock {
    Arc::new(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
}

/// The gateway over one OpenClaw state directory.
pub struct EmbeddedGateway {
    state_dir: PathBuf,
    config: DeploymentConfig,
    rules: KeyRules,
    registry: registry::Registry,
    runtime: Arc<dyn AgentRuntime>,
    runs: Arc<Runs>,
    outbox: outbox::Outbox,
    policy: Mutex<Option<Arc<dyn PolicyEvaluator>>>,
    clock: Clock,
    /// This gateway, for the threads of its runs.
    me: std::sync::Weak<EmbeddedGateway>,
}

fn gw(message: impl Into<String>) -> GatewayError {
    GatewayError { message: message.into() }
}

/// Channels the gateway knows (built-in chat channels and `webchat`).
pub fn known_channel(channel: &str) -> bool {
    let lower = channel.trim().to_lowercase();
    lower == "webchat" || session_tools_guest::announce::normalize_channel_id(&lower).is_some()
}

impl EmbeddedGateway {
    /// Opens the gateway over a state directory. Nothing is written until a method writes:
    /// the directory need not exist for reads.
    pub fn open(state_dir: &Path, config: DeploymentConfig, runtime: Arc<dyn AgentRuntime>, clock: Clock) -> std::io::Result<Arc<EmbeddedGateway>> {
        let rules =
            KeyRules { main_key: config.main_key.clone(), scope_global: config.scope_global, default_agent: config.default_agent.clone() };
        let registry = registry::Registry::new(&config);
        let tools_dir = state_dir.join("session-tools");
        let runs = Arc::new(Runs::open(tools_dir.join("runs.json"), clock.clone())?);
        let outbox = outbox::Outbox::open(tools_dir.join("outbox.jsonl"))?;
        Ok(Arc::new_cyclic(|me| EmbeddedGateway {
            state_dir: state_dir.to_path_buf(),
            runs,
            outbox,
            config,
            rules,
            registry,
            runtime,
            policy: Mutex::new(None),
            clock,
            me: me.clone(),
        }))
    }

    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    pub fn config(&self) -> &DeploymentConfig {
        &self.config
    }

    pub fn rules(&self) -> &KeyRules {
        &self.rules
    }

    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    pub fn outbox(&self) -> &outbox::Outbox {
        &self.outbox
    }

    /// The runs registry.
    pub fn runs(&self) -> &Arc<Runs> {
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
