//! Opening a [`Service`]: what can be set, and the defaults.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use session_tools_contract::{self as ports, LogLevel};

use super::broker::Broker;
use super::component_policy::{ComponentPolicy, PolicyEvaluator};
use super::{Inner, Service};
use crate::clock::{system_clock, Clock};
use crate::config::DeploymentConfig;
use crate::engine::EngineOptions;
use crate::error::{Error, Result};
use crate::gateway::{Gateway, SessionTree};
use crate::jobs::runner::JobRunner;
use crate::jobs::store::JobStore;
use crate::limits::{AgentLimits, Limits};
use crate::sandbox::{AgentSetup, Runtime, Services};
use session_tools_grammar::keys::KeyRules;

/// Takes the send policy of a service once it is built.
pub(crate) type PolicyReceiver = Box<dyn FnOnce(Arc<dyn PolicyEvaluator>) + Send>;

/// Where log lines go.
pub type LogSink = Arc<dyn Fn(LogLevel, &str) + Send + Sync>;

/// The default log sink: each line a [`tracing`] event of target
/// [`telemetry::LOG`](crate::telemetry::LOG) at its level (the library never prints; the
/// embedder's subscriber decides what is shown, and where).
pub fn tracing_log() -> LogSink {
    Arc::new(|level, message| match level {
        LogLevel::Error => tracing::error!(target: crate::telemetry::LOG, "{message}"),
        LogLevel::Warn => tracing::warn!(target: crate::telemetry::LOG, "{message}"),
        LogLevel::Info => tracing::info!(target: crate::telemetry::LOG, "{message}"),
        LogLevel::Debug => tracing::debug!(target: crate::telemetry::LOG, "{message}"),
    })
}

/// A clock, fresh UUIDs, and a log sink: the host services an instance is given.
pub struct SystemServices {
    log: LogSink,
    clock: Clock,
}

impl SystemServices {
    /// The system clock and `log`.
    pub fn new(log: LogSink) -> SystemServices {
        SystemServices { log, clock: system_clock() }
    }

    /// A clock of the caller's (tests, virtual time) and `log`.
    pub fn with_clock(log: LogSink, clock: Clock) -> SystemServices {
        SystemServices { log, clock }
    }
}

impl ports::Host for SystemServices {
    fn now_ms(&self) -> u64 {
        (self.clock)()
    }

    fn new_uuid(&self) -> String {
        uuid::Uuid::new_v4().to_string()
    }

    fn log(&self, level: LogLevel, message: &str) {
        (self.log)(level, message)
    }
}

/// Where a service keeps its pending jobs.
enum JobsAt {
    Dir(PathBuf),
    Memory,
}

/// How to open a [`Service`]. Every setting has a default; nothing is opened until
/// [`build`](Self::build):
///
/// - config: the empty config (OpenClaw's defaults); each instance is configured with it;
/// - state directory: `""` (the guest derives transcript paths from it, N7);
/// - limits: [`Limits::default`] for every agent, none per agent, no limits file;
/// - engine: [`EngineOptions::default`] (pooled instances, the compiled-component cache);
/// - component: the one built into this library ([`crate::COMPONENT`]), compiled here;
/// - log: [`tracing_log`] (events for the embedder's subscriber); clock: the system clock;
/// - jobs: kept in memory (gone with the service).
pub struct ServiceBuilder {
    gateway: Arc<dyn Gateway>,
    tree: Arc<dyn SessionTree>,
    config: DeploymentConfig,
    state_dir: String,
    limits: Limits,
    agent_limits: BTreeMap<String, Limits>,
    limits_file: Option<PathBuf>,
    engine: EngineOptions,
    component: Option<Arc<[u8]>>,
    runtime: Option<Arc<Runtime>>,
    log: LogSink,
    clock: Clock,
    jobs: JobsAt,
    /// Who receives the built service's send policy (a backend that enforces it itself:
    /// the embedded gateway, at its `agent` and `chat.send`).
    policy_for: Option<PolicyReceiver>,
}

impl ServiceBuilder {
    pub(crate) fn new(gateway: Arc<dyn Gateway>, tree: Arc<dyn SessionTree>) -> ServiceBuilder {
        ServiceBuilder {
            gateway,
            tree,
            config: DeploymentConfig::empty(),
            state_dir: String::new(),
            limits: Limits::default(),
            agent_limits: BTreeMap::new(),
            limits_file: None,
            engine: EngineOptions::default(),
            component: None,
            runtime: None,
            log: tracing_log(),
            clock: system_clock(),
            jobs: JobsAt::Memory,
            policy_for: None,
        }
    }

    /// Gives the built service's send policy to `receive` (a backend that enforces it).
    #[cfg_attr(not(feature = "embedded"), allow(dead_code))] // only the embedded gateway enforces it itself
    pub(crate) fn with_policy_receiver(mut self, receive: PolicyReceiver) -> Self {
        self.policy_for = Some(receive);
        self
    }

    /// The deployment config every instance is configured with.
    pub fn with_config(mut self, config: DeploymentConfig) -> Self {
        self.config = config;
        self
    }

    /// The gateway's state directory as the guest shows it (transcript paths, N7).
    pub fn with_state_dir(mut self, state_dir: impl Into<String>) -> Self {
        self.state_dir = state_dir.into();
        self
    }

    /// The limits of every agent's instance, unless overridden per agent.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits of one agent's instances (by agent id).
    pub fn with_agent_limits(mut self, agent: impl Into<String>, limits: Limits) -> Self {
        self.agent_limits.insert(agent.into(), limits);
        self
    }

