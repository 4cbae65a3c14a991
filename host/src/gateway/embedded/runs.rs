//! Agent runs of the embedded gateway: started by `agent`, run by the agent runtime on a
//! thread of their own, stopped at their timeout, and waited for by `agent.wait` for real
//! (a condition variable with a deadline, not a polled flag). The registry is persisted,
//! so after a restart a run that was cut short ends as an error instead of never.
//!
//! Several processes may share a state directory (the CLI, a resuming `jobs`): each run
//! records the process that runs it, a process leaves another live process's runs alone
//! (it neither ends them as interrupted nor drops them when it writes the registry), and
//! only the process that runs a run waits for it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use session_tools_guest::ports::{Usage, WaitResult};

use super::files::{write_atomically, Durability};
use super::lock::OsLock;
use super::runtime::{AgentRuntime, RunRequest, RunResult};
use super::Clock;

/// Finished runs are kept this long for `agent.wait`.
pub const KEEP_FINISHED_MS: i64 = 10 * 60_000;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finished {
    /// `ok`, `error`, or `timeout` when the run was stopped at its timeout.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub started_at: i64,
    pub ended_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    session_key: String,
    started_at: i64,
    /// The process running it, by its liveness lock (see [`Liveness`]); absent, or a pid
    /// in registries written by older builds (whose runs are over).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "owner_id")]
    owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    finished: Option<Finished>,
}

#[derive(Default, Serialize, Deserialize)]
struct Persisted {
    version: u32,
    runs: HashMap<String, Record>,
}

/// Reads an owner id, ignoring what older builds wrote there (a pid).
fn owner_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(id) => Some(id),
        _ => None,
    })
}

/// This process's liveness lock: an OS lock held on `processes/<id>` for as long as the
/// registry is open. Another process tells whether this one still runs by trying the lock,
/// which works across PID namespaces and never mistakes a reused pid for its owner.
/// The lock is taken when this process starts its first run (a process that only reads
/// writes nothing).
#[derive(Debug)]
struct Liveness {
    id: String,
    dir: PathBuf,
    held: std::sync::OnceLock<Option<OsLock>>,
}

impl Liveness {
    fn new(dir: PathBuf) -> Liveness {
        Liveness { id: uuid::Uuid::new_v4().to_string(), dir, held: std::sync::OnceLock::new() }
    }

    /// Takes this process's liveness lock (once); answers its id.
    fn claim(&self) -> String {
        self.held.get_or_init(|| OsLock::try_acquire(&self.dir.join(&self.id)).ok().flatten());
        self.id.clone()
    }

    /// Whether the process with this liveness id still runs.
    fn is_alive(&self, id: &str) -> bool {
        if id == self.id {
            return true;
        }
        // The id comes from a file on disk: it must name a file in `processes/` only.
        if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return false;
        }
        let target = self.dir.join(id);
        let mut lock_file = target.clone().into_os_string();
        lock_file.push(".lock");
        if !std::path::Path::new(&lock_file).exists() {
            return false;
        }
        match OsLock::try_acquire(&target) {
            Ok(None) => true,
            Ok(Some(free)) => {
                free.remove(&target);
                false
            }
            Err(_) => true,
        }
    }
}

pub struct Runs {
    path: PathBuf,
    runs: Mutex<HashMap<String, Record>>,
    ended: Condvar,
    clock: Clock,
    liveness: Liveness,
}

impl Runs {
    /// Loads the registry; runs that were going on when the process stopped are ended as
    /// errors.
    pub fn open(path: PathBuf, clock: Clock) -> std::io::Result<Runs> {
        let now = clock() as i64;
        let liveness = Liveness::new(path.parent().unwrap_or_else(|| std::path::Path::new(".")).join("processes"));
        let mut runs = read_registry(&path)?;
        // Another live process's unfinished runs are its own, not ours to end.
        runs.retain(|_, r| r.finished.is_some() || !owned_elsewhere(&liveness, r));
        for record in runs.values_mut() {
            if record.finished.is_none() {
                record.finished = Some(Finished {
                    status: "error".into(),
                    error: Some("the run was interrupted: the gateway stopped while it was going on".into()),
                    reply: None,
                    usage: None,
                    model: None,
                    started_at: record.started_at,
                    ended_at: now,
                });
            }
        }
        Ok(Runs { path, runs: Mutex::new(runs), ended: Condvar::new(), clock, liveness })
    }

