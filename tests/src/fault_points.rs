//! The tests' fault points (where the exactly-once tests stop a process), installed by the tests' build of the command line
//! (`bin/st-cli.rs`); the library only marks the points (`session_tools_host::FaultPoints`).
//!
//! `SESSION_TOOLS_FAULT_POINT=<name>[#<n>]` makes the `n`-th (default: first) time the
//! process reaches the point named `name` print `session-tools fault point reached: <name>`
//! on standard error and stop there: the test then kills the process (SIGKILL: a crash at
//! exactly that point) or asks it to stop (SIGTERM: a graceful stop that arrives at exactly
//! that point, after which the process goes on from the point and finishes what it
//! started).

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// The one point a process stops at, read from `SESSION_TOOLS_FAULT_POINT`.
struct StopAt {
    name: String,
    nth: u64,
    seen: AtomicU64,
    released: AtomicBool,
    paused: (Mutex<()>, Condvar),
}

impl session_tools_host::FaultPoints for StopAt {
    fn reached(&self, name: &str) {
        if name != self.name || self.released.load(Ordering::SeqCst) {
            return;
        }
        if self.seen.fetch_add(1, Ordering::SeqCst) + 1 != self.nth {
            return;
        }
        // The tests' protocol with the stopped process, read on its stderr.
        let _ = writeln!(std::io::stderr(), "session-tools fault point reached: {name}");
        let mut guard = self.paused.0.lock().unwrap_or_else(PoisonError::into_inner);
        while !self.released.load(Ordering::SeqCst) {
            guard = self.paused.1.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn release(&self) {
        self.released.store(true, Ordering::SeqCst);
        let _guard = self.paused.0.lock().unwrap_or_else(PoisonError::into_inner);
        self.paused.1.notify_all();
    }
}

/// Installs the point named by `SESSION_TOOLS_FAULT_POINT`, if it is set.
pub fn install_from_env() {
    let Ok(spec) = std::env::var("SESSION_TOOLS_FAULT_POINT") else { return };
    let (name, nth) = match spec.split_once('#') {
        Some((name, nth)) => (name.to_string(), nth.parse().expect("SESSION_TOOLS_FAULT_POINT: the count after # is a number")),
        None => (spec, 1),
    };
    let points = Box::leak(Box::new(StopAt {
        name,
        nth,
        seen: AtomicU64::new(0),
        released: AtomicBool::new(false),
        paused: (Mutex::new(()), Condvar::new()),
    }));
    session_tools_host::install_fault_points(points);
}
