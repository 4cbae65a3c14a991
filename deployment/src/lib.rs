//! What every host reads of a deployment around the component, written once (so the hosts cannot drift apart):
//! the limits of an agent's instance from a limits file ([`limits`]), and what an instance
//! is given of the deployment config ([`guest_config`], N16), and those limits written into a
//! core module for an engine without limits of its own ([`module_caps`]), and where the gateway
//! a config describes listens on this machine ([`local_gateway`]). The Rust host links this
//! crate; the plugin has no copy of it and asks the guard component, which exports it as
//! the `deployment` interface (`wit/guard.wit`).
//!
//! Neither rule is the tools' nor the guard's: the crate depends on neither, only on the key
//! grammar (an agent id in a limits file is normalised as the gateway does).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod guest_config;
pub mod limits;
pub mod local_gateway;
pub mod module_caps;
