//! The one job runner: admits the jobs a call or a step starts (bounded per agent), waits
//! for what a job waits for, steps it in an instance of its agent, and persists what
//! follows. The service runs it in the background and on demand; a single instance runs it
//! for the jobs of its own calls (conformance, [`crate::Sandbox::run_jobs`]).
//!
//! Exactly once in effect across stops: a job is stepped only under its claim
//! (an OS lock, across processes) and from its record as it is on disk; a step's ids come
//! from the job's key and step count ([`SeededIds`]), so a step made again after a stop
//! sends the same keys; a tool call's jobs are kept under its intent's keys
//! ([`super::intent`]), and an intent left by a stopped process is made again, once.
//!
//! Scale: the runner keeps no thread per pending wait. It asks the gateway where each
//! awaited run stands ([`SessionTree::run_state`], backing off from 25 ms to 1 s a run)
//! and makes a job's `agent.wait` once its run has ended (the wait then answers at once)
//! or once the job's wait has run out; only a gateway that cannot tell has its waits made
//! the blocking way, on a bounded pool of threads. Steps run on a fixed pool of workers.
//!
//! [`SessionTree::run_state`]: crate::gateway::SessionTree::run_state

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use session_tools_contract::{Caller, Job, ToolOutput, Wakeup};
use session_tools_contract::{GatewayResult, LogLevel, WaitParams, WaitResult};

use session_tools_host_rules::keeping::{self, Bounds, Kept};
use session_tools_host_rules::pending::{due, wakeup_plan, Due, WakeupPlan};

use super::intent::{CallIntent, Held, IntentFile, IntentRecorder};
use super::store::{JobRecord, JobStore};
use super::tasks::{TaskAnswer, TaskStore};
use crate::faults::fault_point;
use crate::gateway::RunState;
use crate::limits::Limits;
use crate::sandbox::{CallError, Services};

/// Where the runner's jobs are stepped and waited for.
pub(crate) trait StepHost: Send + Sync {
    /// The limits of an agent's instances (bounds on jobs and waits).
    fn limits(&self, agent: &str) -> Limits;

    /// The clock, ids and log.
    fn services(&self) -> &dyn Services;

    /// Resumes a job in an instance of its agent that sees the gateway as the job's caller
    /// may, with ids seeded by the job's key and step count; answers the jobs that follow.
    fn resume(&self, record: &JobRecord, wakeup: Wakeup) -> Result<Vec<Job>, CallError>;

    /// `agent.wait` made on a job's behalf, as its caller may make it.
    fn wait(&self, record: &JobRecord, params: &WaitParams) -> GatewayResult<WaitResult>;

    /// Where a run stands without waiting.
    fn run_state(&self, _run_id: &str) -> RunState {
        RunState::Unknown
    }

    /// Makes a tool call again from its intent (its process stopped before its jobs were
    /// kept), with the intent's ids; answers its result and the jobs it started.
    fn replay(&self, _intent: &CallIntent) -> Result<ToolOutput, CallError> {
        Err(CallError::BadAnswer("this host cannot make a call again".into()))
    }
}

/// The first and the longest pause between two looks at a run that goes on.
const PROBE_FIRST: Duration = Duration::from_millis(25);
const PROBE_MAX: Duration = Duration::from_secs(1);
/// Workers that step jobs, and threads that make blocking waits (for gateways that cannot
/// tell where a run stands): fixed, whatever the number of pending jobs.
pub(crate) const STEP_WORKERS: usize = 4;
const WAIT_WORKERS: usize = 16;
/// How long the scheduler sleeps at most when nothing is due (it is rung on new work).
const IDLE_PAUSE: Duration = Duration::from_secs(1);

/// What makes a job ready, and how its wake is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ready {
    /// `Now`, or a timer that has come.
    Step,
    /// Its run has ended: the wait answers at once.
    RunEnded,
    /// Its wait has run out while the run goes on: the wait answers `timeout`.
    WaitOver,
    /// The gateway cannot tell: the wait is made the blocking way.
    Blocking,
    /// A call intent to make again.
    Replay,
}

