//! The session tools as a service over a gateway: the component loaded once, a sandboxed
//! instance per agent (pooled per agent and per visibility scope, see `access.rs`),
//! host-side visibility for restricted callers (N15), and the background jobs that tool
//! calls start, persisted and resumed.

mod access;
mod broker;
mod builder;
mod policy;

use std::sync::Arc;
use std::time::Duration;

use session_tools_guest::policy::{Decision, PolicyInput};
use session_tools_guest::ports;
use session_tools_guest::{Caller, Job, Wakeup};

use crate::config::DeploymentConfig;
use crate::gateway::embedded::PolicyEvaluator;
use crate::gateway::{Gateway, SessionTree};
use crate::jobs::runner::{JobRunner, StepHost};
use crate::jobs::store::{JobRecord, WakeRecord};
use crate::jobs::Scheduler;
use crate::limits::Limits;
use crate::sandbox::visibility::VisibilityGuard;
use crate::sandbox::{CallError, Services, ToolDescription};
use access::{access, Access};
use broker::Broker;
pub use builder::{stderr_log, LogSink, ServiceBuilder, SystemServices};
use policy::ComponentPolicy;

/// The session tools over one gateway.
///
/// Cheap to clone: clones share the instances, the jobs and the send-policy instance.
/// Every method may be called from many threads at once.
///
/// # Blocking
///
/// Every method is synchronous. [`call`](Self::call) blocks while the tool runs: at most
/// the agent's CPU budget in the guest (5 s by default) plus its gateway calls, and never
/// longer than its wall limit (15 min by default; a `sessions_send` with `timeoutSeconds`
/// waits that long for the reply). [`describe`](Self::describe) and
/// [`evaluate_send_policy`](Self::evaluate_send_policy) take microseconds.
/// [`run_jobs`](Self::run_jobs) blocks until no job can make progress or its deadline
/// passes. The scheduler of [`start_scheduler`](Self::start_scheduler) runs on threads of
/// its own until its handle is dropped (dropping it waits for the step in progress).
#[derive(Clone)]
pub struct Service {
    inner: Arc<Inner>,
}

struct Inner {
    gateway: Arc<dyn Gateway>,
    tree: Arc<dyn SessionTree>,
    config: DeploymentConfig,
    services: Arc<dyn Services>,
    broker: Broker,
    jobs: Arc<JobRunner>,
    policy: Arc<ComponentPolicy>,
}

/// A background job waiting to go on, as the service keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingJob {
    /// The guest's id for it.
    pub id: String,
    /// `a2a`, `subagent` or `archive`.
    pub kind: String,
    /// The session it acts for.
    pub session_key: String,
    /// The agent whose instance runs it.
    pub agent: String,
    /// What it waits for, in words.
    pub waits_for: String,
}

impl From<&JobRecord> for PendingJob {
    fn from(record: &JobRecord) -> PendingJob {
        let waits_for = match &record.wake {
            WakeRecord::Now => "nothing (ready)".to_string(),
            WakeRecord::RunEnd { wait } => format!("the end of run {}", wait.run_id),
            WakeRecord::At { at } => format!("the time {at} (ms since the epoch)"),
        };
        PendingJob {
            id: record.id.clone(),
            kind: record.kind.clone(),
            session_key: record.session_key.clone(),
            agent: record.agent.clone(),
            waits_for,
        }
    }
}

