//! The N15 guard: who is restricted ([`access`]), and the gateway a restricted
//! caller sees ([`guarded`]), checked on every call. Built natively (tests, and the
//! host's access decisions) and for `wasm32-wasip2` as the `session-guard` component, which
//! the host composes in front of the tools for a restricted caller. It shares the key
//! grammar (`session-tools-grammar`) and the contract's records with what it guards, and
//! nothing else: its own crate, its own instance memory.

#![cfg_attr(not(target_arch = "wasm32"), forbid(unsafe_code))]
#![cfg_attr(target_arch = "wasm32", deny(unsafe_code))]

pub mod access;
pub mod guarded;
pub mod run_keys;

#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)] // the bindings wit-bindgen generates
mod component;
