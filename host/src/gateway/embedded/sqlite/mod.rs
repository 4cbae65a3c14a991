//! OpenClaw 2026.9's state directory: sessions and their transcripts in one SQLite
//! database per agent, `agents/<id>/agent/openclaw-agent.sqlite` (WAL), beside the shared
//! `state/openclaw.sqlite` (docs/openclaw-versions.md, "State layout").
//!
//! # What this module knows of the schema, and from where
//!
//! The schema is OpenClaw's `OPENCLAW_AGENT_SCHEMA_SQL` (npm `openclaw@2026.9.6`,
//! `dist/openclaw-agent-board-schema-*.mjs`), checked against the databases the real
//! `openclaw doctor --fix` makes when it imports the sample state (`tests/sqlite_*.rs`).
//! Version 23 (`schema_meta` row `meta_key='primary', role='agent'`, also `PRAGMA
//! user_version`). What this host reads and writes of it:
//!
//! - `session_nodes(session_key PK, current_session_id, entry_json, updated_at, created_at,
//!   created_via, label, display_name, parent_session_key, spawned_by, archived_at, …)`:
//!   `entry_json` is the session entry (the doctrine comment of the schema: "the canonical
//!   logical-session record"); the other columns are indexes the entry writer projects
//!   from it. Triggers mark a changed row `entry_valid = 0` and queue it for OpenClaw's
//!   canonical validation, so a row written here is validated by the gateway like its own.
//! - `session_windows(session_id PK, session_key, session_scope, created_at, updated_at,
//!   transcript_updated_at, transcript_observed_at, session_entry_provenance, display_name,
//!   …)`: one row per transcript generation; `transcript_events.session_id` refers to it.
//! - `transcript_events(session_id, seq, event_json | event_zstd + event_utf8_bytes +
//!   navigation_json, created_at)`: the transcript's lines, as JSONL had them. The gateway
//!   stores an event of 1 KiB or more without `\u` escapes as a zstd frame
//!   (`dist/transcript-payload-*.mjs`, `prepareTranscriptPayload`: level 1, checksum,
//!   only when it saves 10 %), anything else as text; both are read here, and this host
//!   writes text (the gateway's own "identity" encoding).
//! - `transcript_event_identities(session_id, event_id, seq, event_type, parent_id, …)`:
//!   the message tree; `session_transcript_index_state(session_id, indexed_seq,
//!   needs_rebuild, …)`: the gateway's projection of the active branch, which it rebuilds
//!   when `needs_rebuild` is set or `indexed_seq` is behind the last event.
//! - In `state/openclaw.sqlite`, `state_leases` row `scope='gateway-owner'`: the running
//!   gateway's lease (`expires_at` renewed while it runs; its payload names pid and port).
//!
//! The entry's shape changed too: delivery routing is `delivery {kind, route, context,
//! origin}` instead of `deliveryContext`/`last*`/`origin`/`channel` ([`entries`] reads it
//! into the documents' shape), and a child's parent is `parentSessionKey` or `spawnedBy`
//! (E5).
//!
//! # Writes
//!
//! Every write is one `BEGIN IMMEDIATE` transaction with a busy timeout, in the gateway's
//! format; a database this build does not know (another schema version) is refused, never
//! guessed at. While a 2026.9 gateway holds the state directory (its `gateway-owner` lease
//! is live) writes are refused with a message naming `--gateway local`: its per-agent
//! writer owns the databases (`acquireSessionWriteLock` is a no-op in 2026.9, writes are
//! serialised in-process), keeps entries and transcript projections cached and derived
//! tables in step within its own transactions, and OpenClaw's own `doctor --fix` refuses
//! to write beside it (`StateDatabaseCoordinatorContentionError`). README, "2026.9 state".

pub mod db;
pub mod entries;
pub mod events;

pub use db::{AgentDb, Node};

use std::path::{Path, PathBuf};

/// The agent database's schema version this build reads and writes.
pub const SCHEMA_VERSION: i64 = 23;
/// An agent database, below `agents/<id>/`.
pub const AGENT_DB: &str = "agent/openclaw-agent.sqlite";
/// The shared state database.
pub const STATE_DB: &str = "state/openclaw.sqlite";
/// How long a statement waits for another writer's lock before it fails.
pub const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// An agent's database in a state directory.
pub fn agent_db_path(state_dir: &Path, agent_id: &str) -> PathBuf {
    state_dir.join("agents").join(agent_id).join(AGENT_DB)
}

/// A running gateway's hold on a state directory: its lease, if live.
#[derive(Debug, Clone, PartialEq)]
pub struct GatewayHold {
    /// The gateway's process, as its lease names it.
    pub pid: Option<i64>,
    /// The port it listens on, as its lease names it.
    pub port: Option<i64>,
}

/// The live `gateway-owner` lease of `state/openclaw.sqlite`, if any (read-only; a missing
/// or unreadable state database holds nothing). A lease whose owner ran on this host and is
/// gone (no such pid) is not a hold, so a gateway killed with SIGKILL does not block writes
/// until its lease expires.
pub fn gateway_hold(state_dir: &Path, now_ms: u64) -> Option<GatewayHold> {
    let path = state_dir.join(STATE_DB);
    if !path.is_file() {
        return None;
    }
    let conn = db::open(&path, db::Access::Read, BUSY_TIMEOUT).ok()?;
    let (expires, payload): (Option<i64>, Option<String>) = conn
        .query_row("SELECT expires_at, payload_json FROM state_leases WHERE scope = 'gateway-owner' AND lease_key = 'global'", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .ok()?;
    if expires.is_none_or(|e| e <= now_ms as i64) {
        return None;
    }
    let payload: serde_json::Value = payload.and_then(|p| serde_json::from_str(&p).ok()).unwrap_or_default();
    let pid = payload["owner"]["pid"].as_i64();
    let host = payload["owner"]["host"].as_str();
    let here = std::fs::read_to_string("/proc/sys/kernel/hostname").ok().map(|h| h.trim().to_string());
    let gone = matches!((pid, host, here.as_deref()), (Some(pid), Some(host), Some(here)) if host == here && !Path::new(&format!("/proc/{pid}")).exists());
    (!gone).then(|| GatewayHold { pid, port: payload["port"].as_i64() })
}
