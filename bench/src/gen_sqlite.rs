//! Generated states in OpenClaw 2026.9's layout: an agent's sessions and transcripts in its
//! `agents/<id>/agent/openclaw-agent.sqlite` (schema version 23, WAL), made here instead of
//! by `openclaw doctor --fix` so a 300,000-session state takes seconds. The schema is
//! OpenClaw's own `OPENCLAW_AGENT_SCHEMA_SQL` (npm `openclaw@2026.9.6`,
//! `dist/openclaw-agent-board-schema-*.mjs`, copied verbatim into
//! `openclaw-agent-schema-v23.sql`); rows are written by the embedded gateway's own writer
//! (`sqlite::db::put_node`, `sqlite::events`), entries in 2026.9's shape
//! (`sqlite::entries::native_shape`), and a transcript event of 1 KiB or more without `\u`
//! escapes stored as a zstd frame when that saves 10 %, as the gateway's
//! `prepareTranscriptPayload` stores it, so reads pay the decoding they pay on real data.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Map, Value};
use session_tools_host::bench_internals::sqlite::{events, native_shape, put_node, AGENT_DB, SCHEMA_VERSION};

/// OpenClaw 2026.9.6's agent database schema, as its source has it.
const SCHEMA: &str = include_str!("openclaw-agent-schema-v23.sql");
/// The gateway compresses events from this size on (`prepareTranscriptPayload`).
const COMPRESS_FROM: usize = 1024;

/// Sessions written in one transaction: a commit per session would write every index page
/// it touched to the log again (a 300,000-session state then takes tens of minutes).
const BATCH: usize = 2_000;

/// One agent's database being filled.
pub struct AgentWriter {
    conn: Connection,
    pub path: PathBuf,
    now: i64,
    /// Sessions written in the open transaction.
    pending: usize,
}

impl AgentWriter {
    /// Creates `agents/<agent>/agent/openclaw-agent.sqlite` below `state` with the schema
    /// and its `schema_meta` row.
    pub fn create(state: &Path, agent: &str, now: i64) -> Result<AgentWriter> {
        let path = state.join("agents").join(agent).join(AGENT_DB);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let conn = Connection::open(&path).with_context(|| format!("creating {}", path.display()))?;
        // A generated fixture: no fsync per transaction (the bench reads it after `finish`).
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA foreign_keys = ON;")?;
        conn.execute_batch(SCHEMA).with_context(|| format!("the 2026.9 schema in {}", path.display()))?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        conn.execute(
            "INSERT INTO schema_meta (meta_key, role, schema_version, agent_id, app_version, created_at, updated_at) VALUES ('primary', 'agent', ?1, ?2, '2026.9.6', ?3, ?3)",
            rusqlite::params![SCHEMA_VERSION, agent, now],
        )?;
        conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(AgentWriter { conn, path, now, pending: 0 })
    }

    /// Writes a session from its January entry and its JSONL transcript (empty: none). A
    /// key written before is replaced, as a second entry of one key in `sessions.json` is.
    pub fn session(&mut self, key: &str, documents: &Map<String, Value>, transcript: &[u8]) -> Result<()> {
        let mut entry = native_shape(documents);
        entry.shift_remove("sessionFile");
        let session_id = entry.get("sessionId").and_then(Value::as_str).unwrap_or_default().to_string();
        let text = std::str::from_utf8(transcript).context("a generated transcript that is not UTF-8")?;
        let tx = &self.conn;
        let fresh =
            tx.prepare_cached("SELECT 1 FROM session_nodes WHERE session_key = ?1")?.query_row([key], |_| Ok(())).optional()?.is_none();
        put_node(tx, key, &entry, fresh, self.now)?;
        events::ensure_window(tx, &session_id, key, entry.get("label").and_then(Value::as_str), self.now)?;
        for (seq, line) in text.lines().filter(|l| !l.is_empty()).enumerate() {
            let stored = compressed(line)?;
            let frame = stored.as_ref().map(|(frame, navigation)| (frame.as_slice(), navigation.as_str()));
            events::import_line(tx, &session_id, seq as i64, line, frame, self.now)?;
        }
        self.pending += 1;
        if self.pending == BATCH {
            self.conn.execute_batch("COMMIT; BEGIN IMMEDIATE")?;
            self.pending = 0;
        }
        Ok(())
    }

    /// Folds the write-ahead log into the database; answers its size.
    pub fn finish(self) -> Result<u64> {
        self.conn.execute_batch("COMMIT; PRAGMA wal_checkpoint(TRUNCATE);")?;
        drop(self.conn);
        Ok(std::fs::metadata(&self.path)?.len())
    }
}

/// The zstd frame the gateway would store for `line`, if it would store one, with the
/// `navigation_json` its schema requires beside a frame (the line's place in the message
/// tree, in the shape the gateway writes; no reader of this host uses it).
fn compressed(line: &str) -> Result<Option<(Vec<u8>, String)>> {
    if line.len() < COMPRESS_FROM || line.contains("\\u") {
        return Ok(None);
    }
    let frame = ruzstd::encoding::compress_to_vec(line.as_bytes(), ruzstd::encoding::CompressionLevel::Fastest);
    if frame.len() * 10 > line.len() * 9 {
        return Ok(None);
    }
    let event: Value = serde_json::from_str(line)?;
    let field = |k: &str| event.get(k).cloned().unwrap_or(Value::Null);
    let role = event.pointer("/message/role").cloned().unwrap_or(Value::Null);
    let place = json!({"type": field("type"), "id": field("id"), "parentId": field("parentId"), "timestamp": field("timestamp"), "message": {"role": role}});
    let navigation = json!({
        "version": 1,
        "report": {"kind": "canonical", "hasParentId": !field("parentId").is_null(),
                   "entry": {"id": field("id"), "parentId": field("parentId"), "timestamp": field("timestamp"), "type": field("type")}},
        "navigation": place, "reset": place, "model": place,
        "modelBytes": line.len(), "modelWithoutCheckpointBytes": line.len(), "withoutCustomDataBytes": line.len()
    });
    Ok(Some((frame, navigation.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_event_is_stored_as_zstd_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("st-bench-gen-sqlite-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut writer = AgentWriter::create(&dir, "main", 1_769_418_000_000).unwrap();
        let entry = json!({"sessionId": "s-1", "updatedAt": 1_769_418_000_000u64, "chatType": "direct",
            "deliveryContext": {"channel": "discord", "to": "user:1", "accountId": "default"}, "lastChannel": "discord"});
        let long = "word ".repeat(400);
        let transcript = format!(
            "{}\n{}\n",
            json!({"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-26T09:00:00.000Z", "cwd": "/"}),
            json!({"type": "message", "id": "a1", "parentId": null, "timestamp": "2026-01-26T09:00:01.000Z",
                "message": {"role": "user", "content": [{"type": "text", "text": long}], "timestamp": 1}})
        );
        writer.session("agent:main:main", entry.as_object().unwrap(), transcript.as_bytes()).unwrap();
        writer.finish().unwrap();
        let conn = Connection::open(dir.join("agents/main").join(AGENT_DB)).unwrap();
        let zstd: i64 = conn.query_row("SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(zstd, 1, "the long line is stored compressed");
        let found = events::read_messages(&conn, "s-1", 10).unwrap().unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].json.contains(long.trim()), "decoded back");
        drop(conn);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
