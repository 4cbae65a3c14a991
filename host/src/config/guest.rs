//! The deployment config as the component is given it: what the paths of
//! `wit/config-paths.json` reach, and nothing else (N16). The projection is written once,
//! in `session_tools_deployment::guest_config` (the plugin asks the guard component for the
//! same code); here it is the one way to configure an instance.

use std::sync::Arc;

use serde_json::Value;
use session_tools_deployment::guest_config;

/// The config as an instance is configured with: only what the component reads (see the
/// module docs). The one way to configure an instance, so nothing else can reach one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestConfig(Arc<str>);

impl GuestConfig {
    /// What the component may see of a config. A config that is not an object keeps
    /// nothing (`null`, which the component refuses as it would the config).
    pub fn of(config: &Value) -> GuestConfig {
        GuestConfig(guest_config::of(config).to_string().into())
    }

    /// The empty config.
    pub fn empty() -> GuestConfig {
        GuestConfig("{}".into())
    }

    /// As JSON text, as the component is given it.
    pub fn json(&self) -> &str {
        &self.0
    }
}
