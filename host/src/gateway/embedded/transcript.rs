//! Session transcripts, `<sessionId>.jsonl` in pi-coding-agent's v3 line format
//! (`../shared/spec/openclaw-store-format.md` §5, §6): reading the messages `chat.history`
//! returns, appending messages, and archiving a transcript instead of deleting it.

use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use session_tools_guest::ports::TranscriptMessage;

use super::lock::FileLock;
pub use super::timestamps::iso_time;

/// `chat.history` defaults and bounds.
pub const DEFAULT_LIMIT: usize = 200;
pub const MAX_LIMIT: usize = 1000;
/// Older messages are dropped until the answer is at most this large.
pub const MAX_HISTORY_BYTES: usize = 6 << 20;

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Role<'a> {
    #[serde(borrow)]
    role: Option<std::borrow::Cow<'a, str>>,
}

const ENVELOPE_CHANNELS: [&str; 13] = [
    "WebChat",
    "WhatsApp",
    "Telegram",
    "Signal",
    "Slack",
    "Discord",
    "Google Chat",
    "iMessage",
    "Teams",
    "Matrix",
    "Zalo",
    "Zalo Personal",
    "BlueBubbles",
];

fn looks_like_timestamp(header: &str) -> bool {
    let b = header.as_bytes();
    (0..b.len()).any(|i| {
        let d = |j: usize| b.get(i + j).is_some_and(u8::is_ascii_digit);
        let c = |j: usize, ch: u8| b.get(i + j) == Some(&ch);
        let date = d(0) && d(1) && d(2) && d(3) && c(4, b'-') && d(5) && d(6) && c(7, b'-') && d(8) && d(9);
        let time = |at: usize| d(at) && d(at + 1) && c(at + 2, b':') && d(at + 3) && d(at + 4);
        let boundary = |at: usize| b.get(i + at).is_none_or(|x| !(x.is_ascii_alphanumeric() || *x == b'_'));
        date && ((c(10, b'T') && time(11) && c(16, b'Z') && boundary(17)) || (c(10, b' ') && time(11) && boundary(16)))
    })
}

/// `stripEnvelope`: drops a leading `[header] ` that a channel or the gateway added.
pub fn strip_envelope(text: &str) -> &str {
    let Some(rest) = text.strip_prefix('[') else {
        return text;
    };
    let Some(close) = rest.find(']') else {
        return text;
    };
    let header = &rest[..close];
    if header.is_empty() {
        return text;
    }
    let known = looks_like_timestamp(header) || ENVELOPE_CHANNELS.iter().any(|c| header.starts_with(&format!("{c} ")));
    if !known {
        return text;
    }
    rest[close + 1..].trim_start()
}

const MESSAGE_ID_HINT: &str = "[message_id:";

/// `MESSAGE_ID_LINE` of the reference, `/^\s*\[message_id:\s*[^\]]+\]\s*$/i`. Text is
/// sliced only at the hint's own (ASCII) bounds, never at a byte offset of the user's text.
fn is_message_id_hint(line: &str) -> bool {
    let l = line.trim();
    let Some(inner) = l.get(MESSAGE_ID_HINT.len()..).and_then(|rest| rest.strip_suffix(']')) else {
        return false;
    };
    l.get(..MESSAGE_ID_HINT.len()).is_some_and(|head| head.eq_ignore_ascii_case(MESSAGE_ID_HINT))
        && !inner.is_empty()
        && !inner.contains(']')
}

/// `stripMessageIdHints`: drops `[message_id: …]` lines (lines split on `\r?\n`, and
/// joined with `\n` only when one was dropped).
pub fn strip_message_id_hints(text: &str) -> String {
    if !text.contains(MESSAGE_ID_HINT) {
        return text.to_string();
    }
    let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let kept: Vec<&str> = lines.iter().copied().filter(|l| !is_message_id_hint(l)).collect();
    if kept.len() == lines.len() {
        text.to_string()
    } else {
        kept.join("\n")
    }
}

fn clean_user_text(text: &str) -> String {
    strip_message_id_hints(strip_envelope(text))
}

