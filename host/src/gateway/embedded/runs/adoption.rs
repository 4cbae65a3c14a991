//! Adopting the runs of a process that died: an end it left half recorded is recorded, a
//! run cut short is run again once under the same id.

use std::sync::Arc;

use super::{Finished, Runs, MAX_ATTEMPTS};
use crate::os_lock::OsLock;

impl Runs {
    /// Adopts a run whose owner died: records an end it left half recorded, or runs it again
    /// (once) when it was cut short. Answers whether the run is now this process's.
    pub(super) fn adopt(self: &Arc<Self>, run_id: &str) -> bool {
        let path = self.path(run_id);
        // Two processes may find the same orphan: one adopts it, under the run's OS lock.
        let Ok(Some(lock)) = OsLock::try_acquire(&path) else { return false };
        let Some(mut file) = self.read(run_id) else {
            lock.remove(&path);
            return false;
        };
        if file.recorded || file.owner.as_deref().is_some_and(|o| self.liveness.is_alive(o)) {
            drop(lock);
            return false;
        }
        file.owner = Some(self.liveness.claim());
        match file.finished.clone() {
            Some(finished) => {
                // The end is written but not (wholly) recorded: record what is missing.
                self.hold(&file);
                let _ = self.write(&file);
                drop(lock);
                self.record(file, &finished, true);
            }
            None if file.attempts >= MAX_ATTEMPTS => {
                let now = self.now();
                self.hold(&file);
                drop(lock);
                let error = format!("the run was interrupted {} times: the gateway stopped while it was going on", file.attempts);
                self.end(file.clone(), Finished::failed(error, file.started_at, now));
            }
            None if self.steps().is_some_and(|steps| steps.runtime().is_none()) => {
                // Running it again needs a runtime this process was not given: it is left
                // as it is, for a process that has one.
                drop(lock);
                return false;
            }
            None => {
                // Its message may not have been appended before its owner died: append it
                // (checked, so never twice) before the attempt is counted, so a process
                // stopped between the two leaves the run as it found it. A run whose message
                // was missing never started: this start is its first, and uses up no second
                // attempt (a stop before the message must not lose the run).
                let started_before = match self.steps().map(|steps| steps.append_message(&file, true)) {
                    Some(Ok(appended_now)) => !appended_now,
                    Some(Err(e)) => {
                        self.hold(&file);
                        drop(lock);
                        let now = self.now();
                        self.end(file, Finished::failed(format!("cannot run it again: {e}"), now, now));
                        return true;
                    }
                    None => true,
                };
                if started_before {
                    file.attempts += 1;
                }
                if let Err(e) = self.write(&file) {
                    self.warn(&format!("cannot adopt run {run_id}: {e}"));
                    return false;
                }
                self.hold(&file);
                drop(lock);
                self.start(file);
            }
        }
        true
    }
}
