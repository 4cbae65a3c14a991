//! One agent's database: its connections (a reader kept open, a writer per write), the
//! schema check, and errors that name the file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use serde_json::{Map, Value};

use session_tools_transcript::history::{entry_session, hidden};

use super::{BUSY_TIMEOUT, SCHEMA_VERSION};

/// How a connection is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only (`query_only`), so nothing this host does by mistake can write.
    Read,
    Write,
}

/// The kept reader's page cache, in KiB (negative: SQLite's unit for a size in KiB).
const READER_CACHE_KIB: i64 = -16 * 1024;

/// Opens an existing database (never creates one) with a busy timeout.
pub fn open(path: &Path, access: Access, busy: Duration) -> rusqlite::Result<Connection> {
    // Read-write even for reads: a WAL database's reader may need to create its `-shm`;
    // `query_only` keeps the reader from writing.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(busy)?;
    match access {
        Access::Read => {
            conn.pragma_update(None, "query_only", true)?;
            // The reader is kept, and its page cache with it while nobody commits: 16 MiB
            // (SQLite's default is 2 MiB) holds the pages a list with `messageLimit` reads
            // on a 1,000-session database, which were read from the file again per call.
            conn.pragma_update(None, "cache_size", READER_CACHE_KIB)?;
        }
        // Deleting a session removes its windows and events with it, as the schema's
        // foreign keys say.
        Access::Write => conn.pragma_update(None, "foreign_keys", true)?,
    }
    Ok(conn)
}

/// An error about a database, naming it and saying what is wrong in words.
pub fn describe(path: &Path, e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode;
    let name = path.display();
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            format!("the session database {name} is locked by another process (waited {} s for it): {e}", BUSY_TIMEOUT.as_secs())
        }
        Some(ErrorCode::DatabaseCorrupt) | Some(ErrorCode::NotADatabase) => {
            format!("the session database {name} is damaged: {e}; it is left as it is")
        }
        Some(ErrorCode::CannotOpen) => format!("cannot open the session database {name}: {e}"),
        _ => format!("the session database {name}: {e}"),
    }
}

/// A session row: its key, its entry as stored, and the promoted columns the listing uses.
#[derive(Debug, Clone)]
pub struct Node {
    pub key: String,
    /// `entry_json`, as stored (2026.9's shape).
    pub entry: Map<String, Value>,
    pub parent_session_key: Option<String>,
    pub spawned_by: Option<String>,
}

/// An agent's database.
pub struct AgentDb {
    pub agent_id: String,
    pub path: PathBuf,
    reader: Mutex<Option<Connection>>,
    busy: Duration,
}

impl std::fmt::Debug for AgentDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentDb").field("agent_id", &self.agent_id).field("path", &self.path).finish_non_exhaustive()
    }
}

/// `SELECT` columns of a [`Node`].
const NODE_COLUMNS: &str = "session_key, entry_json, parent_session_key, spawned_by";

fn node_of(row: &rusqlite::Row<'_>) -> rusqlite::Result<(String, String, Option<String>, Option<String>)> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
}

/// What `chat.history` needs of a session the tools see: its transcript's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visible {
    /// `sessionId`, when it is a string.
    pub session_id: Option<String>,
}

impl AgentDb {
    pub fn new(agent_id: &str, path: PathBuf) -> AgentDb {
        AgentDb { agent_id: agent_id.to_string(), path, reader: Mutex::new(None), busy: BUSY_TIMEOUT }
    }

    /// Whether the agent has a database at all (an agent without one has no sessions).
    pub fn exists(&self) -> bool {
        self.path.is_file()
    }

    fn fail(&self, e: &rusqlite::Error) -> String {
        describe(&self.path, e)
    }

    /// Refuses a database whose schema this build does not know.
    fn check_schema(&self, conn: &Connection) -> Result<(), String> {
        let version: Option<i64> = conn
            .query_row("SELECT schema_version FROM schema_meta WHERE meta_key = 'primary' AND role = 'agent'", [], |r| r.get(0))
            .optional()
            .map_err(|e| match e.sqlite_error_code() {
                Some(_) => self.fail(&e),
                None => format!("{} is not an OpenClaw agent database ({e})", self.path.display()),
            })
            .or_else(|e| if e.contains("no such table") { Ok(None) } else { Err(e) })?;
        match version {
            Some(SCHEMA_VERSION) => Ok(()),
            Some(other) => Err(format!(
                "the session database {} has schema version {other}; this build reads and writes version {SCHEMA_VERSION} (OpenClaw 2026.9.x) only, so it neither reads nor writes it",
                self.path.display()
            )),
            None => Err(format!("{} is not an OpenClaw agent database (it has no schema_meta version)", self.path.display())),
        }
    }

