//! The session tools as a service over an OpenClaw state directory: the component loaded
//! once, an embedded gateway, a sandboxed instance per agent (instances are pooled per
//! agent and per visibility scope, never shared between agents, nor between a restricted
//! caller and anyone who may see more), host-side visibility for restricted callers (N15),
//! and the background jobs that tool calls start, persisted and resumed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use session_tools_guest::jobs::{Job, Wakeup};
use session_tools_guest::policy::{Decision, PolicyInput, SendCommand};
use session_tools_guest::ports::{self, GatewayResult, Host as _, LogLevel};
use session_tools_guest::requester::Requester;
use session_tools_guest::tools::Caller;

use crate::config::DeploymentConfig;
use crate::engine::EngineOptions;
use crate::gateway::embedded::runtime::{AgentRuntime, EchoRuntime};
use crate::gateway::embedded::{system_clock, Clock, EmbeddedGateway, PolicyEvaluator};
use crate::jobs::store::{JobRecord, JobStore, WakeRecord};
use crate::limits::{AgentLimits, Limits};
use crate::sandbox::pool::IdlePool;
use crate::sandbox::visibility::{SpawnAgents, VisibilityGuard};
use crate::sandbox::{AgentSetup, CallError, GatewayPort, Runtime, Sandbox, ToolDescription};

/// Where log lines go.
pub type LogSink = Arc<dyn Fn(LogLevel, &str) + Send + Sync>;

/// A log sink writing warnings and errors to stderr.
pub fn stderr_log(verbose: bool) -> LogSink {
    Arc::new(move |level, message| {
        if verbose || matches!(level, LogLevel::Warn | LogLevel::Error) {
            eprintln!("[{}] {message}", format!("{level:?}").to_lowercase());
        }
    })
}

/// A clock, real ids, and a log sink.
pub struct SystemServices {
    log: LogSink,
    clock: Clock,
}

impl SystemServices {
    pub fn new(log: LogSink) -> SystemServices {
        SystemServices { log, clock: system_clock() }
    }

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

/// How to open a [`ToolService`].
#[derive(Clone)]
pub struct ServiceOptions {
    pub state_dir: PathBuf,
    /// The config file; `None`: the one in the state directory, if any.
    pub config_path: Option<PathBuf>,
    pub runtime: Arc<dyn AgentRuntime>,
    pub engine: EngineOptions,
    /// The limits of every agent's instance, unless `agent_limits` or the state
    /// directory's `session-tools/limits.json` say otherwise for it.
    pub limits: Limits,
    /// Per-agent limits (by agent id).
    pub agent_limits: HashMap<String, Limits>,
    pub log: LogSink,
    /// The component to load (default: the one built into this host).
    pub component: Option<Arc<[u8]>>,
    /// The clock of the gateway, the guests and the jobs (default: the system clock).
    pub clock: Clock,
    /// Create the state directory when it does not exist (default: no, it is an error).
    pub create_state_dir: bool,
}

impl ServiceOptions {
    pub fn new(state_dir: impl Into<PathBuf>) -> ServiceOptions {
        ServiceOptions {
            state_dir: state_dir.into(),
            config_path: None,
            runtime: Arc::new(EchoRuntime),
            engine: EngineOptions::default(),
            limits: Limits::default(),
            agent_limits: HashMap::new(),
            log: stderr_log(false),
            component: None,
            clock: system_clock(),
            create_state_dir: false,
        }
    }
}

/// The send policy evaluated by an instance of the component kept for the gateway; an
/// instance that broke (a trap on some input) is replaced at the next evaluation, so one
/// bad message never disables the policy for the rest of the process.
struct ComponentPolicy {
    runtime: Arc<Runtime>,
    setup: AgentSetup,
    instance: Mutex<Option<Sandbox>>,
}

impl ComponentPolicy {
    fn with_instance<T>(&self, f: impl FnOnce(&mut Sandbox) -> Result<T, CallError>) -> Result<T, String> {
        let mut slot = self.instance.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_none_or(Sandbox::is_broken) {
            *slot = None;
            *slot = Some(self.runtime.instantiate(&self.setup).map_err(|e| format!("starting the send-policy instance: {e}"))?);
        }
        let sandbox = slot.as_mut().expect("an instance was just set");
        let outcome = f(sandbox).map_err(|e| e.to_string());
        if sandbox.is_broken() {
            *slot = None;
        }
        outcome
    }
}

impl PolicyEvaluator for ComponentPolicy {
    fn evaluate(&self, input: &PolicyInput) -> Result<(Decision, String), String> {
        self.with_instance(|sandbox| sandbox.evaluate_send_policy(input))
    }

