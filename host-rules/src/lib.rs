//! The rules every host of the session tools follows around the component, written once so
//! the hosts cannot drift apart: how a call into the tools failed ([`call_error`]: its kind,
//! as logs and metrics name it, and its words), and the pure rules of background jobs: a
//! job's record as it is kept ([`record`]), the intent a tool call records before its first
//! write and how it is made again ([`intent`]), the keys jobs are kept under ([`keys`]), the
//! ids a call or a step draws ([`seeded`]), what a call or a step leaves pending, within an
//! agent's limits ([`keeping`]), and when a pending job is stepped ([`pending`]); what a
//! call may take of the gateway ([`metering`]); and, for a host whose claims are files
//! naming their holders, when a holder is gone ([`lock_holder`]).
//!
//! No I/O: each host keeps its own storage, timers and processes. The Rust host links this
//! crate; the plugin keeps no copy of it and asks the guard component, which exports it as
//! the WIT `job-rules` interface (records crossing as the JSON text they are kept in).

#![forbid(unsafe_code)]

pub mod call_error;
pub mod intent;
pub mod keeping;
pub mod keys;
pub mod lock_holder;
pub mod metering;
pub mod pending;
pub mod record;
pub mod seeded;

pub use call_error::CallError;

#[cfg(test)]
mod vectors;
