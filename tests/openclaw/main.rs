//! The OpenClaw tier: the tests that install an OpenClaw release from the npm registry
//! (with the Node it runs on) and start real gateways, in one test binary. Run with
//! `cargo test --release -p session-tools-openclaw-tests`; one module with
//! `... -- live_gateway::`. Without Node/npm or the npm registry these tests fail saying
//! why; they never skip.

#![forbid(unsafe_code)]

mod imported;
// The independent MCP clients of the fast tier's MCP tests; only the Python one is driven here.
#[allow(dead_code)]
#[path = "../mcp/clients.rs"]
mod mcp_clients;

mod docs_gateway;
mod live_gateway;
mod mcp_gateway;
mod plugin_gateway;
mod real_gateway;
mod sqlite_cli;
mod sqlite_state;
mod store_concurrency;
