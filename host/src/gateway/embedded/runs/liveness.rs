//! Whether the process that runs a run is still alive: an OS lock per process, tried by
//! the others.

use std::path::{Path, PathBuf};

use crate::os_lock::OsLock;

/// This process's liveness lock: an OS lock held on `processes/<id>` for as long as the
/// registry is open. Another process tells whether this one still runs by trying the lock,
/// which works across PID namespaces and never mistakes a reused pid for its owner.
/// The lock is taken when this process first registers or adopts a run (a process that
/// only reads writes nothing), and its file is removed when the registry is dropped; files
/// of processes that died are removed by the next process that opens the registry.
#[derive(Debug)]
pub(super) struct Liveness {
    id: String,
    dir: PathBuf,
    held: std::sync::OnceLock<Option<OsLock>>,
}

impl Liveness {
    pub(super) fn new(dir: PathBuf) -> Liveness {
        Liveness { id: uuid::Uuid::new_v4().to_string(), dir, held: std::sync::OnceLock::new() }
    }

    /// Takes this process's liveness lock (once); answers its id.
    pub(super) fn claim(&self) -> String {
        self.held.get_or_init(|| OsLock::try_acquire(&self.dir.join(&self.id)).ok().flatten());
        self.id.clone()
    }

    /// Whether the process with this liveness id still runs.
    pub(super) fn is_alive(&self, id: &str) -> bool {
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
        if !Path::new(&lock_file).exists() {
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

    /// Removes the lock files of processes that have ended.
    pub(super) fn sweep(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".lock") {
                self.is_alive(id);
            }
        }
    }
}

impl Drop for Liveness {
    fn drop(&mut self) {
        if let Some(Some(lock)) = self.held.take() {
            lock.remove(&self.dir.join(&self.id));
        }
    }
}
