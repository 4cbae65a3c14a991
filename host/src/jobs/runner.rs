//! The one job runner: admits the jobs a call or a step starts (bounded per agent), waits
//! for what a job waits for (bounded by one rule, [`JobRunner::bounded_wait`]), steps it in
//! an instance of its agent, and persists what follows. The service runs it in the
//! background and on demand; a single instance runs it for the jobs of its own calls
//! (conformance, [`crate::Sandbox::run_jobs`]).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use session_tools_guest::ports::{GatewayResult, LogLevel, WaitParams, WaitResult};
use session_tools_guest::{Caller, Job, Wake, Wakeup};

use super::store::{JobRecord, JobStore, WakeRecord};
use crate::limits::{Limits, MAX_TIMER};
use crate::sandbox::{CallError, Services};

/// Where the runner's jobs are stepped and waited for.
pub(crate) trait StepHost: Send + Sync {
    /// The limits of an agent's instances (bounds on jobs and waits).
    fn limits(&self, agent: &str) -> Limits;

    /// The clock, ids and log.
    fn services(&self) -> &dyn Services;

    /// Resumes a job in an instance of its agent that sees the gateway as the job's caller
    /// may; answers the jobs that follow it.
    fn resume(&self, record: &JobRecord, wakeup: Wakeup) -> Result<Vec<Job>, CallError>;

    /// `agent.wait` made on a job's behalf, as its caller may make it.
    fn wait(&self, record: &JobRecord, params: &WaitParams) -> GatewayResult<WaitResult>;

    /// Whether the run a job waits for is run by another process, which alone sees it end.
    fn runs_elsewhere(&self, _run_id: &str) -> bool {
        false
    }
}

/// Pending jobs, and the work of running them.
pub(crate) struct JobRunner {
    store: JobStore,
    /// Keys of the jobs being worked on in this process (not to be picked up twice).
    busy: Mutex<HashSet<String>>,
    /// Rung when there may be new work for the scheduler.
    signal: Arc<(Mutex<u64>, Condvar)>,
}

