//! The runner against a fake host, with its jobs kept in a temporary directory as a service
//! keeps them: which steps it makes, how often, and what it leaves pending. No test waits on
//! time: each waits for what the fake host saw (a condition variable); the long [`SAFETY`]
//! deadline is only there so that a broken runner fails a test instead of hanging it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use session_tools_contract::{Caller, GatewayResult, Host, Job, LogLevel, ToolOutput, WaitParams, WaitResult, Wake, Wakeup};

use super::{JobRunner, Scheduler, StepHost, STEP_WORKERS};
use crate::gateway::RunState;
use crate::jobs::intent::{CallIntent, Held, IntentFile};
use crate::jobs::store::{JobRecord, JobStore};
use crate::limits::Limits;
use crate::sandbox::{CallError, Services};

/// Far longer than any test here needs: a guard against a hang, never a synchronisation.
const SAFETY: Duration = Duration::from_secs(60);

/// What the fake host answers a step, from the job stepped and why it was woken.
type Answer = Box<dyn Fn(&JobRecord, &Wakeup) -> Result<Vec<Job>, CallError> + Send + Sync>;

/// One step the fake host was asked to make.
#[derive(Debug, Clone, PartialEq)]
struct Stepped {
    key: String,
    state: String,
    wakeup: Wakeup,
}

/// A step host that records what it is asked and answers as its test says; a job whose
/// state is `"hold"` is held in its step until [`FakeHost::open_gate`].
struct FakeHost {
    limits: Limits,
    now_ms: AtomicU64,
    answer: Answer,
    /// Where each run stands (`RunState::Unknown` when not named).
    runs: Mutex<HashMap<String, RunState>>,
    /// The jobs a call made again answers.
    replay_jobs: Vec<Job>,
    seen: Mutex<Seen>,
    changed: Condvar,
    gate: Mutex<bool>,
    gate_opened: Condvar,
}

#[derive(Default)]
struct Seen {
    /// Steps begun, in order.
    steps: Vec<Stepped>,
    /// Steps whose host work has returned.
    finished: usize,
    waits: Vec<WaitParams>,
    replays: Vec<CallIntent>,
    logs: Vec<(LogLevel, String)>,
}

impl FakeHost {
    fn new(answer: impl Fn(&JobRecord, &Wakeup) -> Result<Vec<Job>, CallError> + Send + Sync + 'static) -> FakeHost {
        FakeHost {
            limits: Limits::default(),
            now_ms: AtomicU64::new(1_000),
            answer: Box::new(answer),
            runs: Mutex::new(HashMap::new()),
            replay_jobs: Vec::new(),
            seen: Mutex::new(Seen::default()),
            changed: Condvar::new(),
            gate: Mutex::new(false),
            gate_opened: Condvar::new(),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap()
    }

    fn note(&self, what: impl FnOnce(&mut Seen)) {
        what(&mut self.seen());
        self.changed.notify_all();
    }

    /// Waits until `n` steps have begun; answers them.
    fn wait_for_steps(&self, n: usize) -> Vec<Stepped> {
        let seen = self.seen();
        let (seen, _) = self.changed.wait_timeout_while(seen, SAFETY, |s| s.steps.len() < n).unwrap();
        assert!(seen.steps.len() >= n, "{} of {n} steps were made: {:?}", seen.steps.len(), seen.steps);
        seen.steps.clone()
    }

    /// Lets the steps held at the gate (and all later ones) go on.
    fn open_gate(&self) {
        *self.gate.lock().unwrap() = true;
        self.gate_opened.notify_all();
    }

    fn logged(&self, level: LogLevel, words: &str) -> bool {
        self.seen().logs.iter().any(|(l, m)| *l == level && m.contains(words))
    }
}

impl Host for FakeHost {
    fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::SeqCst)
    }

    fn new_uuid(&self) -> String {
        uuid::Uuid::new_v4().to_string()
    }

    fn log(&self, level: LogLevel, message: &str) {
        self.note(|s| s.logs.push((level, message.to_string())));
    }
}

