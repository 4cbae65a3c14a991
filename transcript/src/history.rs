//! `chat.history` as the embedded gateway answers it (E4: the raw transcript, on both
//! eras): a transcript's lines read newest first, their messages kept, user envelopes
//! stripped, the answer bounded; and which sessions have no history for the tools (E3).
//! The Rust host reads the lines from a JSONL file or 2026.9's `transcript_events`; the
//! plugin hands the events the plugin SDK read to the gateway wire component, which answers
//! with [`answer`]: one rule for both.

use serde_json::value::RawValue;
use serde_json::Value;
use session_tools_contract::TranscriptMessage;

use session_tools_grammar::js::js_is_space as js_space;

use crate::fields::{fields, string_of, top_level_string};

/// `chat.history`'s `limit` when none is given.
pub const DEFAULT_LIMIT: usize = 200;
/// The largest `limit` the gateway's schema takes.
pub const MAX_LIMIT: usize = 1000;
/// Older messages are dropped until the answer is at most this large.
pub const MAX_HISTORY_BYTES: usize = 6 << 20;

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

/// The messages of transcript lines given newest first (a file's, or 2026.9's transcript
/// events): `chat.history`'s reading of a line, one rule for both layouts.
pub struct Messages {
    limit: usize,
    /// Role and raw message JSON, newest first.
    kept: Vec<(Option<String>, String)>,
}

impl Messages {
    /// Keeps at most `limit` messages (clamped to `1..=MAX_LIMIT`).
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
        // The message was read whole above; its `role` is found by a scan of its top level.
        let role = top_level_string(raw.get(), "role")
            .unwrap_or_else(|| fields(raw.get(), &["role"]).ok().and_then(|[role]| role).and_then(string_of));
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
                    crate::js_text::stringify(&clean_user_message(&raw)).into_owned()
                } else {
                    crate::js_text::stringify(&raw).into_owned()
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

/// Whether an entry is one the tools never see (E3: archived, incognito), from its
/// `archivedAt` and `incognito`.
pub fn hidden(archived_at: Option<&Value>, incognito: Option<&Value>) -> bool {
    archived_at.is_some_and(|v| !v.is_null()) || incognito.and_then(Value::as_bool) == Some(true)
}

/// What `chat.history` reads of a session's entry (JSON text): `None` for a session the
/// tools never see ([`hidden`]), else its transcript's id (`sessionId`, when a string).
/// Only those three fields are read, not the whole entry built (a list with `messageLimit`
/// reads one entry per row). `Err` when the text is not a JSON object.
pub fn entry_session(entry: &str) -> Result<Option<Option<String>>, NotAnObject> {
    let [session_id, archived_at, incognito] = fields(entry, &["sessionId", "archivedAt", "incognito"]).map_err(|_| NotAnObject)?;
    // The two flags are small values: parsed whole, they are read by the one rule.
    let value = |raw: Option<&RawValue>| raw.and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok());
    if hidden(value(archived_at).as_ref(), value(incognito).as_ref()) {
        return Ok(None);
    }
    Ok(Some(session_id.and_then(string_of)))
}

/// A session's entry that is not a JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAnObject;

/// Why [`answer`] gives no answer: the host asks the gateway instead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotAnswered {
    /// A `limit` the gateway's schema refuses (its error is the gateway's to give).
    Limit(u32),
    /// The entry is not a JSON object.
    Entry,
}

impl std::fmt::Display for NotAnswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotAnswered::Limit(limit) => write!(f, "a chat.history limit of {limit} is outside 1..={MAX_LIMIT}"),
            NotAnswered::Entry => f.write_str("the session's entry is not a JSON object"),
        }
    }
}

impl std::error::Error for NotAnswered {}