/// A user message with its envelope stripped (re-encoded only when it changed).
fn clean_user_message(raw: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(raw) else {
        return raw.to_string();
    };
    let mut changed = false;
    match value.get_mut("content") {
        Some(Value::String(s)) => {
            let cleaned = clean_user_text(s);
            if cleaned != *s {
                *s = cleaned;
                changed = true;
            }
        }
        Some(Value::Array(items)) => {
            for item in items {
                if item.get("type").and_then(Value::as_str) != Some("text") {
                    continue;
                }
                if let Some(Value::String(s)) = item.get_mut("text") {
                    let cleaned = clean_user_text(s);
                    if cleaned != *s {
                        *s = cleaned;
                        changed = true;
                    }
                }
            }
        }
        _ => {}
    }
    if changed {
        value.to_string()
    } else {
        raw.to_string()
    }
}

/// The `message` of every line (no tree walk: compactions and branches are not applied,
/// as the reference does), the last `limit` of them, user envelopes stripped, at most
/// [`MAX_HISTORY_BYTES`]. Lines are parsed from the end, and only until `limit` messages
/// are found: a long transcript costs a read and a UTF-8 check, not a parse of every line.
pub fn read_messages(path: &Path, limit: usize) -> std::io::Result<Vec<TranscriptMessage>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    // The fast check first; a damaged file is read with replacement characters.
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(&bytes),
    };
    let limit = limit.clamp(1, MAX_LIMIT);
    let mut kept: Vec<(Option<String>, &str)> = Vec::with_capacity(limit.min(256));
    for line in text.rsplit('\n') {
        if kept.len() == limit {
            break;
        }
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let Ok(Line { message: Some(raw) }) = serde_json::from_str::<Line>(line) else {
            continue;
        };
        let role = serde_json::from_str::<Role>(raw.get()).ok().and_then(|r| r.role).map(|r| r.into_owned());
        kept.push((role, raw.get()));
    }
    kept.reverse();
    let mut messages: Vec<TranscriptMessage> = kept
        .into_iter()
        .map(|(role, raw)| {
            let json = if role.as_deref() == Some("user") { clean_user_message(raw) } else { raw.to_string() };
            TranscriptMessage { role, json }
        })
        .collect();
    // `capArrayByJsonBytes`: the array's JSON size is `2 + Σ + (n - 1)`; the oldest go
    // first, and the last message is always kept, however large (the real gateway answers
    // a 20 MiB message whole).
    let mut total: usize = 1 + messages.iter().map(|m| m.json.len() + 1).sum::<usize>();
    let mut drop = 0;
    while total > MAX_HISTORY_BYTES && drop + 1 < messages.len() {
        total -= messages[drop].json.len() + 1;
        drop += 1;
    }
    messages.drain(..drop);
    Ok(messages)
}

/// A transcript line's `type` or `id`: absent, or present with any JSON value (`null`
/// included, which `Option` would take for absent).
#[derive(Default)]
enum Field {
    #[default]
    Absent,
    Present(Value),
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(Field::Present)
    }
}

/// The head of a transcript line (the rest is checked for syntax, not kept).
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type", default)]
    kind: Field,
    #[serde(default)]
    id: Field,
}

/// What a line is to pi-coding-agent: not JSON (skipped), a JSON value that is not an
/// object (no id), or an object's head.
enum Parsed {
    Skipped,
    Value(Option<Head>),
}

fn parse_line(bytes: &[u8]) -> Parsed {
    let text = String::from_utf8_lossy(bytes);
    let line = text.trim();
    if line.is_empty() {
        return Parsed::Skipped;
    }
    match serde_json::from_str::<Head>(line) {
        Ok(head) => Parsed::Value(Some(head)),
        Err(_) if serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok() => Parsed::Value(None),
        Err(_) => Parsed::Skipped,
    }
}

fn is_session(head: &Head) -> bool {
    matches!(&head.kind, Field::Present(Value::String(t)) if t == "session")
}

/// The lines of a file from its end, each read only as far as needed (a long last line is
/// read whole, but nothing before the line that is wanted).
struct LinesBackward<'f> {
    file: &'f mut std::fs::File,
    /// Bytes not yet read: the file before this offset.
    unread: u64,
    /// Read bytes that end with an incomplete line's tail.
    pending: Vec<u8>,
}

