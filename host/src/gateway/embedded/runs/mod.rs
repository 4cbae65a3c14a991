//! Agent runs of the embedded gateway: registered by `agent`, run by the agent runtime on
//! a thread of their own, stopped at their timeout, and waited for by `agent.wait`.
//!
//! Exactly once across processes and stops. Each run is a file of its own,
//! `<state>/session-tools/runs/<digest of the run id>.json`, and the file is the run's
//! record of intent and of outcome:
//!
//! 1. `agent` *registers* the run before any side effect: the file is created exclusively
//!    (complete at birth), with the request and the id its message's transcript entry will
//!    have. A second `agent` with the same idempotency key, from this process or another,
//!    finds the file and answers the same run: nothing is appended twice.
//! 2. The message is appended with that entry id, and the run starts.
//! 3. When the runtime answers, the end is written to the file *with* the reply and the id
//!    its transcript entry will have; then the reply is appended and the session entry
//!    updated; then the file says the end is recorded. A waiter answers only a recorded end.
//!
//! A process that finds a run whose owner has died (its liveness lock is free) *adopts* it:
//! an end not yet recorded is recorded (each transcript entry appended unless it is there);
//! a run cut short is run again, once, under the same id (its message appended unless it is
//! there); a run cut short twice ends as an error. So a run in flight when its process died
//! is waited for or re-run, never silently dropped, and a reply is never written twice.
//!
//! Any process may wait for any run: a run of this process is waited for on a condition
//! variable, one of another live process by re-reading its file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use session_tools_contract::WaitResult;
use sha2::{Digest, Sha256};

use super::runtime::{AgentRuntime, RunRequest};
use crate::clock::Clock;
use crate::faults::fault_point;
use crate::private_files::{create_exclusively, write_atomically, Durability};

mod adoption;
mod execution;
mod legacy_import;
mod liveness;
mod run_file;

use legacy_import::import_legacy;
use liveness::Liveness;
pub use run_file::{Asked, Finished, RunFile};

/// Ended runs are kept this long: `agent.wait` answers them, and an `agent` with their key
/// is still the same run (a flow resumed within a day never starts a step twice).
pub const KEEP_ENDED_MS: i64 = 24 * 60 * 60_000;
/// How often a writer sweeps ended runs older than [`KEEP_ENDED_MS`].
const SWEEP_EVERY: Duration = Duration::from_secs(600);
/// How many times a run is started in all: once, and once more by a process that adopts it
/// after its owner died while it was going on.
const MAX_ATTEMPTS: u32 = 2;
/// Runs of one agent going on in this process at once, at most (each has a thread of its
/// own while the runtime answers): one agent flooding `agent` gets an error past it
/// instead of taking the process's threads from every other agent. OpenClaw queues runs
/// per session lane; a bound the caller is told of stands in for that here.
pub const MAX_RUNS_IN_FLIGHT_PER_AGENT: usize = 256;
/// How long this process keeps its own ended runs in memory (their files stay).
const FORGET_AFTER_MS: i64 = 10 * 60_000;
/// How many ends of other processes' runs are kept in memory.
const MAX_SEEN: usize = 100_000;
/// How often the file of a run another process runs is read again while waiting for it.
const POLL_ELSEWHERE: Duration = Duration::from_millis(50);

/// What the gateway does around the runtime: the run's message before it, its reply and
/// the session entry's fields after it. `check` asks to append only what the transcript
/// does not hold yet (a run adopted from a process that died half way).
pub trait RunSteps: Send + Sync {
    /// Appends the run's message under its entry id; answers whether it was appended now
    /// (false: `check` found it there).
    fn append_message(&self, run: &RunFile, check: bool) -> Result<bool, String>;
    /// Records an end: the reply under its entry id, the entry's model, usage and flags.
    fn record_end(&self, run: &RunFile, finished: &Finished, check: bool) -> Result<(), String>;
    /// The runtime that produces replies; none when the gateway was given none.
    fn runtime(&self) -> Option<Arc<dyn AgentRuntime>>;
}

/// A run, as the registry can tell without waiting.
#[derive(Debug, Clone, PartialEq)]
pub enum RunView {
    /// Its end is recorded.
    Ended(WaitResult),
    /// It goes on (here or in another live process), or is being recorded.
    Running,
    /// No such run (yet).
    Unknown,
}

