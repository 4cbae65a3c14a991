//! Resource limits of a guest instance, configurable per agent (the limits and their reader
//! are written once, in `session_tools_deployment::limits`, for every host), and the one
//! rule for bounding a wait.

use std::time::{Duration, Instant};

pub(crate) use session_tools_deployment::limits::{AgentLimits, Limits};

/// The moment `after` from now, however large `after` is (a guest or a user may ask for
/// any duration; `Instant` arithmetic would overflow).
pub fn deadline(after: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(after).unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 86_400))
}
