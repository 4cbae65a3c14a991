//! Background work that continues after a tool returns, as resumable state machines.
//!
//! A tool call returns jobs; the host persists them, waits for what each waits for
//! (a run's end through `agent.wait`, or a time), and resumes them here. A job never
//! blocks an instance while it waits, and a host restart only has to resume what it
//! persisted.

use crate::context::{Env, Job, Wakeup};
use crate::flow::{job_of, Flow, Next};
use crate::ports::LogLevel;
use crate::{a2a, subagent};

fn resume_flow<F: Flow>(env: &Env, job: Job, wakeup: Wakeup) -> Result<Vec<Job>, String> {
    let flow: F = serde_json::from_str(&job.state).map_err(|e| format!("unreadable {} job state: {e}", F::KIND))?;
    Ok(match flow.resume(env, wakeup) {
        Next::Wait(next, wake) => vec![job_of(job.id, &next, wake)],
        Next::Done => Vec::new(),
    })
}

/// Resumes a job; answers the job that follows it, if any.
pub fn resume(env: &Env, job: Job, wakeup: Wakeup) -> Result<Vec<Job>, String> {
    match job.kind.as_str() {
        a2a::A2aFlow::KIND => resume_flow::<a2a::A2aFlow>(env, job, wakeup),
        subagent::SubagentFlow::KIND => resume_flow::<subagent::SubagentFlow>(env, job, wakeup),
        subagent::ArchiveFlow::KIND => resume_flow::<subagent::ArchiveFlow>(env, job, wakeup),
        other => {
            env.host.log(LogLevel::Warn, &format!("dropping a job of unknown kind {other}"));
            Err(format!("unknown job kind: {other}"))
        }
    }
}
