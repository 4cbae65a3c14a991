//! Tasks: tool calls made in the background for an owner, whose answer is kept so the
//! owner can read it later, from another connection or after a restart (MCP's tasks).
//!
//! A task is a file `tasks/<id>.json` beside the jobs, written (synced, mode 0600) before
//! its call makes any side effect. Its call is an ordinary tool call whose intent has the
//! task's id ([`super::intent`]): the answer is written into the task before the intent
//! is removed, so a process that stops in between leaves the intent, and the process that
//! makes the call again from it (once, with the same ids) writes the answer. Reading a
//! task never makes anything again.
//!
//! Who may read a task is its owner: an opaque fingerprint the embedder gives (never a
//! secret in clear); a task of another owner is not found, exactly like one that does not
//! exist. Ids are random (122 bits), so they cannot be guessed either.
//!
//! While a task's call runs, its process holds the OS lock of `<id>.run`: a task found
//! working that nobody runs and whose intent is not on disk was cut before its call did
//! anything (its process stopped), and ends as lost. Changes of a record (its answer, a
//! cancel, lost) are made under the OS lock of `<id>.json`, and a task that has ended never
//! changes again. Tasks are kept [`TASK_TTL`] from their creation, then removed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::os_lock::OsLock;
use crate::private_files::{create_exclusively, create_private_dir, read_private, sweep_temporaries, write_atomically, Durability};

/// How long a task is kept from its creation (its answer can be read until then).
pub const TASK_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The record format written by this host.
const VERSION: u32 = 1;

/// A task as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: 32 lowercase hexadecimal digits.
    pub id: String,
    /// Whose it is (the embedder's fingerprint of the caller).
    pub owner: String,
    /// The tool called.
    pub tool: String,
    /// When it was created, in ms since the epoch.
    pub created_ms: u64,
    /// When it last changed, in ms since the epoch.
    pub updated_ms: u64,
    /// Where it stands.
    #[serde(flatten)]
    pub state: TaskState,
}

/// Where a task stands. `Working` is the only state that changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
#[non_exhaustive]
pub enum TaskState {
    /// Its call is being made (or will be made again from its intent).
    Working,
    /// The call answered.
    Answered {
        /// The tool's JSON result.
        answer: String,
    },
    /// The call failed before the tool could answer.
    Refused {
        /// The host's error, in words.
        error: String,
    },
    /// Its owner cancelled it before its call answered.
    Cancelled {
        /// What became of the call's work, in words.
        reason: String,
    },
    /// Its answer cannot be had (its process stopped before the call did anything, or the
    /// call was cut twice).
    Lost {
        /// Which, in words.
        reason: String,
    },
}

impl TaskState {
    /// Whether the task has not ended yet.
    pub fn is_working(&self) -> bool {
        matches!(self, TaskState::Working)
    }
}

/// Why a task cannot be opened, read or cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskError {
    /// No task of this owner has this id (it never existed, is another owner's, or has
    /// expired).
    NotFound,
    /// The owner already has as many tasks working as it may.
    TooMany {
        /// How many it may have.
        limit: usize,
    },
    /// Tasks are not kept here (the jobs are kept in memory).
    NotKept,
    /// The task could not be written or read.
    Io(String),
}

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskError::NotFound => write!(f, "task not found"),
            TaskError::TooMany { limit } => write!(f, "{limit} tasks of this caller are still working (the limit)"),
            TaskError::NotKept => write!(f, "tasks are not kept: the jobs of this service are kept in memory"),
            TaskError::Io(e) => write!(f, "the task store: {e}"),
        }
    }
}

impl std::error::Error for TaskError {}

/// What a task's call came to, as written into it.
#[derive(Debug, Clone)]
pub(crate) enum TaskAnswer {
    Answered(String),
    Refused(String),
    Lost(String),
}

/// A task just opened, with the lock that says its call is being made: give it to
/// [`crate::Service::run_task`]. Dropped without being run, the task ends as lost.
#[derive(Debug)]
pub struct TaskRun {
    pub(crate) record: TaskRecord,
    pub(crate) _running: OsLock,
}

