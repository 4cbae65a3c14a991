//! The `session-tools` command line over the host library: one tool call as a session,
//! inspection and owner commands on an OpenClaw state directory, the demo and the
//! conformance runner. Only this crate knows about argument parsing, exit codes and the
//! terminal.

#![forbid(unsafe_code)]

mod backend;
mod call;
mod commands;
mod completions;
mod demo;
mod doctor;
mod exit;
mod jobs;
mod logging;
mod mcp;
mod metrics;
mod options;
mod out;
mod owner_commands;
pub mod progress;
mod sample;
mod show;
mod stop;
mod version;

pub use commands::{exit_code, run, Cli, Command};
pub use options::Global;
