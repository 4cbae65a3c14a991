//! OS locks of this host's private files (`runs.json`, a job, an intent): advisory `flock`s
//! the kernel releases when their holder dies, so a killed process never leaves one held.
//! Every backend and the job store take them; OpenClaw's own lock files are the embedded
//! gateway's (`gateway::embedded::lock`).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::private_files::{create_private_dir, private_options};

/// The companion lock file of `target`: `<target>.lock`, the name OpenClaw gives its store
/// lock too.
pub(crate) fn lock_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// An OS lock (`flock`) of one of this host's private files (`runs.json`, a job): taken
/// on a companion `<file>.lock` that is never renamed, released by the kernel when its
/// holder dies, so a killed process never leaves it held.
#[derive(Debug)]
pub struct OsLock {
    file: File,
}

impl OsLock {
    fn open(target: &Path) -> std::io::Result<File> {
        if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir)?;
        }
        private_options().read(true).write(true).create(true).truncate(false).open(lock_path(target))
    }

    /// Waits for the lock of `target`.
    pub fn acquire(target: &Path) -> std::io::Result<OsLock> {
        let file = Self::open(target)?;
        file.lock()?;
        Ok(OsLock { file })
    }

    /// Takes the lock of `target` if nobody holds it.
    pub fn try_acquire(target: &Path) -> std::io::Result<Option<OsLock>> {
        let file = Self::open(target)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(OsLock { file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Removes the companion file of a target that is gone, while holding its lock (a
    /// process that opened it before sees the target gone and does nothing).
    pub fn remove(self, target: &Path) {
        let _ = std::fs::remove_file(lock_path(target));
        drop(self);
    }
}

impl Drop for OsLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_locks_exclude_and_die_with_their_holder() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("runs.json");
        let held = OsLock::acquire(&target).unwrap();
        assert!(OsLock::try_acquire(&target).unwrap().is_none());
        drop(held);
        assert!(OsLock::try_acquire(&target).unwrap().is_some());
    }
}
