//! The histories of a `sessions_list` with `messageLimit`, and on protocol 4 every history,
//! read from the gateway's own state directory when the gateway runs on this machine.
//!
//! Why: the gateway answers `chat.history` one call at a time, and each call copies its
//! whole session store first (`loadSessionEntry` → `loadSessionStore` → `structuredClone`):
//! about 6.5 ms a call at 1,000 sessions on the bench machine, whatever the concurrency, so
//! 200 rows cost 1.3 s of the gateway's single thread. The embedded gateway's reader gives
//! the same answer byte for byte (`tests/live_gateway.rs` compares them over every
//! session) in one pass over the files.
//!
//! On protocol 4 `chat.history` answers the gateway's display projection (control replies
//! such as `NO_REPLY`, thinking signatures and a tool result's `details` left out), where
//! the tools answer the raw transcript (E4: "a local state directory is read directly
//! instead"); so a single history is read here too.
//!
//! It is used only where it cannot be wrong: the gateway's URL is a loopback address, the
//! state directory it named at the handshake exists here, and each history of a list read
//! here is of the very session the gateway listed (its `sessionId` equal to the one in the
//! gateway's latest `sessions.list` rows); a single history, once a session the gateway
//! listed was found here with the same `sessionId`. Anything else (another machine's state,
//! a container's paths, a session reset since it was listed, a read error) is asked of the
//! gateway.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::super::embedded::{runtime::EchoRuntime, EmbeddedGateway};
use super::super::*;
use crate::clock::system_clock;
use crate::config::DeploymentConfig;

/// Sessions whose listed `sessionId` is remembered at most (a larger list starts afresh).
const MAX_LISTED: usize = 100_000;

/// The gateway's transcripts on this machine.
pub(super) struct OnDisk {
    reader: Arc<EmbeddedGateway>,
    /// Canonical key → `sessionId`, from the gateway's latest `sessions.list` rows.
    listed: Mutex<HashMap<String, String>>,
    /// Whether the directory was seen to be the gateway's (a session it listed has the same
    /// `sessionId` here), not to be (`Some(false)`: asked once, never again), or not yet.
    theirs: Mutex<Option<bool>>,
}

impl OnDisk {
    /// The reader, when the gateway at `url` is on this machine and its state directory is
    /// here.
    pub fn open(url: &str, state_dir: Option<&str>, config: &DeploymentConfig) -> Option<OnDisk> {
        if !is_loopback(url) {
            return None;
        }
        let dir = Path::new(state_dir?);
        if !dir.is_absolute() || !dir.is_dir() {
            return None;
        }
        // Reads only: the embedded gateway writes nothing until one of its writes is called.
        let reader = EmbeddedGateway::open(dir, config.clone(), Arc::new(EchoRuntime), system_clock()).ok()?;
        Some(OnDisk { reader, listed: Mutex::new(HashMap::new()), theirs: Mutex::new(None) })
    }

    /// Notes the `sessionId` of each row the gateway listed.
    pub fn remember(&self, rows: &[SessionRow], canonical: impl Fn(&str) -> String) {
        let mut listed = self.listed.lock().unwrap_or_else(|p| p.into_inner());
        if listed.len() + rows.len() > MAX_LISTED {
            listed.clear();
        }
        for row in rows {
            if let Some(id) = &row.session_id {
                listed.insert(canonical(&row.key), id.clone());
            }
        }
    }

    /// The histories read here, each `None` where the gateway must be asked.
    pub fn histories(&self, params: &[HistoryParams], canonical: impl Fn(&str) -> String) -> Vec<Option<History>> {
        let expected: Vec<Option<String>> = {
            let listed = self.listed.lock().unwrap_or_else(|p| p.into_inner());
            params.iter().map(|p| listed.get(&canonical(&p.session_key)).cloned()).collect()
        };
        if expected.iter().all(Option::is_none) {
            return vec![None; params.len()];
        }
        let read: Vec<Option<History>> = self
            .reader
            .chat_histories(params)
            .into_iter()
            .zip(expected)
            .map(|(answer, expected)| match (answer, expected) {
                (Ok(history), Some(id)) if history.session_id.as_deref() == Some(id.as_str()) => Some(history),
                _ => None,
            })
            .collect();
        if read.iter().any(Option::is_some) {
            *self.theirs.lock().unwrap_or_else(|p| p.into_inner()) = Some(true);
        }
        read
    }

