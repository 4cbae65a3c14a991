//! Session transcripts, `<sessionId>.jsonl` in pi-coding-agent's v3 line format
//! (`../shared/spec/openclaw-store-format.md` §5, §6): reading the messages `chat.history`
//! returns, appending messages, and archiving a transcript instead of deleting it. A
//! transcript is a [`Confined`] file: reached from its directory without following links,
//! created 0600.

use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use session_tools_contract::TranscriptMessage;

use super::confined::Confined;
use super::lock::FileLock;
pub use super::timestamps::iso_time;

/// `chat.history` defaults and bounds.
pub const DEFAULT_LIMIT: usize = 200;
pub const MAX_LIMIT: usize = 1000;
/// Older messages are dropped until the answer is at most this large.
pub const MAX_HISTORY_BYTES: usize = 6 << 20;

/// JavaScript's whitespace (`\s`, `String.prototype.trim`): OpenClaw and pi-coding-agent trim
/// with it, not with Rust's `char::is_whitespace` (U+FEFF is JavaScript whitespace, U+0085
/// is not), so a line or a hint is what they take it for.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// Picks fields of a JSON object (see [`fields`]).
struct Pick<'n, const N: usize>(&'n [&'n str; N]);

impl<'de, const N: usize> serde::de::DeserializeSeed<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, const N: usize> serde::de::Visitor<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = [None; N];
        while let Some(Key(key)) = map.next_key::<Key>()? {
            match self.0.iter().position(|name| name.as_bytes() == key.as_slice()) {
                Some(i) => found[i] = Some(map.next_value::<&'de RawValue>()?),
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// An object key as bytes (WTF-8): a key with a lone surrogate (`"\ud800"`), which
/// `JSON.parse` keeps and serde_json refuses as a `str`, is still a key, so the line's
/// other fields are read.
struct Key(Vec<u8>);

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Key, E> {
                Ok(Key(v.to_vec()))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(v.as_bytes().to_vec()))
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

/// The fields `names` of a JSON object, each as its JSON text, as `JSON.parse` reads them:
/// a key given twice takes its last value (serde's derived structs refuse a repeated field,
/// which dropped the line or the role), and a value serde_json's `Value` cannot hold (a
/// lone surrogate, a number beyond `f64`) is still read. `Err` when the text is not a JSON
/// object.
pub(in crate::gateway::embedded) fn fields<'a, const N: usize>(
    text: &'a str,
    names: &[&str; N],
) -> serde_json::Result<[Option<&'a RawValue>; N]> {
    // Keys are read as bytes ([`Key`]), which serde_json does without its check for raw
    // control characters in a string; `JSON.parse` refuses those anywhere in a string.
    if has_raw_control_in_string(text) {
        return Err(serde::de::Error::custom("a control character in a string"));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let found = serde::de::DeserializeSeed::deserialize(Pick(names), &mut de)?;
    de.end()?;
    Ok(found)
}

/// Whether a raw control character (U+0000–U+001F) is inside a string of JSON text
/// (escaped ones, `\u0000`, are fine; outside strings serde_json checks them itself).
fn has_raw_control_in_string(text: &str) -> bool {
    // Most lines have no control byte at all (a compact line escapes its newlines): that is
    // checked a block at a time, which the compiler vectorises, before the walk.
    if !text.as_bytes().chunks(64).any(|block| block.iter().fold(false, |seen, &b| seen | (b < 0x20))) {
        return false;
    }
    let (mut in_string, mut escaped) = (false, false);
    for &b in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            } else if b < 0x20 {
                return true;
            }
        } else if b == b'"' {
            in_string = true;
        }
    }
    false
}

/// A JSON string's text (`None` for anything else, or a string with a lone surrogate).
pub(in crate::gateway::embedded) fn string_of(raw: &RawValue) -> Option<String> {
    serde_json::from_str::<String>(raw.get()).ok()
}

/// Whether a JSON value is truthy in JavaScript (`parsed?.message`): not `null`, `false`,
/// `""` nor a number that is zero.
fn js_truthy(raw: &RawValue) -> bool {
    match raw.get() {
        "null" | "false" | "\"\"" => false,
        number if number.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => number.parse::<f64>() != Ok(0.0),
        _ => true,
    }
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
    // `\s*` after the header: JavaScript's whitespace.
    rest[close + 1..].trim_start_matches(js_space)
}

const MESSAGE_ID_HINT: &str = "[message_id:";

/// `MESSAGE_ID_LINE` of the reference, `/^\s*\[message_id:\s*[^\]]+\]\s*$/i`. Text is
/// sliced only at the hint's own (ASCII) bounds, never at a byte offset of the user's text.
fn is_message_id_hint(line: &str) -> bool {
    // `^\s*` and `\s*$`: JavaScript's whitespace (a line `\u{85}[message_id: 1]` is kept, one
    // `\u{feff}[message_id: 1]` is a hint).
    let l = line.trim_matches(js_space);
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

/// Whether a message's role is the user's, as `stripEnvelopeFromMessage` tests it
/// (`role.toLowerCase() === "user"`).
fn is_user(role: Option<&str>) -> bool {
    role.is_some_and(|r| r.to_lowercase() == "user")
}

/// A user message with its envelope stripped (re-encoded only when it changed):
/// `stripEnvelopeFromMessage` strips `content` when it is a string, the `text` parts of
/// `content` when it is an array, and otherwise the message's own `text`.
fn clean_user_message(raw: &str) -> String {
    // Nothing to strip unless a string starts with `[` (an envelope) or holds a hint line;
    // in JSON text that shows as `"[`, the hint itself, or an escape spelling either.
    if !(raw.contains("\"[") || raw.contains(MESSAGE_ID_HINT) || raw.contains("\\u")) {
        return raw.to_string();
    }
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
        _ => {
            if let Some(Value::String(s)) = value.get_mut("text") {
                let cleaned = clean_user_text(s);
                if cleaned != *s {
                    *s = cleaned;
                    changed = true;
                }
            }
        }
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
/// `None` when there is no such file (the next candidate is tried).
pub fn read_messages(transcript: &Confined, limit: usize) -> std::io::Result<Option<Vec<TranscriptMessage>>> {
    let read = transcript.open_read().and_then(|mut file| {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map(|_| bytes)
    });
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // The fast check first; a damaged file is read with replacement characters.
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(&bytes),
    };
    let mut messages = Messages::new(limit);
    for line in text.rsplit('\n') {
        if !messages.take(line) {
            break;
        }
    }
    Ok(Some(messages.finish()))
}

/// The messages of transcript lines given newest first (a file's, or 2026.9's transcript
/// events): `chat.history`'s reading of a line, one rule for both layouts.
pub struct Messages {
    limit: usize,
    /// Role and raw message JSON, newest first.
    kept: Vec<(Option<String>, String)>,
}

impl Messages {
    pub fn new(limit: usize) -> Messages {
        let limit = limit.clamp(1, MAX_LIMIT);
        Messages { limit, kept: Vec::with_capacity(limit.min(256)) }
    }

    /// Reads one line (the next older one); answers whether more are wanted.
    pub fn take(&mut self, line: &str) -> bool {
        if self.kept.len() == self.limit {
            return false;
        }
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            return true;
        }
        // `parsed?.message`, as `JSON.parse` reads the line (a repeated key: the last one).
        let Ok([Some(raw)]) = fields(line, &["message"]) else {
            return true;
        };
        if !js_truthy(raw) {
            return true;
        }
        let role = fields(raw.get(), &["role"]).ok().and_then(|[role]| role).and_then(string_of);
        self.kept.push((role, raw.get().to_string()));
        self.kept.len() < self.limit
    }

    /// The messages, oldest first, user envelopes stripped, at most [`MAX_HISTORY_BYTES`].
    pub fn finish(self) -> Vec<TranscriptMessage> {
        let mut kept = self.kept;
        kept.reverse();
        let mut messages: Vec<TranscriptMessage> = kept
            .into_iter()
            .map(|(role, raw)| {
                // As the real gateway writes it: `JSON.stringify` of the parsed line.
                let json = if is_user(role.as_deref()) {
                    super::js_text::stringify(&clean_user_message(&raw)).into_owned()
                } else {
                    super::js_text::stringify(&raw).into_owned()
                };
                TranscriptMessage { role, json }
            })
            .collect();
        // `capArrayByJsonBytes`: the array's JSON size is `2 + Σ + (n - 1)`; the oldest go
        // first, and the last message is always kept, however large (the real gateway
        // answers a 20 MiB message whole).
        let mut total: usize = 1 + messages.iter().map(|m| m.json.len() + 1).sum::<usize>();
        let mut drop = 0;
        while total > MAX_HISTORY_BYTES && drop + 1 < messages.len() {
            total -= messages[drop].json.len() + 1;
            drop += 1;
        }
        messages.drain(..drop);
        messages
    }
}

/// The head of a transcript line, as pi-coding-agent reads it with `JSON.parse` (a repeated
/// key: the last one; an id serde_json's `Value` cannot hold, a lone surrogate or a number
/// beyond `f64`, is still an id).
struct Head {
    /// `type === "session"`.
    session: bool,
    /// The `id` as `JSON.stringify` writes it back (`parentId` of the next entry), if any.
    id: Option<String>,
    /// `typeof id === "string"`.
    id_is_string: bool,
}

/// What a line is to pi-coding-agent: not JSON (skipped), a JSON value that is not an
/// object (no id), or an object's head.
enum Parsed {
    Skipped,
    Value(Option<Head>),
}

/// How pi-coding-agent reads the file's lines: `content.trim().split("\n")`, a line that is
/// blank once trimmed skipped, and `JSON.parse` of the line as it is (JSON whitespace only:
/// a line with another space around its JSON is not JSON). The file's own ends are trimmed
/// with JavaScript's whitespace: `starts_file`/`ends_file` say this line is where the file
/// starts or ends (blank lines aside).
fn parse_line(bytes: &[u8], starts_file: bool, ends_file: bool) -> Parsed {
    let text = String::from_utf8_lossy(bytes);
    let mut line: &str = &text;
    if starts_file {
        line = line.trim_start_matches(js_space);
    }
    if ends_file {
        line = line.trim_end_matches(js_space);
    }
    if line.trim_matches(js_space).is_empty() {
        return Parsed::Skipped;
    }
    match fields(line, &["type", "id"]) {
        Ok([kind, id]) => Parsed::Value(Some(Head {
            session: kind.and_then(string_of).as_deref() == Some("session"),
            id: id.map(|id| super::js_text::stringify(id.get()).into_owned()),
            id_is_string: id.is_some_and(|id| id.get().starts_with('"')),
        })),
        Err(_) if serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok() => Parsed::Value(None),
        Err(_) => Parsed::Skipped,
    }
}

fn is_blank(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes).trim_matches(js_space).is_empty()
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
/// `id` of the last line that parses as JSON and is not a `session` line (no tree walk), as
/// JSON text. `Some("null")` when there is none; `None` (no `parentId` at all) when that
/// last value has no `id`, as pi writes it.
fn leaf(file: &mut std::fs::File) -> std::io::Result<Option<String>> {
    let unread = file.metadata()?.len();
    // The file's end is trimmed: the last line that is not blank is read without the
    // JavaScript whitespace after it. (Its start is not: that line is the header, which
    // has_header read, and a header is skipped here whether or not it parses.)
    let mut ends_file = true;
    for line in (LinesBackward { file, unread, pending: Vec::new() }) {
        let line = line?;
        let parsed = parse_line(&line, false, ends_file);
        ends_file = ends_file && is_blank(&line);
        match parsed {
            Parsed::Skipped => continue,
            Parsed::Value(Some(head)) if head.session => continue,
            Parsed::Value(Some(Head { id: Some(id), .. })) => return Ok(Some(id)),
            Parsed::Value(_) => return Ok(None),
        }
    }
    Ok(Some("null".to_string()))
}

/// Whether the first line that parses is a session header (`{"type":"session","id":…}`):
/// pi-coding-agent empties a transcript that does not start so when it opens it, so such
/// a file is reported, not written to.
fn has_header(file: &mut std::fs::File) -> std::io::Result<bool> {
    /// How much of a file's end is looked at to tell whether only whitespace follows a line.
    const TAIL: u64 = 64 * 1024;
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(0))?;
    let mut reader = std::io::BufReader::new(&mut *file);
    let mut line = Vec::new();
    let mut read: u64 = 0;
    // The file's start is trimmed: the first line that is not blank is read without the
    // JavaScript whitespace before it.
    let mut starts_file = true;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(false);
        }
        read += n as u64;
        let mut parsed = parse_line(&line, starts_file, read >= len);
        if matches!(parsed, Parsed::Skipped) && !is_blank(&line) && read < len && len - read <= TAIL {
            // The file's end is trimmed too: a line followed by nothing but whitespace is
            // read without the whitespace after it.
            let mut rest = Vec::new();
            reader.read_to_end(&mut rest)?;
            if is_blank(&rest) {
                parsed = parse_line(&line, starts_file, true);
            } else {
                reader.seek(SeekFrom::Start(read))?;
            }
        }
        starts_file = starts_file && is_blank(&line);
        match parsed {
            Parsed::Skipped => continue,
            Parsed::Value(Some(head)) => return Ok(head.session && head.id_is_string),
            Parsed::Value(None) => return Ok(false),
        }
    }
}

