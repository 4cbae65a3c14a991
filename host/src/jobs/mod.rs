//! Running the background jobs tools return (`jobs` in the WIT world): the host makes the
//! waits a job asks for, off the instance, and resumes the job in the agent's sandbox.

pub mod store;

use session_tools_guest::jobs::{Job, Wake, Wakeup};
use session_tools_guest::ports::LogLevel;

use crate::sandbox::{CallError, GatewayPort, Sandbox, Services};

/// Runs jobs in this thread until each has ended or waits for a time that has not come.
/// Answers the jobs still waiting for a time. A job whose step fails is logged and
/// dropped; a broken sandbox stops the drain.
pub fn drain(sandbox: &mut Sandbox, gateway: &dyn GatewayPort, services: &dyn Services, jobs: Vec<Job>) -> Result<Vec<Job>, CallError> {
    let mut waiting = Vec::new();
    let mut stack: Vec<Job> = jobs.into_iter().rev().collect();
    while let Some(job) = stack.pop() {
        let wakeup = match &job.wake {
            Wake::Now => Wakeup::Now,
            Wake::At(at) if *at <= services.now_ms() => Wakeup::Timer,
            Wake::At(_) => {
                waiting.push(job);
                continue;
            }
            Wake::RunEnd(params) => Wakeup::RunEnded(gateway.agent_wait(params)),
        };
        let id = job.id.clone();
        match sandbox.resume_job(job, wakeup) {
            Ok(next) => stack.extend(next.into_iter().rev()),
            Err(e) if e.discards_instance() => return Err(e),
            Err(e) => services.log(LogLevel::Warn, &format!("job {id} dropped: {e}")),
        }
    }
    Ok(waiting)
}
