//! Tool calls exactly once in effect across a stop.
//!
//! A tool call that writes (`sessions_send`, `sessions_spawn`) makes side effects and then
//! answers the jobs that carry its work on; a process that stops between the two would
//! leave a run going with no job to announce it. So a call's side effects are preceded by
//! its *intent*: at the call's first gateway call that writes, the host writes
//! `calls/<id>.json` (who called, which tool, the arguments, and the seed of the call's
//! ids) and holds its OS lock until the call's jobs are kept. A process that finds an
//! intent nobody holds makes the call again, once, with the same ids: the guest's ids come
//! from the host ([`SeededIds`]), so the replay sends the same idempotency keys, which the
//! gateway de-duplicates (the same run, no second message), and answers the same jobs,
//! which are kept under keys derived from the intent (a job already kept is left as it is).
//! Jobs of a call are not stepped while its intent is on disk. The intent's record, its
//! transitions and the gateway calls that write ([`WRITES`]) are the rules both hosts share
//! (`session_tools_host_rules::intent`); here are its file, its OS lock and the recorder.
//!
//! [`WRITES`]: session_tools_host_rules::intent::WRITES

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use session_tools_contract::{self as ports, LogLevel};
use session_tools_host_rules::seeded;

use crate::faults::fault_point;
use crate::gateway::*;
use crate::os_lock::OsLock;
use crate::private_files::{write_atomically, Durability};
use crate::sandbox::Services;

pub use session_tools_host_rules::intent::CallIntent;

/// Where an intent is kept: `calls/<id>.json` beside the jobs, under its OS lock.
pub(crate) trait IntentFile: Sized {
    /// The ids of the intents in `dir`.
    fn ids_in(dir: &Path) -> HashSet<String>;
    /// Removes what writers that died left in `dir`.
    fn sweep(dir: &Path);
    /// Writes the intent and holds its lock.
    fn record(&self, dir: &Path) -> std::io::Result<Held>;
    /// Claims an intent nobody holds: answers it and its lock.
    fn claim(dir: &Path, id: &str) -> Option<(CallIntent, Held)>;
    /// Writes the intent again (its replay count).
    fn rewrite(&self, held: &Held) -> std::io::Result<()>;
}

fn intent_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

impl IntentFile for CallIntent {
    /// The ids of the intents in `dir`.
    fn ids_in(dir: &Path) -> HashSet<String> {
        let Ok(entries) = std::fs::read_dir(dir) else { return HashSet::new() };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.strip_suffix(".json")?;
                session_tools_host_rules::keys::valid_key(id).then(|| id.to_string())
            })
            .collect()
    }

    /// Removes what writers that died left in `dir`: temporaries older than a minute, and
    /// the lock files of intents that were never written (nobody holds them).
    fn sweep(dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(target) = name.strip_suffix(".lock") {
                let target = dir.join(target);
                if !target.exists() {
                    if let Ok(Some(free)) = OsLock::try_acquire(&target) {
                        free.remove(&target);
                    }
                }
            } else if let Some((intent, _)) = name.split_once(".json.") {
                if name.ends_with(".tmp") {
                    crate::private_files::sweep_temporaries(&dir.join(format!("{intent}.json")), std::time::Duration::from_secs(60));
                }
            }
        }
    }

    /// Writes the intent and holds its lock (released by [`Held::done`], or by the
    /// process's end).
    fn record(&self, dir: &Path) -> std::io::Result<Held> {
        let path = intent_path(dir, &self.id);
        crate::private_files::create_private_dir(dir)?;
        let lock = OsLock::acquire(&path)?;
        write_atomically(&path, &self.to_file(), Durability::Synced)?;
        fault_point("call.intent-recorded");
        Ok(Held { path, lock: Some(lock) })
    }

    /// Claims an intent nobody holds (its process has stopped): answers it and its lock.
    fn claim(dir: &Path, id: &str) -> Option<(CallIntent, Held)> {
        let path = intent_path(dir, id);
        let lock = OsLock::try_acquire(&path).ok().flatten()?;
        let held = Held { path: path.clone(), lock: Some(lock) };
        match crate::private_files::read_private(&path).ok().and_then(|b| CallIntent::read(id, &b)) {
            Some(intent) => Some((intent, held)),
            None if !path.exists() => {
                held.done();
                None
            }
            _ => {
                // Unreadable: kept aside, never replayed blindly.
                let mut aside = path.clone().into_os_string();
                aside.push(".unreadable");
                let _ = std::fs::rename(&path, aside);
                held.done();
                None
            }
        }
    }

    /// Writes the intent again (its replay count).
    fn rewrite(&self, held: &Held) -> std::io::Result<()> {
        write_atomically(&held.path, &self.to_file(), Durability::Synced)
    }
}

/// A held intent: its file and OS lock.
#[derive(Debug)]
pub struct Held {
    path: PathBuf,
    lock: Option<OsLock>,
}

impl Held {
    /// The call's jobs are kept: the intent is removed (while held, with its lock file).
    pub fn done(mut self) {
        let _ = std::fs::remove_file(&self.path);
        if let Some(lock) = self.lock.take() {
            lock.remove(&self.path);
        }
    }
}

/// Records a call's intent at its first gateway call that writes (see the module).
pub(crate) struct IntentRecorder {
    intent: CallIntent,
    dir: Option<PathBuf>,
    held: Mutex<Option<std::io::Result<Held>>>,
    recorded: AtomicBool,
}

impl IntentRecorder {
    /// For a call; `dir: None` records nothing (jobs kept in memory).
    pub fn new(intent: CallIntent, dir: Option<PathBuf>) -> IntentRecorder {
        IntentRecorder { intent, dir, held: Mutex::new(None), recorded: AtomicBool::new(false) }
    }