impl Iterator for LinesBackward<'_> {
    type Item = std::io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(at) = self.pending.iter().rposition(|b| *b == b'\n') {
                let line = self.pending.split_off(at + 1);
                self.pending.truncate(at);
                return Some(Ok(line));
            }
            if self.unread == 0 {
                return (!self.pending.is_empty()).then(|| Ok(std::mem::take(&mut self.pending)));
            }
            let chunk = self.unread.min(64 * 1024);
            self.unread -= chunk;
            let mut block = vec![0u8; chunk as usize];
            if let Err(e) = self.file.seek(SeekFrom::Start(self.unread)).and_then(|_| self.file.read_exact(&mut block)) {
                return Some(Err(e));
            }
            block.extend_from_slice(&self.pending);
            self.pending = block;
        }
    }
}

/// The `parentId` of the next entry, as pi-coding-agent's `SessionManager` finds it: the
/// `id` of the last line that parses as JSON and is not a `session` line (no tree walk).
/// `Some(null)` when there is none; `None` (no `parentId` at all) when that last value has
/// no `id`, as pi writes it.
fn leaf(file: &mut std::fs::File) -> std::io::Result<Option<Value>> {
    let unread = file.metadata()?.len();
    for line in (LinesBackward { file, unread, pending: Vec::new() }) {
        match parse_line(&line?) {
            Parsed::Skipped => continue,
            Parsed::Value(Some(head)) if is_session(&head) => continue,
            Parsed::Value(Some(Head { id: Field::Present(id), .. })) => return Ok(Some(id)),
            Parsed::Value(_) => return Ok(None),
        }
    }
    Ok(Some(Value::Null))
}

/// Whether the first line that parses is a session header (`{"type":"session","id":…}`):
/// pi-coding-agent empties a transcript that does not start so when it opens it, so such
/// a file is reported, not written to.
fn has_header(file: &mut std::fs::File) -> std::io::Result<bool> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = std::io::BufReader::new(&mut *file);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(false);
        }
        match parse_line(&line) {
            Parsed::Skipped => continue,
            Parsed::Value(Some(head)) => return Ok(is_session(&head) && matches!(head.id, Field::Present(Value::String(_)))),
            Parsed::Value(None) => return Ok(false),
        }
    }
}

/// Where a new transcript is written: `<storeDir>/<sessionId>.jsonl`.
pub fn default_path(store_dir: &Path, session_id: &str) -> PathBuf {
    store_dir.join(format!("{session_id}.jsonl"))
}

/// Whether a session id can name a transcript file: the id comes from a store on disk, so
/// one that would leave the store's directory (`../x`, `a/b`) or is not a plain name is
/// refused.
pub fn valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && id != "."
        && id != ".."
        && !id.chars().any(|c| c == '/' || c == '\\' || c == '\0' || c.is_control())
}

/// Appends one message under the transcript's lock (OpenClaw's, as its runs take it),
/// writing the session header first when the file is new. Answers the new entry's id.
///
/// The entry's `parentId` is found as pi-coding-agent finds it ([`leaf`]), so OpenClaw's
/// own session manager sees the whole tree; a last line cut short by a writer that died
/// gets its line break first, so it never swallows the new entry. A file that does not
/// start with a session header is reported and left alone.
pub fn append_message(path: &Path, session_id: &str, cwd: &str, now_ms: u64, message: &Value) -> std::io::Result<String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let _lock = FileLock::transcript(path)?;
    let mut file = std::fs::OpenOptions::new().read(true).append(true).create(true).open(path)?;
    let mut out = String::new();
    let len = file.metadata()?.len();
    let parent = if len == 0 {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
        }
        let header = json!({"type": "session", "version": 3, "id": session_id, "timestamp": iso_time(now_ms), "cwd": cwd});
        out.push_str(&header.to_string());
        out.push('\n');
        Some(Value::Null)
    } else {
        if !has_header(&mut file)? {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} does not start with a session header; it was left as it is", path.display()),
            ));
        }
        file.seek(SeekFrom::Start(len - 1))?;
        let mut last = [0u8; 1];
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            out.push('\n');
        }
        leaf(&mut file)?
    };
    let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    let mut line = serde_json::Map::new();
    line.insert("type".into(), json!("message"));
    line.insert("id".into(), json!(id));
    if let Some(parent) = parent {
        line.insert("parentId".into(), parent);
    }
    line.insert("timestamp".into(), json!(iso_time(now_ms)));
    line.insert("message".into(), message.clone());
    out.push_str(&Value::Object(line).to_string());
    out.push('\n');
    file.write_all(out.as_bytes())?;
    Ok(id)
}

