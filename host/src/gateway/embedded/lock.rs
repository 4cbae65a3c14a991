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

impl FileLock {
    /// Acquires `<target>.lock`.
    pub fn acquire(target: &Path) -> std::io::Result<FileLock> {
        let mut name = target.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
        let started = Instant::now();
        loop {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let now = SystemTime::now()
                        .duration_since(SystemTime::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis());
                    let _ = write!(
                        file,
                        "{{\"pid\":{},\"startedAt\":{now}}}",
                        std::process::id()
                    );
                    return Ok(FileLock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let stale = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|m| m.elapsed().ok())
                        .is_some_and(|age| age > STALE);
                    if stale {
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
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
