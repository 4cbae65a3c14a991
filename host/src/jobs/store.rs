//! Pending jobs: on disk (`<dir>/<key>.json`), so a host restart resumes what was going on
//! (one file a job, written atomically, removed when the job ends), or in memory for runs
//! that keep nothing (conformance, one instance's jobs). Files are named by keys the host
//! assigns, never by the ids the guest chose, so no guest can name a path, nor overwrite
//! another agent's job by reusing its id.
//!
//! The store keeps an index of its jobs in memory (key, agent, what each waits for), so
//! the runner never re-reads every job file to decide what is ready, and an agent's count
//! of pending jobs is a lookup (10,000 pending flows stay cheap). The index follows the directory: it is brought
//! up to date when the directory has changed (another process saved or removed a job),
//! reading only the files that are new or changed. A claim always reads the job as it is on
//! disk, so a stale index only ever delays a job, never steps it on old state.
//!
//! Beside the jobs, `calls/` holds the *intents* of tool calls in flight that have started
//! side effects (see [`super::intent`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

pub use session_tools_host_rules::record::{JobRecord, WakeRecord};

use super::intent::{CallIntent, IntentFile};
use crate::os_lock::OsLock;
use crate::private_files::{create_exclusively, sweep_temporaries, write_atomically, Durability};
use session_tools_host_rules::keys::valid_key;
use session_tools_host_rules::pending::in_step_order;

/// What the index knows of a record.
fn indexed(record: &JobRecord, stamp: Option<Stamp>) -> Indexed {
    Indexed { key: record.key.clone(), agent: record.agent.clone(), wake: record.wake.clone(), call: record.call.clone(), stamp }
}

/// A claimed job: released when dropped. On disk, its lock file is removed with it once the
/// job has ended (while still held, so a process that opened it meanwhile finds no job).
#[derive(Debug)]
pub struct JobClaim {
    held: Held,
}

#[derive(Debug)]
enum Held {
    File { path: PathBuf, lock: Option<OsLock> },
    Memory { key: String, claimed: Arc<Mutex<HashSet<String>>> },
}

impl Drop for JobClaim {
    fn drop(&mut self) {
        match &mut self.held {
            Held::File { path, lock } => {
                if let Some(lock) = lock.take() {
                    if path.exists() {
                        drop(lock);
                    } else {
                        lock.remove(path);
                    }
                }
            }
            Held::Memory { key, claimed } => {
                crate::poison::lock_whole(claimed).remove(key);
            }
        }
    }
}

/// What the index knows of a pending job.
#[derive(Debug, Clone, PartialEq)]
pub struct Indexed {
    pub key: String,
    pub agent: String,
    pub wake: WakeRecord,
    pub call: Option<String>,
    /// The file as it was when read (`None`: not known; read it again at the next scan).
    stamp: Option<Stamp>,
}

/// A file's identity and version, to tell whether it changed since it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    inode: u64,
    modified: Option<SystemTime>,
    len: u64,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        Stamp { inode, modified: meta.modified().ok(), len: meta.len() }
    }
}

/// How often the directory is looked at for other processes' changes, at most; and how
/// often at least, even when its modification time says nothing changed (a clock step).
const SCAN_AT_MOST: Duration = Duration::from_millis(200);
const SCAN_AT_LEAST: Duration = Duration::from_secs(5);

#[derive(Default)]
struct Index {
    jobs: HashMap<String, Indexed>,
    per_agent: HashMap<String, usize>,
    /// Call intents on disk (their ids).
    calls: HashSet<String>,
    /// The directory's modification time at the last scan, and when it was.
    scanned: Option<(Option<SystemTime>, Option<SystemTime>, Instant)>,
}

impl Index {
    fn insert(&mut self, entry: Indexed) {
        if let Some(old) = self.jobs.insert(entry.key.clone(), entry.clone()) {
            self.drop_count(&old.agent);
        }
        *self.per_agent.entry(entry.agent).or_default() += 1;
    }

    fn remove(&mut self, key: &str) {
        if let Some(old) = self.jobs.remove(key) {
            self.drop_count(&old.agent);
        }
    }

    fn drop_count(&mut self, agent: &str) {
        if let Some(n) = self.per_agent.get_mut(agent) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_agent.remove(agent);
            }
        }
    }
}

/// Where pending jobs are kept.
pub struct JobStore {
    backend: Backend,
}

enum Backend {
    Dir { dir: PathBuf, index: Mutex<Index> },
    Memory { jobs: Mutex<HashMap<String, JobRecord>>, claimed: Arc<Mutex<HashSet<String>>> },
}

/// Removes every `<job>.json.<pid>.<uuid>.tmp` of the directory older than a minute.
fn sweep_temporaries_in(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut targets: Vec<PathBuf> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let (job, _) = name.split_once(".json.")?;
            name.ends_with(".tmp").then(|| dir.join(format!("{job}.json")))
        })
        .collect();
    targets.dedup();
    for target in targets {
        sweep_temporaries(&target, Duration::from_secs(60));
    }
}