    pub fn id(&self) -> &str {
        &self.intent.id
    }

    /// Records the intent, once; a failure refuses the write that asked for it (no side
    /// effect without its intent on disk).
    fn before_write(&self) -> GatewayResult<()> {
        let Some(dir) = &self.dir else { return Ok(()) };
        let mut held = crate::poison::lock_whole(&self.held);
        if held.is_none() {
            *held = Some(self.intent.record(dir));
            self.recorded.store(true, Ordering::SeqCst);
        }
        match held.as_ref() {
            Some(Ok(_)) | None => Ok(()),
            Some(Err(e)) => {
                Err(GatewayError::of(ErrorKind::Unavailable, format!("cannot record the call's intent in {}: {e}", dir.display())))
            }
        }
    }

    /// Whether the intent was written (the call's jobs are then kept as the intent's).
    pub fn recorded(&self) -> bool {
        self.recorded.load(Ordering::SeqCst) && matches!(*crate::poison::lock_whole(&self.held), Some(Ok(_)))
    }

    /// The intent's lock, once the call's jobs are kept.
    pub fn take(&self) -> Option<Held> {
        match crate::poison::lock_whole(&self.held).take() {
            Some(Ok(held)) => Some(held),
            _ => None,
        }
    }

    /// A gateway that records this intent before its first call that writes.
    pub fn guard(self: &Arc<Self>, inner: Arc<dyn Gateway>) -> Arc<dyn Gateway> {
        Arc::new(RecordingGateway { inner, recorder: self.clone() })
    }
}

/// The gateway of a call whose intent is recorded before its first write. Wrappers forward
/// every method.
struct RecordingGateway {
    inner: Arc<dyn Gateway>,
    recorder: Arc<IntentRecorder>,
}

impl std::fmt::Debug for RecordingGateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingGateway").field("call", &self.recorder.intent.id).finish_non_exhaustive()
    }
}

impl Gateway for RecordingGateway {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
        self.inner.sessions_list(params)
    }
    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String> {
        self.inner.sessions_resolve(params)
    }
    fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History> {
        self.inner.chat_history(params)
    }
    fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        self.inner.chat_histories(params)
    }
    fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted> {
        self.recorder.before_write()?;
        self.inner.agent(params)
    }
    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult> {
        self.inner.agent_wait(params)
    }
    fn send(&self, params: &SendParams) -> GatewayResult<()> {
        self.recorder.before_write()?;
        self.inner.send(params)
    }
    fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()> {
        self.recorder.before_write()?;
        self.inner.sessions_patch(params)
    }
    fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()> {
        self.recorder.before_write()?;
        self.inner.sessions_delete(params)
    }
}

/// The clock, ids and log of one call or one job step: the ids are derived from a seed
/// ([`seeded`], the rule both hosts share), so the same call or step made again after a stop
/// gets the same ids (and so sends the same idempotency keys).
pub(crate) struct SeededIds {
    base: Arc<dyn Services>,
    seed: [u8; 32],
    next: AtomicU64,
}

impl SeededIds {
    /// The ids seeded by `parts` ([`seeded::call_seed`], [`seeded::step_seed`]).
    pub fn new<S: AsRef<str>>(base: Arc<dyn Services>, parts: &[S]) -> SeededIds {
        SeededIds { base, seed: seeded::seed_of(parts), next: AtomicU64::new(0) }
    }
}

impl ports::Host for SeededIds {
    fn now_ms(&self) -> u64 {
        self.base.now_ms()
    }

    fn new_uuid(&self) -> String {
        seeded::nth_id(&self.seed, self.next.fetch_add(1, Ordering::SeqCst))
    }

    fn log(&self, level: LogLevel, message: &str) {
        self.base.log(level, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::SystemServices;
    use session_tools_contract::{Caller, Host};

    #[test]
    fn seeded_ids_repeat_for_the_same_seed_and_look_like_v4() {
        let base: Arc<dyn Services> = Arc::new(SystemServices::new(Arc::new(|_, _| {})));
        let (a, b, c) = (
            SeededIds::new(base.clone(), &["call", "x"]),
            SeededIds::new(base.clone(), &["call", "x"]),
            SeededIds::new(base, &["call", "y"]),
        );
        let first: Vec<String> = (0..3).map(|_| a.new_uuid()).collect();
        assert_eq!(first, (0..3).map(|_| b.new_uuid()).collect::<Vec<_>>());
        assert_ne!(first[0], c.new_uuid());
        assert_ne!(first[0], first[1]);
        for id in &first {
            let parsed = uuid::Uuid::parse_str(id).unwrap();
            assert_eq!(parsed.get_version_num(), 4, "{id}");
            assert_eq!(id, &id.to_lowercase());
        }
    }

    #[test]
    fn an_intent_is_held_while_recorded_and_gone_when_done() {
        let dir = tempfile::tempdir().unwrap();
        let intent = CallIntent {
            id: "c1".into(),
            agent: "main".into(),
            caller: Caller::default(),
            tool: "sessions_spawn".into(),
            arguments: "{}".into(),
            replays: 0,
        };
        let held = intent.record(dir.path()).unwrap();
        assert_eq!(CallIntent::ids_in(dir.path()), HashSet::from(["c1".to_string()]));
        assert!(CallIntent::claim(dir.path(), "c1").is_none(), "held by its call");
        drop(held);
        let (claimed, held) = CallIntent::claim(dir.path(), "c1").expect("free once its process let go");
        assert_eq!(claimed, intent);
        held.done();
        assert!(CallIntent::ids_in(dir.path()).is_empty());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no lock file left");
    }
}