/// A session's transcript in its store's directory: `<sessionId>.jsonl` (where a new one
/// is written).
pub fn file_name(session_id: &str) -> PathBuf {
    PathBuf::from(format!("{session_id}.jsonl"))
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

/// A message entry as pi-coding-agent's `appendMessage` writes it.
#[derive(serde::Serialize)]
struct Entry<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a str,
    #[serde(rename = "parentId", skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a RawValue>,
    timestamp: String,
    message: &'a Value,
}

/// A message line as pi-coding-agent writes it (2026.9 keeps the same lines as events).
pub fn message_line(id: &str, parent_id: Option<&RawValue>, now_ms: u64, message: &Value) -> serde_json::Result<String> {
    serde_json::to_string(&Entry { kind: "message", id, parent_id, timestamp: iso_time(now_ms), message })
}

/// A session header line, as pi-coding-agent writes it.
pub fn header_line(session_id: &str, cwd: &str, now_ms: u64) -> String {
    json!({"type": "session", "version": 3, "id": session_id, "timestamp": iso_time(now_ms), "cwd": cwd}).to_string()
}

/// Appends one message under the transcript's lock (OpenClaw's, as its runs take it),
/// writing the session header first when the file is new. Answers the new entry's id: the
/// one given, else a new one.
///
/// The entry's `parentId` is found as pi-coding-agent finds it ([`leaf`]), so OpenClaw's
/// own session manager sees the whole tree; a last line cut short by a writer that died
/// gets its line break first, so it never swallows the new entry. A file that does not
/// start with a session header is reported and left alone.
pub fn append_message(
    transcript: &Confined,
    session_id: &str,
    cwd: &str,
    now_ms: u64,
    message: &Value,
    entry_id: Option<&str>,
) -> std::io::Result<String> {
    // The directories first (none of them a link), so the lock beside the file is made
    // where the file is.
    transcript.create_dirs()?;
    let path = transcript.path();
    let _lock = FileLock::transcript(&path)?;
    let mut file = transcript.open_append()?;
    let mut out = String::new();
    let len = file.metadata()?.len();
    let parent = if len == 0 {
        out.push_str(&header_line(session_id, cwd, now_ms));
        out.push('\n');
        Some("null".to_string())
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
    let id = entry_id.map_or_else(|| uuid::Uuid::new_v4().simple().to_string()[..8].to_string(), str::to_string);
    // The parent id is written as its JSON text (as `JSON.stringify` writes the id it
    // parsed), so an id serde_json's `Value` cannot hold still links the tree.
    let parent_id = parent.map(RawValue::from_string).transpose().map_err(std::io::Error::other)?;
    out.push_str(&message_line(&id, parent_id.as_deref(), now_ms, message).map_err(std::io::Error::other)?);
    out.push('\n');
    file.write_all(out.as_bytes())?;
    Ok(id)
}

/// Whether a transcript has an entry with this id (a missing file has none).
pub fn has_entry(transcript: &Confined, entry_id: &str) -> std::io::Result<bool> {
    let file = match transcript.open_read() {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    for line in std::io::BufReader::new(file).split(b'\n') {
        let line = line?;
        // Cheap test first; only a line that names the id is read as JSON.
        if !line.windows(entry_id.len()).any(|w| w == entry_id.as_bytes()) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&line) else { continue };
        if let Ok([Some(id)]) = fields(text.trim_end_matches('\r'), &["id"]) {
            if string_of(id).as_deref() == Some(entry_id) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Renames a transcript to `<file>.<reason>.<ISO time with ':' as '-'>` in its directory
/// (never deletes it); answers the new path.
pub fn archive(transcript: &Confined, reason: &str, now_ms: u64) -> std::io::Result<PathBuf> {
    let stamp = iso_time(now_ms).replace(':', "-");
    let mut name = transcript.path().file_name().unwrap_or_default().to_owned();
    name.push(format!(".{reason}.{stamp}"));
    transcript.rename_to(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_dir(dir: &tempfile::TempDir) -> Confined {
        Confined::inside(dir.path(), std::path::Path::new("s.jsonl")).unwrap()
    }

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
        // A whole message: the text without a `[` is passed through; an envelope or a hint,
        // also spelled with escapes, is stripped.
        let plain = r#"{"role":"user","content":[{"type":"text","text":"hi there"}]}"#;
        assert_eq!(clean_user_message(plain), plain);
        for (raw, text) in [
            (r#"{"role":"user","content":"[Discord a b] hi"}"#, "hi"),
            (r#"{"role":"user","content":[{"type":"text","text":"\u005bDiscord a b] hi"}]}"#, "hi"),
            (r#"{"role":"user","content":"hi\n[message_id: 1]"}"#, "hi"),
            (r#"{"role":"user","content":"hi\n\u005bmessage_id: 1]"}"#, "hi"),
            (r#"{"role":"user","text":"[2026-01-26 10:00] hi"}"#, "hi"),
        ] {
            let cleaned: Value = serde_json::from_str(&clean_user_message(raw)).unwrap();
            let found = cleaned.get("content").and_then(|c| c.as_str().or_else(|| c[0]["text"].as_str())).or(cleaned["text"].as_str());
            assert_eq!(found, Some(text), "{raw}");
        }
    }

    #[test]
    fn appends_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = in_dir(&dir);
        let path = transcript.path();
        append_message(
            &transcript,
            "s",
            "/w",
            1000,
            &json!({"role": "user", "content": [{"type": "text", "text": "[WhatsApp +1 2026-01-26T10:00Z] hi"}]}),
            None,
        )
        .unwrap();
        append_message(&transcript, "s", "/w", 2000, &json!({"role": "assistant", "content": [{"type": "text", "text": "yo"}]}), None)
            .unwrap();
        let lines: Vec<Value> = std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["type"], "session");
        assert_eq!(lines[1]["parentId"], Value::Null);
        assert_eq!(lines[2]["parentId"], lines[1]["id"]);
        let messages = read_messages(&transcript, 200).unwrap().unwrap();
        assert_eq!(messages.len(), 2);
        assert!(messages[0].json.contains("\"hi\""), "{}", messages[0].json);
        assert_eq!(read_messages(&transcript, 1).unwrap().unwrap()[0].role.as_deref(), Some("assistant"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }

    /// Fuzz finding (fuzz/regressions/disk_transcript): an entry with a key holding a lone
    /// surrogate is still an entry with an id, as `JSON.parse` reads it; the next append's
    /// `parentId` is that id, not missing (which cut the message tree).
    #[test]
    fn a_key_with_a_lone_surrogate_keeps_the_entry_s_id() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = in_dir(&dir);
        let path = transcript.path();
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-26T09:50:00.900Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"model_change","id":"dfc0227b","parentId":null,"\ud800d":"x"}"#,
            "\n"
        );
        std::fs::write(&path, text).unwrap();
        append_message(&transcript, "s", "/w", 2000, &json!({"role": "user", "content": "hi"}), None).unwrap();
        let last = std::fs::read_to_string(&path).unwrap().lines().last().unwrap().to_string();
        let last: Value = serde_json::from_str(&last).unwrap();
        assert_eq!(last["parentId"], "dfc0227b", "{last}");
    }

    #[test]
    fn a_raw_control_character_in_a_key_makes_the_line_not_json() {
        // JSON.parse refuses the third line (a raw NUL inside a key), so pi-coding-agent's
        // leaf is the model_change line's id, and so is ours (found by disk_transcript).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let text = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n\
                    {\"type\":\"model_change\",\"id\":\"b2622765\",\"parentId\":null}\n\
                    {\"type\":\"thinking_level_change\",\"id\":\"d9330ca4\",\"times\u{0}tamp\":\"x\"}\n\
                    {\"type\":\"x\",\"id\":\"e1\",\"ok\":\"a\\u0000b\"}\n";
        std::fs::write(&path, text).unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        // The escaped NUL of the last line is fine: it is the leaf.
        assert_eq!(leaf(&mut file).unwrap().as_deref(), Some("\"e1\""));
        std::fs::write(&path, &text[..text.rfind("{\"type\":\"x\"").unwrap()]).unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        assert_eq!(leaf(&mut file).unwrap().as_deref(), Some("\"b2622765\""));
        assert!(!has_raw_control_in_string(r#"{"a":"\u0000\"\\"}"#));
        assert!(has_raw_control_in_string("{\"a\":\"\t\"}"));
        // Past the first block of bytes, and a control byte outside strings (pretty JSON).
        let long = "x".repeat(100);
        assert!(has_raw_control_in_string(&format!("{{\"a\":\"{long}\n\"}}")));
        assert!(!has_raw_control_in_string(&format!("{{\n\"a\":\"{long}\"\n}}")));
    }

    #[test]
    fn a_cut_line_is_skipped_and_does_not_swallow_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = in_dir(&dir);
        let path = transcript.path();
        append_message(&transcript, "s", "/w", 1000, &json!({"role": "user", "content": "one"}), None).unwrap();
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"type\":\"message\",\"message\":{\"role\":\"assis").unwrap();
        append_message(&transcript, "s", "/w", 2000, &json!({"role": "user", "content": "two"}), None).unwrap();
        let messages = read_messages(&transcript, 200).unwrap().unwrap();
        let texts: Vec<&str> = messages.iter().map(|m| m.json.as_str()).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[1].contains("two"));
    }
}