    /// Runs `read` on the kept reader (opened, and its schema checked, on first use; a
    /// reader that failed is opened again next time).
    pub fn read<T>(&self, read: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, String> {
        let mut reader = self.reader.lock().unwrap_or_else(|p| p.into_inner());
        if reader.is_none() {
            let conn = open(&self.path, Access::Read, self.busy).map_err(|e| self.fail(&e))?;
            self.check_schema(&conn)?;
            *reader = Some(conn);
        }
        let conn = reader.as_ref().expect("opened just now");
        let result = read(conn).map_err(|e| self.fail(&e));
        if result.is_err() {
            *reader = None;
        }
        result
    }

    /// What changes when anyone commits to the database (`PRAGMA data_version`, which the
    /// reader sees change for every other connection's commit).
    pub fn version(&self) -> Result<i64, String> {
        self.read(|c| c.query_row("PRAGMA data_version", [], |r| r.get(0)))
    }

    /// Every session the tools may see, by key, each made into a `T` as it is read: one
    /// entry at a time is held as text and parsed, not the whole table (N18: a
    /// 300,000-session database peaked at 2.9 GiB when every row's text and parsed entry
    /// were collected before the rows were built).
    pub fn map_nodes<T>(&self, mut map: impl FnMut(Node) -> T) -> Result<Vec<T>, String> {
        let mut failure = None;
        let out = self.read(|c| {
            let mut stmt =
                c.prepare_cached(&format!("SELECT {NODE_COLUMNS} FROM session_nodes WHERE archived_at IS NULL ORDER BY session_key"))?;
            let mut rows = stmt.query([])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                match self.parse_node(node_of(row)?) {
                    Ok(Some(node)) => out.push(map(node)),
                    Ok(None) => {}
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            Ok(out)
        })?;
        match failure {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// One session by its stored key.
    pub fn node(&self, key: &str) -> Result<Option<Node>, String> {
        let raw = self.read(|c| {
            c.prepare_cached(&format!("SELECT {NODE_COLUMNS} FROM session_nodes WHERE session_key = ?1"))?
                .query_row([key], node_of)
                .optional()
        })?;
        Ok(raw.map(|r| self.parse_node(r)).transpose()?.flatten())
    }

    /// One session by its stored key, as `chat.history` reads it on `conn` (a snapshot the
    /// caller holds): only the three fields it needs are read out of the entry, not the
    /// whole entry built (a list with `messageLimit` reads one per row). `None` for no such
    /// session or one the tools never see.
    pub fn visible_in(&self, conn: &Connection, key: &str) -> rusqlite::Result<Result<Option<Visible>, String>> {
        let json: Option<String> = conn
            .prepare_cached("SELECT entry_json FROM session_nodes WHERE session_key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()?;
        let Some(json) = json else { return Ok(Ok(None)) };
        Ok(match entry_session(&json) {
            Ok(visible) => Ok(visible.map(|session_id| Visible { session_id })),
            Err(_) => Err(self.not_an_object(key)),
        })
    }

    /// Runs `read` on the kept reader inside one read transaction: every statement sees the
    /// same snapshot, and the reader takes its shared lock once, not once per statement.
    pub fn read_snapshot<T>(&self, read: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, String> {
        self.read(|c| {
            let snapshot = c.unchecked_transaction()?;
            let out = read(c)?;
            snapshot.commit()?;
            Ok(out)
        })
    }

    fn not_an_object(&self, key: &str) -> String {
        format!("the entry of {key} in {} is not a JSON object", self.path.display())
    }

    /// A row as a [`Node`]; `None` for a session the tools never see; an error for an entry
    /// that is not a JSON object.
    fn parse_node(&self, (key, json, parent, spawned): (String, String, Option<String>, Option<String>)) -> Result<Option<Node>, String> {
        let entry = match serde_json::from_str::<Value>(&json) {
            Ok(Value::Object(entry)) => entry,
            _ => return Err(self.not_an_object(&key)),
        };
        if hidden(entry.get("archivedAt"), entry.get("incognito")) {
            return Ok(None);
        }
        Ok(Some(Node { key, entry, parent_session_key: parent, spawned_by: spawned }))
    }

    /// Runs `write` in one `BEGIN IMMEDIATE` transaction on a connection of its own,
    /// committed when it answers `Ok`.
    pub fn write<T>(&self, write: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, String>) -> Result<T, String> {
        if !self.exists() {
            return Err(format!(
                "agent {} has no session database ({}); start OpenClaw 2026.9 once to create it",
                self.agent_id,
                self.path.display()
            ));
        }
        let mut conn = open(&self.path, Access::Write, self.busy).map_err(|e| self.fail(&e))?;
        self.check_schema(&conn)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| self.fail(&e))?;
        let result = write(&tx)?;
        tx.commit().map_err(|e| self.fail(&e))?;
        Ok(result)
    }
}

/// Writes a session's row from its entry: `entry_json` and the columns the gateway's entry
/// writer projects from it (`current_session_id`, `updated_at`, `label`,
/// `parent_session_key`, `spawned_by`; and `created_at`/`created_via` for a new row). The
/// schema's triggers then queue the row for the gateway's own validation.
pub fn put_node(tx: &Connection, key: &str, entry: &Map<String, Value>, fresh: bool, now: i64) -> rusqlite::Result<()> {
    let text = |k: &str| entry.get(k).and_then(Value::as_str);
    let number = |k: &str| entry.get(k).and_then(Value::as_i64);
    let json = serde_json::to_string(entry).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let (session_id, updated) = (text("sessionId").unwrap_or_default(), number("updatedAt").unwrap_or(now));
    let (label, parent, spawned_by) = (text("label"), text("parentSessionKey"), text("spawnedBy"));
    let result = if fresh {
        tx.prepare_cached(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at, created_via, label, parent_session_key, spawned_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .and_then(|mut s| {
            s.execute(rusqlite::params![key, session_id, json, updated, number("createdAt").unwrap_or(now), text("createdVia"), label, parent, spawned_by])
        })
    } else {
        tx.prepare_cached(
            "UPDATE session_nodes SET current_session_id = ?2, entry_json = ?3, updated_at = ?4, label = ?5, parent_session_key = ?6, spawned_by = ?7
             WHERE session_key = ?1",
        )
        .and_then(|mut s| s.execute(rusqlite::params![key, session_id, json, updated, label, parent, spawned_by]))
    };
    result.map(drop)
}
