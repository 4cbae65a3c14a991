//! What the host-side targets share (`disk_*`, `gateway_calls`, `component_call`): copies of
//! the sample state, the embedded gateway over one with a fixed clock, the compiled
//! component, and independent readings of OpenClaw's files the targets check the host
//! against (what a line's `id` is, whether a file is a store).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;
use serde_json::Value;
use session_tools_guest::ports::{self, *};
use session_tools_host::gateway::embedded::{Clock, EmbeddedGateway};
use session_tools_host::{EngineOptions, Limits, Runtime};

pub use crate::NOW;

/// The sample state every target starts from.
pub fn sample_state() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/openclaw-state")
}

/// The Discord channel session of the sample state and its transcript.
pub const DISCORD: &str = "agent:main:discord:channel:1187421193829244938";
pub const DISCORD_TRANSCRIPT: &str = "agents/main/sessions/8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f.jsonl";
pub const MAIN_STORE: &str = "agents/main/sessions/sessions.json";
pub const RUNS_FILE: &str = "session-tools/runs.json";
pub const JOBS_DIR: &str = "session-tools/jobs";

/// The keys, ids and labels of the sample state (what arbitrary arguments pick from).
pub const SAMPLE_KEYS: [&str; 8] = [
    "agent:main:main",
    DISCORD,
    "agent:main:cron:2f6c8a10-4d3e-4b5a-9c7d-8e1f0a2b3c4d",
    "agent:main:hook:7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "agent:main:subagent:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b",
    "agent:main:telegram:group:-1001234567890",
    "agent:ops:main",
    "agent:ops:slack:channel:c07abcdef12",
];
pub const SAMPLE_SESSION_IDS: [&str; 3] =
    ["5b0f3c2e-8d1a-4e6b-9c7f-1a2b3c4d5e6f", "8c3d9e1f-2a4b-4c6d-8e0f-3a5b7c9d1e2f", "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e"];
pub const SAMPLE_LABELS: [&str; 2] = ["pricing-research", "incidents"];

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("creating a directory");
    for entry in std::fs::read_dir(from).expect("reading the sample state") {
        let entry = entry.expect("reading the sample state");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copying the sample state");
        }
    }
}

/// A directory of this process's own, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty directory, in memory (`/dev/shm`) where there is one: the targets write
    /// and fsync on every input.
    pub fn new() -> TempDir {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
        let dir = base.join(format!("st-fuzz-{}-{}", std::process::id(), COUNT.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Default for TempDir {
    fn default() -> Self {
        TempDir::new()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh copy of the sample state.
pub fn fresh_state() -> TempDir {
    let dir = TempDir::new();
    copy_dir(&sample_state(), dir.path());
    dir
}

/// A clock that stands still, so an input always does the same.
pub fn clock() -> Clock {
    Arc::new(|| NOW)
}

/// The embedded gateway over a state directory, with the fixed clock and the echo runtime.
pub fn open_gateway(dir: &Path) -> Arc<EmbeddedGateway> {
    EmbeddedGateway::builder(dir)
        .with_clock(clock())
        .with_runtime(Arc::new(session_tools_host::gateway::embedded::runtime::EchoRuntime))
        .open()
        .expect("opening the embedded gateway over the sample state")
}

/// The component, compiled once per process (cached in `../target/component-cache`).
pub fn runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/component-cache");
            let options = EngineOptions { cache_dir: Some(cache), ..EngineOptions::default() };
            Arc::new(Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default()).expect("loading the component"))
        })
        .clone()
}

/// Replaces a file's contents as OpenClaw does (a new file renamed over it): a new inode,
/// so a reader's cache of the old version never answers for the new one.
pub fn replace_file(path: &Path, bytes: &[u8]) {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".fuzz-tmp");
    std::fs::write(&tmp, bytes).expect("writing a file");
    std::fs::rename(&tmp, path).expect("renaming a file");
}

/// A JSON text as `JSON.parse` takes it: an object's fields (a repeated key takes its
/// last value), or another value. Values are kept as their text, so numbers out of `f64`'s
/// range and lone surrogates (valid JSON text, which `serde_json::Value` refuses) are read
/// as the reference reads them.
#[derive(Debug)]
pub enum Json {
    Object(HashMap<String, Box<RawValue>>),
    Other(Box<RawValue>),
}

