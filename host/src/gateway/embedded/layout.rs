//! Which of OpenClaw's two on-disk layouts a state directory has (E1: found on disk, never
//! configured): the January 2026 files (`agents/<id>/sessions/sessions.json` and
//! `<sessionId>.jsonl`, the [`store`](super::store) and [`transcript`](super::transcript)
//! modules), or 2026.9's SQLite databases ([`sqlite`](super::sqlite)). The gateway's logic
//! is written once over both; only where entries and transcripts live differs.

use std::path::{Path, PathBuf};

/// A state directory's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `sessions.json` and `.jsonl` files (OpenClaw 2026.1).
    Files,
    /// Per-agent SQLite databases (OpenClaw 2026.9).
    Sqlite,
}

impl Layout {
    /// The layout in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Layout::Files => "OpenClaw 2026.1 session files (sessions.json)",
            Layout::Sqlite => "OpenClaw 2026.9 session databases (SQLite)",
        }
    }
}

/// The files of one kind under `agents/*/<below>`.
fn agent_files(state_dir: &Path, below: &str) -> Vec<PathBuf> {
    let Ok(dirs) = std::fs::read_dir(state_dir.join("agents")) else { return Vec::new() };
    let mut files: Vec<PathBuf> = dirs.filter_map(Result::ok).map(|d| d.path().join(below)).filter(|f| f.is_file()).collect();
    files.sort();
    files
}

/// The layout of a state directory. A directory with 2026.9 databases *and* a legacy
/// `sessions.json` is reported, not read as either: 2026.9 no longer reads the legacy store
/// (its gateway refuses to start until `openclaw doctor --fix` imports it), and reading the
/// databases alone would hide the sessions that only the legacy store holds.
pub fn detect(state_dir: &Path) -> Result<Layout, String> {
    let databases = agent_files(state_dir, super::sqlite::AGENT_DB);
    let state_db = state_dir.join(super::sqlite::STATE_DB);
    if databases.is_empty() && !state_db.is_file() {
        return Ok(Layout::Files);
    }
    let legacy = agent_files(state_dir, "sessions/sessions.json");
    if let Some(store) = legacy.first() {
        let database = databases.first().unwrap_or(&state_db);
        return Err(format!(
            "the state directory {} holds OpenClaw 2026.9's session databases ({}) and a legacy session store ({}) that 2026.9 no longer reads; \
             run `openclaw doctor --fix` to import it (OpenClaw refuses to start until then), or move it out of the state directory",
            state_dir.display(),
            database.display(),
            store.display()
        ));
    }
    Ok(Layout::Sqlite)
}
