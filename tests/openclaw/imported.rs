//! The sample state in OpenClaw 2026.9's layout, made by the real `openclaw doctor --fix`
//! (an OpenClaw release installed by the harness), and what the tests that compare with a
//! running 2026.9 gateway do to a copy of it.

use std::path::Path;

use session_tools_tests::openclaw;
use session_tools_tests::{copy_dir, sample_state};

/// The sample state in OpenClaw 2026.9's layout, as the real `openclaw doctor --fix` of
/// [`openclaw::TODAY_PACKAGE`] imports the legacy sample (made on first use, once per
/// version of the sample, and kept in the install cache); `extend` may add to the legacy
/// copy before it is imported (a different result is kept apart, by its content).
pub fn imported_sample(extend: impl FnOnce(&Path)) -> Result<tempfile::TempDir, String> {
    let legacy = tempfile::tempdir().map_err(|e| e.to_string())?;
    copy_dir(&sample_state(), legacy.path());
    extend(legacy.path());
    let installation = openclaw::install(openclaw::TODAY_PACKAGE)?;
    let kept = installation
        .home
        .join("imported")
        .join(installation.package.replace('/', "+"))
        .join(format!("{:016x}", tree_digest(legacy.path())));
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(installation.home.join("install.lock"))
        .map_err(|e| e.to_string())?;
    lock.lock().map_err(|e| e.to_string())?;
    if !kept.join("agents").is_dir() {
        let building = kept.with_extension("building");
        let _ = std::fs::remove_dir_all(&building);
        copy_dir(legacy.path(), &building);
        openclaw::import_legacy(&installation, &building)?;
        std::fs::rename(&building, &kept).map_err(|e| format!("keeping the imported sample in {}: {e}", kept.display()))?;
    }
    drop(lock);
    let copy = tempfile::tempdir().map_err(|e| e.to_string())?;
    copy_state(&kept, copy.path());
    Ok(copy)
}

/// Marks every child session of a 2026.9 state (one with a `spawnedBy` or
/// `parentSessionKey`) as updated at `now_ms`. A copy of the kept imported sample is as old as
/// its import, and 2026.9's `sessions.list {spawnedBy}` drops a child whose link is only in
/// the store (no run) an hour after the child's last update (`shouldKeepStoreOnlyChildLink`,
/// README "What answers differently": we keep lineage, E5); a test that compares with a
/// running gateway gives its children the age of a child that was just active, the same in
/// every copy it compares, so the answer does not depend on when the sample was imported.
pub fn freshen_child_links(state: &Path, now_ms: i64) -> Result<usize, String> {
    let mut touched = 0;
    let agents = std::fs::read_dir(state.join("agents")).map_err(|e| format!("{}: {e}", state.display()))?;
    for agent in agents {
        let db = agent.map_err(|e| e.to_string())?.path().join("agent/openclaw-agent.sqlite");
        if !db.is_file() {
            continue;
        }
        let connection = rusqlite::Connection::open(&db).map_err(|e| format!("{}: {e}", db.display()))?;
        touched += connection
            .execute(
                "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.updatedAt', ?1), updated_at = ?1
                 WHERE spawned_by IS NOT NULL OR parent_session_key IS NOT NULL
                    OR json_extract(entry_json, '$.spawnedBy') IS NOT NULL OR json_extract(entry_json, '$.parentSessionKey') IS NOT NULL",
                [now_ms],
            )
            .map_err(|e| format!("{}: {e}", db.display()))?;
    }
    Ok(touched)
}

/// Copies a state directory's directories and regular files (what the doctor left of its
/// run, sockets and links, is not state).
fn copy_state(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_state(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// FNV-1a of a tree's relative paths and contents (sorted), to tell versions of a sample apart.
fn tree_digest(dir: &Path) -> u64 {
    fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                walk(root, &path, files);
            } else {
                files.push((path.strip_prefix(root).unwrap().display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, bytes) in files {
        for b in name.as_bytes().iter().chain([0u8].iter()).chain(bytes.iter()) {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}
