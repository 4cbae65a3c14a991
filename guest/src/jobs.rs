//! Background work that continues after a tool returns, as resumable state machines.
//!
//! A tool call returns jobs; the host persists them, waits for what each waits for
//! (a run's end through `agent.wait`, or a time), and resumes them here. A job never
//! blocks an instance while it waits, and a host restart only has to resume what it
//! persisted.

use serde::{de::DeserializeOwned, Serialize};

use crate::ports::{GatewayResult, LogLevel, WaitParams, WaitResult};
use crate::tools::Env;
use crate::{a2a, subagent};

/// What a job waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum Wake {
    Now,
    /// The answer of `agent.wait` with these params (made by the host for the job).
    RunEnd(WaitParams),
    /// A time, in ms since the epoch.
    At(u64),
}

/// Why a job is resumed.
#[derive(Debug, Clone, PartialEq)]
pub enum Wakeup {
    Now,
    RunEnded(GatewayResult<WaitResult>),
    Timer,
}

/// A pending job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: String,
    /// `a2a`, `subagent` or `archive`.
    pub kind: String,
    /// The session the job acts for.
    pub session_key: String,
    /// The flow's private state, as JSON.
    pub state: String,
    pub wake: Wake,
}

/// The cap on each step's wait inside a flow (reference §0.3).
pub const STEP_WAIT_CAP_MS: u64 = 60_000;

/// What a flow does next.
pub enum Next<S> {
    /// Wait, then resume with this state.
    Wait(S, Wake),
    Done,
}

/// A resumable flow.
pub trait Flow: Serialize + DeserializeOwned {
    const KIND: &'static str;
    fn session_key(&self) -> &str;
    fn resume(self, env: &Env, wakeup: Wakeup) -> Next<Self>;
}

/// Packs a flow's state into a job.
pub fn job_of<F: Flow>(id: String, flow: &F, wake: Wake) -> Job {
    Job {
        id,
        kind: F::KIND.to_string(),
        session_key: flow.session_key().to_string(),
        state: serde_json::to_string(flow).expect("flow state serialises"),
        wake,
    }
}

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

/// Starts one agent step of a flow (`runAgentStep`, reference §2.10): the run is started
/// here and the flow waits for it through its wake.
pub fn start_step(
    env: &Env,
    session_key: &str,
    message: &str,
    extra_system_prompt: String,
    timeout_ms: u64,
) -> GatewayResult<(String, Wake)> {
    let idempotency_key = env.host.new_uuid();
    let accepted = env.gw.agent(&crate::ports::AgentParams {
        message: message.to_string(),
        session_key: Some(session_key.to_string()),
        idempotency_key: idempotency_key.clone(),
        deliver: Some(false),
        channel: Some("webchat".to_string()),
        lane: Some("nested".to_string()),
        extra_system_prompt: Some(extra_system_prompt),
        ..Default::default()
    })?;
    let run_id = accepted.run_id.filter(|r| !r.is_empty()).unwrap_or(idempotency_key);
    let wake = Wake::RunEnd(WaitParams { run_id: run_id.clone(), timeout_ms: timeout_ms.min(STEP_WAIT_CAP_MS) });
    Ok((run_id, wake))
}

/// Joins prompt lines, dropping empty ones.
pub fn prompt(lines: &[Option<String>]) -> String {
    lines.iter().flatten().filter(|l| !l.is_empty()).cloned().collect::<Vec<_>>().join("\n")
}