/// What the runner knows of a job's wait for a run.
#[derive(Debug, Clone)]
struct Probe {
    run_id: String,
    since: Instant,
    timeout: Duration,
    next: Instant,
    pause: Duration,
}

#[derive(Default)]
struct State {
    /// Keys (and intents) being worked on in this process (never picked up twice).
    busy: HashSet<String>,
    probes: HashMap<String, Probe>,
}

/// Pending jobs, and the work of running them.
pub(crate) struct JobRunner {
    store: JobStore,
    /// The tasks kept beside the jobs: a call made again from its intent answers its task.
    tasks: TaskStore,
    state: Mutex<State>,
    /// Rung when there may be new work for the scheduler.
    signal: Arc<(Mutex<u64>, Condvar)>,
    /// Steps and replays in flight (a graceful stop waits for them).
    in_flight: Arc<(Mutex<usize>, Condvar)>,
    /// Asked to stop: foreground runs return after the step in flight.
    stopping: AtomicBool,
}

/// The background job scheduler of a service. Dropping it (or [`Scheduler::stop`]) stops
/// it gracefully: no new step starts, steps in flight end (each bounded by its instance's
/// limits), and waits in flight are abandoned (nothing was done yet for them; their jobs
/// stay pending).
pub struct Scheduler {
    stop: Arc<AtomicBool>,
    signal: Arc<(Mutex<u64>, Condvar)>,
    in_flight: Arc<(Mutex<usize>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Scheduler {
    /// Stops the scheduler, waiting at most `grace` for the steps in flight; answers
    /// whether they all ended.
    pub fn stop(mut self, grace: Duration) -> bool {
        self.halt(Some(grace))
    }

    fn halt(&mut self, grace: Option<Duration>) -> bool {
        self.stop.store(true, Ordering::SeqCst);
        // Rung under its lock like new work, so the scheduler cannot miss it between its
        // look at the flag and its sleep.
        *crate::poison::lock_whole(&self.signal.0) += 1;
        self.signal.1.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let deadline = grace.map(crate::limits::deadline);
        let (count, ended) = &*self.in_flight;
        let mut count = crate::poison::lock_whole(count);
        while *count > 0 {
            match deadline {
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return false;
                    }
                    count = crate::poison::wait_timeout_whole(ended, count, deadline - now).0;
                }
                None => count = crate::poison::wait_whole(ended, count),
            }
        }
        true
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        // After `stop`, its grace was all the wait: dropping the handle adds none.
        if self.thread.is_some() {
            self.halt(None);
        }
    }
}

/// Counts a step in flight while alive.
struct InFlight(Arc<(Mutex<usize>, Condvar)>);

impl InFlight {
    fn new(counter: &Arc<(Mutex<usize>, Condvar)>) -> InFlight {
        *crate::poison::lock_whole(&counter.0) += 1;
        InFlight(counter.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut count = crate::poison::lock_whole(&self.0 .0);
        *count = count.saturating_sub(1);
        self.0 .1.notify_all();
    }
}

/// The outcome of looking at the pending work once.
struct Triage {
    ready: Vec<(String, Ready)>,
    /// When something (a timer, a probe) is next due.
    next: Option<Instant>,
    /// Whether any job waits for a run (foreground runs keep going for those).
    waiting: bool,
}

impl JobRunner {
    pub fn new(store: JobStore) -> JobRunner {
        JobRunner {
            tasks: TaskStore::new(store.dir()),
            store,
            state: Mutex::new(State::default()),
            signal: Arc::new((Mutex::new(0), Condvar::new())),
            in_flight: Arc::new((Mutex::new(0), Condvar::new())),
            stopping: AtomicBool::new(false),
        }
    }

