//! The files the host writes, private from their first byte: every file it creates is
//! created with its final mode (0600) and every directory with 0700, never changed after,
//! so no other user can open one in the moment between its creation and a `chmod`
//! (SECURITY.md, "Private from the first byte"). Store-shaped files are written the way
//! OpenClaw writes its store: a temporary file beside the target (`<name>.<pid>.<uuid>.tmp`),
//! renamed over it; the temporaries that writers left behind when they died between the two
//! are swept.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The mode of every file the host creates.
pub const FILE_MODE: u32 = 0o600;
/// The mode of every directory the host creates.
pub const DIR_MODE: u32 = 0o700;

/// Whether a write waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The data reaches the disk before the rename (stores, job files).
    Synced,
    /// The rename alone: the host's own caches, rebuilt if lost.
    Cache,
}

/// Creates a directory and its missing parents, each mode 0700 from the start; a directory
/// that exists is left as it is.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(DIR_MODE);
    }
    builder.create(dir)
}

/// Open options that create a file with mode 0600 and never follow a symbolic link in the
/// file's place (`O_NOFOLLOW`: opening a link fails with [`is_link_refused`]).
pub fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE).custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    options
}

/// Reads one of the host's own files (a job, a run, an intent) without following a link in
/// its place.
pub fn read_private(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    private_options().read(true).open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether an open failed because the file is a symbolic link, which the host's own files
/// never follow (`ELOOP` under `O_NOFOLLOW`).
pub fn is_link_refused(error: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

/// The name of a temporary file written beside `target`: OpenClaw's
/// `<name>.<pid>.<uuid>.tmp`, so leftovers of either program are found by one rule.
pub fn temporary_name(target: &Path) -> PathBuf {
    let dir = target.parent().unwrap_or_else(|| Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir.join(format!("{name}.{}.{}.tmp", std::process::id(), uuid::Uuid::new_v4()))
}

/// Writes a file by writing a temporary file beside it and renaming it over the target,
/// so a reader (or a crash) never sees half a file. The temporary file is created new
/// (never an existing file or a link) with mode 0600, so the result is private from its
/// first byte.
pub fn write_atomically(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
    let tmp = temporary_name(path);
    let result = (|| {
        let mut file = private_options().write(true).create_new(true).open(&tmp)?;
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
        let mut file = private_options().write(true).create_new(true).open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_data()?;
        std::fs::hard_link(&tmp, path)
    })();
    let _ = std::fs::remove_file(&tmp);
    result
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn files_and_directories_are_born_private() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b/c");
        create_private_dir(&nested).unwrap();
        for d in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&dir.path().join(d)), 0o700, "{d}");
        }
        // An existing directory is left as it is.
        std::fs::set_permissions(dir.path().join("a"), std::fs::Permissions::from_mode(0o755)).unwrap();
        create_private_dir(&nested).unwrap();
        assert_eq!(mode(&dir.path().join("a")), 0o755);
        let file = nested.join("f.json");
        write_atomically(&file, b"{}", Durability::Synced).unwrap();
        assert_eq!(mode(&file), 0o600);
    }

    #[test]
    fn a_link_in_the_file_s_place_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let error = private_options().read(true).append(true).create(true).open(&link).unwrap_err();
        assert!(is_link_refused(&error), "{error}");
        assert!(!outside.exists(), "a dangling link created a file where it points");
    }
}
