//! The session tools as a service over a gateway: the component loaded once, a sandboxed
//! instance per agent (pooled per agent and per visibility scope, see `access.rs`),
//! host-side visibility for restricted callers (N15), and the background jobs that tool
//! calls start, persisted and resumed.

mod access;
mod broker;
mod builder;
mod component_policy;

use std::sync::Arc;
use std::time::Duration;

use session_tools_contract as ports;
use session_tools_contract::policy::{Decision, PolicyInput};
use session_tools_contract::{Caller, Job, ToolOutput, Wakeup};

use crate::config::DeploymentConfig;
use crate::gateway::native::Native;
use crate::gateway::{Gateway, SessionTree};
use crate::jobs::intent::{CallIntent, IntentRecorder, SeededIds};
use crate::jobs::runner::{JobRunner, StepHost};
use crate::jobs::store::{JobRecord, WakeRecord};
use crate::jobs::tasks::TaskAnswer;
use crate::jobs::{Scheduler, TaskError, TaskRecord, TaskRun};
use crate::limits::Limits;
use crate::sandbox::{CallCancel, CallError, NativeAudit, NativeTree, Services, ToolDescription};
use access::{access, Access};
use broker::Broker;
pub use builder::{tracing_log, LogSink, ServiceBuilder, SystemServices};
use component_policy::ComponentPolicy;
pub use component_policy::PolicyEvaluator;
use session_tools_grammar::keys::KeyRules;
use session_tools_guard::guarded::Guarded;

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
    /// How the gateway spells keys, for the N15 guard.
    rules: KeyRules,
    services: Arc<dyn Services>,
    broker: Broker,
    jobs: Arc<JobRunner>,
    policy: Arc<ComponentPolicy>,
}