    /// A `limits.json` (`{"default": {...}, "agents": {"<id>": {...}}}`) read at
    /// [`build`](Self::build) when it exists; what it says wins over the limits given in code.
    pub fn with_limits_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.limits_file = Some(path.into());
        self
    }

    /// How the engine is set up (pooling, the compiled-component cache).
    pub fn with_engine(mut self, engine: EngineOptions) -> Self {
        self.engine = engine;
        self
    }

    /// The component to load instead of the built-in one.
    pub fn with_component(mut self, component: impl Into<Arc<[u8]>>) -> Self {
        self.component = Some(component.into());
        self
    }

    /// A component already compiled (shared by several services, e.g. in tests). Its engine
    /// settings and memory limit are the ones it was made with.
    pub fn with_runtime(mut self, runtime: Arc<Runtime>) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Where log lines go.
    pub fn with_log(mut self, log: LogSink) -> Self {
        self.log = log;
        self
    }

    /// The clock of the guests and the jobs.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Keep pending jobs in this directory (created at the first job), so a later service
    /// over the same directory resumes them.
    pub fn with_jobs_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.jobs = JobsAt::Dir(dir.into());
        self
    }

    /// Opens the service: reads the limits file, compiles (or loads from the cache) the
    /// component, and starts the send-policy instance, which checks the config (a config
    /// the component refuses is an error here). Blocks for the compilation: well under a
    /// second from the cache, seconds without it.
    pub fn build(self) -> Result<Service> {
        let mut limits = AgentLimits::new(self.limits, self.agent_limits);
        if let Some(file) = &self.limits_file {
            match std::fs::read_to_string(file) {
                Ok(text) => {
                    let origin = file.display().to_string();
                    let from_file = AgentLimits::from_json(&limits.default, &text, &origin)
                        .map_err(|message| Error::Config { origin: origin.clone(), message })?;
                    limits.default = from_file.default;
                    limits.agents.extend(from_file.agents);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(format!("reading {}", file.display()), e)),
            }
        }
        let runtime = match self.runtime {
            Some(runtime) => runtime,
            None => {
                // Pooled memory slots are as large as the largest agent's cap.
                let mut engine_limits = limits.default.clone();
                engine_limits.memory_bytes = limits.max_memory();
                let component: &[u8] = self.component.as_deref().unwrap_or(crate::COMPONENT);
                let runtime = Runtime::new(component, &self.engine, &engine_limits)?;
                // Once, for the runtime this service made (a cache refused or replaced).
                if let Some(notice) = runtime.cache_outcome().notice() {
                    (self.log)(LogLevel::Warn, &notice);
                }
                Arc::new(runtime)
            }
        };
        let services: Arc<dyn Services> = Arc::new(SystemServices::with_clock(self.log, self.clock));
        let policy_setup = AgentSetup {
            name: "send-policy".into(),
            gateway: Arc::new(NoGateway),
            services: services.clone(),
            config: self.config.guest.clone(),
            state_dir: self.state_dir.clone(),
            limits: limits.default.clone(),
        };
        let policy = Arc::new(ComponentPolicy::start(runtime.clone(), policy_setup).map_err(|e| match e {
            crate::CallError::Setup(message) => {
                let origin = self.config.path.as_ref().map_or_else(|| "the config".to_string(), |p| p.display().to_string());
                Error::Config { origin, message }
            }
            other => Error::Instance(other),
        })?);
        let jobs = Arc::new(JobRunner::new(match self.jobs {
            JobsAt::Dir(dir) => JobStore::in_dir(dir),
            JobsAt::Memory => JobStore::in_memory(),
        }));
        let broker = Broker::new(
            runtime,
            &self.engine,
            self.gateway.clone(),
            self.tree.clone(),
            services.clone(),
            self.config.guest.clone(),
            self.state_dir,
            limits,
        );
        let rules = KeyRules::from_config(&self.config.raw);
        let service = Service {
            inner: Arc::new(Inner { gateway: self.gateway, tree: self.tree, config: self.config, rules, services, broker, jobs, policy }),
        };
        if let Some(receive) = self.policy_for {
            receive(service.send_policy());
        }
        Ok(service)
    }
}

/// A gateway that answers nothing (the send-policy instance makes no calls).
struct NoGateway;

fn none<T>() -> ports::GatewayResult<T> {
    Err(ports::GatewayError::new("no gateway here"))
}

impl Gateway for NoGateway {
    fn sessions_list(&self, _: &ports::ListParams) -> ports::GatewayResult<ports::SessionList> {
        none()
    }
    fn sessions_resolve(&self, _: &ports::ResolveParams) -> ports::GatewayResult<String> {
        none()
    }
    fn chat_history(&self, _: &ports::HistoryParams) -> ports::GatewayResult<ports::History> {
        none()
    }
    fn chat_histories(&self, params: &[ports::HistoryParams]) -> Vec<ports::GatewayResult<ports::History>> {
        params.iter().map(|_| none()).collect()
    }
    fn agent(&self, _: &ports::AgentParams) -> ports::GatewayResult<ports::AgentAccepted> {
        none()
    }
    fn agent_wait(&self, _: &ports::WaitParams) -> ports::GatewayResult<ports::WaitResult> {
        none()
    }
    fn send(&self, _: &ports::SendParams) -> ports::GatewayResult<()> {
        none()
    }
    fn sessions_patch(&self, _: &ports::PatchParams) -> ports::GatewayResult<()> {
        none()
    }
    fn sessions_delete(&self, _: &ports::DeleteParams) -> ports::GatewayResult<()> {
        none()
    }
}
