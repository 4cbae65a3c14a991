//! A [`ServiceBuilder`] over an embedded gateway: the backend sets the core up, the core
//! knows no backend.

use std::sync::Arc;

use super::EmbeddedGateway;
use crate::ServiceBuilder;

impl ServiceBuilder {
    /// A service over an embedded gateway, set up as the command line sets it: the
    /// gateway's config and state directory, `session-tools/limits.json` of the directory
    /// if it exists, jobs kept in `session-tools/jobs/`, the gateway's clock, and the
    /// gateway's send policy evaluated by this service's component.
    pub fn over_embedded(gateway: &Arc<EmbeddedGateway>) -> ServiceBuilder {
        let tools_dir = gateway.state_dir().join("session-tools");
        let receiver = gateway.clone();
        ServiceBuilder::new(gateway.clone(), gateway.clone())
            .with_config(gateway.config().clone())
            .with_state_dir(gateway.state_dir().display().to_string())
            .with_limits_file(tools_dir.join("limits.json"))
            .with_jobs_dir(tools_dir.join("jobs"))
            .with_clock(gateway.clock().clone())
            .with_policy_receiver(Box::new(move |policy| receiver.set_policy(policy)))
    }
}