    /// One session's history read here, once the directory is known to be the gateway's;
    /// `None` where the gateway must be asked. Not yet known, `probe` is asked once for rows
    /// the gateway lists (`None`: it could not say), and the first with a `sessionId` is
    /// read here: the same `sessionId` makes the directory the gateway's for good, another
    /// one makes it another machine's or container's (asked of the gateway from then on).
    pub fn history(
        &self,
        params: &HistoryParams,
        canonical: impl Fn(&str) -> String,
        probe: impl FnOnce() -> Option<Vec<SessionRow>>,
    ) -> Option<History> {
        let known = *self.theirs.lock().unwrap_or_else(|p| p.into_inner());
        let theirs = match known {
            Some(theirs) => theirs,
            None => {
                let row = probe()?.into_iter().find(|r| r.session_id.is_some())?;
                self.remember(std::slice::from_ref(&row), &canonical);
                let asked = HistoryParams { session_key: row.key, limit: Some(1) };
                let theirs = self.histories(std::slice::from_ref(&asked), &canonical)[0].is_some();
                *self.theirs.lock().unwrap_or_else(|p| p.into_inner()) = Some(theirs);
                theirs
            }
        };
        if !theirs {
            return None;
        }
        self.reader.chat_histories(std::slice::from_ref(params)).pop()?.ok()
    }
}

/// Whether a gateway URL names this machine (`localhost`, `127.0.0.0/8`, `::1`).
fn is_loopback(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("ws://").or_else(|| url.strip_prefix("wss://")) else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(host, _)| host),
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// A January state with one session, `agent:main:main` (`sessionId` s1, one message).
    fn state() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("agents/main/sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(sessions.join("sessions.json"), r#"{"agent:main:main": {"sessionId": "s1", "updatedAt": 1}}"#).unwrap();
        let line = r#"{"type":"message","id":"m1","message":{"role":"user","content":"hi"}}"#;
        std::fs::write(sessions.join("s1.jsonl"), format!("{line}\n")).unwrap();
        dir
    }

    fn row(key: &str, session_id: &str) -> SessionRow {
        SessionRow { key: key.to_string(), session_id: Some(session_id.to_string()), ..Default::default() }
    }

    fn main() -> HistoryParams {
        HistoryParams { session_key: "agent:main:main".to_string(), limit: None }
    }

    /// A single history is read here only once a session the gateway lists was found here
    /// with the same `sessionId`; asked once, and again only when the gateway could not say.
    #[test]
    fn a_single_history_is_read_here_once_the_directory_is_the_gateway_s() {
        let dir = state();
        let open = || OnDisk::open("ws://127.0.0.1:1", dir.path().to_str(), &DeploymentConfig::empty()).unwrap();
        let same = |k: &str| k.to_string();
        let probes = Cell::new(0);
        let probe = |rows: Option<Vec<SessionRow>>| {
            let probes = &probes;
            move || {
                probes.set(probes.get() + 1);
                rows
            }
        };

        let theirs = open();
        let read = theirs.history(&main(), same, probe(Some(vec![row("agent:main:main", "s1")]))).unwrap();
        assert_eq!((read.session_id.as_deref(), read.messages.len()), (Some("s1"), 1));
        assert!(theirs.history(&main(), same, probe(None)).is_some(), "known: not asked again");
        assert_eq!(probes.get(), 1);

        // Another directory with the same paths (a container's, another machine's).
        let other = open();
        assert!(other.history(&main(), same, probe(Some(vec![row("agent:main:main", "s-elsewhere")]))).is_none());
        assert!(other.history(&main(), same, probe(Some(vec![row("agent:main:main", "s1")]))).is_none(), "not asked again");
        assert_eq!(probes.get(), 2);

        // The gateway could not say (an error, no session with an id): asked again next time.
        let unsure = open();
        assert!(unsure.history(&main(), same, probe(None)).is_none());
        assert!(unsure
            .history(&main(), same, probe(Some(vec![SessionRow { key: "agent:main:x".into(), ..Default::default() }])))
            .is_none());
        assert!(unsure.history(&main(), same, probe(Some(vec![row("agent:main:main", "s1")]))).is_some());
        assert_eq!(probes.get(), 5);

        // A list's history read here, of the session the gateway listed, settles it too.
        let listed = open();
        listed.remember(&[row("agent:main:main", "s1")], same);
        assert!(listed.histories(&[main()], same)[0].is_some());
        assert!(listed.history(&main(), same, probe(None)).is_some());
        assert_eq!(probes.get(), 5);
    }

    #[test]
    fn only_this_machine_is_loopback() {
        for url in ["ws://127.0.0.1:18789", "ws://localhost:1", "wss://[::1]:443/x", "ws://127.1.2.3:5"] {
            assert!(is_loopback(url), "{url}");
        }
        for url in ["ws://10.0.0.1:18789", "ws://gateway.example:1", "ws://[::2]:1", "http://127.0.0.1:1", "ws://127.0.0.1.evil:1"] {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
