//! Session transcripts, `<sessionId>.jsonl` in pi-coding-agent's v3 line format
//! (docs/openclaw-versions.md, "State layout"): reading the messages `chat.history`
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
// The reading of a transcript's lines is one rule for both layouts and the plugin (E4).
use session_tools_grammar::js::js_is_space as js_space;
use session_tools_transcript::fields::{fields, string_of};
pub use session_tools_transcript::history::{Messages, DEFAULT_LIMIT, MAX_LIMIT};
use session_tools_transcript::js_text;

/// The `message` of every line (no tree walk: compactions and branches are not applied,
/// as the reference does), the last `limit` of them, user envelopes stripped, at most
/// `MAX_HISTORY_BYTES`. Lines are parsed from the end, and only until `limit` messages
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
            id: id.map(|id| js_text::stringify(id.get()).into_owned()),
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
