//! OpenClaw's grammar of session keys (`agent:<id>:<rest>`, main aliases, kinds, the
//! gateway's canonical spelling) and of channels and delivery targets, with JavaScript's
//! white space: the one copy that the session tools (`guest/`), the N15 guard (`guard/`)
//! and the host's gateways read keys with (the guard shares only this with what it guards,
//! so it depends on nothing it checks).

#![forbid(unsafe_code)]

pub mod channels;
pub mod js;
pub mod keys;