impl StepHost for FakeHost {
    fn limits(&self, _agent: &str) -> Limits {
        self.limits.clone()
    }

    fn services(&self) -> &dyn Services {
        self
    }

    fn resume(&self, record: &JobRecord, wakeup: Wakeup) -> Result<Vec<Job>, CallError> {
        let stepped = Stepped { key: record.key.clone(), state: record.state.clone(), wakeup: wakeup.clone() };
        self.note(|s| s.steps.push(stepped));
        if record.state == "hold" {
            let gate = self.gate.lock().unwrap();
            let opened = *self.gate_opened.wait_timeout_while(gate, SAFETY, |open| !*open).unwrap().0;
            assert!(opened, "the test never opened the gate");
        }
        let answer = (self.answer)(record, &wakeup);
        self.note(|s| s.finished += 1);
        answer
    }

    fn wait(&self, _record: &JobRecord, params: &WaitParams) -> GatewayResult<WaitResult> {
        self.note(|s| s.waits.push(params.clone()));
        let ended = self.run_state(&params.run_id) == RunState::Ended;
        Ok(WaitResult { status: Some(if ended { "ok" } else { "timeout" }.into()), ..WaitResult::default() })
    }

    fn run_state(&self, run_id: &str) -> RunState {
        self.runs.lock().unwrap().get(run_id).copied().unwrap_or(RunState::Unknown)
    }

