//! What happens after `sessions_spawn` returns (reference §3.4.5–§3.4.8, with N1): the
//! child run is awaited, the child gets the announce step, its reply is normalised to
//! `Status`/`Result`/`Notes` with a stats line and posted to the requester's chat; then
//! the label patch and cleanup. Sub-agent sessions are archived after a while.

use serde::{Deserialize, Serialize};

use crate::announce::{is_announce_skip, normalize_body, resolve_target, send_params, stats_line, Outcome, Stats};
use crate::channels::AnnounceTarget;
use crate::context::Env;
use crate::context::{Wake, Wakeup};
use crate::flow::{prompt, retry_after, start_step, Flow, Next};
use crate::keys::agent_id_of_key;
use crate::list::join_path;
use crate::ports::{DeleteParams, LogLevel, PatchParams, Usage, WaitParams};
use crate::reply::{js_trim, read_latest_reply};

pub const ANNOUNCE_MESSAGE: &str = "Sub-agent announce step.";
/// The announce step's timeout (the registry's announce `timeoutMs`).
pub const ANNOUNCE_TIMEOUT_MS: u64 = 30_000;
pub use crate::flow::RETRY_WAIT_MS;

/// Where the requester's conversation is (`requesterOrigin`, normalised).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "phase")]
pub enum Phase {
    /// Waiting for the child run to end.
    AwaitRun,
    /// The run outlived the wait; ask again when the timer fires.
    RetryWait,
    /// The child's run has ended and its result is kept in the flow: the announce step is
    /// started with this key (see [`Flow`]).
    StartAnnounce { key: String, target: AnnounceTarget },
    /// Waiting for the child's announce step, to post to `target`.
    AwaitAnnounce { run_id: String, target: AnnounceTarget },
    /// The announce is normalised: it is posted to `target` with this key.
    Deliver { key: String, target: AnnounceTarget, body: String },
}

/// One spawned sub-agent run (the registry record, reference §3.4.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentFlow {
    pub run_id: String,
    pub child_session_key: String,
    pub requester_session_key: String,
    pub requester_display_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester_origin: Option<Origin>,
    pub task: String,
    /// `keep` or `delete`.
    pub cleanup: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub wait_timeout_ms: u64,
    pub created_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<String>,
    /// The child's result, read once when its run ended (the announce prompt is built from
    /// it, never from a transcript the announce step itself writes to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    pub phase: Phase,
}

impl SubagentFlow {
    /// The registry's wait for the child run.
    pub fn run_wake(&self) -> Wake {
        Wake::RunEnd(WaitParams { run_id: self.run_id.clone(), timeout_ms: self.wait_timeout_ms.max(1) })
    }

    fn announce_prompt(&self, target_channel: &str, reply: Option<&str>) -> String {
        prompt(&[
            Some("Sub-agent announce step:".into()),
            Some(format!("Requester session: {}.", self.requester_session_key)),
            self.requester_origin.as_ref().and_then(|o| o.channel.as_ref()).map(|c| format!("Requester channel: {c}.")),
            Some(format!("Post target channel: {target_channel}.")),
            Some(format!("Original task: {}", self.task)),
            Some(match reply {
                Some(r) => format!("Sub-agent result: {r}"),
                None => "Sub-agent result: (not available).".into(),
            }),
            Some("**You MUST announce your result.** The requester is waiting for your response.".into()),
            Some("Provide a brief, useful summary of what you accomplished.".into()),
            Some("Reply with Result and Notes only (no Status line; status is added by the system).".into()),
            Some("Format:".into()),
            Some("Result: <summary>".into()),
            Some("Notes: <extra context>".into()),
            Some("Only reply \"ANNOUNCE_SKIP\" if the task completely failed with no useful output.".into()),
            Some("Your reply will be posted to the requester chat.".into()),
        ])
    }