impl TaskRun {
    /// The task as opened.
    pub fn record(&self) -> &TaskRecord {
        &self.record
    }
}

/// The tasks of a job store's directory.
pub(crate) struct TaskStore {
    /// `<jobs>/tasks`, and `<jobs>/calls` where the intents are.
    dirs: Option<(PathBuf, PathBuf)>,
}

/// Whether `id` is a task id (so that it can name a file).
fn valid_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn io(context: &str, e: std::io::Error) -> TaskError {
    TaskError::Io(format!("{context}: {e}"))
}

fn ttl_ms() -> u64 {
    u64::try_from(TASK_TTL.as_millis()).unwrap_or(u64::MAX)
}

impl TaskStore {
    /// The tasks beside the jobs of `jobs_dir` (`None`: jobs in memory, no tasks).
    pub fn new(jobs_dir: Option<&Path>) -> TaskStore {
        TaskStore { dirs: jobs_dir.map(|d| (d.join("tasks"), d.join("calls"))) }
    }

    fn dir(&self) -> Result<&Path, TaskError> {
        self.dirs.as_ref().map(|(tasks, _)| tasks.as_path()).ok_or(TaskError::NotKept)
    }

    fn path(dir: &Path, id: &str) -> PathBuf {
        dir.join(format!("{id}.json"))
    }

    fn run_path(dir: &Path, id: &str) -> PathBuf {
        dir.join(format!("{id}.run"))
    }

    fn read(path: &Path) -> Result<Option<TaskRecord>, TaskError> {
        match read_private(path) {
            Ok(bytes) => {
                #[derive(Deserialize)]
                struct Versioned {
                    version: u32,
                }
                let version: Versioned = serde_json::from_slice(&bytes).map_err(|e| TaskError::Io(format!("{}: {e}", path.display())))?;
                if version.version != VERSION {
                    return Err(TaskError::Io(format!(
                        "{}: record version {} (this host reads {VERSION})",
                        path.display(),
                        version.version
                    )));
                }
                serde_json::from_slice(&bytes).map(Some).map_err(|e| TaskError::Io(format!("{}: {e}", path.display())))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(&path.display().to_string(), e)),
        }
    }

    fn bytes(record: &TaskRecord) -> Vec<u8> {
        let mut value = serde_json::to_value(record).unwrap_or_default();
        if let Some(object) = value.as_object_mut() {
            object.insert("version".into(), VERSION.into());
        }
        value.to_string().into_bytes()
    }