impl Json {
    pub fn parse(text: &str) -> Option<Json> {
        if let Ok(fields) = serde_json::from_str::<HashMap<String, Box<RawValue>>>(text) {
            return Some(Json::Object(fields));
        }
        // An object with a key `String` cannot hold (a lone surrogate, valid JSON): its other
        // keys are still fields. Only for text `JSON.parse` takes (which refuses raw control
        // characters, which keys read as bytes would let through).
        if JsValue::parse(text).is_some() {
            if let Ok(fields) = serde_json::from_str::<HashMap<KeyBytes, Box<RawValue>>>(text) {
                let named = fields.into_iter().filter_map(|(k, v)| Some((String::from_utf8(k.0).ok()?, v))).collect();
                return Some(Json::Object(named));
            }
        }
        serde_json::from_str::<Box<RawValue>>(text).ok().map(Json::Other)
    }

    /// A field's text.
    pub fn field(&self, name: &str) -> Option<&str> {
        match self {
            Json::Object(fields) => fields.get(name).map(|v| v.get()),
            Json::Other(_) => None,
        }
    }

    /// A field that is a string, decoded (`None` when it cannot be: a lone surrogate).
    /// An object serde_json cannot take as a map (a key with a lone surrogate, which
    /// `JSON.parse` takes) is read with [`JsValue`].
    pub fn text_field(&self, name: &str) -> Option<String> {
        match self {
            Json::Object(_) => self.field(name).and_then(|raw| serde_json::from_str::<String>(raw).ok()),
            Json::Other(raw) => match JsValue::parse(raw.get())?.field(name)? {
                JsValue::String(units) => String::from_utf16(units).ok(),
                _ => None,
            },
        }
    }
}

/// An object key as its bytes (WTF-8 for a lone surrogate); a repeated key still takes
/// its last value in a map.
#[derive(Debug, PartialEq, Eq, Hash)]
struct KeyBytes(Vec<u8>);

impl<'de> serde::Deserialize<'de> for KeyBytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = KeyBytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<KeyBytes, E> {
                Ok(KeyBytes(v.to_vec()))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<KeyBytes, E> {
                Ok(KeyBytes(v.as_bytes().to_vec()))
            }
        }
        d.deserialize_bytes(Visit)
    }
}

/// JavaScript's whitespace (`\s`, `String.prototype.trim`).
pub use crate::oracles::js_space;

/// A value as `JSON.parse` makes it, compared as `JSON.stringify` would write it back:
/// numbers as doubles (one beyond a double's range is `Infinity`, written `null`), strings
/// as UTF-16 (a lone surrogate is kept), an object's repeated key taking its last value.
/// Parsed here, independently of the host's readers.
#[derive(Debug, Clone)]
pub enum JsValue {
    Null,
    Bool(bool),
    Number(f64),
    String(Vec<u16>),
    Array(Vec<JsValue>),
    Object(Vec<(Vec<u16>, JsValue)>),
}

impl PartialEq for JsValue {
    fn eq(&self, other: &JsValue) -> bool {
        use JsValue::*;
        let stringified = |v: &JsValue| match v {
            Number(n) if !n.is_finite() => Null,
            other => other.clone(),
        };
        match (stringified(self), stringified(other)) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Number(a), Number(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Object(a), Object(b)) => a.len() == b.len() && a.iter().all(|(k, v)| b.iter().any(|(l, w)| k == l && v == w)),
            _ => false,
        }
    }
}

impl JsValue {
    /// `JSON.parse` of a text (`None` when it throws).
    pub fn parse(text: &str) -> Option<JsValue> {
        let mut p = JsParser { b: text.as_bytes(), at: 0, depth: 0 };
        p.space();
        let v = p.value()?;
        p.space();
        (p.at == p.b.len()).then_some(v)
    }