    /// The run has ended: read its reply and keep it in the flow, then plan the child's
    /// announce step.
    fn announce(mut self, env: &Env) -> Next<Self> {
        let (reply, session_id) = match read_latest_reply(env.gw, &self.child_session_key) {
            Ok(found) => found,
            Err(e) => {
                env.host.log(LogLevel::Warn, &format!("sub-agent {}: reading its reply failed: {e}", self.child_session_key));
                (None, None)
            }
        };
        self.outcome.get_or_insert_with(|| Outcome { status: "unknown".into(), error: None });
        let transcript = session_id.as_deref().map(|id| {
            let agent = agent_id_of_key(Some(&self.child_session_key));
            join_path(&env.cfg.agent_store_dir(&agent), &format!("{id}.jsonl"))
        });
        self.stats = Some(stats_line(
            env.cfg,
            &Stats {
                started_at: self.started_at,
                ended_at: self.ended_at,
                usage: self.usage.as_ref(),
                model: self.model.as_deref(),
                session_key: &self.child_session_key,
                session_id: session_id.as_deref(),
                transcript_path: transcript.as_deref(),
            },
        ));
        let Some(target) = resolve_target(env.gw, &self.requester_session_key, &self.requester_display_key) else {
            env.host.log(
                LogLevel::Info,
                &format!("sub-agent {}: no announce target for {}", self.child_session_key, self.requester_session_key),
            );
            return self.finish(env);
        };
        self.result = reply;
        self.phase = Phase::StartAnnounce { key: env.host.new_uuid(), target };
        Next::Wait(self, Wake::Now)
    }

    /// Starts the planned announce step with its key.
    fn start_announce(mut self, env: &Env, key: &str, target: AnnounceTarget) -> Next<Self> {
        let prompt = self.announce_prompt(&target.channel, self.result.as_deref());
        match start_step(env, key, &self.child_session_key, ANNOUNCE_MESSAGE, prompt, ANNOUNCE_TIMEOUT_MS) {
            Ok((run_id, wake)) => {
                self.phase = Phase::AwaitAnnounce { run_id, target };
                Next::Wait(self, wake)
            }
            Err(e) => {
                env.host.log(LogLevel::Warn, &format!("Subagent announce failed: {e}"));
                self.finish(env)
            }
        }
    }

    /// The announce step has ended: normalise its reply and plan its delivery (unless
    /// skipped), else clean up.
    fn plan_delivery(mut self, env: &Env, target: AnnounceTarget, announce_ok: bool) -> Next<Self> {
        let reply = if announce_ok {
            match read_latest_reply(env.gw, &self.child_session_key) {
                Ok((reply, _)) => reply,
                Err(e) => {
                    env.host.log(LogLevel::Warn, &format!("Subagent announce failed: {e}"));
                    None
                }
            }
        } else {
            None
        };
        let text = reply.as_deref().map(js_trim).unwrap_or("");
        if text.is_empty() || is_announce_skip(text) {
            return self.finish(env);
        }
        let outcome = self.outcome.clone().unwrap_or(Outcome { status: "unknown".into(), error: None });
        let body = normalize_body(text, &outcome, self.stats.as_deref().unwrap_or(""));
        self.phase = Phase::Deliver { key: env.host.new_uuid(), target, body };
        Next::Wait(self, Wake::Now)
    }

    /// Posts the announce with its key (a repeat is dropped by the gateway), then cleans up.
    fn deliver(self, env: &Env, key: &str, target: &AnnounceTarget, body: &str) -> Next<Self> {
        if let Err(e) = env.gw.send(&send_params(target, body.to_string(), key.to_string())) {
            env.host.log(LogLevel::Warn, &format!("Subagent announce failed: {e}"));
        }
        self.finish(env)
    }

    /// The `finally` of the announce: label patch, then delete when asked to.
    fn finish(self, env: &Env) -> Next<Self> {
        if let Some(label) = &self.label {
            let patch = PatchParams { key: self.child_session_key.clone(), label: Some(label.clone()), model: None };
            if let Err(e) = env.gw.sessions_patch(&patch) {
                env.host.log(LogLevel::Debug, &format!("sub-agent label patch failed: {e}"));
            }
        }
        if self.cleanup == "delete" {
            let delete = DeleteParams { key: self.child_session_key.clone(), delete_transcript: true };
            if let Err(e) = env.gw.sessions_delete(&delete) {
                env.host.log(LogLevel::Debug, &format!("sub-agent cleanup failed: {e}"));
            }
        }
        Next::Done
    }
}

impl Flow for SubagentFlow {
    const KIND: &'static str = "subagent";

    fn session_key(&self) -> &str {
        &self.requester_session_key
    }