    /// Writes the registry: this process's runs as it knows them, and the runs of other
    /// processes as the file has them. The file's OS lock serialises the writers (so no
    /// writer drops another's runs, and the latest state is written last); the in-memory
    /// registry is locked only to copy it, never during the disk I/O.
    fn persist(&self) -> std::io::Result<()> {
        let _file = OsLock::acquire(&self.path)?;
        let now = (self.clock)() as i64;
        // `endedAt` is read from the file: any i64 (saturating, so an extreme one neither
        // overflows nor keeps a run forever by wrapping).
        let current = |r: &Record| r.finished.as_ref().is_none_or(|f| now.saturating_sub(f.ended_at) < KEEP_FINISHED_MS);
        let ours: HashMap<String, Record> = {
            let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
            runs.retain(|_, r| current(r));
            runs.clone()
        };
        let mut merged = read_registry(&self.path).unwrap_or_default();
        merged.retain(|id, r| !ours.contains_key(id) && current(r));
        merged.extend(ours);
        let bytes = serde_json::to_vec_pretty(&Persisted { version: 1, runs: merged }).map_err(std::io::Error::other)?;
        // The registry is this host's own record, rebuilt by the next write: no fsync.
        write_atomically(&self.path, &bytes, Durability::Cache)
    }

    /// Persists, or says on stderr why it could not (the runs go on in memory).
    fn persist_or_warn(&self) {
        if let Err(e) = self.persist() {
            eprintln!("[warn] cannot write the runs registry {}: {e}", self.path.display());
        }
    }