    pub fn field(&self, name: &str) -> Option<&JsValue> {
        let key: Vec<u16> = name.encode_utf16().collect();
        match self {
            JsValue::Object(fields) => fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn is_str(&self, s: &str) -> bool {
        matches!(self, JsValue::String(u) if *u == s.encode_utf16().collect::<Vec<u16>>())
    }

    /// JavaScript's truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            JsValue::Null => false,
            JsValue::Bool(b) => *b,
            JsValue::Number(n) => *n != 0.0 && !n.is_nan(),
            JsValue::String(s) => !s.is_empty(),
            _ => true,
        }
    }
}

struct JsParser<'a> {
    b: &'a [u8],
    at: usize,
    depth: usize,
}

impl JsParser<'_> {
    fn space(&mut self) {
        while matches!(self.b.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> Option<()> {
        self.b[self.at..].starts_with(lit.as_bytes()).then(|| self.at += lit.len())
    }

    fn value(&mut self) -> Option<JsValue> {
        self.depth += 1;
        if self.depth > 256 {
            return None;
        }
        let v = match *self.b.get(self.at)? {
            b'n' => self.eat("null").map(|_| JsValue::Null),
            b't' => self.eat("true").map(|_| JsValue::Bool(true)),
            b'f' => self.eat("false").map(|_| JsValue::Bool(false)),
            b'"' => self.string().map(JsValue::String),
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.eat("]").is_none() {
                    loop {
                        self.space();
                        items.push(self.value()?);
                        self.space();
                        if self.eat(",").is_some() {
                            continue;
                        }
                        self.eat("]")?;
                        break;
                    }
                }
                Some(JsValue::Array(items))
            }
            b'{' => {
                self.at += 1;
                let mut fields: Vec<(Vec<u16>, JsValue)> = Vec::new();
                self.space();
                if self.eat("}").is_none() {
                    loop {
                        self.space();
                        let key = self.string()?;
                        self.space();
                        self.eat(":")?;
                        self.space();
                        let value = self.value()?;
                        match fields.iter_mut().find(|(k, _)| *k == key) {
                            Some(field) => field.1 = value,
                            None => fields.push((key, value)),
                        }
                        self.space();
                        if self.eat(",").is_some() {
                            continue;
                        }
                        self.eat("}")?;
                        break;
                    }
                }
                Some(JsValue::Object(fields))
            }
            _ => self.number(),
        };
        self.depth -= 1;
        v
    }

    fn number(&mut self) -> Option<JsValue> {
        let start = self.at;
        self.eat("-");
        let digits = |p: &mut Self| {
            let s = p.at;
            while p.b.get(p.at).is_some_and(u8::is_ascii_digit) {
                p.at += 1;
            }
            p.at > s
        };
        if self.eat("0").is_none() && !digits(self) {
            return None;
        }
        if self.eat(".").is_some() && !digits(self) {
            return None;
        }
        if matches!(self.b.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.b.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                return None;
            }
        }
        std::str::from_utf8(&self.b[start..self.at]).ok()?.parse().ok().map(JsValue::Number)
    }

    fn string(&mut self) -> Option<Vec<u16>> {
        self.eat("\"")?;
        let mut out = Vec::new();
        loop {
            let c = *self.b.get(self.at)?;
            match c {
                b'"' => {
                    self.at += 1;
                    return Some(out);
                }
                b'\\' => {
                    self.at += 1;
                    let e = *self.b.get(self.at)?;
                    self.at += 1;
                    match e {
                        b'"' => out.push(0x22),
                        b'\\' => out.push(0x5c),
                        b'/' => out.push(0x2f),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'n' => out.push(0x0a),
                        b'r' => out.push(0x0d),
                        b't' => out.push(0x09),
                        b'u' => {
                            let hex = std::str::from_utf8(self.b.get(self.at..self.at + 4)?).ok()?;
                            out.push(u16::from_str_radix(hex, 16).ok()?);
                            self.at += 4;
                        }
                        _ => return None,
                    }
                }
                0..=0x1f => return None,
                _ => {
                    // One UTF-8 character (the text is a Rust string: valid UTF-8).
                    let len = match c {
                        0..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let ch = std::str::from_utf8(self.b.get(self.at..self.at + len)?).ok()?;
                    out.extend(ch.encode_utf16());
                    self.at += len;
                }
            }
        }
    }
}