    fn parse_command(&self, text: &str) -> Result<Option<SendCommand>, String> {
        self.with_instance(|sandbox| sandbox.parse_send_command(text))
    }
}

/// A gateway that answers nothing (for the policy instance, which makes no calls).
struct NoGateway;

impl ports::Gateway for NoGateway {
    fn sessions_list(&self, _: &ports::ListParams) -> GatewayResult<ports::SessionList> {
        Err(ports::GatewayError::new("no gateway here"))
    }
    fn sessions_resolve(&self, _: &ports::ResolveParams) -> GatewayResult<String> {
        Err(ports::GatewayError::new("no gateway here"))
    }
    fn chat_history(&self, _: &ports::HistoryParams) -> GatewayResult<ports::History> {
        Err(ports::GatewayError::new("no gateway here"))
    }
    fn agent(&self, _: &ports::AgentParams) -> GatewayResult<ports::AgentAccepted> {
        Err(ports::GatewayError::new("no gateway here"))
    }
    fn agent_wait(&self, _: &ports::WaitParams) -> GatewayResult<ports::WaitResult> {
        Err(ports::GatewayError::new("no gateway here"))
    }
    fn send(&self, _: &ports::SendParams) -> GatewayResult<()> {
        Err(ports::GatewayError::new("no gateway here"))
    }
    fn sessions_patch(&self, _: &ports::PatchParams) -> GatewayResult<()> {
        Err(ports::GatewayError::new("no gateway here"))
    }
    fn sessions_delete(&self, _: &ports::DeleteParams) -> GatewayResult<()> {
        Err(ports::GatewayError::new("no gateway here"))
    }
}

/// How many idle instances a service keeps: with a pooling engine, three quarters of its
/// slots, so calls and jobs in flight always find one free.
fn max_idle(engine: &EngineOptions) -> usize {
    if engine.pooling {
        (engine.pool_instances as usize * 3 / 4).max(1)
    } else {
        4_096
    }
}

/// How one caller reaches the gateway.
struct Access {
    /// The caller's agent, whose instance serves it.
    agent: String,
    gateway: Arc<dyn GatewayPort>,
    /// The pool of idle instances that may serve the caller: per agent, and per
    /// restricted session (or `all` for callers that see everything).
    pool: String,
}

/// The background job scheduler of a [`ToolService`]; it stops when dropped.
pub struct Scheduler {
    stop: Arc<std::sync::atomic::AtomicBool>,
    signal: Arc<(Mutex<u64>, std::sync::Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.signal.1.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The session tools over a state directory.
pub struct ToolService {
    runtime: Arc<Runtime>,
    gateway: Arc<EmbeddedGateway>,
    config: DeploymentConfig,
    tools_config: session_tools_guest::Config,
    services: Arc<SystemServices>,
    limits: AgentLimits,
    /// Idle instances by pool (see [`Access::pool`]).
    idle: Mutex<IdlePool>,
    jobs: JobStore,
    /// Keys of the jobs being worked on (not to be picked up twice).
    busy: Mutex<std::collections::HashSet<String>>,
    /// Rung when there may be new work for the scheduler.
    signal: Arc<(Mutex<u64>, std::sync::Condvar)>,
}

impl ToolService {
    pub fn open(options: ServiceOptions) -> Result<ToolService> {
        let state_dir = options.state_dir.clone();
        // Opening writes nothing: a state directory is created only by a write, and only
        // when the options allow it (a read of a mistyped directory must not create it).
        if !state_dir.is_dir() {
            if !options.create_state_dir {
                anyhow::bail!("the state directory {} does not exist", state_dir.display());
            }
            std::fs::create_dir_all(&state_dir).with_context(|| format!("creating the state directory {}", state_dir.display()))?;
        }
        let config = DeploymentConfig::load(&state_dir, options.config_path.as_deref())?;
        let tools_config =
            session_tools_guest::Config::from_value(&config.raw, &state_dir.display().to_string()).map_err(anyhow::Error::msg)?;
        let mut limits = AgentLimits { default: options.limits.clone(), agents: options.agent_limits.clone() };
        let limits_file = state_dir.join("session-tools").join("limits.json");
        if let Ok(text) = std::fs::read_to_string(&limits_file) {
            let from_file =
                AgentLimits::from_json(&limits.default, &text, &limits_file.display().to_string()).map_err(anyhow::Error::msg)?;
            limits.default = from_file.default;
            limits.agents.extend(from_file.agents);
        }
        // Pooled memory slots are as large as the largest agent's cap.
        let engine_limits = Limits { memory_bytes: limits.max_memory(), ..limits.default.clone() };
        let component: &[u8] = options.component.as_deref().unwrap_or(crate::COMPONENT);
        let runtime = Arc::new(Runtime::new(component, &options.engine, &engine_limits)?);
        let gateway = EmbeddedGateway::open(&state_dir, config.clone(), options.runtime.clone(), options.clock.clone())
            .with_context(|| format!("opening the state directory {}", state_dir.display()))?;
        let services = Arc::new(SystemServices::with_clock(options.log.clone(), options.clock.clone()));
        let policy_setup = AgentSetup {
            name: "send-policy".into(),
            gateway: Arc::new(NoGateway),
            services: services.clone(),
            config_json: config.json.clone(),
            state_dir: state_dir.display().to_string(),
            limits: limits.default.clone(),
        };
        let policy = runtime.instantiate(&policy_setup).map_err(|e| anyhow::anyhow!("starting the send-policy instance: {e}"))?;
        gateway.set_policy(Arc::new(ComponentPolicy { runtime: runtime.clone(), setup: policy_setup, instance: Mutex::new(Some(policy)) }));
        let jobs = JobStore::new(state_dir.join("session-tools").join("jobs"));
        Ok(ToolService {
            runtime,
            gateway,
            config,
            tools_config,
            services,
            limits,
            idle: Mutex::new(IdlePool::new(max_idle(&options.engine))),
            jobs,
            busy: Mutex::new(Default::default()),
            signal: Arc::new((Mutex::new(0), std::sync::Condvar::new())),
        })
    }

    pub fn gateway(&self) -> &Arc<EmbeddedGateway> {
        &self.gateway
    }

    pub fn config(&self) -> &DeploymentConfig {
        &self.config
    }

    pub fn state_dir(&self) -> &Path {
        self.gateway.state_dir()
    }

    /// The agent whose instance serves a caller.
    pub fn agent_of(&self, caller: &Caller) -> String {
        session_tools_guest::agents::spawn_requester_agent(&self.tools_config, caller)
    }

    /// The gateway as this caller may see it: restricted callers get the N15 guard.
    pub fn gateway_for(&self, caller: &Caller) -> Arc<dyn GatewayPort> {
        self.access(caller).gateway
    }

    /// How a caller reaches the gateway, and the pool of instances that may serve it.
    ///
    /// The host decides who is restricted itself and fails closed (N15): every sandboxed
    /// caller under `spawned` visibility gets the guard, also where the reference would
    /// not restrict (a sandboxed sub-agent session, ref §2.3) or has nothing to restrict
    /// to (no session: it sees nothing).
    fn access(&self, caller: &Caller) -> Access {
        let requester = Requester::new(&self.tools_config, caller);
        let agent = self.agent_of(caller);
        let guarded = caller.sandboxed && matches!(self.tools_config.tools_visibility(&requester.agent_id), None | Some("spawned"));
        if !guarded {
            return Access { gateway: self.gateway.clone(), pool: format!("{agent}\nall"), agent };
        }
        let own = requester.internal_key.as_deref();
        let (any, mut ids) = session_tools_guest::agents::allowlist(&self.tools_config, &agent);
        ids.insert(0, agent.clone());
        let guard = VisibilityGuard::new(self.gateway.clone(), self.gateway.clone(), self.services.clone(), own, SpawnAgents { any, ids });
        // An instance keeps what it read in its memory, so a restricted caller is only
        // ever served by instances that served the same restricted caller.
        let scope = own.map_or_else(|| "none".to_string(), |key| format!("own {}", self.gateway.rules().canonical(key)));
        Access { gateway: Arc::new(guard), pool: format!("{agent}\n{scope}"), agent }
    }

    /// An idle instance of the pool, or a new instance of the agent. When the engine's
    /// pool of instance slots is full, idle instances of other pools give up theirs.
    fn checkout(&self, agent: &str, pool: &str) -> Result<Sandbox, CallError> {
        if let Some(sandbox) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).take(pool) {
            return Ok(sandbox);
        }
        let setup = AgentSetup {
            name: agent.to_string(),
            gateway: self.gateway.clone(),
            services: self.services.clone(),
            config_json: self.config.json.clone(),
            state_dir: self.state_dir().display().to_string(),
            limits: self.limits.for_agent(agent).clone(),
        };
        loop {
            match self.runtime.instantiate(&setup) {
                Ok(sandbox) => return Ok(sandbox),
                Err(e) => {
                    let evicted = self.idle.lock().unwrap_or_else(|p| p.into_inner()).evict_oldest();
                    match evicted {
                        Some(idle) => drop(idle),
                        None => return Err(e),
                    }
                }
            }
        }
    }

    /// Returns an instance to its pool, unless it broke.
    fn checkin(&self, pool: &str, sandbox: Sandbox) {
        if !sandbox.is_broken() {
            let evicted = self.idle.lock().unwrap_or_else(|p| p.into_inner()).put(pool, sandbox);
            drop(evicted);
        }
    }

    /// How many idle instances are kept for reuse.
    pub fn idle_instances(&self) -> usize {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// The tool descriptions.
    pub fn describe(&self) -> Result<Vec<ToolDescription>, CallError> {
        let mut sandbox = self.checkout("describe", "describe")?;
        let described = sandbox.describe();
        self.checkin("describe", sandbox);
        described
    }

    /// Calls a tool; the background work it starts is persisted (see [`Self::run_jobs`]).
    /// Answers the tool's JSON result.
    pub fn call(&self, caller: &Caller, tool: &str, arguments: &str) -> Result<String, CallError> {
        let access = self.access(caller);
        let mut sandbox = self.checkout(&access.agent, &access.pool)?;
        sandbox.set_gateway(access.gateway);
        let output = sandbox.call_tool(tool, caller, arguments);
        self.checkin(&access.pool, sandbox);
        let output = output?;
        let admitted = self.admit(&access.agent, caller, output.jobs, None);
        for record in admitted {
            if let Err(e) = self.jobs.save(&record) {
                self.services.log(LogLevel::Error, &format!("cannot persist job {}: {e}", record.id));
            }
        }
        self.ring();
        Ok(output.result)
    }

    /// The jobs a tool call (`parent: None`) or a job step started, bounded by the agent's
    /// limits: at most `max_jobs_per_call` of them, a chain of steps at most
    /// `max_steps_per_job` long, at most `max_pending_jobs` pending for the agent, and every
    /// wait clamped (a run's end waited for at most `max_wait` a step, a timer at most
    /// [`crate::limits::MAX_TIMER`] ahead). What is refused is logged.
    fn admit(&self, agent: &str, caller: &Caller, jobs: Vec<Job>, parent: Option<&JobRecord>) -> Vec<JobRecord> {
        let limits = self.limits.for_agent(agent);
        let steps = parent.map_or(0, |p| p.steps.saturating_add(1));
        if steps > limits.max_steps_per_job {
            if let Some(parent) = parent {
                let (id, kind) = (&parent.id, &parent.kind);
                let max = limits.max_steps_per_job;
                self.services.log(LogLevel::Warn, &format!("job {id} ({kind}) reached its {max} steps and is dropped"));
            }
            return Vec::new();
        }
        let max_jobs = limits.max_jobs_per_call as usize;
        if jobs.len() > max_jobs {
            let extra = jobs.len() - max_jobs;
            self.services.log(LogLevel::Warn, &format!("[{agent}] {extra} background jobs past the limit of {max_jobs} a call are dropped"));
        }
        let continuing = parent.map(|p| p.id.as_str());
        let mut pending: Option<usize> = None;
        let now = self.services.now_ms();
        let horizon = now.saturating_add(crate::limits::MAX_TIMER.as_millis() as u64);
        let max_wait_ms = u64::try_from(limits.max_wait.as_millis()).unwrap_or(u64::MAX);
        let mut admitted = Vec::new();
        for mut job in jobs.into_iter().take(max_jobs) {
            match &mut job.wake {
                session_tools_guest::jobs::Wake::RunEnd(wait) => wait.timeout_ms = wait.timeout_ms.min(max_wait_ms),
                session_tools_guest::jobs::Wake::At(at) => *at = (*at).min(horizon),
                session_tools_guest::jobs::Wake::Now => {}
            }
            // A step's own continuation replaces it; anything else is one more pending job.
            if Some(job.id.as_str()) != continuing {
                let count = pending.get_or_insert_with(|| self.jobs.pending_of(agent));
                if *count >= limits.max_pending_jobs as usize {
                    let max = limits.max_pending_jobs;
                    self.services.log(LogLevel::Warn, &format!("[{agent}] job {} ({}) refused: {max} jobs are pending", job.id, job.kind));
                    continue;
                }
                *count += 1;
            }
            let mut record = JobRecord::new(job, agent, caller);
            record.steps = steps;
            admitted.push(record);
        }
        admitted
    }

    /// Tells the scheduler there may be work.
    fn ring(&self) {
        let (count, bell) = &*self.signal;
        *count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        bell.notify_all();
    }

    /// Waits until runs in progress have ended (so a process does not cut them short);
    /// answers whether they all did within `timeout`.
    pub fn wait_for_runs(&self, timeout: Duration) -> bool {
        self.gateway.runs().wait_idle(timeout)
    }

    fn claim(&self, key: &str) -> bool {
        self.busy.lock().unwrap_or_else(|p| p.into_inner()).insert(key.to_string())
    }

    fn release(&self, key: &str) {
        self.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
        self.ring();
    }

    /// Runs jobs in the background until the returned handle is dropped: ready jobs and
    /// due timers on the scheduler's thread, and each wait for a run's end on a thread of
    /// its own, so one slow flow never holds up another (and never a tool call).
    pub fn start_scheduler(self: &Arc<Self>) -> Scheduler {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let service = self.clone();
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("session-tools-jobs".into())
            .spawn(move || {
                use std::sync::atomic::Ordering;
                while !flag.load(Ordering::Relaxed) {
                    let seen = *service.signal.0.lock().unwrap_or_else(|p| p.into_inner());
                    let now = service.services.now_ms();
                    let mut next_timer: Option<u64> = None;
                    for record in service.pending_jobs() {
                        match record.wake {
                            WakeRecord::At { at } if at > now => {
                                next_timer = Some(next_timer.map_or(at, |t| t.min(at)));
                            }
                            WakeRecord::RunEnd { .. } if !service.can_wait_here(&record) => {}
                            WakeRecord::RunEnd { .. } => {
                                if !service.claim(&record.key) {
                                    continue;
                                }
                                let worker = service.clone();
                                let id = record.key.clone();
                                let job_id = id.clone();
                                let spawned = std::thread::Builder::new().name("session-tools-wait".into()).spawn(move || {
                                    // Claimed across processes too, and re-read as it is now.
                                    if let Some((claim, record)) = worker.jobs.claim(&job_id) {
                                        if let WakeRecord::RunEnd { wait } = &record.wake {
                                            let answer = worker.gateway_for(&record.caller).agent_wait(&worker.bounded_wait(&record, wait, None));
                                            worker.step(record, Wakeup::RunEnded(answer));
                                        }
                                        drop(claim);
                                    }
                                    worker.release(&job_id);
                                });
                                if spawned.is_err() {
                                    service.services.log(LogLevel::Error, "cannot start a thread to wait for a run; the job stays pending");
                                    service.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
                                }
                            }
                            WakeRecord::Now | WakeRecord::At { .. } => {
                                if !service.claim(&record.key) {
                                    continue;
                                }
                                let id = record.key.clone();
                                if let Some((claim, record)) = service.jobs.claim(&id) {
                                    // Decided on the job as it is now: another process may have
                                    // stepped it since it was listed (a run-end wait is left to
                                    // the next pass).
                                    let wakeup = match record.wake {
                                        WakeRecord::Now => Some(Wakeup::Now),
                                        WakeRecord::At { .. } => Some(Wakeup::Timer),
                                        WakeRecord::RunEnd { .. } => None,
                                    };
                                    if let Some(wakeup) = wakeup {
                                        service.step(record, wakeup);
                                    }
                                    drop(claim);
                                }
                                service.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
                            }
                        }
                    }
                    let pause = next_timer.map_or(Duration::from_secs(1), |t| Duration::from_millis(t.saturating_sub(now).clamp(1, 1000)));
                    let (count, bell) = &*service.signal;
                    let guard = count.lock().unwrap_or_else(|p| p.into_inner());
                    if *guard == seen {
                        let _ = bell.wait_timeout(guard, pause);
                    }
                }
            })
            .expect("spawning the job scheduler");
        Scheduler { stop, signal: self.signal.clone(), thread: Some(thread) }
    }

    /// Evaluates the send policy for a session (with the reason).
    pub fn policy(&self, key: &str) -> Result<(Decision, String), ports::GatewayError> {
        self.gateway.session_policy(key)
    }

    /// One step of a job; its successors replace it on disk.
    fn step(&self, record: JobRecord, wakeup: Wakeup) {
        let id = record.id.clone();
        let key = record.key.clone();
        let access = self.access(&record.caller);
        let result = self.checkout(&access.agent, &access.pool).and_then(|mut sandbox| {
            sandbox.set_gateway(access.gateway);
            let next = sandbox.resume_job(record.job(), wakeup);
            self.checkin(&access.pool, sandbox);
            next
        });
        match result {
            Ok(next) => {
                // The first successor under the job's own id continues it (same file);
                // every other successor is a new job under a new key.
                let mut continues = false;
                for mut successor in self.admit(&record.agent, &record.caller, next, Some(&record)) {
                    if !continues && successor.id == id {
                        continues = true;
                        successor.key = key.clone();
                    }
                    if let Err(e) = self.jobs.save(&successor) {
                        self.services.log(LogLevel::Error, &format!("cannot persist job {}: {e}", successor.id));
                    }
                }
                if !continues {
                    self.jobs.remove(&key);
                }
            }
            Err(e) => {
                self.services.log(LogLevel::Warn, &format!("job {id} ({}) failed and is dropped: {e}", record.kind));
                self.jobs.remove(&key);
            }
        }
    }

    /// Pending jobs, as on disk.
    pub fn pending_jobs(&self) -> Vec<JobRecord> {
        let (jobs, problems) = self.jobs.load_all();
        for problem in problems {
            self.services.log(LogLevel::Warn, &format!("unreadable job file kept aside: {problem}"));
        }
        jobs
    }

    /// Runs the jobs that can make progress now, in this thread, until none is left or
    /// `deadline` passes: waits for runs for real, and timers whose time has come. Jobs
    /// waiting for a later time stay pending (a later start resumes them). Answers how
    /// many steps ran.
    pub fn run_jobs(&self, deadline: Duration) -> usize {
        let until = crate::limits::deadline(deadline);
        let mut steps = 0;
        loop {
            let now = self.services.now_ms();
            let ready: Vec<JobRecord> = self
                .pending_jobs()
                .into_iter()
                .filter(|r| !matches!(r.wake, WakeRecord::At { at } if at > now))
                .filter(|r| self.can_wait_here(r))
                .filter(|r| !self.busy.lock().unwrap_or_else(|p| p.into_inner()).contains(&r.key))
                .collect();
            if ready.is_empty() || Instant::now() >= until {
                return steps;
            }
            let mut ran = 0;
            for record in ready {
                if Instant::now() >= until {
                    return steps;
                }
                if !self.claim(&record.key) {
                    continue;
                }
                let id = record.key.clone();
                if self.run_claimed(&id, until) {
                    steps += 1;
                    ran += 1;
                }
                self.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
            }
            if ran == 0 {
                // What is ready is held by another process (or waits beyond our deadline).
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    /// The wait for a run's end a job asks for, as the host makes it: at most the agent's
    /// `max_wait` (job files are read from disk, so this holds for any file), and ending by
    /// `until` when the caller has a deadline.
    fn bounded_wait(&self, record: &JobRecord, wait: &session_tools_guest::ports::WaitParams, until: Option<Instant>) -> session_tools_guest::ports::WaitParams {
        let max_wait = self.limits.for_agent(&record.agent).max_wait;
        let left = until.map_or(max_wait, |until| until.saturating_duration_since(Instant::now()).min(max_wait));
        let mut bounded = wait.clone();
        bounded.timeout_ms = bounded.timeout_ms.min(u64::try_from(left.as_millis()).unwrap_or(u64::MAX).max(1));
        bounded
    }

    /// Whether this process can step a job: any job but a wait for a run that another
    /// live process runs (only that process sees it end; it steps the job).
    fn can_wait_here(&self, record: &JobRecord) -> bool {
        match &record.wake {
            WakeRecord::RunEnd { wait } => !self.gateway.runs().runs_elsewhere(&wait.run_id),
            _ => true,
        }
    }

    /// Claims a job across processes, waits for what it waits for (within `until`) and
    /// steps it. Answers whether a step ran.
    fn run_claimed(&self, key: &str, until: Instant) -> bool {
        let Some((claim, record)) = self.jobs.claim(key) else { return false };
        let wakeup = match &record.wake {
            WakeRecord::Now => Wakeup::Now,
            WakeRecord::At { at } if *at > self.services.now_ms() => return false,
            WakeRecord::At { .. } => Wakeup::Timer,
            WakeRecord::RunEnd { wait: params } => {
                let gateway = self.gateway_for(&record.caller);
                let bounded = self.bounded_wait(&record, params, Some(until));
                let answer = gateway.agent_wait(&bounded);
                // A wait cut short by our own deadline (not by the limit) is retried later,
                // not reported.
                let limit = self.bounded_wait(&record, params, None).timeout_ms;
                if matches!(&answer, Ok(w) if w.status.as_deref() == Some("timeout")) && bounded.timeout_ms < limit {
                    return false;
                }
                Wakeup::RunEnded(answer)
            }
        };
        self.step(record, wakeup);
        drop(claim);
        true
    }
}