/// The `chat.history` answer (`{sessionKey, sessionId?, messages}`, JSON text) of a session
/// read in the gateway's process: its entry as stored (`None`: no such session), its
/// transcript's events as JSON text **newest first**, and the call's `limit`. What the
/// embedded gateway answers from the same rows: a hidden session (E3) or one without a
/// transcript id has no messages.
///
/// `whole` says whether the events are all the transcript's. A host may give only the
/// newest ones (each event crosses into the component as text, and a history wants few);
/// when those hold fewer than `limit` messages and are not the whole transcript, the answer
/// is `None`: the host asks again with every event.
pub fn answer(
    session_key: &str,
    entry: Option<&str>,
    newest_first: &[String],
    whole: bool,
    limit: Option<u32>,
) -> Result<Option<String>, NotAnswered> {
    let limit = match limit {
        None => DEFAULT_LIMIT,
        Some(l) if l == 0 || l as usize > MAX_LIMIT => return Err(NotAnswered::Limit(l)),
        Some(l) => l as usize,
    };
    let session_id = match entry.map(entry_session).transpose() {
        Err(NotAnObject) => return Err(NotAnswered::Entry),
        Ok(found) => found.flatten().flatten(),
    };
    let messages = match &session_id {
        Some(_) => {
            let mut messages = Messages::new(limit);
            let mut wanted = true;
            for event in newest_first {
                if !messages.take(event) {
                    wanted = false;
                    break;
                }
            }
            if wanted && !whole {
                return Ok(None);
            }
            messages.finish()
        }
        None => Vec::new(),
    };
    let mut out = String::with_capacity(64 + messages.iter().map(|m| m.json.len() + 1).sum::<usize>());
    out.push_str("{\"sessionKey\":");
    out.push_str(&Value::from(session_key).to_string());
    if let Some(id) = &session_id {
        out.push_str(",\"sessionId\":");
        out.push_str(&Value::from(id.as_str()).to_string());
    }
    out.push_str(",\"messages\":[");
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&m.json);
    }
    out.push_str("]}");
    Ok(Some(out))
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
        // Lines whose 12th byte falls inside a character (a byte cut there would split a character).
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
    fn an_answer_is_the_embedded_gateway_s_reading_of_the_events() {
        let events: Vec<String> = [
            r#"{"type":"session","version":3,"id":"s1"}"#,
            r#"{"type":"message","id":"a","message":{"role":"user","content":"[Discord a b] hi"}}"#,
            "not json",
            r#"{"type":"message","id":"b","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"n":1.0}}"#,
        ]
        .map(String::from)
        .to_vec();
        let events: Vec<String> = events.into_iter().rev().collect();
        let answer = |key: &str, entry: Option<&str>, events: &[String], limit: Option<u32>| {
            answer(key, entry, events, true, limit).map(Option::unwrap)
        };
        let entry = r#"{"sessionId":"s1","updatedAt":1}"#;
        assert_eq!(
            answer("agent:main:x", Some(entry), &events, None).unwrap(),
            r#"{"sessionKey":"agent:main:x","sessionId":"s1","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}],"n":1}]}"#
        );
        assert_eq!(
            answer("agent:main:x", Some(entry), &events, Some(1)).unwrap(),
            r#"{"sessionKey":"agent:main:x","sessionId":"s1","messages":[{"role":"assistant","content":[{"type":"text","text":"yo"}],"n":1}]}"#
        );
        // No session, a hidden one (E3) and one without a transcript id: no messages.
        let none = r#"{"sessionKey":"agent:main:x","messages":[]}"#;
        assert_eq!(answer("agent:main:x", None, &events, None).unwrap(), none);
        assert_eq!(answer("agent:main:x", Some(r#"{"sessionId":"s1","archivedAt":5}"#), &events, None).unwrap(), none);
        assert_eq!(answer("agent:main:x", Some(r#"{"sessionId":"s1","incognito":true}"#), &events, None).unwrap(), none);
        assert_eq!(answer("agent:main:x", Some(r#"{"sessionId":7}"#), &events, None).unwrap(), none);
        // What the gateway refuses or cannot be read is left to it.
        assert_eq!(answer("k", Some(entry), &events, Some(0)), Err(NotAnswered::Limit(0)));
        assert_eq!(answer("k", Some(entry), &events, Some(1001)), Err(NotAnswered::Limit(1001)));
        assert_eq!(answer("k", Some("[1]"), &events, None), Err(NotAnswered::Entry));
        // The newest events only: enough for the limit, or asked again with all of them.
        let two = &events[..2];
        assert_eq!(
            super::answer("k", Some(entry), two, false, Some(1)).unwrap(),
            super::answer("k", Some(entry), &events, true, Some(1)).unwrap()
        );
        assert_eq!(super::answer("k", Some(entry), two, false, Some(2)), Ok(None));
        assert!(super::answer("k", Some(entry), two, true, Some(2)).unwrap().is_some());
        assert_eq!(super::answer("k", None, two, false, Some(2)).unwrap().as_deref(), Some(r#"{"sessionKey":"k","messages":[]}"#));
    }
}
