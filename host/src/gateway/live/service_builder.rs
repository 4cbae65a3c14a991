//! A [`ServiceBuilder`] over a running gateway: the backend sets the core up, the core
//! knows no backend.

use std::sync::Arc;

use super::LiveGateway;
use crate::ServiceBuilder;

impl ServiceBuilder {
    /// A service over a running gateway: the gateway's own config (read when it was
    /// opened) and its state directory (as it said at the handshake). Jobs stay in memory
    /// unless [`with_jobs_dir`](Self::with_jobs_dir) says where to keep them.
    pub fn over_live(gateway: &Arc<LiveGateway>) -> ServiceBuilder {
        ServiceBuilder::new(gateway.clone(), gateway.clone())
            .with_config(gateway.config().clone())
            .with_state_dir(gateway.state_dir().unwrap_or_default().to_string())
    }
}
