//! Named fault points: places where a test can stop the process (issue 20). Compiled in
//! only with the `fault-points` feature, which only the project's tests enable; without
//! it, [`fault_point`] is an empty inline function.
//!
//! With the feature, `SESSION_TOOLS_FAULT_POINT=<name>[#<n>]` makes the `n`-th (default:
//! first) time the process reaches the point named `name` print
//! `session-tools fault point reached: <name>` on standard error (written directly, not
//! logged: it is the tests' protocol, whatever the log level) and stop there: the test
//! then kills the process (SIGKILL: a crash at exactly that point) or asks it to stop
//! (SIGTERM: a graceful stop that arrives at exactly that point, after which the process
//! goes on from the point and finishes what it started, see [`release`]).

#[cfg(feature = "fault-points")]
mod enabled {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Condvar, Mutex, OnceLock};

    static RELEASED: AtomicBool = AtomicBool::new(false);
    static PAUSED: (Mutex<()>, Condvar) = (Mutex::new(()), Condvar::new());
    static SEEN: AtomicU64 = AtomicU64::new(0);

    fn target() -> &'static Option<(String, u64)> {
        static TARGET: OnceLock<Option<(String, u64)>> = OnceLock::new();
        TARGET.get_or_init(|| {
            let spec = std::env::var("SESSION_TOOLS_FAULT_POINT").ok()?;
            let (name, nth) = match spec.split_once('#') {
                Some((name, nth)) => (name.to_string(), nth.parse().unwrap_or(1)),
                None => (spec, 1),
            };
            Some((name, nth))
        })
    }

    pub fn fault_point(name: &str) {
        let Some((wanted, nth)) = target() else { return };
        if wanted != name || RELEASED.load(Ordering::SeqCst) {
            return;
        }
        if SEEN.fetch_add(1, Ordering::SeqCst) + 1 != *nth {
            return;
        }
        // Not a log line: the tests' protocol with the stopped process (read on its
        // stderr), under a feature no product build has.
        {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "session-tools fault point reached: {name}");
        }
        let mut guard = crate::poison::lock_whole(&PAUSED.0);
        while !RELEASED.load(Ordering::SeqCst) {
            guard = crate::poison::wait_whole(&PAUSED.1, guard);
        }
    }

    pub fn release() {
        RELEASED.store(true, Ordering::SeqCst);
        let _guard = crate::poison::lock_whole(&PAUSED.0);
        PAUSED.1.notify_all();
    }
}

/// Marks a fault point (see the module's documentation).
#[cfg(feature = "fault-points")]
pub fn fault_point(name: &str) {
    enabled::fault_point(name)
}

/// Marks a fault point (see the module's documentation); nothing without `fault-points`.
#[cfg(not(feature = "fault-points"))]
#[inline(always)]
pub fn fault_point(_name: &str) {}

/// Lets a process paused at a fault point go on (called when it is asked to stop
/// gracefully); nothing without `fault-points`.
pub fn release_fault_points() {
    #[cfg(feature = "fault-points")]
    enabled::release();
}
