//! Pending jobs on disk (`<state>/session-tools/jobs/<id>.json`), so a host restart
//! resumes what was going on: one file a job, written atomically, removed when the job
//! ends.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use session_tools_guest::jobs::{Job, Wake};
use session_tools_guest::ports::WaitParams;
use session_tools_guest::tools::Caller;

use crate::gateway::embedded::lock::FileLock;
use crate::gateway::embedded::store::write_atomically;

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
    pub id: String,
    pub kind: String,
    pub session_key: String,
    pub state: String,
    pub wake: WakeRecord,
    /// The agent whose instance runs it.
    pub agent: String,
    /// The caller whose tool call started it (its visibility applies to the job).
    pub caller: Caller,
}

impl JobRecord {
    pub fn new(job: Job, agent: &str, caller: &Caller) -> JobRecord {
        let wake = match job.wake {
            Wake::Now => WakeRecord::Now,
            Wake::RunEnd(wait) => WakeRecord::RunEnd { wait },
            Wake::At(at) => WakeRecord::At { at },
        };
        JobRecord {
            id: job.id,
            kind: job.kind,
            session_key: job.session_key,
            state: job.state,
            wake,
            agent: agent.to_string(),
            caller: caller.clone(),
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

/// The directory of pending jobs.
pub struct JobStore {
    dir: PathBuf,
}

fn safe_name(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

impl JobStore {
    pub fn new(dir: PathBuf) -> JobStore {
        JobStore { dir }
    }

    pub fn save(&self, record: &JobRecord) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let bytes = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
        write_atomically(&self.dir.join(format!("{}.json", safe_name(&record.id))), &bytes)
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{}.json", safe_name(id)))
    }

    /// Claims a job for this process (no other process steps it meanwhile) and answers its
    /// current record; `None` when another process holds it or it has ended.
    pub fn claim(&self, id: &str) -> Option<(FileLock, JobRecord)> {
        let path = self.path(id);
        let lock = FileLock::try_acquire(&path).ok().flatten()?;
        let record = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice::<JobRecord>(&b).ok())?;
        Some((lock, record))
    }

    pub fn remove(&self, id: &str) {
        let _ = std::fs::remove_file(self.dir.join(format!("{}.json", safe_name(id))));
    }

    /// Every pending job; unreadable files are reported, not lost (they stay on disk).
    pub fn load_all(&self) -> (Vec<JobRecord>, Vec<String>) {
        let mut jobs = Vec::new();
        let mut problems = Vec::new();
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return (jobs, problems);
        };
        for entry in dir.filter_map(|e| e.ok()) {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "json") || path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
                continue;
            }
            match std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<JobRecord>(&b).map_err(|e| e.to_string()))
            {
                Ok(record) => jobs.push(record),
                Err(e) => problems.push(format!("{}: {e}", path.display())),
            }
        }
        jobs.sort_by(|a, b| a.id.cmp(&b.id));
        (jobs, problems)
    }
}
