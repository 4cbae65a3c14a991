//! A session's transcript in `transcript_events`: reading its lines newest first (text or
//! zstd), appending a message line as the gateway's transcript writer does, and the lines a
//! deleted session's archive keeps.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde_json::value::RawValue;
use serde_json::Value;
use session_tools_contract::TranscriptMessage;

use crate::gateway::embedded::transcript::{header_line, message_line, Messages};

/// The gateway's bound on one stored event (`MAX_COMPRESSED_EVENT_BYTES`).
const MAX_EVENT_BYTES: usize = 4 << 20;

/// An event's text: `event_json`, or `event_zstd` decoded (checked against its recorded
/// size, as the gateway checks it).
fn event_text(json: Option<String>, zstd: Option<Vec<u8>>, bytes: Option<i64>) -> Result<String, String> {
    if let Some(json) = json {
        return Ok(json);
    }
    let frame = zstd.ok_or("an event with neither text nor a zstd frame")?;
    let size = bytes
        .and_then(|b| usize::try_from(b).ok())
        .filter(|b| (1..=MAX_EVENT_BYTES).contains(b))
        .ok_or("a zstd event without a valid size")?;
    let mut decoder =
        ruzstd::decoding::StreamingDecoder::new(frame.as_slice()).map_err(|e| format!("a zstd event that is not a zstd frame ({e})"))?;
    let mut out = Vec::with_capacity(size);
    std::io::Read::read_to_end(&mut std::io::Read::take(&mut decoder, size as u64 + 1), &mut out)
        .map_err(|e| format!("a zstd event that cannot be decoded ({e})"))?;
    if out.len() != size {
        return Err(format!("a zstd event of {} bytes where {size} are recorded", out.len()));
    }
    String::from_utf8(out).map_err(|_| "a zstd event that is not UTF-8".to_string())
}

/// The last `limit` messages of a transcript (`Messages`: the same reading as a JSONL
/// file's), reading events from the newest until enough are found.
pub fn read_messages(conn: &Connection, session_id: &str, limit: usize) -> rusqlite::Result<Result<Vec<TranscriptMessage>, String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ?1 ORDER BY seq DESC",
    )?;
    let mut rows = stmt.query([session_id])?;
    let mut messages = Messages::new(limit);
    while let Some(row) = rows.next()? {
        let seq: i64 = row.get(0)?;
        let text = match event_text(row.get(1)?, row.get(2)?, row.get(3)?) {
            Ok(text) => text,
            Err(why) => return Ok(Err(format!("event {seq} of session {session_id}: {why}"))),
        };
        if !messages.take(&text) {
            break;
        }
    }
    Ok(Ok(messages.finish()))
}

/// Every line of a transcript, oldest first (for a deleted session's archive).
pub fn lines(conn: &Connection, session_id: &str) -> rusqlite::Result<Result<Vec<String>, String>> {
    let mut stmt = conn
        .prepare_cached("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ?1 ORDER BY seq")?;
    let mut rows = stmt.query([session_id])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let seq: i64 = row.get(0)?;
        match event_text(row.get(1)?, row.get(2)?, row.get(3)?) {
            Ok(text) => out.push(text),
            Err(why) => return Ok(Err(format!("event {seq} of session {session_id}: {why}"))),
        }
    }
    Ok(Ok(out))
}

/// Whether the transcript has an event with this id.
pub fn has_event(conn: &Connection, session_id: &str, event_id: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM transcript_event_identities WHERE session_id = ?1 AND event_id = ?2")?
        .query_row([session_id, event_id], |_| Ok(()))
        .optional()
        .map(|found| found.is_some())
}

/// Makes sure the session's transcript generation exists (`session_windows`), as the
/// gateway's entry writer makes it for a new session.
pub fn ensure_window(tx: &Connection, session_id: &str, key: &str, display: Option<&str>, now: i64) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO session_windows (session_id, session_key, session_scope, created_at, updated_at, transcript_observed_at, session_entry_provenance, display_name)
         VALUES (?1, ?2, 'conversation', ?3, ?3, ?3, 1, ?4)
         ON CONFLICT(session_id) DO NOTHING",
        params![session_id, key, now, display],
    )?;
    Ok(())
}

fn insert_event(tx: &Transaction<'_>, session_id: &str, seq: i64, line: &str, now: i64) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![session_id, seq, line, now, line.len() as i64],
    )?;
    Ok(())
}

