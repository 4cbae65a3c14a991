//! Session transcripts, `<sessionId>.jsonl` in pi-coding-agent's v3 line format
//! (`../shared/spec/openclaw-store-format.md` §5, §6): reading the messages `chat.history`
//! returns, appending messages, and archiving a transcript instead of deleting it.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use session_tools_guest::ports::TranscriptMessage;

use super::lock::FileLock;

/// `chat.history` defaults and bounds.
pub const DEFAULT_LIMIT: usize = 200;
pub const MAX_LIMIT: usize = 1000;
/// Older messages are dropped until the answer is at most this large.
pub const MAX_HISTORY_BYTES: usize = 6 << 20;

/// Milliseconds since the epoch as ISO-8601 with milliseconds and `Z`.
pub fn iso_time(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, ms % 1000)
}

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

/// Whether a line is a `[message_id: …]` hint. Text is sliced only at the hint's own
/// (ASCII) bounds, never at a byte offset of the user's text.
fn is_message_id_hint(line: &str) -> bool {
    let l = line.trim_end_matches('\r').trim();
    let Some(inner) = l.get(MESSAGE_ID_HINT.len()..).and_then(|rest| rest.strip_suffix(']')) else {
        return false;
    };
    l.get(..MESSAGE_ID_HINT.len()).is_some_and(|head| head.eq_ignore_ascii_case(MESSAGE_ID_HINT)) && !inner.contains(']')
}

/// `stripMessageIdHints`: drops `[message_id: …]` lines.
pub fn strip_message_id_hints(text: &str) -> String {
    if !text.to_ascii_lowercase().contains(MESSAGE_ID_HINT) {
        return text.to_string();
    }
    text.split('\n').filter(|line| !is_message_id_hint(line)).collect::<Vec<_>>().join("\n")
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
    let mut total: usize = messages.iter().map(|m| m.json.len() + 1).sum();
    let mut drop = 0;
    while total > MAX_HISTORY_BYTES && drop < messages.len() {
        total -= messages[drop].json.len() + 1;
        drop += 1;
    }
    messages.drain(..drop);
    Ok(messages)
}

/// The `id` of the last entry of a transcript (the parent of the next one).
fn last_entry_id(file: &mut std::fs::File) -> std::io::Result<Option<String>> {
    let len = file.metadata()?.len();
    let start = len.saturating_sub(256 * 1024);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = String::new();
    file.take(len - start).read_to_string(&mut tail).ok();
    Ok(tail
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .find_map(|l| serde_json::from_str::<Value>(l).ok().and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_string)))
        .filter(|_| true))
}

/// Where a new transcript is written: `<storeDir>/<sessionId>.jsonl`.
pub fn default_path(store_dir: &Path, session_id: &str) -> PathBuf {
    store_dir.join(format!("{session_id}.jsonl"))
}

/// Appends one message, writing the session header first when the file is new, under the
/// transcript's lock. Answers the new entry's id.
pub fn append_message(path: &Path, session_id: &str, cwd: &str, now_ms: u64, message: &Value) -> std::io::Result<String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let _lock = FileLock::acquire(path)?;
    let mut file = std::fs::OpenOptions::new().read(true).append(true).create(true).open(path)?;
    let mut out = String::new();
    let parent = if file.metadata()?.len() == 0 {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
        }
        let header = json!({"type": "session", "version": 3, "id": session_id, "timestamp": iso_time(now_ms), "cwd": cwd});
        out.push_str(&header.to_string());
        out.push('\n');
        None
    } else {
        // A line cut short by a writer that died must not swallow the next one.
        let len = file.metadata()?.len();
        file.seek(SeekFrom::Start(len - 1))?;
        let mut last = [0u8; 1];
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            out.push('\n');
        }
        last_entry_id(&mut file)?.filter(|id| id != session_id)
    };
    let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
    let line = json!({"type": "message", "id": id, "parentId": parent, "timestamp": iso_time(now_ms), "message": message});
    out.push_str(&line.to_string());
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
    fn formats_times() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(1_769_418_001_120), "2026-01-26T09:00:01.120Z");
        assert_eq!(iso_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
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
        assert_eq!(strip_message_id_hints("[message_id:]\n[message_id:\n[message_id: a]b]"), "[message_id:\n[message_id: a]b]");
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