/// Whether `agent` registered a new run or found one with the same key.
#[derive(Debug)]
pub enum Registered {
    New(Box<RunFile>),
    Existing,
    /// The agent has too many runs going on.
    TooMany,
}

/// A run this process runs (or ran): its file as last written, shared with its thread.
pub(super) struct Mine {
    pub(super) file: RunFile,
}

pub struct Runs {
    dir: PathBuf,
    clock: Clock,
    liveness: Liveness,
    /// The runs this process registered or adopted.
    mine: Mutex<HashMap<String, Mine>>,
    /// Rung when one of `mine` is recorded as ended.
    ended: Condvar,
    /// Recorded ends of other processes' runs (they never change once recorded).
    seen: Mutex<HashMap<String, WaitResult>>,
    steps: std::sync::OnceLock<Weak<dyn RunSteps>>,
    last_sweep: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runs").field("dir", &self.dir).finish_non_exhaustive()
    }
}

/// The file name of a run: its id is the caller's idempotency key, so it is hashed (no
/// caller names a path).
pub(super) fn file_name(run_id: &str) -> String {
    let digest = Sha256::digest(run_id.as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("{hex}.json")
}

impl Runs {
    /// Opens the registry in `dir` (`<state>/session-tools/runs`). Nothing is written until a
    /// run is registered; a `runs.json` of an older build beside `dir` is taken over then.
    pub fn open(dir: PathBuf, clock: Clock) -> std::io::Result<Runs> {
        let processes = dir.parent().unwrap_or_else(|| Path::new(".")).join("processes");
        let liveness = Liveness::new(processes);
        liveness.sweep();
        import_legacy(&dir, &clock)?;
        Ok(Runs {
            dir,
            clock,
            liveness,
            mine: Mutex::new(HashMap::new()),
            ended: Condvar::new(),
            seen: Mutex::new(HashMap::new()),
            steps: std::sync::OnceLock::new(),
            last_sweep: Mutex::new(None),
        })
    }

    /// Gives the registry the gateway's steps around the runtime (once, at open).
    pub fn attach(&self, steps: Weak<dyn RunSteps>) {
        let _ = self.steps.set(steps);
    }

    fn steps(&self) -> Option<Arc<dyn RunSteps>> {
        self.steps.get().and_then(Weak::upgrade)
    }

    fn now(&self) -> i64 {
        (self.clock)() as i64
    }

    fn path(&self, run_id: &str) -> PathBuf {
        self.dir.join(file_name(run_id))
    }

    /// A run's file as written (by any process); `None` when there is none or it cannot be
    /// read as a run (such a file is moved aside, never lost).
    fn read(&self, run_id: &str) -> Option<RunFile> {
        let path = self.path(run_id);
        let bytes = crate::private_files::read_private(&path).ok()?;
        match serde_json::from_slice::<RunFile>(&bytes) {
            Ok(file) if file.run_id == run_id => Some(file),
            Ok(_) => None,
            Err(_) => {
                let mut aside = path.clone().into_os_string();
                aside.push(format!(".unreadable-{}", self.now()));
                let _ = std::fs::rename(&path, &aside);
                None
            }
        }
    }

    /// Rewrites a run's file (its end, its adoption). Atomic, so a reader never sees half
    /// of it; not synced: like the transcripts it stands beside (which OpenClaw does not
    /// sync either), it survives any stop of a process, and the registration it
    /// follows was synced.
    fn write(&self, file: &RunFile) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(file).map_err(std::io::Error::other)?;
        write_atomically(&self.path(&file.run_id), &bytes, Durability::Cache)
    }

    /// Registers a run before its message is appended: answers [`Registered::Existing`]
    /// when a run with this id was registered before (here or by another process), and
    /// [`Registered::TooMany`] when its agent has [`MAX_RUNS_IN_FLIGHT_PER_AGENT`] runs
    /// going on here.
    pub fn register(&self, request: &RunRequest, timeout: Duration) -> std::io::Result<Registered> {
        {
            let mine = crate::poison::lock_whole(&self.mine);
            if mine.contains_key(&request.run_id) || self.path(&request.run_id).exists() {
                return Ok(Registered::Existing);
            }
            let going_on = mine.values().filter(|m| !m.file.recorded && m.file.asked.agent_id == request.agent_id).count();
            if going_on >= MAX_RUNS_IN_FLIGHT_PER_AGENT {
                return Ok(Registered::TooMany);
            }
        }
        self.sweep_if_due();
        self.forget_old();
        let file = RunFile {
            version: 2,
            run_id: request.run_id.clone(),
            session_key: request.session_key.clone(),
            owner: Some(self.liveness.claim()),
            attempts: 1,
            started_at: self.now(),
            asked: Asked {
                agent_id: request.agent_id.clone(),
                message: request.message.clone(),
                extra_system_prompt: request.extra_system_prompt.clone(),
                lane: request.lane.clone(),
                channel: request.channel.clone(),
                params: request.params.clone(),
                timeout_s: timeout.as_secs().max(1),
            },
            message_entry: new_entry_id(),
            finished: None,
            recorded: false,
        };
        crate::private_files::create_private_dir(&self.dir)?;
        let bytes = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
        match create_exclusively(&self.path(&file.run_id), &bytes) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(Registered::Existing),
            Err(e) => return Err(e),
        }
        self.hold(&file);
        fault_point("run.registered");
        Ok(Registered::New(Box::new(file)))
    }

    /// Starts a registered run (its message appended) on a thread of its own.
    pub fn start(self: &Arc<Self>, file: RunFile) {
        let this = self.clone();
        let run_id = file.run_id.clone();
        let spawned = std::thread::Builder::new().name(thread_name(&run_id)).spawn(move || this.execute(file));
        if let Err(e) = spawned {
            let now = self.now();
            if let Some(file) = self.mine_file(&run_id) {
                self.end(file, Finished::failed(format!("cannot start the run: {e}"), now, now));
            }
        }
    }

    /// Ends a registered run that could not start (its message could not be appended).
    pub fn fail(&self, file: RunFile, error: String) {
        let now = self.now();
        self.end(file, Finished::failed(error, now, now));
    }

    /// Makes a run this process's: its file as this process holds it.
    fn hold(&self, file: &RunFile) {
        crate::poison::lock_whole(&self.mine).insert(file.run_id.clone(), Mine { file: file.clone() });
    }

    fn mine_file(&self, run_id: &str) -> Option<RunFile> {
        crate::poison::lock_whole(&self.mine).get(run_id).map(|m| m.file.clone())
    }

    /// A run as it stands, without waiting; a run whose owner died is adopted on the way.
    pub fn view(self: &Arc<Self>, run_id: &str) -> RunView {
        if let Some(file) = self.mine_file(run_id) {
            return match (&file.finished, file.recorded) {
                (Some(finished), true) => RunView::Ended(finished.wait_result()),
                _ => RunView::Running,
            };
        }
        if let Some(result) = crate::poison::lock_rebuilt(&self.seen).get(run_id) {
            return RunView::Ended(result.clone());
        }
        let Some(file) = self.read(run_id) else { return RunView::Unknown };
        match (&file.finished, file.recorded) {
            (Some(finished), true) => {
                let result = finished.wait_result();
                crate::poison::lock_rebuilt(&self.seen).insert(run_id.to_string(), result.clone());
                RunView::Ended(result)
            }
            _ => {
                let orphan = !file.owner.as_deref().is_some_and(|o| self.liveness.is_alive(o));
                if orphan && self.adopt(run_id) {
                    // Adopted: a recorded end may already be there.
                    if let Some(Mine { file: RunFile { finished: Some(f), recorded: true, .. } }) =
                        crate::poison::lock_whole(&self.mine).get(run_id)
                    {
                        return RunView::Ended(f.wait_result());
                    }
                }
                RunView::Running
            }
        }
    }

    /// The session a run belongs to (any process's run).
    pub fn session_of(&self, run_id: &str) -> Option<String> {
        if let Some(file) = self.mine_file(run_id) {
            return Some(file.session_key);
        }
        self.read(run_id).map(|f| f.session_key)
    }

    /// Whether a run with this id was registered (by any process).
    pub fn exists(&self, run_id: &str) -> bool {
        crate::poison::lock_whole(&self.mine).contains_key(run_id) || self.path(run_id).exists()
    }

    /// Waits until no run of this process is going on (or the timeout passes); answers
    /// whether none is.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = crate::limits::deadline(timeout);
        let mut mine = crate::poison::lock_whole(&self.mine);
        loop {
            if mine.values().all(|m| m.file.recorded) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            mine = crate::poison::wait_timeout_whole(&self.ended, mine, deadline - now).0;
        }
    }

    /// `agent.wait`: the run's end, or `timeout` when it does not end within `timeout`.
    pub fn wait(self: &Arc<Self>, run_id: &str, timeout: Duration) -> WaitResult {
        let deadline = crate::limits::deadline(timeout);
        loop {
            {
                let mut mine = crate::poison::lock_whole(&self.mine);
                // Ours: told when it ends (checked under the lock the end is recorded under,
                // so the news cannot slip between the check and the wait).
                while let Some(m) = mine.get(run_id) {
                    if let (Some(finished), true) = (&m.file.finished, m.file.recorded) {
                        return finished.wait_result();
                    }
                    let now = Instant::now();
                    if now >= deadline {
                        return WaitResult { status: Some("timeout".into()), ..Default::default() };
                    }
                    mine = crate::poison::wait_timeout_whole(&self.ended, mine, deadline - now).0;
                }
            }
            // Another process's (or not registered yet): its file is read again, and the run
            // adopted if its owner has died.
            if let RunView::Ended(result) = self.view(run_id) {
                return result;
            }
            if crate::poison::lock_whole(&self.mine).contains_key(run_id) {
                continue;
            }
            let now = Instant::now();
            if now >= deadline {
                return WaitResult { status: Some("timeout".into()), ..Default::default() };
            }
            std::thread::sleep(POLL_ELSEWHERE.min(deadline - now));
        }
    }

    /// Forgets (in memory only) this process's runs that ended a while ago, and the ends of
    /// other processes' runs seen, so a long-lived process keeps a bounded registry.
    fn forget_old(&self) {
        let now = self.now();
        crate::poison::lock_whole(&self.mine).retain(|_, m| match (&m.file.finished, m.file.recorded) {
            (Some(f), true) => now.saturating_sub(f.ended_at) < FORGET_AFTER_MS,
            _ => true,
        });
        let mut seen = crate::poison::lock_rebuilt(&self.seen);
        if seen.len() > MAX_SEEN {
            seen.clear();
        }
    }

    /// Removes the files of runs that ended more than [`KEEP_ENDED_MS`] ago (at most every
    /// [`SWEEP_EVERY`], by a process that writes runs).
    fn sweep_if_due(&self) {
        {
            let mut last = crate::poison::lock_rebuilt(&self.last_sweep);
            if last.is_some_and(|t| t.elapsed() < SWEEP_EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let now = self.now();
        let cutoff = std::time::SystemTime::now() - Duration::from_millis(KEEP_ENDED_MS as u64);
        for entry in entries.flatten() {
            let old = entry.metadata().ok().and_then(|m| m.modified().ok()).is_some_and(|m| m < cutoff);
            if !old {
                continue;
            }
            let Ok(bytes) = crate::private_files::read_private(&entry.path()) else { continue };
            if let Ok(file) = serde_json::from_slice::<RunFile>(&bytes) {
                if file.recorded && file.finished.as_ref().is_some_and(|f| now.saturating_sub(f.ended_at) >= KEEP_ENDED_MS) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }
}

/// A transcript entry id, as pi-coding-agent makes them (8 hex digits).
pub fn new_entry_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

/// A run's thread name: the run id is the guest's idempotency key, so only its first
/// few ASCII letters, digits and dashes are used (a NUL would make the spawn panic).
fn thread_name(run_id: &str) -> String {
    let safe: String = run_id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(24).collect();
    format!("run-{safe}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gateway::embedded::runtime::EchoRuntime;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// The gateway's side of runs, counted.
    #[derive(Default)]
    struct Counted {
        messages: AtomicUsize,
        ends: AtomicUsize,
        checked: AtomicUsize,
        /// Whether a checked append finds the message there (the run had started).
        message_there: AtomicBool,
    }

    impl RunSteps for Counted {
        fn append_message(&self, _run: &RunFile, check: bool) -> Result<bool, String> {
            self.messages.fetch_add(1, Ordering::SeqCst);
            self.checked.fetch_add(usize::from(check), Ordering::SeqCst);
            Ok(!check || !self.message_there.load(Ordering::SeqCst))
        }
        fn record_end(&self, _run: &RunFile, _finished: &Finished, check: bool) -> Result<(), String> {
            self.ends.fetch_add(1, Ordering::SeqCst);
            self.checked.fetch_add(usize::from(check), Ordering::SeqCst);
            Ok(())
        }
        fn runtime(&self) -> Option<Arc<dyn AgentRuntime>> {
            Some(Arc::new(EchoRuntime))
        }
    }

    fn open(dir: &Path) -> (Arc<Runs>, Arc<Counted>) {
        let runs = Arc::new(Runs::open(dir.join("runs"), Arc::new(|| 1_767_225_600_000)).unwrap());
        let steps = Arc::new(Counted::default());
        let weak: Weak<dyn RunSteps> = Arc::downgrade(&(steps.clone() as Arc<dyn RunSteps>));
        runs.attach(weak);
        (runs, steps)
    }

    fn request(id: &str) -> RunRequest {
        RunRequest {
            run_id: id.into(),
            session_key: "agent:main:main".into(),
            agent_id: "main".into(),
            message: "hi".into(),
            extra_system_prompt: None,
            lane: None,
            channel: None,
            params: serde_json::Value::Null,
        }
    }

    fn run(runs: &Arc<Runs>, id: &str) -> WaitResult {
        match runs.register(&request(id), Duration::from_secs(5)).unwrap() {
            Registered::New(file) => runs.start(*file),
            Registered::Existing | Registered::TooMany => {}
        }
        runs.wait(id, Duration::from_secs(5))
    }

    /// A run file as a process that died left it.
    fn orphan(dir: &Path, id: &str, attempts: u32, finished: Option<Finished>) {
        let file = RunFile {
            version: 2,
            run_id: id.into(),
            session_key: "agent:main:main".into(),
            owner: Some("0f0e0d0c-dead-4000-8000-000000000000".into()),
            attempts,
            started_at: 1,
            asked: Asked {
                agent_id: "main".into(),
                message: "hi".into(),
                extra_system_prompt: None,
                lane: None,
                channel: None,
                params: serde_json::Value::Null,
                timeout_s: 5,
            },
            message_entry: "abcd0123".into(),
            finished,
            recorded: false,
        };
        std::fs::create_dir_all(dir.join("runs")).unwrap();
        std::fs::write(dir.join("runs").join(file_name(id)), serde_json::to_vec(&file).unwrap()).unwrap();
    }

    #[test]
    fn processes_sharing_the_runs_see_each_others_runs_and_keys() {
        let dir = tempfile::tempdir().unwrap();
        let ((a, a_steps), (b, b_steps)) = (open(dir.path()), open(dir.path()));
        assert_eq!(run(&a, "run-a").status.as_deref(), Some("ok"));
        // `b` never ran `run-a`, yet sees how it ended, at once; its key is the same run.
        let started = Instant::now();
        assert_eq!(b.wait("run-a", Duration::from_secs(5)).status.as_deref(), Some("ok"));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(matches!(b.register(&request("run-a"), Duration::from_secs(5)).unwrap(), Registered::Existing));
        assert_eq!(b.session_of("run-a").as_deref(), Some("agent:main:main"));
        assert_eq!((a_steps.ends.load(Ordering::SeqCst), b_steps.ends.load(Ordering::SeqCst)), (1, 0));
        assert_eq!(b.view("nobody"), RunView::Unknown);
    }

    #[test]
    fn a_run_cut_short_by_its_process_is_run_again_once() {
        let dir = tempfile::tempdir().unwrap();
        orphan(dir.path(), "cut", 1, None);
        let (runs, steps) = open(dir.path());
        steps.message_there.store(true, Ordering::SeqCst);
        let ended = runs.wait("cut", Duration::from_secs(5));
        assert_eq!(ended.status.as_deref(), Some("ok"), "{ended:?}");
        // Its message appended unless there (checked), its end recorded once.
        assert_eq!((steps.messages.load(Ordering::SeqCst), steps.ends.load(Ordering::SeqCst)), (1, 1));
        assert_eq!(runs.read("cut").unwrap().attempts, 2);
    }

    /// Stopped between its registration and its message: it never started, so running it
    /// now is its first attempt, and a stop during it still leaves one more.
    #[test]
    fn a_run_stopped_before_its_message_is_started_as_its_first_attempt() {
        let dir = tempfile::tempdir().unwrap();
        orphan(dir.path(), "early", 1, None);
        let (runs, steps) = open(dir.path());
        let ended = runs.wait("early", Duration::from_secs(5));
        assert_eq!(ended.status.as_deref(), Some("ok"), "{ended:?}");
        assert_eq!((steps.messages.load(Ordering::SeqCst), steps.checked.load(Ordering::SeqCst)), (1, 1));
        assert_eq!(runs.read("early").unwrap().attempts, 1);
    }

    #[test]
    fn a_run_cut_short_twice_ends_as_an_error() {
        let dir = tempfile::tempdir().unwrap();
        orphan(dir.path(), "twice", 2, None);
        let (runs, steps) = open(dir.path());
        let ended = runs.wait("twice", Duration::from_secs(5));
        assert_eq!(ended.status.as_deref(), Some("error"));
        assert!(ended.error.unwrap().contains("interrupted 2 times"));
        assert_eq!(steps.messages.load(Ordering::SeqCst), 0, "not run a third time");
    }

    #[test]
    fn an_end_written_but_not_recorded_is_recorded_by_the_next_process() {
        let dir = tempfile::tempdir().unwrap();
        let finished =
            Finished { reply: Some("hello".into()), reply_entry: Some("ffff0000".into()), ..Finished::failed(String::new(), 1, 2) };
        let finished = Finished { status: "ok".into(), error: None, ..finished };
        orphan(dir.path(), "half", 1, Some(finished));
        let (runs, steps) = open(dir.path());
        assert_eq!(runs.wait("half", Duration::from_secs(5)).status.as_deref(), Some("ok"));
        assert_eq!(
            (steps.messages.load(Ordering::SeqCst), steps.ends.load(Ordering::SeqCst), steps.checked.load(Ordering::SeqCst)),
            (0, 1, 1)
        );
        assert!(runs.read("half").unwrap().recorded);
    }

    #[test]
    fn a_live_processs_run_is_left_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let (owner, _) = open(dir.path());
        let id = owner.liveness.claim();
        orphan(dir.path(), "theirs", 1, None);
        let mut file = owner.read("theirs").unwrap();
        file.owner = Some(id);
        owner.write(&file).unwrap();
        let (other, steps) = open(dir.path());
        assert_eq!(other.view("theirs"), RunView::Running);
        assert_eq!(other.wait("theirs", Duration::from_millis(100)).status.as_deref(), Some("timeout"));
        assert_eq!(steps.messages.load(Ordering::SeqCst), 0, "not adopted while its process lives");
        drop(owner);
        assert_eq!(other.wait("theirs", Duration::from_secs(5)).status.as_deref(), Some("ok"), "adopted once it ended");
    }

    #[test]
    fn a_process_leaves_no_liveness_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (runs, _) = open(dir.path());
            run(&runs, "r");
            assert_eq!(std::fs::read_dir(dir.path().join("processes")).unwrap().count(), 1);
            // The run's thread holds the registry until it returns, a moment after the end
            // that `wait` saw was recorded: the registry is dropped once that thread let go.
            let deadline = Instant::now() + Duration::from_secs(30);
            while Arc::strong_count(&runs) > 1 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert_eq!(Arc::strong_count(&runs), 1, "the run's thread never returned");
        }
        assert_eq!(std::fs::read_dir(dir.path().join("processes")).unwrap().count(), 0);
    }

    #[test]
    fn an_older_registry_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let old = serde_json::json!({"version": 1, "runs": {
            "done": {"sessionKey": "agent:main:main", "startedAt": 1, "finished": {"status": "ok", "reply": "hi", "startedAt": 1, "endedAt": 2}},
            "going": {"sessionKey": "agent:main:main", "startedAt": 1}
        }});
        std::fs::write(dir.path().join("runs.json"), old.to_string()).unwrap();
        let (runs, _) = open(dir.path());
        assert_eq!(runs.wait("done", Duration::ZERO).status.as_deref(), Some("ok"));
        assert_eq!(runs.wait("going", Duration::ZERO).status.as_deref(), Some("error"));
        assert!(dir.path().join("runs.json.imported").exists() && !dir.path().join("runs.json").exists());
    }
}