    fn resume(mut self, env: &Env, wakeup: Wakeup) -> Next<Self> {
        match (self.phase.clone(), wakeup) {
            (Phase::AwaitRun, Wakeup::RunEnded(result)) => {
                let retry = |mut flow: SubagentFlow| {
                    flow.phase = Phase::RetryWait;
                    Next::Wait(flow, Wake::At(env.host.now_ms() + RETRY_WAIT_MS))
                };
                let wait = match result {
                    Ok(wait) => wait,
                    Err(e) => {
                        env.host.log(LogLevel::Warn, &format!("sub-agent {}: agent.wait failed: {e}", self.child_session_key));
                        return retry(self);
                    }
                };
                let status = wait.status.as_deref().unwrap_or("");
                // A wait that ran out while the run goes on is not an ending (reference
                // §3.4.5); a run that was itself stopped by its timeout is.
                if status == "timeout" && wait.ended_at.is_none() {
                    return retry(self);
                }
                if !matches!(status, "ok" | "error" | "timeout") {
                    return retry(self);
                }
                self.started_at = wait.started_at.or(self.started_at);
                self.ended_at = Some(wait.ended_at.unwrap_or(env.host.now_ms() as i64));
                self.outcome = Some(match status {
                    "error" => Outcome { status: "error".into(), error: wait.error.clone() },
                    "timeout" => Outcome { status: "timeout".into(), error: None },
                    _ => Outcome { status: "ok".into(), error: None },
                });
                self.usage = wait.usage;
                self.model = wait.model;
                self.announce(env)
            }
            (Phase::RetryWait, Wakeup::Timer | Wakeup::Now) => {
                self.phase = Phase::AwaitRun;
                let wake = Wake::RunEnd(WaitParams { run_id: self.run_id.clone(), timeout_ms: RETRY_WAIT_MS });
                Next::Wait(self, wake)
            }
            // A planned step is made whatever woke the flow: its key is already kept.
            (Phase::StartAnnounce { key, target }, _) => self.start_announce(env, &key, target),
            (Phase::Deliver { key, target, body }, _) => self.deliver(env, &key, &target, &body),
            (Phase::AwaitAnnounce { target, .. }, Wakeup::RunEnded(result)) => {
                let ok = match result {
                    Ok(wait) => wait.status.as_deref() == Some("ok"),
                    Err(e) => {
                        if let Some(later) = retry_after(env, &e) {
                            env.host.log(LogLevel::Info, &format!("Subagent announce: agent.wait failed ({e}); asking again later"));
                            return Next::Wait(self, later);
                        }
                        env.host.log(LogLevel::Warn, &format!("Subagent announce failed: {e}"));
                        return self.finish(env);
                    }
                };
                self.plan_delivery(env, target, ok)
            }
            (phase, wakeup) => {
                // A wake that does not fit the phase (e.g. after a host restart): re-arm.
                env.host.log(LogLevel::Debug, &format!("sub-agent {}: {wakeup:?} in {phase:?}; re-arming", self.child_session_key));
                match phase {
                    Phase::AwaitRun => {
                        let wake = self.run_wake();
                        Next::Wait(self, wake)
                    }
                    Phase::RetryWait => Next::Wait(self, Wake::At(env.host.now_ms() + RETRY_WAIT_MS)),
                    Phase::AwaitAnnounce { run_id, .. } => {
                        Next::Wait(self, Wake::RunEnd(WaitParams { run_id, timeout_ms: ANNOUNCE_TIMEOUT_MS }))
                    }
                    // (Matched above: a planned step is made at its next resume.)
                    Phase::StartAnnounce { .. } | Phase::Deliver { .. } => Next::Wait(self, Wake::Now),
                }
            }
        }
    }
}

/// Archives a sub-agent session after `agents.defaults.subagents.archiveAfterMinutes`
/// (reference §3.4.5: from spawn time, whatever `cleanup` says).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveFlow {
    pub child_session_key: String,
    pub requester_session_key: String,
    pub archive_at_ms: u64,
}

impl Flow for ArchiveFlow {
    const KIND: &'static str = "archive";

    fn session_key(&self) -> &str {
        &self.requester_session_key
    }

    fn resume(self, env: &Env, wakeup: Wakeup) -> Next<Self> {
        if env.host.now_ms() < self.archive_at_ms && wakeup != Wakeup::Timer {
            let at = self.archive_at_ms;
            return Next::Wait(self, Wake::At(at));
        }
        let delete = DeleteParams { key: self.child_session_key.clone(), delete_transcript: true };
        if let Err(e) = env.gw.sessions_delete(&delete) {
            env.host.log(LogLevel::Debug, &format!("sub-agent archive of {} failed: {e}", self.child_session_key));
        }
        Next::Done
    }
}
