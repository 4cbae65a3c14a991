//! The gateway wire: every mapping between OpenClaw's gateway JSON and
//! the contract's records, in one place for every host and every protocol era (E1).
//!
//! - [`era`]: which protocol the gateway negotiated (3 or 4), the seam every mapping turns on;
//! - [`documents_config`]: 2026.9's config in the documents' shape (E2), for every host's edge;
//! - [`params`]: the contract's params as each era's JSON params (both eras' schemas are closed);
//! - [`answers`]: the gateway's JSON answers as records (answers are untrusted), a list's
//!   page parsed for only the fields they read (`sparse`);
//! - [`errors`]: an error frame's kind, from its code (the one place that reads an error's words);
//! - [`transport`]: the one generic call a host carries, and the runs it keeps;
//! - [`gateway`]: the typed gateway (and the spawn tree) over that call.
//!
//! Built for `wasm32-wasip2` as the `gateway-wire` component, which the Rust live backend
//! and the plugin's bridge instantiate over their own connections; built natively for the
//! hosts' typed paths that still speak the gateway's JSON (the scripted gateway, recordings).

#![cfg_attr(not(target_arch = "wasm32"), forbid(unsafe_code))]
#![cfg_attr(target_arch = "wasm32", deny(unsafe_code))]

pub mod answers;
pub mod documents_config;
pub mod era;
pub mod errors;
pub mod gateway;
mod json;
pub mod params;
mod sparse;
pub mod transport;

pub use era::Era;
pub use gateway::Wire;
pub use transport::{Request, Runs, Transport, TransportError};

#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)] // the bindings wit-bindgen generates
mod component;