/// The lines of a transcript as pi-coding-agent's `SessionManager` reads them
/// (`loadEntriesFromFile`): the file as UTF-8 with replacement characters,
/// `content.trim().split("\n")` (JavaScript's trim), blank lines skipped, `JSON.parse` of
/// each line as it is; `None` for a line that is not JSON.
pub fn transcript_lines(bytes: &[u8]) -> Vec<Option<JsValue>> {
    let text = String::from_utf8_lossy(bytes);
    text.trim_matches(js_space).split('\n').filter(|l| !l.trim_matches(js_space).is_empty()).map(JsValue::parse).collect()
}

/// The `parentId` pi-coding-agent's `SessionManager` writes after these lines
/// (`_buildIndex`: the `id` of the last entry that is not a `session` one; `null` when
/// there is none; `None`, no `parentId` at all, when that entry has no `id`).
pub fn expected_parent(bytes: &[u8]) -> Option<JsValue> {
    for line in transcript_lines(bytes).into_iter().rev().flatten() {
        if line.field("type").is_some_and(|t| t.is_str("session")) {
            continue;
        }
        return line.field("id").cloned();
    }
    Some(JsValue::Null)
}

/// Whether a transcript starts with a session header as pi-coding-agent requires it (the
/// first entry has `type === "session"` and a string `id`; otherwise it empties the file).
pub fn starts_with_header(bytes: &[u8]) -> bool {
    match transcript_lines(bytes).into_iter().flatten().next() {
        Some(first) => first.field("type").is_some_and(|t| t.is_str("session")) && matches!(first.field("id"), Some(JsValue::String(_))),
        None => false,
    }
}

/// The messages of a transcript as the reference gateway's `readSessionMessages` reads them:
/// lines split on `\r?\n`, blank ones skipped, and `parsed?.message` of every line where it
/// is truthy, in order, as JSON text.
pub fn transcript_messages(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .split('\n')
        .filter(|l| !l.trim_matches(js_space).is_empty())
        .filter(|l| JsValue::parse(l).and_then(|v| v.field("message").cloned()).is_some_and(|m| m.truthy()))
        .filter_map(|l| Json::parse(l)?.field("message").map(str::to_string))
        .collect()
}

/// Every `sessions.json` under a state directory parses as a JSON object (what the host
/// writes is always strict JSON).
pub fn check_stores_are_json(dir: &Path) {
    for agent in std::fs::read_dir(dir.join("agents")).into_iter().flatten().flatten() {
        let store = agent.path().join("sessions/sessions.json");
        if let Ok(bytes) = std::fs::read(&store) {
            let value: Value =
                serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not JSON after the host wrote it: {e}", store.display()));
            assert!(value.is_object(), "{} holds {value}", store.display());
        }
    }
}

/// The fuzz gateway as the host's [`Gateway`](session_tools_host::gateway::Gateway) (for
/// `component_call`): the same answers.
impl session_tools_host::gateway::Gateway for crate::QueueGateway {
    fn sessions_list(&self, p: &ListParams) -> GatewayResult<SessionList> {
        ports::Gateway::sessions_list(self, p)
    }
    fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
        ports::Gateway::sessions_resolve(self, p)
    }
    fn chat_history(&self, p: &HistoryParams) -> GatewayResult<History> {
        ports::Gateway::chat_history(self, p)
    }
    fn chat_histories(&self, p: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        ports::Gateway::chat_histories(self, p)
    }
    fn agent(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
        ports::Gateway::agent(self, p)
    }
    fn agent_wait(&self, p: &WaitParams) -> GatewayResult<WaitResult> {
        ports::Gateway::agent_wait(self, p)
    }
    fn send(&self, p: &SendParams) -> GatewayResult<()> {
        ports::Gateway::send(self, p)
    }
    fn sessions_patch(&self, p: &PatchParams) -> GatewayResult<()> {
        ports::Gateway::sessions_patch(self, p)
    }
    fn sessions_delete(&self, p: &DeleteParams) -> GatewayResult<()> {
        ports::Gateway::sessions_delete(self, p)
    }
}