fn read_record(path: &Path, key: &str) -> Result<JobRecord, String> {
    let bytes = crate::private_files::read_private(path).map_err(|e| e.to_string())?;
    JobRecord::read(key, &bytes)
}

impl JobStore {
    /// Jobs in a directory (created at the first job).
    pub fn in_dir(dir: PathBuf) -> JobStore {
        JobStore { backend: Backend::Dir { dir, index: Mutex::new(Index::default()) } }
    }

    /// Jobs in memory, gone with the store.
    pub fn in_memory() -> JobStore {
        JobStore { backend: Backend::Memory { jobs: Mutex::new(HashMap::new()), claimed: Arc::new(Mutex::new(HashSet::new())) } }
    }

    /// The directory of the jobs, if they are on disk.
    pub fn dir(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Dir { dir, .. } => Some(dir),
            Backend::Memory { .. } => None,
        }
    }

    pub fn save(&self, record: &JobRecord) -> std::io::Result<()> {
        match &self.backend {
            Backend::Dir { dir, index } => {
                let path = Self::path(dir, &record.key)?;
                crate::private_files::create_private_dir(dir)?;
                let bytes = record.to_file();
                write_atomically(&path, &bytes, Durability::Synced)?;
                let stamp = std::fs::symlink_metadata(&path).ok().map(|m| Stamp::of(&m));
                crate::poison::lock_rebuilt(index).insert(indexed(record, stamp));
                Ok(())
            }
            Backend::Memory { jobs, .. } => {
                crate::poison::lock_whole(jobs).insert(record.key.clone(), record.clone());
                Ok(())
            }
        }
    }

    /// Saves a job only if no job has its key (answers whether it was saved): a tool call
    /// committed again after a stop saves what it had not saved, and leaves alone what it
    /// had.
    pub fn save_new(&self, record: &JobRecord) -> std::io::Result<bool> {
        match &self.backend {
            Backend::Dir { dir, index } => {
                let path = Self::path(dir, &record.key)?;
                crate::private_files::create_private_dir(dir)?;
                let bytes = record.to_file();
                match create_exclusively(&path, &bytes) {
                    Ok(()) => {
                        let stamp = std::fs::symlink_metadata(&path).ok().map(|m| Stamp::of(&m));
                        crate::poison::lock_rebuilt(index).insert(indexed(record, stamp));
                        Ok(true)
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                    Err(e) => Err(e),
                }
            }
            Backend::Memory { jobs, .. } => {
                let mut jobs = crate::poison::lock_whole(jobs);
                if jobs.contains_key(&record.key) {
                    return Ok(false);
                }
                jobs.insert(record.key.clone(), record.clone());
                Ok(true)
            }
        }
    }

    fn path(dir: &Path, key: &str) -> std::io::Result<PathBuf> {
        if !valid_key(key) {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("invalid job key {key:?}")));
        }
        Ok(dir.join(format!("{key}.json")))
    }

    /// Claims a job for this process (no other process or thread steps it meanwhile) and
    /// answers its current record; `None` when it is held or has ended. On disk the claim
    /// is an OS lock, so a process killed while it holds one leaves nothing held.
    pub fn claim(&self, key: &str) -> Option<(JobClaim, JobRecord)> {
        match &self.backend {
            Backend::Dir { dir, index } => {
                let path = Self::path(dir, key).ok()?;
                let lock = OsLock::try_acquire(&path).ok().flatten()?;
                let claim = JobClaim { held: Held::File { path: path.clone(), lock: Some(lock) } };
                let stamp = std::fs::symlink_metadata(&path).ok().map(|m| Stamp::of(&m));
                match read_record(&path, key) {
                    Ok(record) => {
                        crate::poison::lock_rebuilt(index).insert(indexed(&record, stamp));
                        Some((claim, record))
                    }
                    Err(_) => {
                        if stamp.is_none() {
                            crate::poison::lock_rebuilt(index).remove(key);
                        }
                        None
                    }
                }
            }
            Backend::Memory { jobs, claimed } => {
                let record = crate::poison::lock_whole(jobs).get(key).cloned()?;
                if !crate::poison::lock_whole(claimed).insert(key.to_string()) {
                    return None;
                }
                Some((JobClaim { held: Held::Memory { key: key.to_string(), claimed: claimed.clone() } }, record))
            }
        }
    }

    pub fn remove(&self, key: &str) {
        match &self.backend {
            Backend::Dir { dir, index } => {
                if let Ok(path) = Self::path(dir, key) {
                    let _ = std::fs::remove_file(path);
                }
                crate::poison::lock_rebuilt(index).remove(key);
            }
            Backend::Memory { jobs, .. } => {
                crate::poison::lock_whole(jobs).remove(key);
            }
        }
    }

    /// How many jobs of an agent are pending (a lookup in the index).
    pub fn pending_of(&self, agent: &str) -> usize {
        match &self.backend {
            Backend::Dir { index, .. } => {
                self.refresh(false, &mut Vec::new());
                crate::poison::lock_rebuilt(index).per_agent.get(agent).copied().unwrap_or(0)
            }
            Backend::Memory { jobs, .. } => crate::poison::lock_whole(jobs).values().filter(|r| r.agent == agent).count(),
        }
    }

    /// The pending jobs as the index has them (brought up to date when the directory
    /// changed), with the call intents on disk; unreadable files are answered in
    /// `problems` (they stay on disk).
    pub fn pending(&self, problems: &mut Vec<String>) -> (Vec<Indexed>, HashSet<String>) {
        match &self.backend {
            Backend::Dir { index, .. } => {
                self.refresh(false, problems);
                let index = crate::poison::lock_rebuilt(index);
                let mut jobs: Vec<Indexed> = index.jobs.values().cloned().collect();
                jobs.sort_by(|a, b| a.key.cmp(&b.key));
                (jobs, index.calls.clone())
            }
            Backend::Memory { jobs, .. } => {
                let jobs = crate::poison::lock_whole(jobs);
                let mut all: Vec<Indexed> = jobs.values().map(|r| indexed(r, None)).collect();
                all.sort_by(|a, b| a.key.cmp(&b.key));
                (all, HashSet::new())
            }
        }
    }

    /// Brings the index up to date with the directory: at most every [`SCAN_AT_MOST`]
    /// (unless `force`), and only when the directory changed or [`SCAN_AT_LEAST`] passed;
    /// only new or changed files are read.
    fn refresh(&self, force: bool, problems: &mut Vec<String>) {
        let Backend::Dir { dir, index } = &self.backend else { return };
        let modified = |path: &Path| std::fs::metadata(path).ok().and_then(|m| m.modified().ok());
        let (dir_time, calls_time) = (modified(dir), modified(&dir.join("calls")));
        let known: HashMap<String, Option<Stamp>> = {
            let index = crate::poison::lock_rebuilt(index);
            if let Some((seen_dir, seen_calls, at)) = index.scanned {
                let unchanged = seen_dir == dir_time && seen_calls == calls_time && at.elapsed() < SCAN_AT_LEAST;
                if (!force && at.elapsed() < SCAN_AT_MOST) || unchanged {
                    return;
                }
            }
            index.jobs.iter().map(|(k, v)| (k.clone(), v.stamp)).collect()
        };
        // Job files half-written by a process that died are swept once they are old.
        sweep_temporaries_in(dir);
        let mut found: Vec<Indexed> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                let key = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                if path.extension().is_none_or(|e| e != "json") || !valid_key(&key) {
                    continue;
                }
                let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
                if !meta.is_file() {
                    continue;
                }
                let stamp = Stamp::of(&meta);
                seen.insert(key.clone());
                if known.get(&key).is_some_and(|s| *s == Some(stamp)) {
                    continue;
                }
                match read_record(&path, &key) {
                    Ok(record) => found.push(indexed(&record, Some(stamp))),
                    Err(e) => problems.push(format!("{}: {e}", path.display())),
                }
            }
        }
        CallIntent::sweep(&dir.join("calls"));
        let calls = CallIntent::ids_in(&dir.join("calls"));
        let mut index = crate::poison::lock_rebuilt(index);
        let gone: Vec<String> = index.jobs.keys().filter(|k| !seen.contains(*k)).cloned().collect();
        for key in gone {
            index.remove(&key);
        }
        for entry in found {
            index.insert(entry);
        }
        index.calls = calls;
        index.scanned = Some((dir_time, calls_time, Instant::now()));
    }

    /// Every pending job, read from its file; unreadable files are reported, not lost (they
    /// stay on disk).
    pub fn load_all(&self) -> (Vec<JobRecord>, Vec<String>) {
        let dir = match &self.backend {
            Backend::Dir { dir, .. } => dir,
            Backend::Memory { jobs, .. } => {
                let mut all: Vec<JobRecord> = crate::poison::lock_whole(jobs).values().cloned().collect();
                in_step_order(&mut all);
                return (all, Vec::new());
            }
        };
        let mut jobs = Vec::new();
        let mut problems = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return (jobs, problems);
        };
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            let key = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            if path.extension().is_none_or(|e| e != "json") || !valid_key(&key) || !path.is_file() {
                continue;
            }
            match read_record(&path, &key) {
                Ok(record) => jobs.push(record),
                Err(e) => problems.push(format!("{}: {e}", path.display())),
            }
        }
        in_step_order(&mut jobs);
        (jobs, problems)
    }

    /// The directory of call intents, when jobs are kept on disk.
    pub fn calls_dir(&self) -> Option<PathBuf> {
        self.dir().map(|d| d.join("calls"))
    }

    /// Forgets that an intent is on disk (it was just removed by this process).
    pub fn forget_call(&self, id: &str) {
        if let Backend::Dir { index, .. } = &self.backend {
            crate::poison::lock_rebuilt(index).calls.remove(id);
        }
    }
}
