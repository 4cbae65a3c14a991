//! Running a run: the runtime asked on the run's own thread, stopped at its timeout, and its
//! end recorded in the run's file before the transcript and the session entry.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::super::runtime::RunResult;
use super::{new_entry_id, Finished, Mine, RunFile, Runs};
use crate::faults::fault_point;

impl Runs {
    /// Runs the runtime for a run and records its end.
    pub(super) fn execute(self: Arc<Self>, file: RunFile) {
        let started_at = file.started_at;
        let timeout = Duration::from_secs(file.asked.timeout_s.max(1));
        let request = file.request();
        let began = Instant::now();
        let steps = self.steps();
        let runtime = steps.as_ref().map(|s| s.runtime());
        let result = match runtime {
            Some(Some(runtime)) => {
                // What a caught panic discards: this run's turn, which ends as an error
                // (recorded like any end); the runtime holds no state of the run.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runtime.run(&request))).unwrap_or_else(|_| RunResult {
                    status: "error".into(),
                    reply: None,
                    error: Some("the agent runtime failed".into()),
                    usage: None,
                    model: None,
                    duration: Duration::ZERO,
                })
            }
            Some(None) => RunResult {
                status: "error".into(),
                reply: None,
                error: Some("no agent runtime runs agents here".into()),
                usage: None,
                model: None,
                duration: Duration::ZERO,
            },
            None => RunResult {
                status: "error".into(),
                reply: None,
                error: Some("the gateway is closed".into()),
                usage: None,
                model: None,
                duration: Duration::ZERO,
            },
        };
        let finished = if result.duration > timeout {
            std::thread::sleep(timeout.saturating_sub(began.elapsed()));
            Finished {
                status: "timeout".into(),
                error: Some(format!("the run timed out after {}s and was stopped", timeout.as_secs())),
                reply: None,
                usage: None,
                model: result.model,
                started_at,
                ended_at: self.now(),
                reply_entry: None,
            }
        } else {
            std::thread::sleep(result.duration.saturating_sub(began.elapsed()));
            let ok = result.status == "ok";
            Finished {
                status: if ok { "ok".into() } else { "error".into() },
                error: if ok { None } else { Some(result.error.unwrap_or_else(|| "agent error".into())) },
                reply_entry: result.reply.as_ref().map(|_| new_entry_id()),
                reply: result.reply,
                usage: result.usage,
                model: result.model,
                started_at,
                ended_at: self.now(),
            }
        };
        fault_point("run.replied");
        self.end(file, finished);
    }

    /// Records an end: in the run's file first (with the reply), then in the transcript and
    /// the entry, then as recorded; waiters are told last.
    pub(super) fn end(&self, mut file: RunFile, finished: Finished) {
        file.finished = Some(finished.clone());
        if let Err(e) = self.write(&file) {
            self.warn(&format!("cannot record the end of run {}: {e}", file.run_id));
        }
        fault_point("run.end-written");
        self.record(file, &finished, false);
    }

    /// The transcript and entry half of an end, then the file marked recorded.
    pub(super) fn record(&self, mut file: RunFile, finished: &Finished, check: bool) {
        if let Some(steps) = self.steps() {
            if let Err(e) = steps.record_end(&file, finished, check) {
                self.warn(&format!("cannot record the reply of run {}: {e}", file.run_id));
            }
        }
        fault_point("run.reply-appended");
        file.recorded = true;
        if let Err(e) = self.write(&file) {
            self.warn(&format!("cannot record the end of run {}: {e}", file.run_id));
        }
        let mut mine = crate::poison::lock_whole(&self.mine);
        mine.insert(file.run_id.clone(), Mine { file });
        drop(mine);
        self.ended.notify_all();
    }

    pub(super) fn warn(&self, message: &str) {
        tracing::warn!("{message}");
    }
}
