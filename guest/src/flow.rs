//! Background work as resumable flows: what a flow is, how it waits, and the agent steps
//! flows are made of (`runAgentStep`, reference §2.10).

use serde::{de::DeserializeOwned, Serialize};

use crate::context::{Env, Job, Wake, Wakeup};
use crate::ports::{GatewayResult, WaitParams};

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
