//! Writing files the way OpenClaw writes its store: a temporary file beside the target
//! (`<name>.<pid>.<uuid>.tmp`), renamed over it, mode 0600; and sweeping the temporaries
//! that writers left behind when they died between the two.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Whether a write waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The data reaches the disk before the rename (stores, job files).
    Synced,
    /// The rename alone: the host's own caches, rebuilt if lost.
    Cache,
}

/// The name of a temporary file written beside `target`: OpenClaw's
/// `<name>.<pid>.<uuid>.tmp`, so leftovers of either program are found by one rule.
pub fn temporary_name(target: &Path) -> PathBuf {
    let dir = target.parent().unwrap_or_else(|| Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir.join(format!("{name}.{}.{}.tmp", std::process::id(), uuid::Uuid::new_v4()))
}

/// Writes a file by writing a temporary file beside it and renaming it over the target,
/// so a reader (or a crash) never sees half a file; the result is mode 0600.
pub fn write_atomically(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
    let tmp = temporary_name(path);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        file.write_all(bytes)?;
        if durability == Durability::Synced {
            file.sync_data()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes `<name>.*.tmp` files beside `target` older than `min_age` (leftovers of writers
/// that died between writing and renaming).
pub fn sweep_temporaries(target: &Path, min_age: Duration) {
    let Some(name) = target.file_name().and_then(|n| n.to_str()) else { return };
    let prefix = format!("{name}.");
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or_else(|| Path::new("."));
    let Ok(dir) = std::fs::read_dir(dir) else { return };
    for entry in dir.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else { continue };
        if !(file_name.starts_with(&prefix) && file_name.ends_with(".tmp")) {
            continue;
        }
        let old = entry.metadata().ok().and_then(|m| m.modified().ok()).and_then(|m| m.elapsed().ok()).is_some_and(|age| age > min_age);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Creates a file with these bytes only if none exists at `path` (`AlreadyExists`
/// otherwise), complete at birth: the bytes are written to a temporary file beside it,
/// which is then hard-linked to `path` (`link` fails when the name exists, among processes
/// too) and removed. Mode 0600; the data reaches the disk first.
pub fn create_exclusively(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temporary_name(path);
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_data()?;
        std::fs::hard_link(&tmp, path)
    })();
    let _ = std::fs::remove_file(&tmp);
    result
}
