//! One agent's session store, `sessions.json` (docs/openclaw-versions.md,
//! "State layout"): a JSON object of entries keyed by session key.
//!
//! Read leniently (JSON, then JSON5) and cached until the file changes; each entry is kept
//! as its raw JSON text and parsed only when it is used, so a store of hundreds of
//! thousands of sessions costs about its file size in memory. A file that is not a store
//! (truncated, `[]`, junk) is reported, never taken for an empty store, and never
//! overwritten. Written under OpenClaw's lock, with every entry's delivery fields
//! normalised, as `JSON.stringify(store, null, 2)` (two spaces, no trailing newline), to a
//! temporary file renamed over the store (never half-written), mode 0600. Entry fields
//! this project does not know are kept as they are, in their order.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::delivery::normalize_entry;
use super::lock::FileLock;
use crate::private_files::{create_private_dir, write_atomically, Durability};

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

/// The entries of a store, by stored key in file order, each as its raw JSON text.
#[derive(Debug, Default, Clone)]
pub struct Entries {
    map: IndexMap<String, Box<RawValue>>,
    /// Why the file could be read only with some of its text replaced (valid JSON with a
    /// key serde_json cannot hold, a lone surrogate, read by the JSON5 reader with U+FFFD):
    /// it is read, but never written over.
    lossy: Option<String>,
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

fn raw(value: &impl serde::Serialize) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::from_string("null".into()).expect("null is JSON"))
}

#[derive(serde::Deserialize)]
struct LabelOnly<'a> {
    #[serde(borrow, default)]
    label: Option<std::borrow::Cow<'a, str>>,
}

impl Entries {
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn contains_key(&self, stored: &str) -> bool {
        self.map.contains_key(stored)
    }

    /// A key's place in the file.
    pub fn position(&self, stored: &str) -> Option<usize> {
        self.map.get_index_of(stored)
    }

    /// Stored keys with their raw entries, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawValue)> {
        self.map.iter().map(|(k, v)| (k.as_str(), v.as_ref()))
    }

    /// An entry, parsed (with OpenClaw's field migrations); `None` when there is no such key
    /// or its value is not an object, or cannot be read (see [`Self::read`]).
    pub fn get(&self, stored: &str) -> Option<Map<String, Value>> {
        parse_entry(self.map.get(stored)?)
    }

    /// An entry, parsed; `Ok(None)` when there is no such key or its value is not an object
    /// (OpenClaw spreads such a value into a fresh entry), `Err` when it is an object this
    /// host cannot read (a string with a lone surrogate, which `JSON.parse` keeps and
    /// serde_json refuses): such an entry is never mistaken for a missing one.
    pub fn read(&self, stored: &str) -> Result<Option<Map<String, Value>>, String> {
        let Some(raw) = self.map.get(stored) else { return Ok(None) };
        match parse_entry(raw) {
            Some(entry) => Ok(Some(entry)),
            None if raw.get().starts_with('{') => {
                let why = serde_json::from_str::<Value>(raw.get()).err().map_or_else(String::new, |e| format!(" ({e})"));
                Err(format!("the entry of {stored} cannot be read{why}; refusing to replace it"))
            }
            None => Ok(None),
        }
    }

    /// Sets an entry, in its place if the key exists, else at the end.
    pub fn insert(&mut self, stored: String, entry: &Map<String, Value>) {
        self.map.insert(stored, raw(entry));
    }

    /// Removes an entry, keeping the order of the others; answers it.
    pub fn shift_remove(&mut self, stored: &str) -> Option<Map<String, Value>> {
        self.map.shift_remove(stored).and_then(|raw| parse_entry(&raw))
    }

    /// Whether an entry other than `except` carries this label.
    pub fn label_taken(&self, label: &str, except: Option<&str>) -> bool {
        self.map.iter().any(|(key, raw)| {
            Some(key.as_str()) != except
                && serde_json::from_str::<LabelOnly>(raw.get()).ok().and_then(|l| l.label).as_deref() == Some(label)
        })
    }

    /// `JSON.stringify(store, null, 2)`, every object entry's delivery fields normalised
    /// first (`normalizeSessionStore`). Entries are formatted one at a time.
    fn render(&self) -> Result<Vec<u8>, String> {
        if self.map.is_empty() {
            return Ok(b"{}".to_vec());
        }
        let mut out = Vec::with_capacity(self.map.values().map(|r| r.get().len() + 64).sum());
        out.extend_from_slice(b"{\n");
        for (i, (key, raw)) in self.map.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n");
            }
            out.extend_from_slice(b"  ");
            serde_json::to_writer(&mut out, key).map_err(|e| e.to_string())?;
            out.extend_from_slice(b": ");
            // An entry this host cannot read (a lone surrogate) is not written over: the
            // write is refused, naming it.
            let mut value: Value =
                lenient(raw.get()).map_err(|e| format!("the entry of {key} cannot be read ({e}); refusing to write the store"))?;
            if let Value::Object(entry) = &mut value {
                migrate(entry);
                normalize_entry(entry);
            }
            // Nested lines move in by the entry's own indentation. A JSON text has line
            // breaks only between tokens (never inside a string), so this is exact.
            let pretty = serde_json::to_vec_pretty(&value).map_err(|e| e.to_string())?;
            for (n, line) in pretty.split(|b| *b == b'\n').enumerate() {
                if n > 0 {
                    out.extend_from_slice(b"\n  ");
                }
                out.extend_from_slice(line);
            }
        }
        out.extend_from_slice(b"\n}");
        Ok(out)
    }
}

