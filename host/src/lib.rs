//! The host of the session-tools component: OpenClaw's agent session tools
//! (`sessions_list`, `sessions_history`, `sessions_send`, `sessions_spawn`, `agents_list`)
//! as a sandboxed WebAssembly component, served to callers over any OpenClaw-shaped
//! gateway.
//!
//! A [`Service`] loads the component once and gives every agent sandboxed instances of
//! its own (pooled per agent and per visibility scope, bounded by [`Limits`]), checks
//! restricted callers' gateway calls itself (N15), and runs the background jobs tool calls
//! start (the agent-to-agent ping-pong and announce, sub-agent completions). It works over
//! any type that implements [`Gateway`](gateway::Gateway) (the RPCs the tools make) and
//! [`SessionTree`](gateway::SessionTree) (what
//! the guard must know of the sessions); the library brings an
//! [embedded gateway](gateway::embedded) over an OpenClaw state directory, a
//! live one (`gateway::live`, feature `live`) for a running OpenClaw gateway, and a
//! [scripted one](gateway::scripted) for conformance runs.
//!
//! ```
//! # use std::sync::Arc;
//! # use std::time::Duration;
//! # use session_tools_host::gateway::*;
//! # use session_tools_host::{Caller, Service};
//! # /// A gateway of the embedder's own: two sessions, runs that answer "pong".
//! # #[derive(Default)]
//! # struct MyGateway { runs: std::sync::Mutex<Vec<String>> }
//! # fn row(key: &str, parent: Option<&str>) -> SessionRow {
//! #     SessionRow { key: key.into(), spawned_by: parent.map(Into::into), updated_at: Some(1), ..Default::default() }
//! # }
//! # impl Gateway for MyGateway {
//! #     fn sessions_list(&self, _: &ListParams) -> GatewayResult<SessionList> {
//! #         Ok(SessionList { path: None, sessions: vec![row("agent:main:main", None), row("agent:main:subagent:a", Some("agent:main:main")), row("agent:main:other", None)] })
//! #     }
//! #     fn sessions_resolve(&self, p: &ResolveParams) -> GatewayResult<String> { Ok(p.key.clone().unwrap_or_default()) }
//! #     fn chat_history(&self, _: &HistoryParams) -> GatewayResult<History> {
//! #         let reply = TranscriptMessage { role: Some("assistant".into()), json: r#"{"role":"assistant","content":[{"type":"text","text":"pong"}]}"#.into() };
//! #         Ok(History { session_id: None, messages: vec![reply] })
//! #     }
//! #     fn chat_histories(&self, p: &[HistoryParams]) -> Vec<GatewayResult<History>> { one_by_one(self, p) }
//! #     fn agent(&self, p: &AgentParams) -> GatewayResult<AgentAccepted> {
//! #         self.runs.lock().unwrap().push(p.message.clone());
//! #         Ok(AgentAccepted { run_id: Some(p.idempotency_key.clone()) })
//! #     }
//! #     fn agent_wait(&self, _: &WaitParams) -> GatewayResult<WaitResult> { Ok(WaitResult { status: Some("ok".into()), ..Default::default() }) }
//! #     fn send(&self, _: &SendParams) -> GatewayResult<()> { Ok(()) }
//! #     fn sessions_patch(&self, _: &PatchParams) -> GatewayResult<()> { Ok(()) }
//! #     fn sessions_delete(&self, _: &DeleteParams) -> GatewayResult<()> { Ok(()) }
//! # }
//! # impl SessionTree for MyGateway {
//! #     fn canonical_key(&self, key: &str) -> String { key.trim().to_string() }
//! #     fn spawned_trees(&self, roots: &std::collections::HashSet<String>) -> GatewayResult<std::collections::HashSet<String>> {
//! #         Ok(trees_from_edges(roots, &[("agent:main:subagent:a".into(), "agent:main:main".into())]))
//! #     }
//! #     fn rows_of(&self, _: &std::collections::HashSet<String>) -> GatewayResult<Vec<SessionRow>> { Ok(Vec::new()) }
//! #     fn exists(&self, _: &str) -> GatewayResult<bool> { Ok(true) }
//! #     fn run_session(&self, _: &str) -> Option<String> { None }
//! #     fn run_state(&self, _: &str) -> RunState { RunState::Unknown }
//! # }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let gateway = Arc::new(MyGateway::default());
//! let service = Service::builder(gateway.clone()).build()?;
//! let main = Caller { agent_session_key: Some("agent:main:main".into()), ..Caller::default() };
//! let sandboxed = Caller { sandboxed: true, ..main.clone() };
//!
//! // N15: a sandboxed caller sees its own session and what it spawned, whatever the gateway lists.
//! let listed = service.call(&sandboxed, "sessions_list", "{}")?;
//! assert!(listed.contains("agent:main:subagent:a") && !listed.contains("agent:main:other"));
//!
//! // Jobs: a send's ping-pong and announce go on after the call, in the background or here.
//! service.call(&main, "sessions_send", r#"{"sessionKey": "agent:main:other", "message": "ping", "timeoutSeconds": 0}"#)?;
//! service.run_jobs(Duration::from_secs(10));
//! assert!(gateway.runs.lock().unwrap().iter().any(|m| m.contains("Agent-to-agent announce step")));
//!
//! // Pooling: the instances that served these calls wait for the next ones.
//! assert!(service.idle_instances() >= 1);
//! # Ok(())
//! # }
//! ```
//!
//! # Blocking
//!
//! The library is synchronous: every call blocks its thread and none needs an async
//! runtime. [`Service::call`] blocks while the tool runs (bounded by the agent's
//! [`Limits`]: CPU, gateway time and wall time); opening a service blocks while the
//! component is compiled or loaded from the cache. A [`Gateway`](gateway::Gateway) is called from many
//! threads at once and may block in each call. See [`Service`] for each method.
//!
//! # The component and the host
//!
//! Every decision a tool makes, and the send policy, runs in the component. The host does
//! not link the tools' crate: it speaks the contract's types (`session-tools-contract`,
//! re-exported here) and reads keys with OpenClaw's grammar (`session-tools-grammar`), as
//! the embedded gateway and the guard must read them as the tools do; who is
//! restricted (N15) is the host's own reading of the config, so the guard never depends
//! on what it guards. `ARCHITECTURE.md` is the map.

