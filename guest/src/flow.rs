//! Background work as resumable flows: what a flow is, how it waits, and the agent steps
//! flows are made of (`runAgentStep`, reference §2.10).

use serde::{de::DeserializeOwned, Serialize};

use crate::context::{Env, Job, Wake, Wakeup};
use crate::ports::{GatewayResult, WaitParams};

/// The cap on each step's wait inside a flow (reference §0.3).
pub const STEP_WAIT_CAP_MS: u64 = 60_000;
/// How long a flow waits before it asks again about a run whose `agent.wait` failed
/// transiently (the gateway was slow or away), or that outlived its wait.
pub const RETRY_WAIT_MS: u64 = 60_000;

/// What a flow does when the wait for its run failed: a transient failure (timeout,
/// unavailable) is asked about again later — the run may well end — and any other ends the
/// step. Decided here, once, for every host.
pub fn retry_after(env: &Env, error: &crate::ports::GatewayError) -> Option<Wake> {
    error.kind.is_transient().then(|| Wake::At(env.host.now_ms().saturating_add(RETRY_WAIT_MS)))
}

/// What a flow does next.
pub enum Next<S> {
    /// Wait, then resume with this state.
    Wait(S, Wake),
    Done,
}

/// A resumable flow.
///
/// A flow is exactly once in effect across any stop of its host: a step that has a side
/// effect (an agent run, a delivery) is planned in one resume, which records in the flow's
/// state everything the step needs (its key, its prompt's inputs) and answers
/// `Wait(.., Wake::Now)`; the host keeps that state before it resumes the flow again, and
/// only that next resume makes the call, with the recorded key. A resume that stops half
/// way is resumed from the last kept state and repeats only calls that carry that key,
/// which the gateway de-duplicates (`agent` and `send` both do).
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
///
/// Exactly once across stops: `idempotency_key` is the step's key, chosen when the flow
/// planned the step and kept in the job before this call (a flow's `Start…` phase), so a
/// step resumed after its process stopped sends the same key and the gateway answers with
/// the run it already started instead of appending the message again.
pub fn start_step(
    env: &Env,
    idempotency_key: &str,
    session_key: &str,
    message: &str,
    extra_system_prompt: String,
    timeout_ms: u64,
) -> GatewayResult<(String, Wake)> {
    let idempotency_key = idempotency_key.to_string();
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