    /// Asks foreground runs ([`Self::run_ready`]) to return after the step in flight.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// Pending jobs, as stored; unreadable files are logged and left alone.
    pub fn pending(&self, services: &dyn Services) -> Vec<JobRecord> {
        let (jobs, problems) = self.store.load_all();
        for problem in problems {
            services.log(LogLevel::Warn, &format!("unreadable job file kept aside: {problem}"));
        }
        jobs
    }

    /// A recorder of the intent of a tool call about to be made (written at its first
    /// gateway call that writes, when jobs are kept on disk).
    pub fn intent_for(&self, agent: &str, caller: &Caller, tool: &str, arguments: &str) -> Arc<IntentRecorder> {
        self.intent_with_id(uuid::Uuid::new_v4().simple().to_string(), agent, caller, tool, arguments)
    }

    /// The intent of a call whose id is given (a task's call has the task's id).
    pub fn intent_with_id(&self, id: String, agent: &str, caller: &Caller, tool: &str, arguments: &str) -> Arc<IntentRecorder> {
        Arc::new(IntentRecorder::new(CallIntent::new(id, agent, caller, tool, arguments), self.store.calls_dir()))
    }

    /// The tasks kept beside the jobs.
    pub fn tasks(&self) -> &TaskStore {
        &self.tasks
    }

    /// Writes what a call came to into its task, if it is one, before its intent goes:
    /// a stop in between leaves the intent, whose replay writes it.
    fn answer_task(&self, host: &dyn StepHost, call: &str, answer: TaskAnswer) {
        if let Err(e) = self.tasks.answer(call, answer, host.services().now_ms()) {
            host.services().log(LogLevel::Error, &format!("cannot keep the answer of call {call} in its task: {e}"));
        }
    }

    /// Keeps the jobs a tool call started (bounded, see [`Self::admit`]) and wakes the
    /// scheduler. A call that recorded its intent keeps them under the intent's keys, then
    /// lets the intent go.
    pub fn start(&self, host: &dyn StepHost, agent: &str, caller: &Caller, jobs: Vec<Job>, intent: Option<&IntentRecorder>) {
        let recorded = intent.filter(|i| i.recorded());
        let held = recorded.and_then(|i| i.take());
        // Without an intent on disk, the call's jobs are keyed by its intent's id all the same
        // (or a new one): fresh keys, never saved over another's.
        let call = intent.map_or_else(|| uuid::Uuid::new_v4().simple().to_string(), |i| i.id().to_string());
        self.commit(host, agent, caller, jobs, &call, recorded.is_some(), held);
    }

    /// Keeps a call's jobs under keys derived from `call`; with an intent kept (`recorded`),
    /// each only if absent (a job kept before is left as it is), then the intent is removed.
    #[allow(clippy::too_many_arguments)] // each is one fact of the call
    fn commit(&self, host: &dyn StepHost, agent: &str, caller: &Caller, jobs: Vec<Job>, call: &str, recorded: bool, held: Option<Held>) {
        let kept = keeping::keep_call(Self::bounds(host, agent), agent, caller, jobs, call, recorded, host.services().now_ms(), || {
            self.store.pending_of(agent)
        });
        self.keep(host, agent, kept);
        fault_point("call.jobs-kept");
        if let Some(held) = held {
            held.done();
        }
        if recorded {
            self.store.forget_call(call);
        }
        self.ring();
    }

    /// An agent's bounds on its jobs (a run's end waited for at most `max_wait` a step).
    fn bounds(host: &dyn StepHost, agent: &str) -> Bounds {
        let limits = host.limits(agent);
        Bounds {
            max_jobs_per_call: limits.max_jobs_per_call,
            max_steps_per_job: limits.max_steps_per_job,
            max_pending_jobs: limits.max_pending_jobs,
            max_wait_ms: u64::try_from(limits.max_wait.as_millis()).unwrap_or(u64::MAX),
        }
    }

