//! The lock files of OpenClaw's protocol (docs/openclaw-versions.md, "State layout"),
//! so this gateway and a real OpenClaw process never write a store or a transcript at the
//! same time. Both kinds are created exclusively and follow OpenClaw's own rules
//! (`config/sessions/store.js`, `agents/session-write-lock.js` of the reference):
//!
//! | lock | path | owner record | stale when | wait |
//! |---|---|---|---|---|
//! | store | `<sessions.json>.lock` | `{"pid","startedAt"}` | its mtime is 30 s old | 25 ms polls, 10 s |
//! | transcript | `<realpath(dir)>/<file>.lock` | `{"pid","createdAt"}` (2-space JSON) | `createdAt` is 30 min old or unreadable, or its owner is dead | 50 ms · attempt (≤ 1 s), 10 s |
//!
//! Where this host is stricter than OpenClaw, it is so to stay safe:
//! - An owner is judged dead only when the lock says it was written in this PID namespace
//!   (its `pidNamespace` marker equals ours, and `/proc` is this namespace's): a pid that is
//!   merely invisible from here (a gateway in a container sharing the volume) is never
//!   taken for a dead one. Locks of OpenClaw carry no marker, so only the time rules apply.
//! - A lock is written with its owner record already in it (a hard link of a complete
//!   file), so no process ever sees an empty lock of ours; an unreadable transcript lock
//!   counts as stale only once it is two seconds old, not while its writer is still
//!   writing it.
//! - Breaking a stale lock is atomic among processes of this host: the check and the
//!   removal happen under an OS lock of the directory, so two processes that find the same
//!   stale lock never both remove it (the second finds the first one's new lock).
//! - A holder removes its lock only if the file is still its own (same inode), and keeps a
//!   held store lock fresh (its mtime) so no OpenClaw process takes it for stale.
//! - Lock files are created 0600, never through a link (`private_files::private_options`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

use crate::os_lock::lock_path;
use crate::private_files::private_options;

/// The store lock's poll interval, wait and stale age (OpenClaw's `withSessionStoreLock`).
pub const STORE_POLL: Duration = Duration::from_millis(25);
pub const STORE_TIMEOUT: Duration = Duration::from_secs(10);
pub const STORE_STALE: Duration = Duration::from_secs(30);
/// The transcript lock's wait and stale age (OpenClaw's `acquireSessionWriteLock`).
pub const TRANSCRIPT_TIMEOUT: Duration = Duration::from_secs(10);
pub const TRANSCRIPT_STALE: Duration = Duration::from_secs(30 * 60);
/// How long an unreadable transcript lock is left to its writer before it counts as stale.
const UNREADABLE_GRACE: Duration = Duration::from_secs(2);
/// How often a held store lock's mtime is refreshed (well within [`STORE_STALE`]).
const KEEP_FRESH: Duration = Duration::from_secs(5);

/// Which of OpenClaw's two lock protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Store,
    Transcript,
}

/// A held lock file; released on drop (only while it is still ours).
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    /// Our lock file, open: its identity, and the handle its mtime is refreshed through.
    file: File,
    identity: Option<(u64, u64)>,
    keeper: Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

fn now_ms() -> u128 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis())
}

/// This process's PID namespace, as `<boot id>:<namespace inode>`, when `/proc` is this
/// namespace's (its `self` is our pid); `None` when that cannot be told.
fn pid_namespace() -> Option<&'static str> {
    static MARKER: OnceLock<Option<String>> = OnceLock::new();
    MARKER
        .get_or_init(|| {
            let own = std::fs::read_link("/proc/self").ok()?;
            if own.to_str()? != std::process::id().to_string() {
                return None;
            }
            let ns = std::fs::read_link("/proc/self/ns/pid").ok()?;
            let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
            Some(format!("{}:{}", boot.trim(), ns.to_str()?))
        })
        .as_deref()
}

/// Whether a process of this PID namespace no longer exists.
fn process_is_gone(pid: u64) -> bool {
    pid != u64::from(std::process::id()) && !Path::new(&format!("/proc/{pid}")).exists()
}