    /// Opens a task of `owner` for a call of `tool`, unless the owner has `max_open` tasks
    /// working; removes the tasks that have expired meanwhile. The task is on disk when
    /// this answers.
    pub fn open(&self, owner: &str, tool: &str, max_open: usize, now_ms: u64) -> Result<TaskRun, TaskError> {
        let dir = self.dir()?;
        create_private_dir(dir).map_err(|e| io(&dir.display().to_string(), e))?;
        // Counting and creating under one lock: two servers on one state directory cannot
        // both open the last task an owner may have.
        let _opening = OsLock::acquire(&dir.join("open")).map_err(|e| io("the tasks' lock", e))?;
        let mut working = 0;
        for record in self.all(dir) {
            if now_ms.saturating_sub(record.created_ms) > ttl_ms() {
                self.expire(dir, &record.id);
                continue;
            }
            if record.owner == owner && self.settle(dir, record, now_ms)?.state.is_working() {
                working += 1;
            }
        }
        if working >= max_open {
            return Err(TaskError::TooMany { limit: max_open });
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let running = OsLock::acquire(&Self::run_path(dir, &id)).map_err(|e| io("the task's lock", e))?;
        let record = TaskRecord {
            id: id.clone(),
            owner: owner.to_string(),
            tool: tool.to_string(),
            created_ms: now_ms,
            updated_ms: now_ms,
            state: TaskState::Working,
        };
        create_exclusively(&Self::path(dir, &id), &Self::bytes(&record)).map_err(|e| io("writing the task", e))?;
        Ok(TaskRun { record, _running: running })
    }

    /// Every readable task of the directory; what writers that died left is swept.
    fn all(&self, dir: &Path) -> Vec<TaskRecord> {
        let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let Some((id, _)) = name.split_once(".json.").filter(|_| name.ends_with(".tmp")) {
                    sweep_temporaries(&Self::path(dir, id), Duration::from_secs(60));
                    return None;
                }
                let id = name.strip_suffix(".json").filter(|id| valid_id(id))?;
                Self::read(&Self::path(dir, id)).ok().flatten()
            })
            .collect()
    }

    /// Removes an expired task, unless its call is still being made.
    fn expire(&self, dir: &Path, id: &str) {
        let run = Self::run_path(dir, id);
        let Ok(Some(free)) = OsLock::try_acquire(&run) else { return };
        let path = Self::path(dir, id);
        if let Ok(held) = OsLock::acquire(&path) {
            let _ = std::fs::remove_file(&path);
            held.remove(&path);
        }
        free.remove(&run);
    }

    /// A task of `owner`, as it stands.
    pub fn get(&self, owner: &str, id: &str, now_ms: u64) -> Result<TaskRecord, TaskError> {
        let dir = self.dir()?;
        if !valid_id(id) {
            return Err(TaskError::NotFound);
        }
        let record = Self::read(&Self::path(dir, id))?.filter(|r| r.owner == owner).ok_or(TaskError::NotFound)?;
        if now_ms.saturating_sub(record.created_ms) > ttl_ms() {
            self.expire(dir, id);
            return Err(TaskError::NotFound);
        }
        self.settle(dir, record, now_ms)
    }

    /// A working task that nobody runs and whose intent is not on disk was cut before its
    /// call did anything: it ends as lost.
    fn settle(&self, dir: &Path, record: TaskRecord, now_ms: u64) -> Result<TaskRecord, TaskError> {
        if !record.state.is_working() {
            return Ok(record);
        }
        let Ok(Some(_free)) = OsLock::try_acquire(&Self::run_path(dir, &record.id)) else { return Ok(record) };
        let intent = self.dirs.as_ref().map(|(_, calls)| calls.join(format!("{}.json", record.id)));
        if intent.is_some_and(|path| path.exists()) {
            // Its call is made again from its intent (by the job runner), which answers it.
            return Ok(record);
        }
        let reason = "the server stopped before this task's call did anything; nothing was done: make the call again";
        Ok(self.change(&record.id, TaskAnswer::Lost(reason.into()), now_ms)?.unwrap_or(record))
    }

    /// Writes what a task's call came to into a working task (a task that has ended is left
    /// as it is; an id without a task is nothing to do). Answers the task as it is then.
    pub fn answer(&self, id: &str, answer: TaskAnswer, now_ms: u64) -> Result<Option<TaskRecord>, TaskError> {
        self.change(id, answer, now_ms)
    }

    fn change(&self, id: &str, answer: TaskAnswer, now_ms: u64) -> Result<Option<TaskRecord>, TaskError> {
        let dir = self.dir()?;
        if !valid_id(id) {
            return Ok(None);
        }
        let path = Self::path(dir, id);
        if !path.exists() {
            // A call that is no task (every replayed call is asked).
            return Ok(None);
        }
        let _held = OsLock::acquire(&path).map_err(|e| io("the task's lock", e))?;
        let Some(mut record) = Self::read(&path)? else { return Ok(None) };
        if !record.state.is_working() {
            return Ok(Some(record));
        }
        record.state = match answer {
            TaskAnswer::Answered(answer) => TaskState::Answered { answer },
            TaskAnswer::Refused(error) => TaskState::Refused { error },
            TaskAnswer::Lost(reason) => TaskState::Lost { reason },
        };
        record.updated_ms = now_ms;
        write_atomically(&path, &Self::bytes(&record), Durability::Synced).map_err(|e| io("writing the task", e))?;
        Ok(Some(record))
    }

    /// Cancels a working task of `owner` (one that has ended stays as it is); answers it.
    pub fn cancel(&self, owner: &str, id: &str, reason: &str, now_ms: u64) -> Result<TaskRecord, TaskError> {
        let record = self.get(owner, id, now_ms)?;
        if !record.state.is_working() {
            return Ok(record);
        }
        let dir = self.dir()?;
        let path = Self::path(dir, id);
        let _held = OsLock::acquire(&path).map_err(|e| io("the task's lock", e))?;
        let Some(mut record) = Self::read(&path)? else { return Err(TaskError::NotFound) };
        if record.state.is_working() {
            record.state = TaskState::Cancelled { reason: reason.to_string() };
            record.updated_ms = now_ms;
            write_atomically(&path, &Self::bytes(&record), Durability::Synced).map_err(|e| io("writing the task", e))?;
        }
        Ok(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path) -> TaskStore {
        TaskStore::new(Some(dir))
    }

    #[test]
    fn a_task_is_its_owners_and_ends_once() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = store(dir.path());
        let run = tasks.open("alice", "sessions_spawn", 2, 1_000).unwrap();
        let id = run.record().id.clone();
        assert!(valid_id(&id), "{id}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(TaskStore::path(&dir.path().join("tasks"), &id)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(tasks.get("alice", &id, 2_000).unwrap().state, TaskState::Working, "held by its run");
        assert_eq!(tasks.get("bob", &id, 2_000), Err(TaskError::NotFound));
        assert_eq!(tasks.get("alice", "../../etc/passwd", 2_000), Err(TaskError::NotFound));
        assert_eq!(tasks.cancel("bob", &id, "no", 2_000), Err(TaskError::NotFound));
        let answered = tasks.answer(&id, TaskAnswer::Answered("{\"status\":\"accepted\"}".into()), 3_000).unwrap().unwrap();
        assert_eq!(answered.state, TaskState::Answered { answer: "{\"status\":\"accepted\"}".into() });
        // Ended: neither a second answer nor a cancel changes it.
        tasks.answer(&id, TaskAnswer::Refused("late".into()), 4_000).unwrap();
        assert_eq!(tasks.cancel("alice", &id, "late", 4_000).unwrap(), answered);
        drop(run);
        assert_eq!(tasks.get("alice", &id, 5_000).unwrap(), answered);
        // Expired: gone.
        assert_eq!(tasks.get("alice", &id, 1_000 + ttl_ms() + 1), Err(TaskError::NotFound));
    }

    #[test]
    fn working_tasks_are_capped_per_owner_and_a_task_nobody_runs_is_lost() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = store(dir.path());
        let first = tasks.open("alice", "sessions_send", 2, 1_000).unwrap();
        let second = tasks.open("alice", "sessions_send", 2, 1_000).unwrap();
        assert_eq!(tasks.open("alice", "sessions_send", 2, 1_000).unwrap_err(), TaskError::TooMany { limit: 2 });
        tasks.open("bob", "sessions_send", 2, 1_000).expect("another owner has tasks of its own");
        let cancelled = tasks.cancel("alice", &first.record().id, "cancelled", 2_000).unwrap();
        assert!(matches!(cancelled.state, TaskState::Cancelled { .. }));
        let third = tasks.open("alice", "sessions_send", 2, 2_000).expect("a cancelled task is no longer working");
        // Nobody runs it and no intent is on disk: its call never started anything.
        let id = second.record().id.clone();
        drop(second);
        assert!(matches!(tasks.get("alice", &id, 3_000).unwrap().state, TaskState::Lost { .. }));
        // With its intent on disk, it waits for the call to be made again.
        let id = third.record().id.clone();
        std::fs::create_dir_all(dir.path().join("calls")).unwrap();
        std::fs::write(dir.path().join("calls").join(format!("{id}.json")), "{}").unwrap();
        drop(third);
        assert_eq!(tasks.get("alice", &id, 3_000).unwrap().state, TaskState::Working);
        assert_eq!(TaskStore::new(None).get("alice", &id, 0), Err(TaskError::NotKept));
    }
}