    fn replay(&self, intent: &CallIntent) -> Result<ToolOutput, CallError> {
        self.note(|s| s.replays.push(intent.clone()));
        Ok(ToolOutput { result: r#"{"status": "accepted"}"#.into(), jobs: self.replay_jobs.clone() })
    }
}

fn job(id: &str, state: &str, wake: Wake) -> Job {
    Job { id: id.into(), kind: "test".into(), session_key: "agent:main:main".into(), state: state.into(), wake }
}

/// Jobs that end at their first step, whatever it is.
fn ends(_: &JobRecord, _: &Wakeup) -> Result<Vec<Job>, CallError> {
    Ok(Vec::new())
}

/// A job directory in a fresh temporary directory (kept alive by the first value).
fn jobs_dir() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("jobs");
    (root, dir)
}

fn runner_in(dir: &Path) -> JobRunner {
    JobRunner::new(JobStore::in_dir(dir.to_path_buf()))
}

/// A runner on a job directory of its own (kept alive by the first value).
fn runner_on_disk() -> (tempfile::TempDir, PathBuf, JobRunner) {
    let (root, dir) = jobs_dir();
    let runner = runner_in(&dir);
    (root, dir, runner)
}

/// Keeps `jobs` as one tool call of agent `main` would.
fn start(runner: &JobRunner, host: &FakeHost, jobs: Vec<Job>) {
    runner.start(host, "main", &Caller::default(), jobs, None);
}

/// Waits until no step or replay of `runner` is in flight and nothing is marked busy (a
/// scheduler's worker lets its work go after the step has left the count, and rings).
fn assert_idle(runner: &JobRunner) {
    let (count, ended) = &*runner.in_flight;
    let count = count.lock().unwrap();
    let (count, _) = ended.wait_timeout_while(count, SAFETY, |n| *n > 0).unwrap();
    assert_eq!(*count, 0, "steps still counted in flight");
    drop(count);
    let busy = || !runner.state.lock().unwrap().busy.is_empty();
    let (rung, bell) = &*runner.signal;
    let rung = rung.lock().unwrap();
    let _ = bell.wait_timeout_while(rung, SAFETY, |_| busy()).unwrap();
    assert!(!busy(), "work left marked busy");
}

fn pending_states(runner: &JobRunner, host: &FakeHost) -> Vec<String> {
    runner.pending(host).into_iter().map(|r| r.state).collect()
}

#[test]
fn a_job_is_stepped_once_however_many_workers_race_for_it() {
    // Each job takes two steps: its first continues it under its own id and key, its
    // second ends it. Two foreground runs of four workers each and a background scheduler,
    // each with a runner of its own on the one directory (as three processes would be),
    // race for every job.
    let mut limits = Limits::default();
    limits.max_jobs_per_call = 32;
    let host = Arc::new(FakeHost {
        limits,
        ..FakeHost::new(|record, _| match record.state.as_str() {
            "first" => Ok(vec![job(&record.id, "second", Wake::Now)]),
            _ => Ok(Vec::new()),
        })
    });
    let (_root, dir) = jobs_dir();
    let runners: Vec<Arc<JobRunner>> = (0..3).map(|_| Arc::new(runner_in(&dir))).collect();
    let count = 24;
    start(&runners[0], &host, (0..count).map(|n| job(&format!("j{n}"), "first", Wake::Now)).collect());
    assert_eq!(runners[1].pending(host.as_ref()).len(), count, "every job kept on disk before the race");

    let scheduler = runners[2].start_scheduler(host.clone()).unwrap();
    let fake = host.as_ref();
    let made: Vec<usize> = std::thread::scope(|scope| {
        let runs: Vec<_> = runners[..2].iter().map(|runner| scope.spawn(move || runner.run_ready(fake, SAFETY, STEP_WORKERS))).collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    let steps = host.wait_for_steps(2 * count);
    assert!(scheduler.stop(SAFETY), "the scheduler's steps end");

    let mut times: HashMap<(String, String), usize> = HashMap::new();
    for step in host.seen().steps.iter() {
        *times.entry((step.key.clone(), step.state.clone())).or_default() += 1;
    }
    let twice: Vec<_> = times.iter().filter(|(_, n)| **n != 1).collect();
    assert!(twice.is_empty(), "steps made more than once: {twice:?}");
    assert_eq!(times.len(), 2 * count, "{steps:?}");
    assert!(made.iter().sum::<usize>() <= 2 * count, "the foreground runs count only their own steps: {made:?}");
    for runner in &runners {
        assert!(runner.pending(host.as_ref()).is_empty(), "every job ended");
        assert_idle(runner);
    }
}

#[test]
fn a_failed_step_drops_its_job_and_a_step_the_host_broke_is_made_again() {
    let panicked = AtomicBool::new(false);
    let host = FakeHost::new(move |record, _| match record.state.as_str() {
        "fails" => Err(CallError::Trap("the guest trapped".into())),
        "host breaks once" if !panicked.swap(true, Ordering::SeqCst) => panic!("the host broke in this step"),
        _ => Ok(Vec::new()),
    });
    let (_root, _, runner) = runner_on_disk();
    start(&runner, &host, vec![job("a", "fails", Wake::Now), job("b", "host breaks once", Wake::Now)]);

    // One job after another: the failure, the broken step, the broken step again.
    assert_eq!(runner.run_ready(&host, SAFETY, 1), 3);
    let states: Vec<String> = host.seen().steps.iter().map(|s| s.state.clone()).collect();
    assert_eq!(states, ["fails", "host breaks once", "host breaks once"]);
    assert!(host.logged(LogLevel::Warn, "failed and is dropped: "), "the guest's failure is logged");
    assert!(host.logged(LogLevel::Error, "it stays pending"), "the host's failure is logged");
    assert!(runner.pending(&host).is_empty(), "the failed job is dropped, the other ended at its second try");
    assert_idle(&runner);
}

/// A scheduler in the middle of a step held at the gate, whose job continues (the
/// continuation is not to be stepped once the scheduler is stopped).
fn scheduler_in_a_step() -> (tempfile::TempDir, Arc<FakeHost>, Arc<JobRunner>, Scheduler) {
    let host = Arc::new(FakeHost::new(|record, _| Ok(vec![job(&record.id, "after the stop", Wake::Now)])));
    let (root, dir) = jobs_dir();
    let runner = Arc::new(runner_in(&dir));
    start(&runner, &host, vec![job("a", "hold", Wake::Now)]);
    let scheduler = runner.start_scheduler(host.clone()).unwrap();
    host.wait_for_steps(1);
    (root, host, runner, scheduler)
}

#[test]
fn stop_waits_for_the_step_in_flight_no_longer_than_its_grace() {
    let (_root, host, runner, scheduler) = scheduler_in_a_step();
    assert_eq!(*runner.in_flight.0.lock().unwrap(), 1, "the held step is counted in flight");

    // The step is held at the gate until after `stop` returns: the grace runs out.
    assert!(!scheduler.stop(Duration::from_millis(20)), "a step held past the grace is reported");
    host.open_gate();
    assert_idle(&runner);
    // The step in flight ended and kept its job's continuation; nothing stepped it since.
    assert_eq!(host.seen().finished, 1);
    assert_eq!(host.seen().steps.len(), 1);
    assert_eq!(pending_states(&runner, &host), ["after the stop"]);
}

#[test]
fn stop_with_time_to_spare_returns_once_the_step_in_flight_is_kept() {
    let (_root, host, runner, scheduler) = scheduler_in_a_step();
    let asked = scheduler.stop.clone();
    let stopped = std::thread::scope(|scope| {
        let stop = scope.spawn(move || scheduler.stop(SAFETY));
        // The step goes on once the stop is asked (it rings the runner's signal then), so
        // what the step leaves comes after the stop.
        let (rung, bell) = &*runner.signal;
        let rung = rung.lock().unwrap();
        let _ = bell.wait_timeout_while(rung, SAFETY, |_| !asked.load(Ordering::SeqCst)).unwrap();
        host.open_gate();
        stop.join().unwrap()
    });
    assert!(stopped, "the step ended within the grace");
    // `stop` answered after the step had saved what it left, not before.
    assert_eq!(*runner.in_flight.0.lock().unwrap(), 0);
    assert_eq!(pending_states(&runner, &host), ["after the stop"]);
    assert_eq!(host.seen().steps.len(), 1, "no step begins after a stop");
    assert_idle(&runner);
}

#[test]
fn a_foreground_run_asked_to_stop_returns_after_its_step_in_flight() {
    let host = FakeHost::new(ends);
    let (_root, _, runner) = runner_on_disk();
    // One call's jobs are stepped in the order they were started (their keys sort so).
    start(&runner, &host, vec![job("a", "hold", Wake::Now), job("b", "next", Wake::Now), job("c", "next", Wake::Now)]);
    let steps = std::thread::scope(|scope| {
        let run = scope.spawn(|| runner.run_ready(&host, SAFETY, 1));
        host.wait_for_steps(1);
        runner.stop();
        host.open_gate();
        run.join().unwrap()
    });
    assert_eq!(steps, 1);
    assert_eq!(pending_states(&runner, &host), ["next", "next"], "the jobs after the stop stay pending");
    assert_idle(&runner);
}

#[test]
fn pending_answers_what_the_store_holds_and_leaves_unreadable_files_alone() {
    let host = FakeHost::new(ends);
    let (_root, dir, runner) = runner_on_disk();
    assert!(runner.pending(&host).is_empty(), "no directory yet: nothing pending");
    start(&runner, &host, vec![job("a", "later", Wake::At(u64::MAX)), job("b", "later", Wake::At(u64::MAX))]);
    std::fs::write(dir.join("broken.json"), b"{").unwrap();

    // A runner opened afterwards on the directory (a restarted process) sees the same jobs.
    for runner in [&runner, &runner_in(&dir)] {
        let pending = runner.pending(&host);
        let ids: Vec<&str> = pending.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert!(pending.iter().all(|r| r.agent == "main" && r.steps == 0 && r.call.is_none()), "{pending:?}");
    }
    assert!(host.logged(LogLevel::Warn, "broken.json"), "the unreadable file is named");
    assert!(dir.join("broken.json").exists(), "an unreadable file is kept, not lost");
    // Waiting for a later time, neither job is stepped.
    assert_eq!(runner.run_ready(&host, SAFETY, 1), 0);
    assert!(host.seen().steps.is_empty());
}

#[test]
fn a_timer_job_is_stepped_once_its_time_has_come() {
    let host = FakeHost::new(ends);
    let (_root, _, runner) = runner_on_disk();
    start(&runner, &host, vec![job("a", "timer", Wake::At(2_000))]);
    assert_eq!(runner.run_ready(&host, SAFETY, 1), 0, "its time has not come");
    host.now_ms.store(2_000, Ordering::SeqCst);
    assert_eq!(runner.run_ready(&host, SAFETY, 1), 1);
    assert_eq!(host.seen().steps[0].wakeup, Wakeup::Timer);
    assert!(runner.pending(&host).is_empty());
}

#[test]
fn a_wait_is_answered_when_its_run_ends_or_its_time_runs_out() {
    let host = FakeHost::new(ends);
    host.runs.lock().unwrap().extend([("ended".to_string(), RunState::Ended), ("going".to_string(), RunState::Running)]);
    let (_root, _, runner) = runner_on_disk();
    let wait = |run: &str, timeout_ms| Wake::RunEnd(WaitParams { run_id: run.into(), timeout_ms });
    start(&runner, &host, vec![job("a", "run ended", wait("ended", 600_000)), job("b", "wait over", wait("going", 1))]);

    assert_eq!(runner.run_ready(&host, SAFETY, 1), 2);
    let steps = host.seen().steps.clone();
    let woken = |state: &str| steps.iter().find(|s| s.state == state).map(|s| s.wakeup.clone());
    let answered = |status: &str| Some(Wakeup::RunEnded(Ok(WaitResult { status: Some(status.into()), ..WaitResult::default() })));
    assert_eq!(woken("run ended"), answered("ok"));
    assert_eq!(woken("wait over"), answered("timeout"));
    // The run that goes on was asked about, never waited for beyond the job's wait.
    let waits = host.seen().waits.clone();
    assert!(waits.iter().filter(|w| w.run_id == "going").all(|w| w.timeout_ms == 1), "{waits:?}");
    assert_eq!(steps.len(), 2);
    assert_idle(&runner);
}

#[test]
fn a_foreground_run_returns_by_its_deadline_and_its_waits_end_by_it() {
    // The gateway cannot tell where the run stands, so its wait is made the blocking way;
    // the fake answers `timeout` at once.
    let host = Arc::new(FakeHost::new(ends));
    let (_root, dir) = jobs_dir();
    let runner = Arc::new(runner_in(&dir));
    let wake = Wake::RunEnd(WaitParams { run_id: "unknown".into(), timeout_ms: 600_000 });
    start(&runner, &host, vec![job("a", "waits", wake)]);

    // On a thread of its own, so that a run that ignored its deadline fails the test
    // instead of hanging it.
    let deadline = Duration::from_millis(200);
    let (done, ran) = std::sync::mpsc::channel();
    let (run_runner, run_host) = (runner.clone(), host.clone());
    std::thread::spawn(move || done.send(run_runner.run_ready(run_host.as_ref(), deadline, 1)));
    let steps = ran.recv_timeout(SAFETY).expect("run_ready returns by its deadline");
    assert_eq!(steps, 0, "a wait cut short by the caller's deadline is not reported to the job");
    let waits = host.seen().waits.clone();
    assert!(!waits.is_empty(), "the wait was made");
    assert!(waits.iter().all(|w| w.timeout_ms >= 1 && w.timeout_ms <= 200), "waits end by the deadline: {waits:?}");
    assert!(host.seen().steps.is_empty());
    assert_eq!(pending_states(&runner, &host), ["waits"], "the job waits on, as it was");
    assert_idle(&runner);
}

/// A call's intent on disk, as a process left it: a runner on its directory, whose host
/// answers one job when the call is made again.
struct Replaying {
    _root: tempfile::TempDir,
    host: FakeHost,
    runner: JobRunner,
    /// Where the intents are.
    calls: PathBuf,
}

/// The intent of a spawn by `main`, recorded with `replays`; its lock is held until the
/// third value is dropped (its call is in flight until then).
fn replaying(replays: u32) -> (Replaying, CallIntent, Held) {
    let host = FakeHost { replay_jobs: vec![job("j", "replayed", Wake::Now)], ..FakeHost::new(ends) };
    let (_root, _, runner) = runner_on_disk();
    let calls = runner.store.calls_dir().unwrap();
    let intent = CallIntent { replays, ..CallIntent::new("c1".into(), "main", &Caller::default(), "sessions_spawn", "{}") };
    let held = intent.record(&calls).unwrap();
    (Replaying { _root, host, runner, calls }, intent, held)
}

#[test]
fn an_intent_left_by_a_stopped_call_is_made_again_once_and_its_jobs_kept_under_its_keys() {
    let (Replaying { _root, host, runner, calls }, intent, held) = replaying(0);
    // Its process stopped before its jobs were kept (its lock let go).
    drop(held);

    assert_eq!(runner.run_ready(&host, SAFETY, 1), 2, "the call made again, then its job's step");
    assert_eq!(host.seen().replays, [CallIntent { replays: 1, ..intent }]);
    let steps = host.seen().steps.clone();
    assert_eq!(steps, [Stepped { key: "c1-0".into(), state: "replayed".into(), wakeup: Wakeup::Now }]);
    assert!(CallIntent::ids_in(&calls).is_empty(), "the intent is gone once its jobs are kept");
    assert!(runner.pending(&host).is_empty());
    assert_idle(&runner);
}

#[test]
fn an_intent_made_again_before_is_dropped_rather_than_made_a_third_time() {
    let (Replaying { _root, host, runner, calls }, _, held) = replaying(1);
    drop(held);

    assert_eq!(runner.run_ready(&host, SAFETY, 1), 0);
    assert!(host.seen().replays.is_empty(), "not made a third time");
    assert!(host.seen().steps.is_empty());
    assert!(host.logged(LogLevel::Warn, "stopped twice before its jobs were kept"));
    assert!(CallIntent::ids_in(&calls).is_empty(), "the dropped intent is removed");
    assert_idle(&runner);
}

#[test]
fn the_jobs_of_a_call_in_flight_wait_for_it_and_a_replay_keeps_what_was_kept() {
    let (Replaying { _root, host, runner, calls }, _, held) = replaying(0);
    // The call kept its job, then stopped before letting its intent go.
    let mut kept = JobRecord::with_key("c1-0".into(), job("j", "kept before", Wake::Now), "main", &Caller::default());
    kept.call = Some("c1".into());
    runner.store.save(&kept).unwrap();

    // While the call holds its intent, neither the intent nor its job is touched.
    assert_eq!(runner.run_ready(&host, SAFETY, 1), 0);
    assert!(host.seen().replays.is_empty(), "the call is still in flight");
    assert!(host.seen().steps.is_empty(), "its job waits for it");
    assert_eq!(CallIntent::ids_in(&calls).len(), 1);

    // Its process stopped: the call is made again, and the job it had kept is stepped as
    // it was kept, once.
    drop(held);
    assert_eq!(runner.run_ready(&host, SAFETY, 1), 2);
    assert_eq!(host.seen().replays.len(), 1);
    let steps = host.seen().steps.clone();
    assert_eq!(steps, [Stepped { key: "c1-0".into(), state: "kept before".into(), wakeup: Wakeup::Now }]);
    assert!(CallIntent::ids_in(&calls).is_empty() && runner.pending(&host).is_empty());
    assert_idle(&runner);
}
