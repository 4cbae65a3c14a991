//! The `session-tools` command line over the host library: one tool call as a session,
//! inspection and owner commands on an OpenClaw state directory, the demo and the
//! conformance runner. Only this crate knows about argument parsing, exit codes and the
//! terminal.

#![forbid(unsafe_code)]

mod commands;
mod demo;
mod logging;
mod mcp;
mod metrics;
mod options;
mod out;
mod owner;
pub mod progress;
mod sample;
mod show;
mod stop;

pub use commands::{run, Cli, Command};
pub use options::Global;