/// Writes one line of a transcript being imported whole (a JSONL transcript's lines, in
/// order from `seq` 0): the event, as text or as the zstd `frame` of its text the caller
/// made with the `navigation_json` the schema requires beside one, and its identity (its id and parent as the line names them; the header's id is the
/// session's). The session's window must exist ([`ensure_window`]); the gateway builds its
/// projection of the active branch on first read, as for a transcript it has not indexed.
#[cfg_attr(not(feature = "bench-internals"), allow(dead_code))] // written by the bench only (`bench_internals`)
pub fn import_line(
    tx: &Connection,
    session_id: &str,
    seq: i64,
    line: &str,
    frame: Option<(&[u8], &str)>,
    now: i64,
) -> rusqlite::Result<()> {
    let value: Value = serde_json::from_str(line).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let kind = value.get("type").and_then(Value::as_str);
    let (id, parent) = match kind {
        Some("session") => (Some(session_id), None),
        _ => (value.get("id").and_then(Value::as_str), value.get("parentId").and_then(Value::as_str)),
    };
    match frame {
        Some((frame, navigation)) => tx
            .prepare_cached(
                "INSERT INTO transcript_events (session_id, seq, event_zstd, created_at, event_utf8_bytes, navigation_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![session_id, seq, frame, now, line.len() as i64, navigation])?,
        None => tx
            .prepare_cached(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![session_id, seq, line, now, line.len() as i64])?,
    };
    if let Some(id) = id {
        tx.prepare_cached(
            "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![session_id, id, seq, kind, parent, now])?;
    }
    Ok(())
}

/// Appends a message line under `entry_id` to the session's transcript, after a session
/// header when it has none: the event, its identity (its place in the message tree, its
/// parent being the last entry as pi-coding-agent finds it), and the gateway's projection
/// of the active branch marked for a rebuild, so its reads see the new line.
#[allow(clippy::too_many_arguments)]
pub fn append(
    tx: &Transaction<'_>,
    session_id: &str,
    key: &str,
    cwd: &str,
    now_ms: u64,
    message: &Value,
    entry_id: &str,
) -> Result<(), String> {
    let now = now_ms as i64;
    let run = || -> rusqlite::Result<Result<(), String>> {
        ensure_window(tx, session_id, key, None, now)?;
        // The transaction holds the write lock: the last seq read here is the last there is.
        let last: Option<i64> = tx.query_row("SELECT max(seq) FROM transcript_events WHERE session_id = ?1", [session_id], |r| r.get(0))?;
        let seq = match last {
            Some(last) => last + 1,
            None => {
                insert_event(tx, session_id, 0, &header_line(session_id, cwd, now_ms), now)?;
                tx.execute(
                    "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?1, ?1, 0, 'session', NULL, ?2)",
                    params![session_id, now],
                )?;
                1
            }
        };
        let parent: Option<String> = tx
            .query_row(
                "SELECT event_id FROM transcript_event_identities WHERE session_id = ?1 AND coalesce(event_type, '') != 'session' ORDER BY seq DESC LIMIT 1",
                [session_id],
                |r| r.get(0),
            )
            .optional()?;
        let parent_json = serde_json::to_string(&parent).unwrap_or_else(|_| "null".into());
        let parent_raw = RawValue::from_string(parent_json).ok();
        let line = match message_line(entry_id, parent_raw.as_deref(), now_ms, message) {
            Ok(line) => line,
            Err(e) => return Ok(Err(format!("encoding the message: {e}"))),
        };
        if line.len() > MAX_EVENT_BYTES {
            return Ok(Err(format!("a message of {} bytes is more than a transcript event holds ({MAX_EVENT_BYTES})", line.len())));
        }
        insert_event(tx, session_id, seq, &line, now)?;
        tx.execute(
            "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?1, ?2, ?3, 'message', ?4, ?5)",
            params![session_id, entry_id, seq, parent, now],
        )?;
        tx.execute(
            "UPDATE session_transcript_index_state SET needs_rebuild = 1, updated_at = ?2 WHERE session_id = ?1",
            params![session_id, now],
        )?;
        tx.execute(
            "UPDATE session_windows SET updated_at = max(updated_at, ?2), transcript_updated_at = ?2 WHERE session_id = ?1",
            params![session_id, now],
        )?;
        Ok(Ok(()))
    };
    match run() {
        Ok(result) => result,
        Err(e) => Err(e.to_string()),
    }
}