impl Service {
    /// A service over a gateway; [`ServiceBuilder`] lists what can be set and the defaults.
    pub fn builder<G: Gateway + SessionTree + 'static>(gateway: Arc<G>) -> ServiceBuilder {
        ServiceBuilder::new(gateway.clone(), gateway)
    }

    /// The gateway as `caller` may see it: a restricted caller (N15) gets the host's guard
    /// around it.
    pub fn gateway_for(&self, caller: &Caller) -> Arc<dyn Gateway> {
        self.inner.gateway_for(&self.inner.access(caller))
    }

    /// The tool descriptions, in the order `sessions_list`, `sessions_history`,
    /// `sessions_send`, `sessions_spawn`, `agents_list`.
    pub fn describe(&self) -> Result<Vec<ToolDescription>, CallError> {
        let mut sandbox = self.inner.broker.checkout("describe", "describe")?;
        let described = sandbox.describe();
        self.inner.broker.checkin("describe", sandbox);
        described
    }

    /// Calls a tool as `caller`, in an instance of the caller's agent, with JSON
    /// arguments; answers the tool's JSON result. The background work it starts is kept
    /// (see [`Self::run_jobs`] and [`Self::start_scheduler`]).
    pub fn call(&self, caller: &Caller, tool: &str, arguments: &str) -> Result<String, CallError> {
        let inner = &self.inner;
        let access = inner.access(caller);
        let mut sandbox = inner.broker.checkout(&access.agent, &access.pool)?;
        sandbox.set_gateway(inner.gateway_for(&access));
        let output = sandbox.call_tool(tool, caller, arguments);
        inner.broker.checkin(&access.pool, sandbox);
        let output = output?;
        inner.jobs.start(inner.as_ref(), &access.agent, caller, output.jobs);
        Ok(output.result)
    }

    /// Evaluates the configured send policy for a send (with the reason), in the
    /// component.
    pub fn evaluate_send_policy(&self, input: &PolicyInput) -> Result<(Decision, String), CallError> {
        self.inner.policy.evaluate(input)
    }

    /// The send policy as a gateway's enforcement points call it (an embedded gateway's
    /// `agent` and `chat.send`).
    pub fn send_policy(&self) -> Arc<dyn PolicyEvaluator> {
        self.inner.policy.clone()
    }

    /// Runs the jobs that can make progress now, in this thread, until none is left or
    /// `deadline` passes: waits for runs for real, and timers whose time has come. Jobs
    /// waiting for a later time stay pending (a later start resumes them). Answers how
    /// many steps ran.
    pub fn run_jobs(&self, deadline: Duration) -> usize {
        self.inner.jobs.run_ready(self.inner.as_ref(), deadline)
    }

    /// Runs jobs in the background until the returned handle is dropped.
    pub fn start_scheduler(&self) -> crate::Result<Scheduler> {
        let host: Arc<dyn StepHost> = self.inner.clone();
        self.inner.jobs.start_scheduler(host).map_err(|e| crate::Error::io("starting the job scheduler", e))
    }

    /// Pending jobs, as kept.
    pub fn pending_jobs(&self) -> Vec<PendingJob> {
        self.inner.jobs.pending(self.inner.services.as_ref()).iter().map(PendingJob::from).collect()
    }

    /// How many idle instances are kept for reuse.
    pub fn idle_instances(&self) -> usize {
        self.inner.broker.idle()
    }

    /// The deployment config the instances were given.
    pub fn config(&self) -> &DeploymentConfig {
        &self.inner.config
    }
}

impl Inner {
    fn access(&self, caller: &Caller) -> Access {
        access(&self.config, caller, |key| self.tree.canonical_key(key))
    }

    fn gateway_for(&self, access: &Access) -> Arc<dyn Gateway> {
        match &access.restriction {
            None => self.gateway.clone(),
            Some(restriction) => Arc::new(VisibilityGuard::new(
                self.gateway.clone(),
                self.tree.clone(),
                self.services.clone(),
                restriction.own.as_deref(),
                restriction.spawn_agents.clone(),
            )),
        }
    }
}

impl StepHost for Inner {
    fn limits(&self, agent: &str) -> Limits {
        self.broker.limits().for_agent(agent).clone()
    }

    fn services(&self) -> &dyn Services {
        self.services.as_ref()
    }

    fn resume(&self, record: &JobRecord, wakeup: Wakeup) -> Result<Vec<Job>, CallError> {
        // A job runs in an instance of its agent, seeing the gateway as its caller may.
        let access = self.access(&record.caller);
        let mut sandbox = self.broker.checkout(&record.agent, &access.pool)?;
        sandbox.set_gateway(self.gateway_for(&access));
        let next = sandbox.resume_job(record.job(), wakeup);
        self.broker.checkin(&access.pool, sandbox);
        next
    }

    fn wait(&self, record: &JobRecord, params: &ports::WaitParams) -> ports::GatewayResult<ports::WaitResult> {
        self.gateway_for(&self.access(&record.caller)).agent_wait(params)
    }

    fn runs_elsewhere(&self, run_id: &str) -> bool {
        self.tree.runs_elsewhere(run_id)
    }
}
