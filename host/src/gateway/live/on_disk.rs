//! The histories of a `sessions_list` with `messageLimit`, read from the gateway's own state
//! directory when the gateway runs on this machine.
//!
//! Why: the gateway answers `chat.history` one call at a time, and each call copies its
//! whole session store first (`loadSessionEntry` → `loadSessionStore` → `structuredClone`):
//! about 6.5 ms a call at 1,000 sessions on the bench machine, whatever the concurrency, so
//! 200 rows cost 1.3 s of the gateway's single thread. The embedded gateway's reader gives
//! the same answer byte for byte (`tests/live_gateway.rs` compares them over every
//! session) in one pass over the files.
//!
//! It is used only where it cannot be wrong: the gateway's URL is a loopback address, the
//! state directory it named at the handshake exists here, and each history read here is of
//! the very session the gateway listed (its `sessionId` equal to the one in the gateway's
//! latest `sessions.list` rows). Anything else (another machine's state, a container's
//! paths, a session reset since it was listed, a read error) is asked of the gateway.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::super::embedded::{runtime::EchoRuntime, system_clock, EmbeddedGateway};
use super::super::*;
use crate::config::DeploymentConfig;

/// Sessions whose listed `sessionId` is remembered at most (a larger list starts afresh).
const MAX_LISTED: usize = 100_000;

/// The gateway's transcripts on this machine.
pub(super) struct OnDisk {
    reader: Arc<EmbeddedGateway>,
    /// Canonical key → `sessionId`, from the gateway's latest `sessions.list` rows.
    listed: Mutex<HashMap<String, String>>,
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
        Some(OnDisk { reader, listed: Mutex::new(HashMap::new()) })
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
        self.reader
            .chat_histories(params)
            .into_iter()
            .zip(expected)
            .map(|(answer, expected)| match (answer, expected) {
                (Ok(history), Some(id)) if history.session_id.as_deref() == Some(id.as_str()) => Some(history),
                _ => None,
            })
            .collect()
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
    use super::is_loopback;

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