/// A value as OpenClaw reads and writes it back: a number beyond a double's range is
/// `Infinity` to `JSON.parse`, written `null` by `JSON.stringify` (serde_json's `Value`
/// refuses it, which made the whole entry unreadable).
fn lenient<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    serde_json::from_str(text).or_else(|e| {
        let as_javascript = session_tools_transcript::js_text::stringify(text);
        if as_javascript == text {
            Err(e)
        } else {
            serde_json::from_str(&as_javascript)
        }
    })
}

fn parse_entry(raw: &RawValue) -> Option<Map<String, Value>> {
    let mut entry: Map<String, Value> = lenient(raw.get()).ok()?;
    migrate(&mut entry);
    Some(entry)
}

/// Parses a store file; `Err` says why it is not a store.
pub fn parse(bytes: &[u8]) -> Result<Entries, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Entries::default());
    }
    // Strict JSON first, without building the entries (the common, fast case).
    let strict = serde_json::from_slice::<IndexMap<String, Box<RawValue>>>(bytes);
    let json_err = match strict {
        Ok(map) => return Ok(Entries { map, lossy: None }),
        Err(e) => e,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| format!("it is not UTF-8 text ({e})"))?;
    match crate::json5::from_str(text) {
        Ok(Value::Object(entries)) => {
            // Valid JSON that the strict reader refused holds text it cannot keep exactly.
            let lossy = serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
                .is_ok()
                .then(|| format!("holds text this host cannot keep exactly ({json_err})"));
            Ok(Entries { map: entries.into_iter().map(|(k, v)| (k, raw(&v))).collect(), lossy })
        }
        Ok(other) => Err(format!("it holds {} where a store holds a JSON object of sessions", kind_of(&other))),
        Err(_) if json_err.is_data() => Err(format!("it is not a JSON object of sessions ({json_err})")),
        Err(json5_err) => Err(format!("it is not valid JSON ({json_err}) nor JSON5 ({json5_err})")),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A loaded store.
#[derive(Debug, Default)]
pub struct Loaded {
    stamp: Option<Stamp>,
    /// Stored key → entry, in file order.
    pub entries: Entries,
    /// Why the file could not be read as a store (its entries are then empty, and it is
    /// never overwritten): a message that names the file.
    pub problem: Option<String>,
}

impl Loaded {
    /// The store, or the error that names the file and says what is wrong with it.
    pub fn check(&self) -> Result<&Entries, String> {
        match &self.problem {
            Some(problem) => Err(problem.clone()),
            None => Ok(&self.entries),
        }
    }
}

/// An agent's store file.
#[derive(Debug)]
pub struct SessionStore {
    pub agent_id: String,
    pub path: PathBuf,
    cache: Mutex<Option<Arc<Loaded>>>,
    /// Held while the file is read into the cache, so concurrent readers of this store
    /// read it once; no other lock is held meanwhile.
    loading: Mutex<()>,
    writer: Mutex<()>,
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
        SessionStore { agent_id: agent_id.to_string(), path, cache: Mutex::new(None), loading: Mutex::new(()), writer: Mutex::new(()) }
    }

    fn read_disk(&self) -> Loaded {
        let before = stamp(&self.path);
        let name = self.path.display();
        match std::fs::read(&self.path) {
            Ok(bytes) => match parse(&bytes) {
                Ok(entries) => Loaded { stamp: before, entries, problem: None },
                Err(why) => Loaded {
                    stamp: before,
                    entries: Entries::default(),
                    problem: Some(format!("the session store {name} is damaged: {why}")),
                },
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Loaded::default(),
            Err(e) => {
                Loaded { stamp: before, entries: Entries::default(), problem: Some(format!("cannot read the session store {name}: {e}")) }
            }
        }
    }

    fn cached(&self, now: Option<Stamp>) -> Option<Arc<Loaded>> {
        crate::poison::lock_rebuilt(&self.cache).as_ref().filter(|l| l.stamp == now).cloned()
    }

    /// The store as it is on disk now (from the cache while the file is unchanged). The file
    /// is read with no lock held but this store's own loading lock.
    pub fn read(&self) -> Arc<Loaded> {
        let now = stamp(&self.path);
        if let Some(loaded) = self.cached(now) {
            return loaded;
        }
        let _loading = crate::poison::lock_whole(&self.loading);
        // Another reader may have loaded it meanwhile.
        let now = stamp(&self.path);
        if let Some(loaded) = self.cached(now) {
            return loaded;
        }
        let loaded = Arc::new(self.read_disk());
        *crate::poison::lock_rebuilt(&self.cache) = Some(loaded.clone());
        loaded
    }

    /// Changes the store: re-read under the lock, changed by `change`, written back.
    pub fn update<T>(&self, change: impl FnOnce(&mut Entries) -> Result<T, String>) -> Result<T, StoreError> {
        let _writer = crate::poison::lock_whole(&self.writer);
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_private_dir(dir)?;
        }
        let lock = FileLock::store(&self.path)?;
        let mut loaded = self.read_disk();
        if let Some(problem) = loaded.problem {
            return Err(StoreError::Unreadable(problem));
        }
        if let Some(why) = &loaded.entries.lossy {
            return Err(StoreError::Unreadable(format!("the session store {} {why}", self.path.display())));
        }
        let result = change(&mut loaded.entries).map_err(StoreError::Refused)?;
        let bytes = loaded.entries.render().map_err(StoreError::Refused)?;
        write_atomically(&self.path, &bytes, Durability::Synced)?;
        lock.sweep_temporaries(&self.path);
        drop(lock);
        // The next read loads the file as written (its stamp is new).
        *crate::poison::lock_rebuilt(&self.cache) = None;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_unknown_fields_and_formats_like_openclaw() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.json");
        let original = "{\n  \"agent:main:main\": {\n    \"sessionId\": \"s\",\n    \"updatedAt\": 1,\n    \"zzUnknown\": {\n      \"b\": 1,\n      \"a\": [\n        \"é\"\n      ],\n      \"e\": {},\n      \"f\": []\n    }\n  },\n  \"odd\": 5\n}";
        std::fs::write(&path, original).unwrap();
        let store = SessionStore::new("main", path.clone());
        store.update(|_| Ok(())).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        store.update(|entries| Ok(entries.shift_remove("agent:main:main"))).unwrap();
        store.update(|entries| Ok(entries.shift_remove("odd"))).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
    }

    #[test]
    fn refuses_to_overwrite_what_it_cannot_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.json");
        for damaged in ["{ not json", "[]", "{\"a\": {\"sessionId\": \"s\"", "\u{0}\u{1}junk", "42"] {
            std::fs::write(&path, damaged).unwrap();
            let store = SessionStore::new("main", path.clone());
            let problem = store.read().problem.clone().unwrap_or_else(|| panic!("{damaged:?} read as a store"));
            assert!(problem.contains(&path.display().to_string()) && problem.contains("damaged"), "{problem}");
            let err = store
                .update(|m| {
                    m.insert("k".into(), &Map::new());
                    Ok(())
                })
                .unwrap_err();
            assert!(err.to_string().contains("refusing"), "{err}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), damaged);
        }
    }

    #[test]
    fn reads_json5_and_sees_external_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.json");
        std::fs::write(&path, "{ // comment\n 'k': {sessionId: 's', updatedAt: 1, provider: 'discord'},}").unwrap();
        let store = SessionStore::new("main", path.clone());
        assert_eq!(store.read().entries.get("k").unwrap()["channel"], json!("discord"), "old field names are migrated");
        std::fs::write(&path, "{\"k2\": {\"sessionId\": \"t\", \"updatedAt\": 2, \"pad\": \"xxxxxxxxxxxxxxxxxxxxxxxxx\"}}").unwrap();
        assert!(store.read().entries.contains_key("k2"));
    }

    #[test]
    fn labels_are_found_in_raw_entries() {
        let entries = parse(br#"{"a": {"label": "x\u00e9"}, "b": {"label": 5}, "c": 1}"#).unwrap();
        assert!(entries.label_taken("xé", None));
        assert!(!entries.label_taken("xé", Some("a")));
        assert!(!entries.label_taken("5", None));
    }
}
