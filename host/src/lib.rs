//! The host of the session-tools component: it loads the component once per process,
//! gives each agent its own sandboxed instance, and backs the component's imports with a
//! gateway (an embedded OpenClaw-compatible one, or a scripted one for conformance).

pub mod bench;
pub mod bindings;
pub mod cli;
pub mod config;
pub mod conformance;
pub mod demo;
pub mod engine;
pub mod gateway;
pub mod jobs;
pub mod json5;
pub mod limits;
pub mod out;
pub mod sandbox;
pub mod service;

/// The component this host was built with (`guest/`, built for `wasm32-wasip2`).
pub static COMPONENT: &[u8] = include_bytes!(env!("SESSION_TOOLS_COMPONENT"));

pub use session_tools_guest as tools;
