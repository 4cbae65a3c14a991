//! Graceful stops of the commands that do background work (`call`, `jobs`; `mcp` has its
//! own, on its runtime, and listens with [`stop_signal`] too): the first SIGTERM or Ctrl-C
//! asks the work in flight to end (a tool call or a job step ends as it would, bounded by
//! its limits; no new step starts), a second one ends the process at once. Either is safe:
//! what was not done is kept and goes on at the next start, once.

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
        let (ready, listening_now) = std::sync::mpsc::channel();
        let listening = std::thread::Builder::new().name("session-tools-signals".into()).spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_io().build() else { return };
            runtime.block_on(async move {
                // Polled once, the listener has installed its handlers (tokio installs a
                // signal's when its listener is first polled): only then may the work start,
                // or a signal that comes at once would end the process by its default action
                // instead of stopping it gracefully.
                let mut listener = std::pin::pin!(stop_signal());
                let early = tokio::select! {
                    biased;
                    name = &mut listener => Some(name),
                    () = std::future::ready(()) => None,
                };
                let _ = ready.send(());
                let first = match early {
                    Some(name) => name,
                    None => listener.await,
                };
                eprintln!("{first}: finishing the work in flight (again to stop at once)");
                requested.store(true, Ordering::SeqCst);
                session_tools_host::release_fault_points();
                if let Some(service) = &service {
                    service.stop_jobs();
                }
                let second = stop_signal().await;
                eprintln!("{second}: stopping now; what is left goes on at the next start");
                std::process::exit(if second == "interrupted" { 130 } else { 143 });
            });
        });
        if listening.is_err() || listening_now.recv_timeout(std::time::Duration::from_secs(5)).is_err() {
            eprintln!("warning: cannot listen for signals; a signal stops the process at once");
        }
        stop
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }
}

/// The first of Ctrl-C and SIGTERM; answers its name.
pub(crate) async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                _ = tokio::signal::ctrl_c() => "interrupted",
                _ = term.recv() => "terminated",
            },
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                "interrupted"
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "interrupted"
    }
}
