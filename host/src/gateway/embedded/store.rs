//! One agent's session store, `sessions.json` (`../shared/spec/openclaw-store-format.md`
//! §2, §7): a JSON object of entries keyed by session key, read leniently (JSON, then
//! JSON5) and cached until the file changes; written under OpenClaw's lock, with every
//! entry's delivery fields normalised, pretty-printed with two spaces and no trailing
//! newline, to a temporary file renamed over the store (never half-written), mode 0600.
//! Entry fields this project does not know are kept as they are, in their order.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use super::delivery::normalize_entry;
use super::lock::FileLock;

/// What identifies a version of the file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<std::time::SystemTime>,
    len: u64,
    inode: u64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some(Stamp { modified: meta.modified().ok(), len: meta.len(), inode })
}

/// A loaded store.
#[derive(Debug, Default)]
pub struct Loaded {
    stamp: Option<Stamp>,
    /// Stored key → entry, in file order.
    pub entries: Map<String, Value>,
    /// Why the file could not be read as a store (it is then treated as empty and never
    /// overwritten).
    pub problem: Option<String>,
}

/// An agent's store file.
#[derive(Debug)]
pub struct SessionStore {
    pub agent_id: String,
    pub path: PathBuf,
    cache: Mutex<Option<Arc<Loaded>>>,
    writer: Mutex<()>,
}

/// Old field names OpenClaw migrates on load.
fn migrate(entry: &mut Map<String, Value>) {
    for (old, new) in [("provider", "channel"), ("lastProvider", "lastChannel"), ("room", "groupChannel")] {
        if let Some(value) = entry.shift_remove(old) {
            if !entry.contains_key(new) {
                entry.insert(new.to_string(), value);
            }
        }
    }
}

fn parse(bytes: &[u8], path: &Path) -> (Map<String, Value>, Option<String>) {
    let value: Result<Value, String> = serde_json::from_slice(bytes).or_else(|json_err| {
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        json5::from_str::<Value>(text).map_err(|e| format!("{json_err}; as JSON5: {e}"))
    });
    match value {
        Ok(Value::Object(mut map)) => {
            for entry in map.values_mut() {
                if let Value::Object(entry) = entry {
                    migrate(entry);
                }
            }
            (map, None)
        }
        Ok(_) => (Map::new(), Some(format!("{} does not hold a JSON object", path.display()))),
        Err(e) => (Map::new(), Some(format!("{} is not valid JSON: {e}", path.display()))),
    }
}

/// Why a store could not be written.
#[derive(Debug)]
pub enum StoreError {
    Io(std::io::Error),
    /// The file on disk is not a store; it is left alone.
    Unreadable(String),
    /// The change itself was refused (the message says why).
    Refused(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Io(e) => write!(f, "{e}"),
            StoreError::Unreadable(why) => write!(f, "{why}; refusing to overwrite it"),
            StoreError::Refused(why) => f.write_str(why),
        }
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::Io(e)
    }
}

impl SessionStore {
    pub fn new(agent_id: &str, path: PathBuf) -> SessionStore {
        SessionStore { agent_id: agent_id.to_string(), path, cache: Mutex::new(None), writer: Mutex::new(()) }
    }

    fn read_disk(&self) -> Loaded {
        let before = stamp(&self.path);
        match std::fs::read(&self.path) {
            Ok(bytes) => {
                let (entries, problem) =
                    if bytes.iter().all(u8::is_ascii_whitespace) { (Map::new(), None) } else { parse(&bytes, &self.path) };
                Loaded { stamp: before, entries, problem }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Loaded::default(),
            Err(e) => Loaded { stamp: before, entries: Map::new(), problem: Some(format!("cannot read {}: {e}", self.path.display())) },
        }
    }

    /// The store as it is on disk now (from the cache while the file is unchanged).
    pub fn read(&self) -> Arc<Loaded> {
        let now = stamp(&self.path);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(loaded) = cache.as_ref() {
            if loaded.stamp == now {
                return loaded.clone();
            }
        }
        let loaded = Arc::new(self.read_disk());
        *cache = Some(loaded.clone());
        loaded
    }

    /// Changes the store: re-read under the lock, changed by `change`, written back.
    pub fn update<T>(&self, change: impl FnOnce(&mut Map<String, Value>) -> Result<T, String>) -> Result<T, StoreError> {
        let _writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let _lock = FileLock::acquire(&self.path)?;
        let mut loaded = self.read_disk();
        if let Some(problem) = loaded.problem {
            return Err(StoreError::Unreadable(problem));
        }
        let result = change(&mut loaded.entries).map_err(StoreError::Refused)?;
        for entry in loaded.entries.values_mut() {
            if let Value::Object(entry) = entry {
                normalize_entry(entry);
            }
        }
        let bytes = serde_json::to_vec_pretty(&loaded.entries).map_err(|e| StoreError::Io(std::io::Error::other(e)))?;
        write_atomically(&self.path, &bytes)?;
        loaded.stamp = stamp(&self.path);
        *self.cache.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(loaded));
        Ok(result)
    }
}

/// Writes a file by writing a temporary file beside it and renaming it over the target,
/// so a reader (or a crash) never sees half a file; the result is mode 0600.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!("{name}.{}.{}.tmp", std::process::id(), uuid::Uuid::new_v4()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        file.write_all(bytes)?;
        file.sync_data()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_unknown_fields_and_formats_like_openclaw() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.json");
        let original = "{\n  \"agent:main:main\": {\n    \"sessionId\": \"s\",\n    \"updatedAt\": 1,\n    \"zzUnknown\": {\n      \"b\": 1,\n      \"a\": [\n        \"é\"\n      ]\n    }\n  }\n}";
        std::fs::write(&path, original).unwrap();
        let store = SessionStore::new("main", path.clone());
        store.update(|_| Ok(())).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
    }

    #[test]
    fn refuses_to_overwrite_what_it_cannot_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.json");
        std::fs::write(&path, "{ not json").unwrap();
        let store = SessionStore::new("main", path.clone());
        assert!(store.read().problem.is_some());
        let err = store.update(|m| Ok(m.insert("k".into(), json!({})))).unwrap_err();
        assert!(err.to_string().contains("refusing"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
    }

    #[test]
    fn reads_json5_and_sees_external_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.json");
        std::fs::write(&path, "{ // comment\n 'k': {sessionId: 's', updatedAt: 1,},}").unwrap();
        let store = SessionStore::new("main", path.clone());
        assert!(store.read().entries.contains_key("k"));
        std::fs::write(&path, "{\"k2\": {\"sessionId\": \"t\", \"updatedAt\": 2, \"pad\": \"xxxxxxxxxxxxxxxxxxxxxxxxx\"}}").unwrap();
        assert!(store.read().entries.contains_key("k2"));
    }
}