/// The tools whose every call starts an agent run (a send, with or without a wait; a
/// spawn): refused up front on a gateway that cannot run agents.
const RUN_TOOLS: [&str; 2] = ["sessions_send", "sessions_spawn"];

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

    /// The tool descriptions, in the order `sessions_list`, `sessions_history`,
    /// `sessions_send`, `sessions_spawn`, `agents_list`.
    pub fn describe(&self) -> Result<Vec<ToolDescription>, CallError> {
        let describer = Access { agent: "describe".into(), pool: "describe".into(), restriction: None };
        let mut sandbox = self.inner.broker.checkout(&describer)?;
        let described = sandbox.describe();
        self.inner.broker.checkin("describe", sandbox);
        described
    }

    /// Calls a tool as `caller`, in an instance of the caller's agent, with JSON
    /// arguments; answers the tool's JSON result. The background work it starts is kept
    /// (see [`Self::run_jobs`] and [`Self::start_scheduler`]).
    ///
    /// Exactly once in effect (a stop may come at any moment): before the call's first gateway call that writes,
    /// its intent is kept with the jobs; a process that stops before the call's jobs are
    /// kept leaves the intent, and the next process that runs the jobs makes the call again
    /// with the same ids (the gateway drops what it already did).
    pub fn call(&self, caller: &Caller, tool: &str, arguments: &str) -> Result<String, CallError> {
        self.call_cancellable(caller, tool, arguments, None)
    }

    /// [`call`](Self::call), given up on at `cancel`: a wait for a run's end in progress
    /// (a `sessions_send` with `timeoutSeconds`) then ends at once and the tool answers as
    /// for a wait that timed out (`"status": "timeout"`), so the caller's instance is free
    /// again; the run goes on, as do its flows. Nothing else of the call is cut short.
    pub fn call_cancellable(&self, caller: &Caller, tool: &str, arguments: &str, cancel: Option<&CallCancel>) -> Result<String, CallError> {
        self.call_counted(caller, tool, arguments, cancel, None)
    }

    /// Opens a task of `owner` (an opaque fingerprint of the caller, never a secret in
    /// clear) for a call of `tool`, unless the owner has `max_open` tasks working: the task
    /// is on disk, working, when this answers. Make its call with [`Self::run_task`].
    pub fn open_task(&self, owner: &str, tool: &str, max_open: usize) -> Result<TaskRun, TaskError> {
        self.inner.jobs.tasks().open(owner, tool, max_open, self.inner.services.now_ms())
    }

    /// Makes the call of a task opened by [`Self::open_task`] as [`Self::call_cancellable`]
    /// does (blocks while it runs), with the task's id as its call's: its answer is written
    /// into the task before the call's intent is removed, so a stop at any moment leaves
    /// the call to be made again, once, and the answer kept. Answers the task as it ends
    /// (a task cancelled meanwhile stays cancelled).
    pub fn run_task(&self, run: TaskRun, caller: &Caller, arguments: &str, cancel: Option<&CallCancel>) -> Result<TaskRecord, TaskError> {
        let id = run.record.id.clone();
        let tool = run.record.tool.clone();
        let _ = self.call_counted(caller, &tool, arguments, cancel, Some(&id));
        let tasks = self.inner.jobs.tasks();
        let mut ended = tasks.get(&run.record.owner, &id, self.inner.services.now_ms());
        if ended.as_ref().is_ok_and(|task| task.state.is_working()) {
            // The call has ended but its answer was not written (the log says why): the
            // task says so rather than wait for an answer that will not come.
            let lost = TaskAnswer::Lost("the call ended but its answer could not be kept; see the server's log".into());
            ended = tasks.answer(&id, lost, self.inner.services.now_ms()).and_then(|task| task.ok_or(TaskError::NotFound));
        }
        drop(run);
        ended
    }

    /// A task of `owner`, as it stands; another owner's is not found.
    pub fn task(&self, owner: &str, id: &str) -> Result<TaskRecord, TaskError> {
        self.inner.jobs.tasks().get(owner, id, self.inner.services.now_ms())
    }

    /// Cancels a working task of `owner` (`reason`: what becomes of its call, in words):
    /// it ends cancelled and its call's answer, when it comes, is not kept. The call itself
    /// is the embedder's to stop (its [`CallCancel`]). A task that has ended stays as it is.
    pub fn cancel_task(&self, owner: &str, id: &str, reason: &str) -> Result<TaskRecord, TaskError> {
        self.inner.jobs.tasks().cancel(owner, id, reason, self.inner.services.now_ms())
    }

    /// A call in its span, counted; `task`: the task whose call it is.
    fn call_counted(
        &self,
        caller: &Caller,
        tool: &str,
        arguments: &str,
        cancel: Option<&CallCancel>,
        task: Option<&str>,
    ) -> Result<String, CallError> {
        let inner = &self.inner;
        let access = inner.access(caller);
        // The call's events (the guest's log, N15 refusals) are inside its span.
        let _span = crate::telemetry::tool_call_span(&access.agent, tool).entered();
        let started = std::time::Instant::now();
        let answer = self.call_in_span(&access, caller, tool, arguments, cancel, task);
        let outcome = answer.as_ref().map_or_else(CallError::kind, |_| "ok");
        crate::telemetry::tool_call(&access.agent, tool, outcome, started.elapsed());
        answer
    }

    fn call_in_span(
        &self,
        access: &Access,
        caller: &Caller,
        tool: &str,
        arguments: &str,
        cancel: Option<&CallCancel>,
        task: Option<&str>,
    ) -> Result<String, CallError> {
        let inner = &self.inner;
        // What the call came to goes into its task before its intent is removed.
        let answer_task = |answer: TaskAnswer| {
            if let Some(task) = task {
                if let Err(e) = inner.jobs.tasks().answer(task, answer, inner.services.now_ms()) {
                    inner.services.log(ports::LogLevel::Error, &format!("cannot keep the answer of task {task}: {e}"));
                }
            }
        };
        // Refused before the intent is recorded: a run no runtime would run must leave no
        // trace (no intent, entry, message or job).
        if RUN_TOOLS.contains(&tool) {
            if let Some(advice) = inner.tree.no_agent_runtime() {
                let refused = CallError::NoAgentRuntime { tool: tool.to_string(), advice };
                answer_task(TaskAnswer::Refused(refused.to_string()));
                return Err(refused);
            }
        }
        let intent = match task {
            Some(id) => inner.jobs.intent_with_id(id.to_string(), &access.agent, caller, tool, arguments),
            None => inner.jobs.intent_for(&access.agent, caller, tool, arguments),
        };
        let output = inner.call_as(access, caller, tool, arguments, intent.id(), Some(&intent), cancel);
        answer_task(match &output {
            Ok(output) => TaskAnswer::Answered(output.result.clone()),
            Err(e) => TaskAnswer::Refused(e.to_string()),
        });
        match output {
            Ok(output) => {
                inner.jobs.start(inner.as_ref(), &access.agent, caller, output.jobs, Some(&intent));
                Ok(output.result)
            }
            Err(e) => {
                // The call has ended (with an error): nothing is left to make again.
                if let Some(held) = intent.take() {
                    held.done();
                }
                Err(e)
            }
        }
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
        self.inner.jobs.run_ready(self.inner.as_ref(), deadline, crate::jobs::runner::STEP_WORKERS)
    }

    /// Asks [`Self::run_jobs`] calls in progress (on any thread), and later ones, to return
    /// once the step in flight has ended: a graceful stop (the jobs not stepped stay
    /// pending). The background scheduler stops when its handle is dropped.
    pub fn stop_jobs(&self) {
        self.inner.jobs.stop();
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
    /// A tool call in an instance of the caller's pool, with ids seeded by `seed`, and the
    /// gateway recording `intent` before its first write.
    // What a call is made of, each its own thing; a struct of them would be built once here.
    #[allow(clippy::too_many_arguments)]
    fn call_as(
        &self,
        access: &Access,
        caller: &Caller,
        tool: &str,
        arguments: &str,
        seed: &str,
        intent: Option<&Arc<IntentRecorder>>,
        cancel: Option<&CallCancel>,
    ) -> Result<ToolOutput, CallError> {
        let mut sandbox = self.broker.checkout(access)?;
        // A restricted caller's instance is the tools behind the N15 guard component:
        // the gateway given here is the one the guard calls.
        sandbox.set_gateway(match intent {
            Some(intent) => intent.guard(self.gateway.clone()),
            None => self.gateway.clone(),
        });
        if let Some(restriction) = &access.restriction {
            if let Err(e) = sandbox.restrict(&self.rules, restriction) {
                self.broker.checkin(&access.pool, sandbox);
                return Err(e);
            }
        }
        let base =
            sandbox.set_services(Arc::new(SeededIds::new(self.services.clone(), &session_tools_host_rules::seeded::call_seed(seed))));
        sandbox.set_cancel(cancel.cloned());
        let output = sandbox.call_tool(tool, caller, arguments);
        sandbox.set_cancel(None);
        sandbox.set_services(base);
        self.broker.checkin(&access.pool, sandbox);
        output
    }

    fn access(&self, caller: &Caller) -> Access {
        access(&self.config, caller, |key| self.tree.canonical_key(key))
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
        // A job runs in an instance of its agent, seeing the gateway as its caller may, with
        // ids seeded by its key and step (the same step made again gets the same ids).
        let access = self.access(&record.caller);
        let mut sandbox = self.broker.checkout(&access)?;
        sandbox.set_gateway(self.gateway.clone());
        if let Some(restriction) = &access.restriction {
            if let Err(e) = sandbox.restrict(&self.rules, restriction) {
                self.broker.checkin(&access.pool, sandbox);
                return Err(e);
            }
        }
        let seed = session_tools_host_rules::seeded::step_seed(&record.key, record.steps);
        let base = sandbox.set_services(Arc::new(SeededIds::new(self.services.clone(), &seed)));
        let next = sandbox.resume_job(record.job(), wakeup);
        sandbox.set_services(base);
        self.broker.checkin(&access.pool, sandbox);
        next
    }

    fn replay(&self, intent: &CallIntent) -> Result<ToolOutput, CallError> {
        let access = self.access(&intent.caller);
        self.call_as(&access, &intent.caller, &intent.tool, &intent.arguments, &intent.id, None, None)
    }

    fn wait(&self, record: &JobRecord, params: &ports::WaitParams) -> ports::GatewayResult<ports::WaitResult> {
        // The runner's own wait, outside any instance: the guard's rules natively (the same
        // code as the guard component), so a restricted caller's job waits only for a run
        // it may see (N15).
        match self.access(&record.caller).restriction {
            None => self.gateway.agent_wait(params),
            Some(restriction) => {
                let guard = Guarded::new(
                    Native(self.gateway.as_ref()),
                    NativeTree(self.tree.clone()),
                    NativeAudit(self.services.clone()),
                    self.rules.clone(),
                    restriction,
                );
                ports::Gateway::agent_wait(&guard, params)
            }
        }
    }

    fn run_state(&self, run_id: &str) -> crate::gateway::RunState {
        self.tree.run_state(run_id)
    }
}
