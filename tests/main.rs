//! The fast tier's integration tests, in one test binary (each binary links wasmtime, so
//! one link instead of one per file): every test that needs no OpenClaw release. A module
//! per subject; `cargo test --release -p session-tools-tests --test integration -- mcp::`
//! runs one of them. Tests that start a real OpenClaw gateway or install an OpenClaw
//! package are in `tests/openclaw/` (the OpenClaw tier).

#![forbid(unsafe_code)]

mod cli;
mod conformance;
mod disk_security;
mod docs;
mod exactly_once;
mod faithful;
mod faults;
mod flows;
mod gateway_parity;
mod hostile;
mod live_faults;
mod mcp;
mod plugin;
mod properties;
mod robustness;
mod store;
mod unicode;
