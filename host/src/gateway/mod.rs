//! Gateways that back the component's imports: the scripted one of conformance runs, and
//! (see `embedded`) the real one that owns an OpenClaw state directory.

pub mod embedded;
pub mod scripted;
pub mod wire;