/// What a lock file says of its owner.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Owner {
    pid: Option<serde_json::Value>,
    created_at: Option<String>,
    pid_namespace: Option<String>,
}

impl Owner {
    fn read(bytes: &[u8]) -> Option<Owner> {
        serde_json::from_slice(bytes).ok()
    }

    fn pid(&self) -> Option<u64> {
        self.pid.as_ref().and_then(serde_json::Value::as_u64)
    }

    /// The owner is known to be dead: it wrote the lock in this PID namespace and its
    /// process is gone.
    fn is_dead(&self) -> bool {
        match (self.pid(), &self.pid_namespace, pid_namespace()) {
            (Some(pid), Some(theirs), Some(ours)) => theirs == ours && process_is_gone(pid),
            _ => false,
        }
    }
}

/// Whether a lock, as found on disk, is stale under its protocol's rules.
fn is_stale(kind: Kind, meta: &std::fs::Metadata, bytes: &[u8]) -> bool {
    let age = meta.modified().ok().and_then(|m| m.elapsed().ok()).unwrap_or(Duration::ZERO);
    let owner = Owner::read(bytes);
    if owner.as_ref().is_some_and(Owner::is_dead) {
        return true;
    }
    match kind {
        Kind::Store => age > STORE_STALE,
        Kind::Transcript => {
            let created = owner
                .as_ref()
                .filter(|o| o.pid().is_some())
                .and_then(|o| o.created_at.as_deref())
                .and_then(super::timestamps::parse_iso_ms);
            match created {
                Some(created) => now_ms().saturating_sub(created) > TRANSCRIPT_STALE.as_millis(),
                None => age > UNREADABLE_GRACE,
            }
        }
    }
}

/// An OS lock of a directory, which this host's processes take to break a stale lock or
/// release their own, so a check and the removal that follows are one step for them.
struct DirGuard(Option<File>);

impl DirGuard {
    fn lock(dir: &Path) -> DirGuard {
        let file = File::open(dir).ok().filter(|f| f.lock().is_ok());
        DirGuard(file)
    }
}

impl Drop for DirGuard {
    fn drop(&mut self) {
        if let Some(file) = &self.0 {
            let _ = file.unlock();
        }
    }
}

fn dir_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or_else(|| Path::new("."))
}

/// Creates the lock file exclusively, with its owner record already in it; `None` when
/// it exists.
fn create(path: &Path, record: &[u8]) -> std::io::Result<Option<File>> {
    let tmp = crate::private_files::temporary_name(path);
    let written = (|| {
        let mut file = private_options().read(true).write(true).create_new(true).open(&tmp)?;
        file.write_all(record)?;
        Ok::<File, std::io::Error>(file)
    })();
    let file = match written {
        Ok(file) => file,
        Err(_) => {
            let _ = std::fs::remove_file(&tmp);
            return create_in_place(path, record);
        }
    };
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(Some(file)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(None),
        // A filesystem without hard links: create the lock and write it (OpenClaw's way).
        Err(_) => create_in_place(path, record),
    }
}

