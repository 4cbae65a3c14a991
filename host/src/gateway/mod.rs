//! Gateways: what the component's `gateway` imports are answered by.
//!
//! [`Gateway`] is the contract, one method per OpenClaw gateway RPC the tools make;
//! [`SessionTree`] is what the host's own visibility guard (N15) must know beyond it. A
//! [`Service`](crate::Service) runs over any type that implements both. Backends, one module
//! each:
//! - `embedded` (feature `embedded`, on by default): an OpenClaw state directory on disk, with OpenClaw's semantics and lock
//!   protocol, runs by a pluggable agent runtime;
//! - `live` (feature `live`, on by default): a running OpenClaw gateway, over its WebSocket
//!   protocol;
//! - [`scripted`]: the conformance format's mock (answers from a script, runs in virtual
//!   time);
//!
//! and [`wire`] (the `session-tools-wire` crate) holds the JSON shapes of every record as
//! OpenClaw sends them, for each protocol era: the live backend runs it as a component, and
//! the scripted gateway and recordings use it natively.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub use session_tools_contract::{
    AgentAccepted, AgentParams, DeleteParams, DeliveryContext, ErrorKind, GatewayError, GatewayResult, History, HistoryParams, ListParams,
    PatchParams, ResolveParams, SendParams, SessionList, SessionRow, ThreadId, TranscriptMessage, Usage, WaitParams, WaitResult,
};

#[cfg(feature = "embedded")]
pub mod embedded;
#[cfg(feature = "live")]
pub mod live;
pub(crate) mod native;
pub mod pattern;
pub mod scripted;
pub use native::Native;
pub use session_tools_wire as wire;

/// An OpenClaw gateway, as the component reaches it.
///
/// # Contract
///
/// Each method is the RPC of the same name with OpenClaw's semantics (reference §1.1):
/// keys in any spelling the gateway accepts, answers in the gateway's canonical form, and
/// a failure is the gateway's error message. Calls come from many threads at once (one per
/// agent instance, and the job runner's). A method may block while the gateway answers:
/// `agent_wait` for up to its `timeout_ms`, the others for as long as the backend needs (the
/// host bounds a call's total gateway time, so a backend should answer or fail within its
/// own timeouts). Wrappers must forward every method.
///
/// Why a second trait beside the contract's `session_tools_contract::Gateway`, over the same
/// records: that one is the component's port, what the tool logic calls inside one instance
/// (no `Send` bound, which a wasm guest could not meet); this one is the embedder's, called
/// from many threads at once, so it is `Send + Sync`. [`Native`] passes one to the other.
pub trait Gateway: Send + Sync {
    /// `sessions.list`: sessions, newest first, filtered and cut as the params say.
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList>;
    /// `sessions.resolve`: the canonical key of a key, sessionId or label; the empty string
    /// when the gateway answered without one.
    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String>;
    /// `chat.history`: the last messages of a session, oldest first.
    fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History>;
    /// `chat.history` for several sessions: one answer for each params, in order. A backend
    /// answers them concurrently or in one pass where it can ([`one_by_one`] otherwise).
    fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>>;
    /// `agent`: starts a run; answers when it is accepted (the run goes on).
    fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted>;
    /// `agent.wait`: waits (at most `timeout_ms`) for a run to end.
    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult>;
    /// `send`: delivers a message to a channel target.
    fn send(&self, params: &SendParams) -> GatewayResult<()>;
    /// `sessions.patch`: changes a session entry, creating it when missing.
    fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()>;
    /// `sessions.delete`: deletes a session entry; its transcript is archived.
    fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()>;
}

/// [`Gateway::chat_histories`] as one `chat_history` after another, for backends that have
/// nothing better.
pub fn one_by_one<G: Gateway + ?Sized>(gateway: &G, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
    params.iter().map(|p| gateway.chat_history(p)).collect()
}

/// What the host must know of a gateway beyond its RPCs: the spawn tree the N15 guard
/// checks against, and where runs are waited for.
pub trait SessionTree: Send + Sync {
    /// The canonical spelling of a session key, as the gateway stores and lists it.
    fn canonical_key(&self, key: &str) -> String;