    /// Saves what a call or a step keeps ([`keeping`], the rules both hosts share), says what
    /// was refused, and answers whether the job stepped ends.
    fn keep(&self, host: &dyn StepHost, agent: &str, kept: Kept) -> bool {
        for refusal in kept.refused {
            crate::telemetry::limit_hit(agent, refusal.limit);
            host.services().log(LogLevel::Warn, &refusal.message);
        }
        for (record, only_if_new) in kept.saves {
            let saved = if only_if_new { self.store.save_new(&record).map(|_| ()) } else { self.store.save(&record) };
            if let Err(e) = saved {
                host.services().log(LogLevel::Error, &format!("cannot persist job {}: {e}", record.id));
            }
        }
        kept.ends
    }

    /// One step of a job; its successors replace it.
    fn step(&self, host: &dyn StepHost, record: JobRecord, wakeup: Wakeup) {
        let (id, key) = (record.id.clone(), record.key.clone());
        fault_point("job.step-begins");
        match host.resume(&record, wakeup) {
            Ok(next) => {
                fault_point("job.step-made");
                crate::telemetry::job_step(&record.agent, &record.kind, "ok");
                // The first successor under the job's own id continues it (same key); every
                // other successor is a new job under a key derived from this step (so a
                // step made again after a stop keeps it once).
                let kept = keeping::keep_step(Self::bounds(host, &record.agent), &record, next, host.services().now_ms(), || {
                    self.store.pending_of(&record.agent)
                });
                if self.keep(host, &record.agent, kept) {
                    self.store.remove(&key);
                }
            }
            Err(e) => {
                crate::telemetry::job_step(&record.agent, &record.kind, e.kind());
                host.services().log(LogLevel::Warn, &format!("job {id} ({}) failed and is dropped: {e}", record.kind));
                self.store.remove(&key);
            }
        }
        crate::poison::lock_rebuilt(&self.state).probes.remove(&key);
    }

