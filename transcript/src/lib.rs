//! OpenClaw's stored JSON as JavaScript reads and writes it, and `chat.history`'s reading
//! of a transcript, written once:
//!
//! - [`fields`]: the fields of a JSON object as `JSON.parse` reads them, without building
//!   values (a repeated key: the last one);
//! - [`js_text`]: JSON text as `JSON.stringify(JSON.parse(text))` writes it;
//! - [`history`]: the messages of a transcript's lines (E4), which sessions have none for
//!   the tools (E3), and a whole `chat.history` answer from a session's entry and events.
//!
//! The Rust host links it natively (the embedded gateway, both layouts); the gateway wire
//! component exports [`history::answer`] to the plugin, which reads a session's entry and
//! events with OpenClaw 2026.9's plugin SDK in the gateway's process.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fields;
pub mod history;
pub mod js_text;
