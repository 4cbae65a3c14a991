//! Named fault points: places where a test can stop the process (the exactly-once tests).
//!
//! The library has no way of its own to stop: a process that wants fault points (the
//! project's tests' build of the command line, `tests/bin/st-cli.rs`) installs a
//! [`FaultPoints`] with [`install_fault_points`] before it starts; a product build never
//! does, so each point costs one atomic load and no environment variable is ever read for
//! it. The points are always compiled in (rather than behind a feature) so the README's
//! demo build and its test build compile this crate once, with the same features.

use std::sync::OnceLock;

/// What a process does when it reaches a named fault point. Installed once, with
/// [`install_fault_points`]; for the project's tests, never for a product.
#[doc(hidden)]
pub trait FaultPoints: Send + Sync {
    /// The process reached the point `name` (see the callers of `fault_point` for the
    /// names); returns when the process may go on.
    fn reached(&self, name: &str);
    /// The process was asked to stop gracefully: a process paused at a point goes on.
    fn release(&self);
}

static INSTALLED: OnceLock<&'static dyn FaultPoints> = OnceLock::new();

/// Installs the process's fault points; `false` if some were installed before (the first
/// stays).
#[doc(hidden)]
pub fn install_fault_points(points: &'static dyn FaultPoints) -> bool {
    INSTALLED.set(points).is_ok()
}

/// Marks a fault point: nothing unless the process installed fault points.
#[inline]
pub(crate) fn fault_point(name: &str) {
    if let Some(points) = INSTALLED.get() {
        points.reached(name)
    }
}

/// Lets a process paused at a fault point go on (called when it is asked to stop
/// gracefully); nothing unless the process installed fault points.
pub fn release_fault_points() {
    if let Some(points) = INSTALLED.get() {
        points.release()
    }
}