    /// The sessions of the spawn trees of `roots` (canonical keys): the roots themselves
    /// and every session spawned from one of them, transitively. A gateway that knows
    /// every `(child, parent)` edge answers with [`trees_from_edges`].
    fn spawned_trees(&self, roots: &HashSet<String>) -> GatewayResult<HashSet<String>>;

    /// The rows of these sessions (canonical keys), for their delivery targets.
    fn rows_of(&self, keys: &HashSet<String>) -> GatewayResult<Vec<SessionRow>>;

    /// Whether a session exists.
    fn exists(&self, key: &str) -> GatewayResult<bool>;

    /// The session a run belongs to, when the gateway knows it.
    fn run_session(&self, run_id: &str) -> Option<String>;

    /// Why the gateway cannot start agent runs, and what to do; `None` (the default) when
    /// it can. A service refuses the tools that start runs before they write anything.
    fn no_agent_runtime(&self) -> Option<String> {
        None
    }

    /// Where a run stands, as far as the gateway can tell at once, without waiting. The
    /// job runner asks before it makes the `agent.wait` a job waits with, so that no
    /// thread waits for each pending run: it makes the wait once the run has
    /// ended (or the job's wait has run out), and only a gateway that answers
    /// [`RunState::Unknown`] has its waits made the blocking way.
    fn run_state(&self, run_id: &str) -> RunState;
}

/// Where a run stands ([`SessionTree::run_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunState {
    /// It has ended: `agent.wait` answers at once.
    Ended,
    /// It goes on (or has not started yet).
    Running,
    /// The gateway cannot tell without waiting.
    Unknown,
}

/// The spawn trees of `roots` from every `(child, parent)` edge (canonical keys).
pub fn trees_from_edges(roots: &HashSet<String>, edges: &[(String, String)]) -> HashSet<String> {
    let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
    for (child, parent) in edges {
        children.entry(parent.as_str()).or_default().push(child);
    }
    let mut trees = roots.clone();
    let mut frontier: Vec<String> = roots.iter().cloned().collect();
    while let Some(node) = frontier.pop() {
        for child in children.remove(node.as_str()).unwrap_or_default() {
            if trees.insert(child.to_string()) {
                frontier.push(child.to_string());
            }
        }
    }
    trees
}

macro_rules! forward_gateway {
    ($($ty:ty),*) => {$(
        impl<G: Gateway + ?Sized> Gateway for $ty {
            fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList> {
                (**self).sessions_list(params)
            }
            fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String> {
                (**self).sessions_resolve(params)
            }
            fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History> {
                (**self).chat_history(params)
            }
            fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
                (**self).chat_histories(params)
            }
            fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted> {
                (**self).agent(params)
            }
            fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult> {
                (**self).agent_wait(params)
            }
            fn send(&self, params: &SendParams) -> GatewayResult<()> {
                (**self).send(params)
            }
            fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()> {
                (**self).sessions_patch(params)
            }
            fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()> {
                (**self).sessions_delete(params)
            }
        }

        impl<G: SessionTree + ?Sized> SessionTree for $ty {
            fn canonical_key(&self, key: &str) -> String {
                (**self).canonical_key(key)
            }
            fn spawned_trees(&self, roots: &HashSet<String>) -> GatewayResult<HashSet<String>> {
                (**self).spawned_trees(roots)
            }
            fn rows_of(&self, keys: &HashSet<String>) -> GatewayResult<Vec<SessionRow>> {
                (**self).rows_of(keys)
            }
            fn exists(&self, key: &str) -> GatewayResult<bool> {
                (**self).exists(key)
            }
            fn run_session(&self, run_id: &str) -> Option<String> {
                (**self).run_session(run_id)
            }
            fn run_state(&self, run_id: &str) -> RunState {
                (**self).run_state(run_id)
            }
            fn no_agent_runtime(&self) -> Option<String> {
                (**self).no_agent_runtime()
            }
        }
    )*};
}

forward_gateway!(Arc<G>, Box<G>, &G);
