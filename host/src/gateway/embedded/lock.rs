//! OpenClaw's lock-file protocol (`../shared/spec/openclaw-store-format.md` §7), so this
//! gateway and a real OpenClaw process never write a store at the same time: the lock is
//! `<file>.lock`, created exclusively, holding `{"pid","startedAt"}`; it is polled every
//! 25 ms for up to 10 s and considered stale once its mtime is 30 s old.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

pub const POLL: Duration = Duration::from_millis(25);
pub const TIMEOUT: Duration = Duration::from_secs(10);
pub const STALE: Duration = Duration::from_secs(30);

/// A held lock file; released on drop.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
}

fn lock_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Creates the lock file exclusively with its owner record; `None` when it exists.
fn create(path: &Path) -> std::io::Result<Option<FileLock>> {
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut file) => {
            let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis());
            let _ = write!(file, "{{\"pid\":{},\"startedAt\":{now}}}", std::process::id());
            Ok(Some(FileLock { path: path.to_path_buf() }))
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(None),
        Err(e) => Err(e),
    }
}

impl FileLock {
    /// Takes `<target>.lock` if nobody holds it (a stale lock is taken over); `None` when
    /// another live process holds it.
    pub fn try_acquire(target: &Path) -> std::io::Result<Option<FileLock>> {
        let path = lock_path(target);
        for _ in 0..2 {
            if let Some(lock) = create(&path)? {
                return Ok(Some(lock));
            }
            if !owner_is_gone(&path) {
                return Ok(None);
            }
            let _ = std::fs::remove_file(&path);
        }
        Ok(None)
    }

    /// Acquires `<target>.lock`.
    pub fn acquire(target: &Path) -> std::io::Result<FileLock> {
        let path = lock_path(target);
        let started = Instant::now();
        loop {
            if let Some(lock) = create(&path)? {
                return Ok(lock);
            }
            let old =
                std::fs::metadata(&path).and_then(|m| m.modified()).ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > STALE);
            if old || owner_is_gone(&path) {
                let _ = std::fs::remove_file(&path);
                continue;
            }
            if started.elapsed() > TIMEOUT {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("timeout acquiring session store lock: {}", path.display()),
                ));
            }
            std::thread::sleep(POLL);
        }
    }
}

/// Whether the lock's owner (its `pid`) is a process that no longer exists, so a writer
/// killed mid-write does not block the others for 30 s. Only where `/proc` tells.
fn owner_is_gone(path: &Path) -> bool {
    if !Path::new("/proc/self").exists() {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let Some(pid) = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v.get("pid").and_then(serde_json::Value::as_u64))
    else {
        return false;
    };
    match u32::try_from(pid) {
        Ok(pid) => pid != std::process::id() && process_is_gone(pid),
        Err(_) => true,
    }
}

/// Whether a process no longer exists (`false` where `/proc` cannot tell).
pub fn process_is_gone(pid: u32) -> bool {
    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
