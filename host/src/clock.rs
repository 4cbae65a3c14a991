//! The wall clock the host stamps what it writes with (entries, transcripts, jobs, runs), as
//! a value so tests and embedders can give their own.

use std::sync::Arc;

/// A clock: milliseconds since the Unix epoch.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The system's wall clock, in ms since the epoch.
pub fn system_clock() -> Clock {
    Arc::new(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
}