fn create_in_place(path: &Path, record: &[u8]) -> std::io::Result<Option<File>> {
    match private_options().read(true).write(true).create_new(true).open(path) {
        Ok(mut file) => {
            let _ = file.write_all(record);
            Ok(Some(file))
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(None),
        Err(e) => Err(e),
    }
}

/// Removes the lock at `path` if it is stale; answers whether the path is free now. The
/// check and the removal happen under the directory's OS lock, and the removal only if the
/// file checked is still the one there.
fn break_if_stale(kind: Kind, path: &Path) -> bool {
    let _guard = DirGuard::lock(dir_of(path));
    let Ok(before) = std::fs::symlink_metadata(path) else { return true };
    let Ok(bytes) = std::fs::read(path) else { return true };
    if !is_stale(kind, &before, &bytes) {
        return false;
    }
    match std::fs::symlink_metadata(path) {
        Ok(now) if identity(&now) == identity(&before) => std::fs::remove_file(path).is_ok(),
        _ => false,
    }
}

fn owner_record(kind: Kind) -> Vec<u8> {
    let pid = std::process::id();
    let mut record = serde_json::Map::new();
    record.insert("pid".into(), pid.into());
    match kind {
        Kind::Store => {
            record.insert("startedAt".into(), serde_json::Value::from(now_ms() as u64));
        }
        Kind::Transcript => {
            record.insert("createdAt".into(), super::timestamps::iso_time(now_ms() as u64).into());
        }
    }
    if let Some(marker) = pid_namespace() {
        record.insert("pidNamespace".into(), marker.into());
    }
    let value = serde_json::Value::Object(record);
    match kind {
        Kind::Store => serde_json::to_vec(&value),
        Kind::Transcript => serde_json::to_vec_pretty(&value),
    }
    .unwrap_or_default()
}

impl FileLock {
    /// Acquires the store lock `<store>.lock`, waiting up to 10 s.
    pub fn store(store: &Path) -> std::io::Result<FileLock> {
        let path = lock_path(store);
        let lock = Self::acquire(Kind::Store, &path, STORE_TIMEOUT, |_| STORE_POLL).map_err(|e| match e {
            Some(e) => e,
            None => std::io::Error::new(std::io::ErrorKind::TimedOut, format!("timeout acquiring session store lock: {}", path.display())),
        })?;
        Ok(lock.keep_fresh())
    }

    /// Acquires a transcript's lock (`<realpath of its dir>/<name>.lock`, as OpenClaw's
    /// runs take it), waiting up to 10 s.
    pub fn transcript(transcript: &Path) -> std::io::Result<FileLock> {
        let dir = dir_of(transcript);
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let name = transcript.file_name().unwrap_or_default();
        let path = lock_path(&dir.join(name));
        Self::acquire(Kind::Transcript, &path, TRANSCRIPT_TIMEOUT, |attempt| Duration::from_millis((50 * attempt).min(1000))).map_err(|e| {
            match e {
                Some(e) => e,
                None => {
                    let owner = std::fs::read(&path).ok().and_then(|b| Owner::read(&b)).and_then(|o| o.pid());
                    let owner = owner.map_or_else(|| "unknown".to_string(), |pid| format!("pid={pid}"));
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("session file locked (timeout {}ms): {owner} {}", TRANSCRIPT_TIMEOUT.as_millis(), path.display()),
                    )
                }
            }
        })
    }

    /// Creates the lock, breaking a stale one; `Err(None)` when the wait ran out.
    fn acquire(kind: Kind, path: &Path, timeout: Duration, pause: impl Fn(u64) -> Duration) -> Result<FileLock, Option<std::io::Error>> {
        let started = Instant::now();
        let record = owner_record(kind);
        let mut attempt = 0;
        loop {
            attempt += 1;
            if let Some(file) = create(path, &record).map_err(Some)? {
                let identity = file.metadata().ok().as_ref().and_then(identity);
                return Ok(FileLock { path: path.to_path_buf(), file, identity, keeper: None });
            }
            if break_if_stale(kind, path) {
                continue;
            }
            if started.elapsed() > timeout {
                return Err(None);
            }
            std::thread::sleep(pause(attempt));
        }
    }

    /// Refreshes the lock's mtime while it is held, so a long hold (a large store on a
    /// slow disk) is never taken for a stale one.
    fn keep_fresh(mut self) -> FileLock {
        let Ok(file) = self.file.try_clone() else { return self };
        let (stop, stopped) = mpsc::channel::<()>();
        let keeper = std::thread::Builder::new().name("session-tools-lock".into()).spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(KEEP_FRESH) {
                let _ = file.set_modified(SystemTime::now());
            }
        });
        if let Ok(keeper) = keeper {
            self.keeper = Some((stop, keeper));
        }
        self
    }

    /// Removes temporary files (`<name>.<pid>.<uuid>.tmp`) that writers of `target` left
    /// behind when they died mid-write. Called with the target's lock held, so no live
    /// writer is writing one; only files older than the stale age are removed all the same.
    pub fn sweep_temporaries(&self, target: &Path) {
        crate::private_files::sweep_temporaries(target, STORE_STALE);
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if let Some((stop, keeper)) = self.keeper.take() {
            drop(stop);
            let _ = keeper.join();
        }
        let _guard = DirGuard::lock(dir_of(&self.path));
        let ours = std::fs::symlink_metadata(&self.path).ok().is_some_and(|now| self.identity.is_some() && identity(&now) == self.identity);
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_is_written_whole_and_removed_only_by_its_owner() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("sessions.json");
        let lock = FileLock::store(&store).unwrap();
        let record: serde_json::Value = serde_json::from_slice(&std::fs::read(lock_path(&store)).unwrap()).unwrap();
        assert_eq!(record["pid"], std::process::id());
        assert!(record["startedAt"].is_u64());
        // Someone broke it and holds their own now: ours must not remove theirs.
        std::fs::remove_file(lock_path(&store)).unwrap();
        std::fs::write(lock_path(&store), "{\"pid\":1,\"startedAt\":1}").unwrap();
        drop(lock);
        assert!(lock_path(&store).exists(), "another holder's lock was removed");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[test]
    fn an_invisible_owner_is_not_a_dead_one() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("s.jsonl");
        let path = lock_path(&transcript);
        // A fresh lock of a process this namespace cannot see (another namespace's gateway).
        let record = serde_json::json!({"pid": 4_000_000, "createdAt": super::super::timestamps::iso_time(now_ms() as u64)});
        std::fs::write(&path, serde_json::to_vec_pretty(&record).unwrap()).unwrap();
        assert!(!break_if_stale(Kind::Transcript, &path));
        // The same pid written by a process of this namespace is known dead.
        if let Some(marker) = pid_namespace() {
            let record = serde_json::json!({"pid": 4_000_000, "createdAt": super::super::timestamps::iso_time(now_ms() as u64), "pidNamespace": marker});
            std::fs::write(&path, serde_json::to_vec_pretty(&record).unwrap()).unwrap();
            assert!(break_if_stale(Kind::Transcript, &path));
        }
        // An old transcript lock is stale whoever wrote it.
        let record = serde_json::json!({"pid": 4_000_000, "createdAt": "2020-01-01T00:00:00.000Z"});
        std::fs::write(&path, serde_json::to_vec_pretty(&record).unwrap()).unwrap();
        assert!(break_if_stale(Kind::Transcript, &path));
    }

    #[test]
    fn two_breakers_of_one_stale_lock_leave_one_holder() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("sessions.json");
        for _ in 0..20 {
            let path = lock_path(&store);
            std::fs::write(&path, "").unwrap();
            let old = SystemTime::now() - Duration::from_secs(60);
            File::options().write(true).open(&path).unwrap().set_modified(old).unwrap();
            let holders = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let max = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    let (store, holders, max) = (store.clone(), holders.clone(), max.clone());
                    std::thread::spawn(move || {
                        let lock = FileLock::store(&store).unwrap();
                        let now = holders.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                        max.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(2));
                        holders.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                        drop(lock);
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            assert_eq!(max.load(std::sync::atomic::Ordering::SeqCst), 1, "two holders at once");
            assert!(!lock_path(&store).exists());
        }
    }

    #[test]
    fn dead_writers_temporaries_are_swept() {
        use crate::private_files::sweep_temporaries;
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("sessions.json");
        let old = dir.path().join("sessions.json.123.abc.tmp");
        let fresh = dir.path().join("sessions.json.456.def.tmp");
        let other = dir.path().join("other.json.1.x.tmp");
        for p in [&old, &fresh, &other] {
            std::fs::write(p, "{}").unwrap();
        }
        File::options().write(true).open(&old).unwrap().set_modified(SystemTime::now() - Duration::from_secs(120)).unwrap();
        File::options().write(true).open(&other).unwrap().set_modified(SystemTime::now() - Duration::from_secs(120)).unwrap();
        sweep_temporaries(&store, STORE_STALE);
        assert!(!old.exists() && fresh.exists() && other.exists());
    }
}