// The one unsafe operation is loading compiled code (`engine.rs`, where it says why it
// is sound); everything else is checked by the compiler.
#![deny(unsafe_code)]
// Every public item says what it is for (host/public-api.txt lists them; the surface is deliberate).
#![deny(missing_docs)]

mod bindings;
mod call_error;
mod clock;
#[allow(unsafe_code)] // `Component::deserialize` of the checked cache (see engine.rs)
mod engine;
mod error;
mod faults;
mod jobs;
mod json5;
mod limits;
mod os_lock;
mod poison;
mod private_files;
mod sandbox;
mod service;
pub mod telemetry;
mod wasi;

pub mod config;
#[cfg(feature = "conformance")]
pub mod conformance;
pub mod gateway;

pub use clock::{system_clock, Clock};
pub use engine::{CacheOutcome, EngineOptions};
pub use error::{Error, Result};
pub use faults::release_fault_points;
#[doc(hidden)]
pub use faults::{install_fault_points, FaultPoints};
pub use jobs::{Scheduler, TaskError, TaskRecord, TaskRun, TaskState, TASK_TTL};
pub use sandbox::{AgentSetup, CallCancel, CallError, Runtime, Sandbox, Services, ToolDescription, ToolHints};
pub use service::{tracing_log, LogSink, PendingJob, PolicyEvaluator, Service, ServiceBuilder, SystemServices};
pub use session_tools_contract::policy::{Decision, PolicyEntry, PolicyInput, SendCommand, SendMode};
pub use session_tools_contract::LogLevel;
pub use session_tools_contract::{Caller, Job, ToolError, Wake, Wakeup};
// Written once for every host: the plugin runs the same reader of limits.
pub use session_tools_deployment::limits::{AgentLimits, Limits};

/// The component this library was built with (`guest/`, built for `wasm32-wasip2`).
pub static COMPONENT: &[u8] = include_bytes!(env!("SESSION_TOOLS_COMPONENT"));

/// The N15 guard component this library was built with (`guard/`, the `session-guard`
/// world), for hosts that compose or run it themselves (the plugin's build).
pub static GUARD_COMPONENT: &[u8] = sandbox::GUARD_COMPONENT;

/// `tools` behind the N15 guard (the `guarded-session-tools` world), composed the one way
/// the host composes it (`build-support/compose.rs`): the build's composition for
/// [`COMPONENT`], else composed now. Fails naming the step that failed.
pub fn guarded_component(tools: &[u8]) -> std::result::Result<std::borrow::Cow<'static, [u8]>, String> {
    sandbox::guarded_bytes(tools)
}

/// The gateway wire component this library was built with (`wire/`, built for
/// `wasm32-wasip2`): the live backend runs it, and the plugin is built with the same bytes.
pub static WIRE_COMPONENT: &[u8] = include_bytes!(env!("SESSION_TOOLS_WIRE_COMPONENT"));

/// Internals the project's benchmark (`bench/`, a binary of its own) measures directly:
/// the engine's settings, the bindings without the sandbox's wrapper, the embedded
/// gateway's SQLite writers. Only with the feature `bench-internals`, which the command
/// line and the library's users never turn on: not part of the library's API.
#[cfg(feature = "bench-internals")]
#[doc(hidden)]
pub mod bench_internals {
    pub use crate::bindings::exports::openclaw::session_tools::setup::Settings;
    pub use crate::bindings::{SessionTools, SessionToolsPre};
    pub use crate::engine::{build_engine, build_engine_with, load_component};
    pub use crate::sandbox::link_wasi;
    pub use crate::sandbox::StoreState;

    #[cfg(feature = "embedded")]
    /// What the benchmark writes 2026.9 state directories with (the embedded gateway's own
    /// SQLite writers, so the generated states are what the gateway reads).
    pub mod sqlite {
        pub use crate::gateway::embedded::sqlite::db::put_node;
        pub use crate::gateway::embedded::sqlite::entries::native_shape;
        pub use crate::gateway::embedded::sqlite::events;
        pub use crate::gateway::embedded::sqlite::{AGENT_DB, SCHEMA_VERSION};
    }
}
