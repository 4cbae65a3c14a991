//! Pending jobs: on disk (`<dir>/<key>.json`), so a host restart resumes what was going on
//! (one file a job, written atomically, removed when the job ends), or in memory for runs
//! that keep nothing (conformance, one instance's jobs). Files are named by keys the host
//! assigns, never by the ids the guest chose, so no guest can name a path, nor overwrite
//! another agent's job by reusing its id.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use session_tools_guest::ports::WaitParams;
use session_tools_guest::{Caller, Job, Wake};

use crate::gateway::embedded::files::{sweep_temporaries, write_atomically, Durability};
use crate::gateway::embedded::lock::OsLock;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum WakeRecord {
    Now,
    RunEnd { wait: WaitParams },
    At { at: u64 },
}

/// A job and who it runs for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobRecord {
    /// The host's name for the job (its file name); kept while the guest continues the
    /// job under the same id.
    #[serde(skip)]
    pub key: String,
    /// The guest's id for the job.
    pub id: String,
    pub kind: String,
    pub session_key: String,
    pub state: String,
    pub wake: WakeRecord,
    /// The agent whose instance runs it.
    pub agent: String,
    /// The caller whose tool call started it (its visibility applies to the job).
    pub caller: Caller,
    /// How many job steps led to it since its tool call (bounded per agent).
    #[serde(default)]
    pub steps: u32,
}

impl JobRecord {
    /// A new job, under a new key.
    pub fn new(job: Job, agent: &str, caller: &Caller) -> JobRecord {
        JobRecord::with_key(uuid::Uuid::new_v4().to_string(), job, agent, caller)
    }

    /// The next step of a job (or a new job) under a given key.
    pub fn with_key(key: String, job: Job, agent: &str, caller: &Caller) -> JobRecord {
        let wake = match job.wake {
            Wake::Now => WakeRecord::Now,
            Wake::RunEnd(wait) => WakeRecord::RunEnd { wait },
            Wake::At(at) => WakeRecord::At { at },
        };
        JobRecord {
            key,
            id: job.id,
            kind: job.kind,
            session_key: job.session_key,
            state: job.state,
            wake,
            agent: agent.to_string(),
            caller: caller.clone(),
            steps: 0,
        }
    }

    pub fn job(&self) -> Job {
        let wake = match &self.wake {
            WakeRecord::Now => Wake::Now,
            WakeRecord::RunEnd { wait } => Wake::RunEnd(wait.clone()),
            WakeRecord::At { at } => Wake::At(*at),
        };
        Job { id: self.id.clone(), kind: self.kind.clone(), session_key: self.session_key.clone(), state: self.state.clone(), wake }
    }
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
                claimed.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
            }
        }
    }
}

/// Removes every `<job>.json.<pid>.<uuid>.tmp` of the directory older than a minute.
fn sweep_temporaries_in(dir: &std::path::Path) {
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
        sweep_temporaries(&target, std::time::Duration::from_secs(60));
    }
}

/// Where pending jobs are kept.
pub struct JobStore {
    backend: Backend,
}

enum Backend {
    Dir(PathBuf),
    Memory { jobs: Mutex<HashMap<String, JobRecord>>, claimed: Arc<Mutex<HashSet<String>>> },
}

/// Whether a key can name a job file (what the host assigns, or an older file's stem).
fn valid_key(key: &str) -> bool {
    !key.is_empty() && key.len() <= 128 && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl JobStore {
    /// Jobs in a directory (created at the first job).
    pub fn in_dir(dir: PathBuf) -> JobStore {
        JobStore { backend: Backend::Dir(dir) }
    }

    /// Jobs in memory, gone with the store.
    pub fn in_memory() -> JobStore {
        JobStore { backend: Backend::Memory { jobs: Mutex::new(HashMap::new()), claimed: Arc::new(Mutex::new(HashSet::new())) } }
    }

    pub fn save(&self, record: &JobRecord) -> std::io::Result<()> {
        match &self.backend {
            Backend::Dir(dir) => {
                let path = Self::path(dir, &record.key)?;
                std::fs::create_dir_all(dir)?;
                let bytes = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
                write_atomically(&path, &bytes, Durability::Synced)
            }
            Backend::Memory { jobs, .. } => {
                jobs.lock().unwrap_or_else(|p| p.into_inner()).insert(record.key.clone(), record.clone());
                Ok(())
            }
        }
    }

    fn path(dir: &std::path::Path, key: &str) -> std::io::Result<PathBuf> {
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
            Backend::Dir(dir) => {
                let path = Self::path(dir, key).ok()?;
                let lock = OsLock::try_acquire(&path).ok().flatten()?;
                let claim = JobClaim { held: Held::File { path: path.clone(), lock: Some(lock) } };
                let mut record = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice::<JobRecord>(&b).ok())?;
                record.key = key.to_string();
                Some((claim, record))
            }
            Backend::Memory { jobs, claimed } => {
                let record = jobs.lock().unwrap_or_else(|p| p.into_inner()).get(key).cloned()?;
                if !claimed.lock().unwrap_or_else(|p| p.into_inner()).insert(key.to_string()) {
                    return None;
                }
                Some((JobClaim { held: Held::Memory { key: key.to_string(), claimed: claimed.clone() } }, record))
            }
        }
    }

    pub fn remove(&self, key: &str) {
        match &self.backend {
            Backend::Dir(dir) => {
                if let Ok(path) = Self::path(dir, key) {
                    let _ = std::fs::remove_file(path);
                }
            }
            Backend::Memory { jobs, .. } => {
                jobs.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
            }
        }
    }

    /// How many jobs of an agent are pending.
    pub fn pending_of(&self, agent: &str) -> usize {
        self.load_all().0.iter().filter(|r| r.agent == agent).count()
    }

    /// Every pending job; unreadable files are reported, not lost (they stay on disk).
    pub fn load_all(&self) -> (Vec<JobRecord>, Vec<String>) {
        let dir = match &self.backend {
            Backend::Dir(dir) => dir,
            Backend::Memory { jobs, .. } => {
                let mut all: Vec<JobRecord> = jobs.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect();
                all.sort_by(|a, b| (&a.id, &a.key).cmp(&(&b.id, &b.key)));
                return (all, Vec::new());
            }
        };
        let mut jobs = Vec::new();
        let mut problems = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return (jobs, problems);
        };
        // Job files half-written by a process that died are swept once they are old.
        sweep_temporaries_in(dir);
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            let key = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            if path.extension().is_none_or(|e| e != "json") || !valid_key(&key) {
                continue;
            }
            match std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<JobRecord>(&b).map_err(|e| e.to_string()))
            {
                Ok(record) => jobs.push(JobRecord { key, ..record }),
                Err(e) => problems.push(format!("{}: {e}", path.display())),
            }
        }
        jobs.sort_by(|a, b| (&a.id, &a.key).cmp(&(&b.id, &b.key)));
        (jobs, problems)
    }
}