/// Renames a transcript to `<file>.<reason>.<ISO time with ':' as '-'>` (never deletes it).
pub fn archive(path: &Path, reason: &str, now_ms: u64) -> std::io::Result<PathBuf> {
    let stamp = iso_time(now_ms).replace(':', "-");
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{reason}.{stamp}"));
    let target = PathBuf::from(name);
    std::fs::rename(path, &target)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_envelopes() {
        assert_eq!(strip_envelope("[Discord Acme HQ #general channel id:1 +10m 2026-01-26T10:00Z] alice: hi"), "alice: hi");
        assert_eq!(strip_envelope("[not an envelope] hi"), "[not an envelope] hi");
        assert_eq!(strip_envelope("[2026-01-26 10:00] hi"), "hi");
        assert_eq!(strip_message_id_hints("hi\n[message_id: 123]"), "hi");
        // Lines whose 12th byte falls inside a character (issue 10, issue 11 item 8).
        assert_eq!(strip_message_id_hints("[message_id: 1]\nGracias, señor"), "Gracias, señor");
        assert_eq!(strip_message_id_hints("100% done — thanks!\n[message_id: 1]"), "100% done — thanks!");
        assert_eq!(strip_message_id_hints("[message_id: 1]\n谢谢你的帮助，朋友们\n[MESSAGE_ID: é]"), "谢谢你的帮助，朋友们");
        // `/^\s*\[message_id:\s*[^\]]+\]\s*$/i`: something inside, no `]` in it.
        assert_eq!(
            strip_message_id_hints("[message_id:]\n[message_id:\n[message_id: a]b]"),
            "[message_id:]\n[message_id:\n[message_id: a]b]"
        );
        assert_eq!(strip_message_id_hints("a\r\n [message_id: 7] \r\nb\n[MESSAGE_ID: 8]"), "a\nb");
        assert_eq!(strip_message_id_hints("only [MESSAGE_ID: 1]"), "only [MESSAGE_ID: 1]");
    }

    #[test]
    fn appends_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append_message(
            &path,
            "s",
            "/w",
            1000,
            &json!({"role": "user", "content": [{"type": "text", "text": "[WhatsApp +1 2026-01-26T10:00Z] hi"}]}),
        )
        .unwrap();
        append_message(&path, "s", "/w", 2000, &json!({"role": "assistant", "content": [{"type": "text", "text": "yo"}]})).unwrap();
        let lines: Vec<Value> = std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["type"], "session");
        assert_eq!(lines[1]["parentId"], Value::Null);
        assert_eq!(lines[2]["parentId"], lines[1]["id"]);
        let messages = read_messages(&path, 200).unwrap();
        assert_eq!(messages.len(), 2);
        assert!(messages[0].json.contains("\"hi\""), "{}", messages[0].json);
        assert_eq!(read_messages(&path, 1).unwrap()[0].role.as_deref(), Some("assistant"));
    }

    #[test]
    fn a_cut_line_is_skipped_and_does_not_swallow_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append_message(&path, "s", "/w", 1000, &json!({"role": "user", "content": "one"})).unwrap();
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"type\":\"message\",\"message\":{\"role\":\"assis").unwrap();
        append_message(&path, "s", "/w", 2000, &json!({"role": "user", "content": "two"})).unwrap();
        let messages = read_messages(&path, 200).unwrap();
        let texts: Vec<&str> = messages.iter().map(|m| m.json.as_str()).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[1].contains("two"));
    }
}