    /// The session a run belongs to.
    pub fn session_of(&self, run_id: &str) -> Option<String> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).get(run_id).map(|r| r.session_key.clone())
    }

    /// Whether another live process runs this run (this process cannot see it end; that
    /// one can).
    pub fn runs_elsewhere(&self, run_id: &str) -> bool {
        if self.runs.lock().unwrap_or_else(|p| p.into_inner()).contains_key(run_id) {
            return false;
        }
        self.on_disk(run_id).is_some_and(|r| r.finished.is_none() && owned_elsewhere(&self.liveness, &r))
    }

    /// A run as the registry file has it (written by any process).
    fn on_disk(&self, run_id: &str) -> Option<Record> {
        read_registry(&self.path).ok()?.remove(run_id)
    }

    /// The run with this id, if it exists (its id, for the caller's convenience).
    pub fn get(&self, run_id: &str) -> Option<String> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).contains_key(run_id).then(|| run_id.to_string())
    }

    /// Starts a run on its own thread. `finish` records the outcome (transcript, entry)
    /// before waiters are told the run has ended.
    pub fn start(
        self: &Arc<Self>,
        request: RunRequest,
        timeout: Duration,
        runtime: Arc<dyn AgentRuntime>,
        finish: impl FnOnce(&RunRequest, &Finished) + Send + 'static,
    ) {
        let started_at = (self.clock)() as i64;
        {
            let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
            let record =
                Record { session_key: request.session_key.clone(), started_at, owner: Some(self.liveness.claim()), finished: None };
            runs.insert(request.run_id.clone(), record);
        }
        self.persist_or_warn();
        let this = self.clone();
        let spawned = std::thread::Builder::new().name(thread_name(&request.run_id)).spawn(move || {
            let began = Instant::now();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime.run(&request))).unwrap_or_else(|_| RunResult {
                status: "error".into(),
                reply: None,
                error: Some("the agent runtime failed".into()),
                usage: None,
                model: None,
                duration: Duration::ZERO,
            });
            let finished = if result.duration > timeout {
                std::thread::sleep(timeout.saturating_sub(began.elapsed()));
                Finished {
                    status: "timeout".into(),
                    error: Some(format!("the run timed out after {}s and was stopped", timeout.as_secs())),
                    reply: None,
                    usage: None,
                    model: result.model,
                    started_at,
                    ended_at: (this.clock)() as i64,
                }
            } else {
                std::thread::sleep(result.duration.saturating_sub(began.elapsed()));
                Finished {
                    status: if result.status == "ok" { "ok".into() } else { "error".into() },
                    error: if result.status == "ok" { None } else { Some(result.error.unwrap_or_else(|| "agent error".into())) },
                    reply: result.reply,
                    usage: result.usage,
                    model: result.model,
                    started_at,
                    ended_at: (this.clock)() as i64,
                }
            };
            finish(&request, &finished);
            if let Some(record) = this.runs.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&request.run_id) {
                record.finished = Some(finished);
            }
            this.persist_or_warn();
            this.ended.notify_all();
        });
        if let Err(e) = spawned {
            let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
            let now = (self.clock)() as i64;
            if let Some(record) = runs.values_mut().find(|r| r.finished.is_none() && r.started_at == started_at) {
                record.finished = Some(Finished {
                    status: "error".into(),
                    error: Some(format!("cannot start the run: {e}")),
                    reply: None,
                    usage: None,
                    model: None,
                    started_at,
                    ended_at: now,
                });
            }
            self.ended.notify_all();
        }
    }

    /// Waits until no run is going on (or the timeout passes); answers whether none is.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = crate::limits::deadline(timeout);
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if runs.values().all(|r| r.finished.is_some()) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            runs = self.ended.wait_timeout(runs, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    /// `agent.wait`: the run's end, or `timeout` when it does not end within `timeout`.
    pub fn wait(&self, run_id: &str, timeout: Duration) -> WaitResult {
        let deadline = crate::limits::deadline(timeout);
        // A run this process does not know may have been run and ended by another one (the
        // file is read before the registry is locked: no disk I/O under it).
        let known = self.runs.lock().unwrap_or_else(|p| p.into_inner()).contains_key(run_id);
        let ended_elsewhere = if known { None } else { self.on_disk(run_id).and_then(|r| r.finished) };
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(finished) = runs.get(run_id).and_then(|r| r.finished.clone()).or_else(|| ended_elsewhere.clone()) {
                return WaitResult {
                    status: Some(finished.status),
                    error: finished.error,
                    started_at: Some(finished.started_at),
                    ended_at: Some(finished.ended_at),
                    usage: finished.usage,
                    model: finished.model,
                };
            }
            let now = Instant::now();
            if now >= deadline {
                return WaitResult { status: Some("timeout".into()), ..Default::default() };
            }
            runs = self.ended.wait_timeout(runs, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

/// A run's thread name: the run id is the guest's idempotency key, so only its first
/// few ASCII letters, digits and dashes are used (a NUL would make the spawn panic).
fn thread_name(run_id: &str) -> String {
    let safe: String = run_id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(24).collect();
    format!("run-{safe}")
}

/// Whether another process that is still alive runs this run.
fn owned_elsewhere(liveness: &Liveness, record: &Record) -> bool {
    record.owner.as_deref().is_some_and(|owner| owner != liveness.id && liveness.is_alive(owner))
}

/// The registry as the file has it. A file that cannot be read as a registry is moved
/// aside (`runs.json.unreadable-<ms>`, never lost) and the registry starts empty.
fn read_registry(path: &std::path::Path) -> std::io::Result<HashMap<String, Record>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(e),
    };
    match serde_json::from_slice::<Persisted>(&bytes) {
        Ok(persisted) => Ok(persisted.runs),
        Err(e) => {
            let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
            let mut aside = path.as_os_str().to_owned();
            aside.push(format!(".unreadable-{stamp}"));
            eprintln!(
                "[warn] the runs registry {} is unreadable ({e}); it is kept as {}",
                path.display(),
                std::path::Path::new(&aside).display()
            );
            let _ = std::fs::rename(path, &aside);
            Ok(HashMap::new())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gateway::embedded::runtime::EchoRuntime;

    fn open(path: &std::path::Path) -> Arc<Runs> {
        Arc::new(Runs::open(path.to_path_buf(), Arc::new(|| 1_767_225_600_000)).unwrap())
    }

    fn run(runs: &Arc<Runs>, id: &str) -> WaitResult {
        let request = RunRequest {
            run_id: id.into(),
            session_key: "agent:main:main".into(),
            agent_id: "main".into(),
            message: "hi".into(),
            extra_system_prompt: None,
            lane: None,
            channel: None,
            params: serde_json::Value::Null,
        };
        runs.start(request, Duration::from_secs(5), Arc::new(EchoRuntime), |_, _| {});
        runs.wait(id, Duration::from_secs(5))
    }

    fn on_file(path: &std::path::Path) -> HashMap<String, Record> {
        serde_json::from_slice::<Persisted>(&std::fs::read(path).unwrap()).unwrap().runs
    }

    #[test]
    fn processes_sharing_a_registry_keep_each_others_runs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.json");
        let (a, b) = (open(&path), open(&path));
        assert_eq!(run(&a, "run-a").status.as_deref(), Some("ok"));
        assert_eq!(run(&b, "run-b").status.as_deref(), Some("ok"));
        let kept = on_file(&path);
        assert!(kept.contains_key("run-a") && kept.contains_key("run-b"), "{:?}", kept.keys());
        // `b` never ran `run-a`, yet sees how it ended, at once.
        let started = Instant::now();
        assert_eq!(b.wait("run-a", Duration::from_secs(5)).status.as_deref(), Some("ok"));
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(!b.runs_elsewhere("run-a"));
    }

    #[test]
    fn a_live_processs_unfinished_run_is_left_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.json");
        // Another process, alive: it holds its liveness lock (whatever PID namespace it is in).
        let other = open(&path);
        let theirs = Record { session_key: "agent:main:main".into(), started_at: 1, owner: Some(other.liveness.claim()), finished: None };
        let gone = Record { owner: Some("0f0e0d0c-dead-4000-8000-000000000000".into()), ..theirs.clone() };
        let old = Record { owner: None, ..theirs.clone() };
        let file = Persisted { version: 1, runs: HashMap::from([("theirs".into(), theirs), ("gone".into(), gone), ("old".into(), old)]) };
        std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
        let runs = open(&path);
        assert!(runs.runs_elsewhere("theirs"));
        assert!(!runs.runs_elsewhere("gone") && !runs.runs_elsewhere("old"));
        assert_eq!(runs.wait("gone", Duration::ZERO).status.as_deref(), Some("error"), "a run nobody runs is ended as interrupted");
        run(&runs, "ours");
        let kept = on_file(&path);
        assert!(kept["theirs"].finished.is_none(), "another process's run is not ended by this one");
        assert!(kept["gone"].finished.is_some() && kept["ours"].finished.is_some());
        // When that process ends, its runs are nobody's.
        drop(other);
        assert!(!runs.runs_elsewhere("theirs"));
    }

    #[test]
    fn an_unreadable_registry_is_kept_aside_not_lost() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.json");
        std::fs::write(&path, "{\"version\": 1, \"runs\": [tru").unwrap();
        let runs = open(&path);
        run(&runs, "after");
        let aside: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().contains("unreadable")).collect();
        assert_eq!(aside.len(), 1);
        assert_eq!(std::fs::read_to_string(aside[0].path()).unwrap(), "{\"version\": 1, \"runs\": [tru");
        assert!(on_file(&path).contains_key("after"));
    }

    #[test]
    fn an_empty_lock_file_left_by_an_older_build_blocks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.json");
        std::fs::write(dir.path().join("runs.json.lock"), "").unwrap();
        let runs = open(&path);
        let started = Instant::now();
        assert_eq!(run(&runs, "r").status.as_deref(), Some("ok"));
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert!(on_file(&path).contains_key("r"));
    }
}