/// The background job scheduler of a service; it stops when dropped.
pub struct Scheduler {
    stop: Arc<AtomicBool>,
    signal: Arc<(Mutex<u64>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.signal.1.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl JobRunner {
    pub fn new(store: JobStore) -> JobRunner {
        JobRunner { store, busy: Mutex::new(HashSet::new()), signal: Arc::new((Mutex::new(0), Condvar::new())) }
    }

    /// Pending jobs, as stored; unreadable files are logged and left alone.
    pub fn pending(&self, services: &dyn Services) -> Vec<JobRecord> {
        let (jobs, problems) = self.store.load_all();
        for problem in problems {
            services.log(LogLevel::Warn, &format!("unreadable job file kept aside: {problem}"));
        }
        jobs
    }

    /// Keeps the jobs a tool call started (bounded, see [`Self::admit`]) and wakes the
    /// scheduler.
    pub fn start(&self, host: &dyn StepHost, agent: &str, caller: &Caller, jobs: Vec<Job>) {
        for record in self.admit(host, agent, caller, jobs, None) {
            if let Err(e) = self.store.save(&record) {
                host.services().log(LogLevel::Error, &format!("cannot persist job {}: {e}", record.id));
            }
        }
        self.ring();
    }

    /// The jobs a tool call (`parent: None`) or a job step started, bounded by the agent's
    /// limits: at most `max_jobs_per_call` of them, a chain of steps at most
    /// `max_steps_per_job` long, at most `max_pending_jobs` pending for the agent, and every
    /// wait clamped (a run's end waited for at most `max_wait` a step, a timer at most
    /// [`MAX_TIMER`] ahead). What is refused is logged.
    fn admit(&self, host: &dyn StepHost, agent: &str, caller: &Caller, jobs: Vec<Job>, parent: Option<&JobRecord>) -> Vec<JobRecord> {
        let limits = host.limits(agent);
        let log = |message: String| host.services().log(LogLevel::Warn, &message);
        let steps = parent.map_or(0, |p| p.steps.saturating_add(1));
        if steps > limits.max_steps_per_job {
            if let Some(parent) = parent {
                log(format!("job {} ({}) reached its {} steps and is dropped", parent.id, parent.kind, limits.max_steps_per_job));
            }
            return Vec::new();
        }
        let max_jobs = limits.max_jobs_per_call as usize;
        if jobs.len() > max_jobs {
            log(format!("[{agent}] {} background jobs past the limit of {max_jobs} a call are dropped", jobs.len() - max_jobs));
        }
        let continuing = parent.map(|p| p.id.as_str());
        let mut pending: Option<usize> = None;
        let horizon = host.services().now_ms().saturating_add(MAX_TIMER.as_millis() as u64);
        let max_wait_ms = u64::try_from(limits.max_wait.as_millis()).unwrap_or(u64::MAX);
        let mut admitted = Vec::new();
        for mut job in jobs.into_iter().take(max_jobs) {
            match &mut job.wake {
                Wake::RunEnd(wait) => wait.timeout_ms = wait.timeout_ms.min(max_wait_ms),
                Wake::At(at) => *at = (*at).min(horizon),
                Wake::Now => {}
            }
            // A step's own continuation replaces it; anything else is one more pending job.
            if Some(job.id.as_str()) != continuing {
                let count = pending.get_or_insert_with(|| self.store.pending_of(agent));
                if *count >= limits.max_pending_jobs as usize {
                    log(format!("[{agent}] job {} ({}) refused: {} jobs are pending", job.id, job.kind, limits.max_pending_jobs));
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

    /// The one rule for a wait a job asks for, as the host makes it: at most the agent's
    /// `max_wait` (jobs are read from disk, so this holds for any file), and ending by
    /// `until` when the caller has a deadline.
    fn bounded_wait(host: &dyn StepHost, record: &JobRecord, wait: &WaitParams, until: Option<Instant>) -> WaitParams {
        let max_wait = host.limits(&record.agent).max_wait;
        let left = until.map_or(max_wait, |until| until.saturating_duration_since(Instant::now()).min(max_wait));
        let mut bounded = wait.clone();
        bounded.timeout_ms = bounded.timeout_ms.min(u64::try_from(left.as_millis()).unwrap_or(u64::MAX).max(1));
        bounded
    }

    /// One step of a job; its successors replace it.
    fn step(&self, host: &dyn StepHost, record: JobRecord, wakeup: Wakeup) {
        let (id, key) = (record.id.clone(), record.key.clone());
        match host.resume(&record, wakeup) {
            Ok(next) => {
                // The first successor under the job's own id continues it (same key); every
                // other successor is a new job under a new key.
                let mut continues = false;
                for mut successor in self.admit(host, &record.agent, &record.caller, next, Some(&record)) {
                    if !continues && successor.id == id {
                        continues = true;
                        successor.key = key.clone();
                    }
                    if let Err(e) = self.store.save(&successor) {
                        host.services().log(LogLevel::Error, &format!("cannot persist job {}: {e}", successor.id));
                    }
                }
                if !continues {
                    self.store.remove(&key);
                }
            }
            Err(e) => {
                host.services().log(LogLevel::Warn, &format!("job {id} ({}) failed and is dropped: {e}", record.kind));
                self.store.remove(&key);
            }
        }
    }

    /// A step, with a panic of the host caught: the job stays pending and the runner goes on.
    fn step_guarded(&self, host: &dyn StepHost, record: JobRecord, wakeup: Wakeup) {
        let (id, kind) = (record.id.clone(), record.kind.clone());
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.step(host, record, wakeup))).is_err() {
            host.services().log(LogLevel::Error, &format!("the host failed while stepping job {id} ({kind}); it stays pending"));
        }
    }

    fn ring(&self) {
        let (count, bell) = &*self.signal;
        *count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        bell.notify_all();
    }

    fn claim_here(&self, key: &str) -> bool {
        self.busy.lock().unwrap_or_else(|p| p.into_inner()).insert(key.to_string())
    }

    fn release_here(&self, key: &str) {
        self.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
        self.ring();
    }

    /// Whether this process can step a job now: not a timer still to come, and not a wait
    /// for a run another live process runs (only that one sees it end).
    fn ready_here(host: &dyn StepHost, record: &JobRecord, now: u64) -> bool {
        match &record.wake {
            WakeRecord::At { at } => *at <= now,
            WakeRecord::RunEnd { wait } => !host.runs_elsewhere(&wait.run_id),
            WakeRecord::Now => true,
        }
    }

    /// Runs the jobs that can make progress now, in this thread, until none is left or
    /// `deadline` passes: waits for runs for real, and timers whose time has come. Jobs
    /// waiting for a later time stay pending. Answers how many steps ran.
    pub fn run_ready(&self, host: &dyn StepHost, deadline: Duration) -> usize {
        let until = crate::limits::deadline(deadline);
        let mut steps = 0;
        loop {
            let now = host.services().now_ms();
            let ready: Vec<JobRecord> = self
                .pending(host.services())
                .into_iter()
                .filter(|r| Self::ready_here(host, r, now))
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
                if !self.claim_here(&record.key) {
                    continue;
                }
                if self.run_claimed(host, &record.key, until) {
                    steps += 1;
                    ran += 1;
                }
                self.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(&record.key);
            }
            if ran == 0 {
                // What is ready is held by another process (or waits beyond our deadline).
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    /// Claims a job across processes, waits for what it waits for (within `until`) and
    /// steps it. Answers whether a step ran.
    fn run_claimed(&self, host: &dyn StepHost, key: &str, until: Instant) -> bool {
        let Some((claim, record)) = self.store.claim(key) else { return false };
        let wakeup = match &record.wake {
            WakeRecord::Now => Wakeup::Now,
            WakeRecord::At { at } if *at > host.services().now_ms() => return false,
            WakeRecord::At { .. } => Wakeup::Timer,
            WakeRecord::RunEnd { wait: params } => {
                let bounded = Self::bounded_wait(host, &record, params, Some(until));
                let answer = host.wait(&record, &bounded);
                // A wait cut short by our own deadline (not by the limit) is retried later,
                // not reported.
                let limit = Self::bounded_wait(host, &record, params, None).timeout_ms;
                if matches!(&answer, Ok(w) if w.status.as_deref() == Some("timeout")) && bounded.timeout_ms < limit {
                    return false;
                }
                Wakeup::RunEnded(answer)
            }
        };
        self.step_guarded(host, record, wakeup);
        drop(claim);
        true
    }

    /// Runs jobs in the background until the returned handle is dropped: ready jobs and
    /// due timers on the scheduler's thread, and each wait for a run's end on a thread of
    /// its own, so one slow flow never holds up another (and never a tool call).
    pub fn start_scheduler(self: &Arc<Self>, host: Arc<dyn StepHost>) -> std::io::Result<Scheduler> {
        let stop = Arc::new(AtomicBool::new(false));
        let (runner, flag) = (self.clone(), stop.clone());
        let thread = std::thread::Builder::new().name("session-tools-jobs".into()).spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                let seen = *runner.signal.0.lock().unwrap_or_else(|p| p.into_inner());
                let now = host.services().now_ms();
                let mut next_timer: Option<u64> = None;
                for record in runner.pending(host.services()) {
                    match &record.wake {
                        WakeRecord::At { at } if *at > now => next_timer = Some(next_timer.map_or(*at, |t| t.min(*at))),
                        WakeRecord::RunEnd { .. } if !Self::ready_here(host.as_ref(), &record, now) => {}
                        WakeRecord::RunEnd { .. } => runner.wait_in_background(&host, record.key.clone()),
                        WakeRecord::Now | WakeRecord::At { .. } => {
                            if runner.claim_here(&record.key) {
                                // Decided on the job as it is now: another process may have
                                // stepped it since it was listed (a run-end wait is left to
                                // the next pass).
                                if let Some((claim, current)) = runner.store.claim(&record.key) {
                                    let wakeup = match current.wake {
                                        WakeRecord::Now => Some(Wakeup::Now),
                                        WakeRecord::At { .. } => Some(Wakeup::Timer),
                                        WakeRecord::RunEnd { .. } => None,
                                    };
                                    if let Some(wakeup) = wakeup {
                                        runner.step_guarded(host.as_ref(), current, wakeup);
                                    }
                                    drop(claim);
                                }
                                runner.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(&record.key);
                            }
                        }
                    }
                }
                let pause = next_timer.map_or(Duration::from_secs(1), |t| Duration::from_millis(t.saturating_sub(now).clamp(1, 1000)));
                let (count, bell) = &*runner.signal;
                let guard = count.lock().unwrap_or_else(|p| p.into_inner());
                if *guard == seen {
                    let _ = bell.wait_timeout(guard, pause);
                }
            }
        })?;
        Ok(Scheduler { stop, signal: self.signal.clone(), thread: Some(thread) })
    }

    /// Waits for a job's run on a thread of its own, then steps the job.
    fn wait_in_background(self: &Arc<Self>, host: &Arc<dyn StepHost>, key: String) {
        if !self.claim_here(&key) {
            return;
        }
        let (runner, host_for_thread, job_key) = (self.clone(), host.clone(), key.clone());
        let spawned = std::thread::Builder::new().name("session-tools-wait".into()).spawn(move || {
            // Claimed across processes too, and re-read as it is now.
            if let Some((claim, record)) = runner.store.claim(&job_key) {
                if let WakeRecord::RunEnd { wait } = &record.wake {
                    let bounded = Self::bounded_wait(host_for_thread.as_ref(), &record, wait, None);
                    let answer = host_for_thread.wait(&record, &bounded);
                    runner.step_guarded(host_for_thread.as_ref(), record, Wakeup::RunEnded(answer));
                }
                drop(claim);
            }
            runner.release_here(&job_key);
        });
        if spawned.is_err() {
            host.services().log(LogLevel::Error, "cannot start a thread to wait for a run; the job stays pending");
            self.busy.lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
        }
    }
}
