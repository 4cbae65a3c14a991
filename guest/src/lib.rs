//! The session tools (`sessions_list`, `sessions_history`, `sessions_send`,
//! `sessions_spawn`, `agents_list`), the background flows they start, and the send policy.
//!
//! All tool logic lives here and is independent of the component bindings: it talks to
//! the outside world only through the [`ports::Gateway`] and [`ports::Host`] traits. The
//! `component` module (wasm32 only) binds those traits to the WIT imports and exports the
//! tools; natively the same code runs in-process (unit tests, and the benchmark baseline).

// No unsafe code in the tool logic; only the component bindings (wasm32), which
// wit-bindgen generates, need it (`component.rs`).
#![cfg_attr(not(target_arch = "wasm32"), forbid(unsafe_code))]
#![cfg_attr(target_arch = "wasm32", deny(unsafe_code))]

pub mod a2a;
pub mod agents;
pub mod announce;
pub mod args;
pub mod config;
pub mod context;
pub mod describe;
pub mod flow;
pub mod history;
pub mod jobs;
pub mod json;
pub mod list;
pub mod policy;
pub mod reply;
pub mod requester;
pub mod send;
pub mod spawn;
pub mod subagent;
pub mod tools;
pub mod visibility;

pub use session_tools_contract as ports;
pub use session_tools_grammar::{channels, keys};

#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)] // the bindings wit-bindgen generates
mod component;

pub use config::Config;
pub use context::{Caller, Job, ToolError, ToolOutput, Wake, Wakeup};
pub use ports::{Gateway, Host};
pub use tools::call_tool;