    /// A step, with a panic of the host caught: the job stays pending (as it was on disk)
    /// and the runner goes on.
    fn step_guarded(&self, host: &dyn StepHost, record: JobRecord, wakeup: Wakeup) {
        let (id, kind) = (record.id.clone(), record.kind.clone());
        // What a caught panic discards: only this step's work in memory; the job's record
        // on disk is the one the step started from.
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.step(host, record, wakeup))).is_err() {
            host.services().log(LogLevel::Error, &format!("the host failed while stepping job {id} ({kind}); it stays pending"));
        }
    }

    fn ring(&self) {
        let (count, bell) = &*self.signal;
        *crate::poison::lock_whole(count) += 1;
        bell.notify_all();
    }

    /// Looks at the pending work once: what is ready now, and when to look again.
    fn triage(&self, host: &dyn StepHost) -> Triage {
        let mut problems = Vec::new();
        let (jobs, calls) = self.store.pending(&mut problems);
        for problem in problems {
            host.services().log(LogLevel::Warn, &format!("unreadable job file kept aside: {problem}"));
        }
        let now_ms = host.services().now_ms();
        let now = Instant::now();
        let mut triage = Triage { ready: Vec::new(), next: None, waiting: false };
        let soon = |at: Instant, next: &mut Option<Instant>| *next = Some(next.map_or(at, |n: Instant| n.min(at)));
        // Intents left by a process that stopped (free locks are found when claimed).
        let mut state = crate::poison::lock_rebuilt(&self.state);
        for call in &calls {
            if !state.busy.contains(&format!("call:{call}")) && self.store.calls_dir().is_some() {
                triage.ready.push((call.clone(), Ready::Replay));
            }
        }
        let known: HashSet<&str> = jobs.iter().map(|j| j.key.as_str()).collect();
        state.probes.retain(|k, _| known.contains(k.as_str()));
        let mut to_probe: Vec<(String, String)> = Vec::new();
        for job in &jobs {
            if state.busy.contains(&job.key) {
                continue;
            }
            match due(&job.wake, job.call.as_deref(), |call| calls.contains(call), now_ms) {
                Due::Held => {}
                Due::Now | Due::Timer => triage.ready.push((job.key.clone(), Ready::Step)),
                Due::At(at) => soon(now + Duration::from_millis(at - now_ms), &mut triage.next),
                Due::Run(wait) => {
                    triage.waiting = true;
                    let probe = state.probes.entry(job.key.clone()).or_insert_with(|| Probe {
                        run_id: wait.run_id.clone(),
                        since: now,
                        timeout: Duration::from_millis(wait.timeout_ms),
                        next: now,
                        pause: PROBE_FIRST,
                    });
                    if probe.run_id != wait.run_id {
                        *probe = Probe {
                            run_id: wait.run_id.clone(),
                            since: now,
                            timeout: Duration::from_millis(wait.timeout_ms),
                            next: now,
                            pause: PROBE_FIRST,
                        };
                    }
                    if probe.next > now {
                        soon(probe.next, &mut triage.next);
                    } else {
                        to_probe.push((job.key.clone(), wait.run_id.clone()));
                    }
                }
            }
        }
        drop(state);
        // The gateway is asked without the runner's lock held.
        let states: Vec<(String, RunState)> = to_probe.into_iter().map(|(key, run)| (key, host.run_state(&run))).collect();
        let mut state = crate::poison::lock_rebuilt(&self.state);
        for (key, run_state) in states {
            let Some(probe) = state.probes.get_mut(&key) else { continue };
            match run_state {
                RunState::Ended => triage.ready.push((key, Ready::RunEnded)),
                RunState::Unknown => triage.ready.push((key, Ready::Blocking)),
                _ if now.saturating_duration_since(probe.since) >= probe.timeout => triage.ready.push((key, Ready::WaitOver)),
                _ => {
                    probe.next = now + probe.pause;
                    probe.pause = (probe.pause * 2).min(PROBE_MAX);
                    let (next, since, timeout) = (probe.next, probe.since, probe.timeout);
                    soon(next.min(since + timeout), &mut triage.next);
                }
            }
        }
        triage
    }

    fn mark_busy(&self, key: &str, ready: Ready) -> bool {
        let name = if ready == Ready::Replay { format!("call:{key}") } else { key.to_string() };
        crate::poison::lock_rebuilt(&self.state).busy.insert(name)
    }

    fn release(&self, key: &str, ready: Ready) {
        let name = if ready == Ready::Replay { format!("call:{key}") } else { key.to_string() };
        crate::poison::lock_rebuilt(&self.state).busy.remove(&name);
        self.ring();
    }

    /// Does one piece of ready work: claims the job (across processes) as it is now, makes
    /// its wait as `ready` says, and steps it. `until`: a caller's deadline (a blocking wait
    /// ends by it, and is then retried later rather than reported). Answers whether a step
    /// (or a replay) ran.
    fn work(&self, host: &dyn StepHost, key: &str, ready: Ready, until: Option<Instant>, stop: Option<&AtomicBool>) -> bool {
        if ready == Ready::Replay {
            return self.replay(host, key, stop);
        }
        let Some((claim, record)) = self.store.claim(key) else { return false };
        // The wait at most the agent's `max_wait`, ending by `until` when the caller has a
        // deadline; its intent was looked at when it was found ready.
        let left = until.map(|until| u64::try_from(until.saturating_duration_since(Instant::now()).as_millis()).unwrap_or(u64::MAX));
        let max_wait_ms = Self::bounds(host, &record.agent).max_wait_ms;
        let wakeup = match (wakeup_plan(&record.wake, host.services().now_ms(), max_wait_ms, left), ready) {
            (WakeupPlan::Now, _) => Wakeup::Now,
            (WakeupPlan::Timer, _) => Wakeup::Timer,
            (WakeupPlan::NotYet, _) | (WakeupPlan::Wait { .. }, Ready::Step) => return false,
            (WakeupPlan::Wait { wait, timeout_ms, by_deadline }, kind) => {
                let probed = crate::poison::lock_rebuilt(&self.state).probes.get(key).map(|p| p.run_id.clone());
                if kind != Ready::Blocking && probed.as_deref() != Some(wait.run_id.as_str()) {
                    // The job moved on (another process stepped it) since it was looked at.
                    return false;
                }
                let params = WaitParams { timeout_ms: if kind == Ready::WaitOver { 1 } else { timeout_ms }, ..wait.clone() };
                let answer = host.wait(&record, &params);
                // A wait cut short by our own deadline (not by the job's) is retried later,
                // not reported.
                let timed_out = matches!(&answer, Ok(w) if w.status.as_deref() == Some("timeout"));
                if kind == Ready::Blocking && timed_out && by_deadline {
                    return false;
                }
                if kind == Ready::RunEnded && timed_out {
                    // The run was seen ended but the wait says otherwise: look again.
                    return false;
                }
                Wakeup::RunEnded(answer)
            }
        };
        // Counted before the stop is looked at: a stop that finds nothing in flight has set
        // its flag first, so this step sees it and does not begin.
        let _counted = InFlight::new(&self.in_flight);
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            // Stopping: nothing of this step was done yet; the job stays as it is.
            return false;
        }
        self.step_guarded(host, record, wakeup);
        drop(claim);
        true
    }

    /// Makes a tool call again from an intent its process left (once; a second stop in its
    /// replay drops it), then keeps its jobs under the intent's keys.
    fn replay(&self, host: &dyn StepHost, id: &str, stop: Option<&AtomicBool>) -> bool {
        let Some(dir) = self.store.calls_dir() else { return false };
        let Some((mut intent, held)) = CallIntent::claim(&dir, id) else { return false };
        // As for a step: counted, then the stop looked at (the intent stays for the next start).
        let _counted = InFlight::new(&self.in_flight);
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            return false;
        }
        intent = match intent.replayed() {
            Ok(again) => again,
            Err(dropped) => {
                host.services().log(LogLevel::Warn, &dropped);
                self.answer_task(host, id, TaskAnswer::Lost(dropped));
                held.done();
                self.store.forget_call(id);
                return false;
            }
        };
        if let Err(e) = intent.rewrite(&held) {
            host.services().log(LogLevel::Error, &format!("cannot record the replay of call {}: {e}", intent.id));
            return false;
        }
        host.services().log(
            LogLevel::Info,
            &format!("making call {} ({}) again: its process stopped before its jobs were kept", intent.id, intent.tool),
        );
        match host.replay(&intent) {
            Ok(output) => {
                self.answer_task(host, &intent.id, TaskAnswer::Answered(output.result));
                self.commit(host, &intent.agent, &intent.caller, output.jobs, &intent.id, true, Some(held))
            }
            Err(e) => {
                host.services()
                    .log(LogLevel::Warn, &format!("call {} ({}) failed when made again and is dropped: {e}", intent.id, intent.tool));
                self.answer_task(host, &intent.id, TaskAnswer::Refused(e.to_string()));
                held.done();
                self.store.forget_call(id);
            }
        }
        true
    }

    /// Runs the jobs that can make progress now, until none is left or `deadline` passes:
    /// waits for runs (to their end or their job's wait), timers whose time has come, and
    /// intents left by stopped processes, on this thread and up to `workers - 1` more
    /// (1: one job after another, in order). Jobs waiting for a later time stay pending.
    /// Answers how many steps ran.
    pub fn run_ready(&self, host: &dyn StepHost, deadline: Duration, workers: usize) -> usize {
        let until = crate::limits::deadline(deadline);
        let over = || Instant::now() >= until || self.stopping.load(Ordering::SeqCst);
        let mut steps = 0;
        loop {
            if over() {
                return steps;
            }
            let triage = self.triage(host);
            let next = std::sync::atomic::AtomicUsize::new(0);
            let ran = std::sync::atomic::AtomicUsize::new(0);
            let pull = || {
                while let Some((key, ready)) = triage.ready.get(next.fetch_add(1, Ordering::SeqCst)).cloned() {
                    if over() {
                        return;
                    }
                    if !self.mark_busy(&key, ready) {
                        continue;
                    }
                    if self.work(host, &key, ready, Some(until), Some(&self.stopping)) {
                        ran.fetch_add(1, Ordering::SeqCst);
                    }
                    self.release(&key, ready);
                }
            };
            let helpers = workers.max(1).min(triage.ready.len().max(1)) - 1;
            std::thread::scope(|scope| {
                for _ in 0..helpers {
                    scope.spawn(pull);
                }
                pull();
            });
            let ran = ran.into_inner();
            steps += ran;
            if ran > 0 {
                continue;
            }
            // Intents that could not be claimed are held by calls still in flight: they are
            // no work of this run's.
            let held_elsewhere = triage.ready.iter().any(|(_, ready)| *ready != Ready::Replay);
            if !held_elsewhere && !triage.waiting {
                return steps;
            }
            // Waits go on (or what is ready is held by another process): look again soon.
            let pause = triage
                .next
                .map_or(Duration::from_millis(50), |n| n.saturating_duration_since(Instant::now()))
                .clamp(Duration::from_millis(1), Duration::from_millis(200));
            std::thread::sleep(pause.min(until.saturating_duration_since(Instant::now())));
        }
    }

    /// Runs jobs in the background until the returned handle is dropped: the scheduler
    /// thread looks at the pending work and hands what is ready to a fixed pool of workers
    /// (and blocking waits to a bounded pool of their own), so one slow flow never holds up
    /// another, and never a tool call.
    pub fn start_scheduler(self: &Arc<Self>, host: Arc<dyn StepHost>) -> std::io::Result<Scheduler> {
        let stop = Arc::new(AtomicBool::new(false));
        let (steps_tx, steps_rx) = mpsc::channel::<(String, Ready)>();
        let (waits_tx, waits_rx) = mpsc::channel::<(String, Ready)>();
        let spawn_pool = |name: &str, count: usize, rx: mpsc::Receiver<(String, Ready)>| -> std::io::Result<()> {
            let rx = Arc::new(Mutex::new(rx));
            for n in 0..count {
                let (runner, host, rx, stop) = (self.clone(), host.clone(), rx.clone(), stop.clone());
                std::thread::Builder::new().name(format!("{name}-{n}")).spawn(move || loop {
                    let next = crate::poison::lock_whole(&rx).recv();
                    let Ok((key, ready)) = next else { return };
                    if !stop.load(Ordering::SeqCst) {
                        runner.work(host.as_ref(), &key, ready, None, Some(&stop));
                    }
                    runner.release(&key, ready);
                })?;
            }
            Ok(())
        };
        spawn_pool("session-tools-step", STEP_WORKERS, steps_rx)?;
        spawn_pool("session-tools-wait", WAIT_WORKERS, waits_rx)?;
        let (runner, flag) = (self.clone(), stop.clone());
        let thread = std::thread::Builder::new().name("session-tools-jobs".into()).spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                let seen = *crate::poison::lock_whole(&runner.signal.0);
                let triage = runner.triage(host.as_ref());
                for (key, ready) in triage.ready {
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    if !runner.mark_busy(&key, ready) {
                        continue;
                    }
                    let queue = if ready == Ready::Blocking { &waits_tx } else { &steps_tx };
                    if queue.send((key.clone(), ready)).is_err() {
                        runner.release(&key, ready);
                    }
                }
                let pause = triage
                    .next
                    .map_or(IDLE_PAUSE, |n| n.saturating_duration_since(Instant::now()).clamp(Duration::from_millis(1), IDLE_PAUSE));
                let (count, bell) = &*runner.signal;
                let guard = crate::poison::lock_whole(count);
                if *guard == seen && !flag.load(Ordering::SeqCst) {
                    let _ = bell.wait_timeout(guard, pause);
                }
            }
            // The queues close with this thread: idle workers end; busy ones finish first.
        })?;
        Ok(Scheduler { stop, signal: self.signal.clone(), in_flight: self.in_flight.clone(), thread: Some(thread) })
    }
}

#[cfg(test)]
mod tests;
