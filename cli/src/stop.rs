//! Graceful stops of the commands that do background work (`call`, `jobs`; `mcp` has its
//! own, on its runtime): the first SIGTERM or Ctrl-C asks the work in flight to end (a
//! tool call or a job step ends as it would, bounded by its limits; no new step starts),
//! a second one ends the process at once. Either is safe: what was not done is kept and
//! goes on at the next start, once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use session_tools_host::Service;

/// Asked to stop once: set by the first signal.
#[derive(Clone, Default)]
pub struct Stop {
    requested: Arc<AtomicBool>,
}

impl Stop {
    /// Listens for SIGTERM and Ctrl-C on a thread of its own; the first asks `service` to
    /// stop its jobs, the second exits with 128 + the signal's number.
    pub fn install(service: Option<Service>) -> Stop {
        let stop = Stop::default();
        let requested = stop.requested.clone();
        let listening = std::thread::Builder::new().name("session-tools-signals".into()).spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_io().build() else { return };
            runtime.block_on(async move {
                let first = crate::mcp::stop_signal().await;
                eprintln!("{first}: finishing the work in flight (again to stop at once)");
                requested.store(true, Ordering::SeqCst);
                session_tools_host::release_fault_points();
                if let Some(service) = &service {
                    service.stop_jobs();
                }
                let second = crate::mcp::stop_signal().await;
                eprintln!("{second}: stopping now; what is left goes on at the next start");
                std::process::exit(if second == "interrupted" { 130 } else { 143 });
            });
        });
        if listening.is_err() {
            eprintln!("warning: cannot listen for signals; a signal stops the process at once");
        }
        stop
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }
}
