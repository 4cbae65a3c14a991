//! Gateways that back the component's imports: the scripted one of conformance runs, and
//! (see `embedded`) the real one that owns an OpenClaw state directory.

use std::collections::HashSet;

use session_tools_guest::ports::{GatewayResult, SessionRow};

pub mod embedded;
pub mod scripted;
pub mod wire;

/// What the N15 guard must know of a gateway's sessions, beyond its RPCs.
pub trait SessionTree: Send + Sync {
    /// The canonical spelling of a session key, as the gateway stores and lists it.
    fn canonical_key(&self, key: &str) -> String;

    /// Every session that has a parent, as `(child, parent)`, both canonical.
    fn spawn_edges(&self) -> GatewayResult<Vec<(String, String)>>;

    /// The rows of these sessions (canonical keys), for their delivery targets.
    fn rows_of(&self, keys: &HashSet<String>) -> GatewayResult<Vec<SessionRow>>;

    /// Whether a session exists.
    fn exists(&self, key: &str) -> GatewayResult<bool>;

    /// The session a run belongs to, when the gateway knows it.
    fn run_session(&self, run_id: &str) -> Option<String>;
}

