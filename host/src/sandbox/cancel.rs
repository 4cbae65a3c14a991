//! A tool call its caller may give up on: the handle the caller cancels, and what a call
//! that waits does with it.
//!
//! Only waiting is cut short: an `agent.wait` in progress (a `sessions_send` waiting for
//! its reply) ends at once as a timed-out wait does, so the guest answers and its instance
//! is free again, while the run goes on. Guest code is never interrupted mid-way (its CPU
//! time per call is bounded anyway), and nothing the call has done is undone.

use std::sync::{mpsc, Arc, Mutex};

/// The handle of one tool call its caller may cancel (a client that sent
/// `notifications/cancelled`, or closed the stream the answer was to come on).
///
/// Cheap to clone; clones are the same handle. Cancelling is for good.
#[derive(Clone, Default)]
pub struct CallCancel {
    inner: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    cancelled: bool,
    /// What to do when the call is cancelled (each wake a wait in progress).
    on_cancel: Vec<Box<dyn FnOnce() + Send>>,
}

impl std::fmt::Debug for CallCancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallCancel").field("cancelled", &self.is_cancelled()).finish()
    }
}

impl CallCancel {
    /// A handle not cancelled yet.
    pub fn new() -> CallCancel {
        CallCancel::default()
    }

    /// Cancels the call: a wait in progress ends now, and a wait that begins later ends at
    /// once.
    pub fn cancel(&self) {
        let wakers = {
            let mut state = crate::poison::lock_whole(&self.inner);
            state.cancelled = true;
            std::mem::take(&mut state.on_cancel)
        };
        for wake in wakers {
            wake();
        }
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        crate::poison::lock_whole(&self.inner).cancelled
    }

    /// Runs `work` (a blocking wait) on a thread of its own and answers what it answers,
    /// or `None` as soon as the call is cancelled: the caller goes on without it, and the
    /// thread ends when `work` does (a wait is bounded by its own timeout).
    pub(crate) fn unless_cancelled<T: Send + 'static>(&self, name: &str, work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (sender, receiver) = mpsc::channel::<Option<T>>();
        {
            let mut state = crate::poison::lock_whole(&self.inner);
            if state.cancelled {
                return None;
            }
            let woken = sender.clone();
            state.on_cancel.push(Box::new(move || {
                let _ = woken.send(None);
            }));
        }
        let spawned = std::thread::Builder::new().name(name.to_string()).spawn(move || {
            let _ = sender.send(Some(work()));
        });
        if let Err(e) = spawned {
            tracing::warn!("cannot start a thread for a cancellable wait ({e}); the call is cancelled");
            return None;
        }
        // The first to answer wins: the work's end or the cancel.
        receiver.recv().ok().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_wait_ends_when_it_ends_or_at_the_cancel() {
        let cancel = CallCancel::new();
        assert_eq!(cancel.unless_cancelled("t", || 7), Some(7));

        let (release, held) = mpsc::channel::<()>();
        let waiting = cancel.clone();
        let started = Instant::now();
        let wait = std::thread::spawn(move || {
            waiting.unless_cancelled("t", move || {
                let _ = held.recv_timeout(Duration::from_secs(30));
                1
            })
        });
        // The wait is cancelled while the work is still blocked.
        while crate::poison::lock_whole(&cancel.inner).on_cancel.len() < 2 {
            std::thread::yield_now();
        }
        cancel.cancel();
        assert_eq!(wait.join().unwrap(), None);
        assert!(started.elapsed() < Duration::from_secs(30));
        drop(release);
        // Once cancelled, a new wait does not even start.
        assert!(cancel.is_cancelled());
        assert_eq!(cancel.unless_cancelled("t", || 3), None);
    }
}
