//! The agent-to-agent flow of `sessions_send` (reference §3.3.3, with N13): the reply-back
//! ping-pong between requester and target, then the target's announce step and its
//! delivery to the target's channel.

use serde::{Deserialize, Serialize};

use crate::announce::{is_announce_skip, is_reply_skip, resolve_target, send_params};
use crate::channels::AnnounceTarget;
use crate::context::Env;
use crate::context::{Wake, Wakeup};
use crate::flow::{prompt, retry_after, start_step, Flow, Next, STEP_WAIT_CAP_MS};
use crate::ports::{LogLevel, WaitParams};
use crate::reply::{js_trim, read_latest_reply};

pub const ANNOUNCE_MESSAGE: &str = "Agent-to-agent announce step.";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "phase")]
pub enum Phase {
    /// Fire-and-forget send: waiting for the primary run.
    AwaitPrimary { run_id: String },
    /// The round-1 reply is known.
    Begin,
    /// Ping-pong turn `turn` is planned: its run is started with this key (see [`Flow`]).
    StartTurn { key: String },
    /// Waiting for a ping-pong turn's run.
    AwaitTurn { run_id: String },
    /// The announce step is planned: its run is started with this key.
    StartAnnounce { key: String },
    /// Waiting for the announce step's run.
    AwaitAnnounce { run_id: String },
    /// The announce reply is known: it is delivered to the target with this key.
    Deliver { key: String, text: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct A2aFlow {
    pub target_key: String,
    pub display_key: String,
    pub message: String,
    pub announce_timeout_ms: u64,
    pub max_turns: u32,
    /// The requester's session (as the gateway knows it), when there is one.
    pub requester_key: Option<String>,
    /// The requester's session as shown in prompts (N13).
    pub requester_display: Option<String>,
    pub requester_channel: Option<String>,
    /// Whether requester and target are different sessions (N13: canonical keys compared).
    pub distinct_sessions: bool,
    pub primary: Option<String>,
    pub latest: Option<String>,
    pub target: Option<AnnounceTarget>,
    pub turn: u32,
    pub current: String,
    pub next: String,
    pub phase: Phase,
}

impl A2aFlow {
    fn target_channel(&self) -> &str {
        self.target.as_ref().map_or("unknown", |t| t.channel.as_str())
    }

    fn requester_lines(&self) -> [Option<String>; 2] {
        [
            self.requester_display.as_ref().map(|k| format!("Agent 1 (requester) session: {k}.")),
            self.requester_channel.as_ref().map(|c| format!("Agent 1 (requester) channel: {c}.")),
        ]
    }

    fn reply_prompt(&self) -> String {
        let role = if Some(&self.current) == self.requester_key.as_ref() { "Agent 1 (requester)" } else { "Agent 2 (target)" };
        let [session, channel] = self.requester_lines();
        prompt(&[
            Some("Agent-to-agent reply step:".into()),
            Some(format!("Current agent: {role}.")),
            Some(format!("Turn {} of {}.", self.turn, self.max_turns)),
            session,
            channel,
            Some(format!("Agent 2 (target) session: {}.", self.display_key)),
            Some(format!("Agent 2 (target) channel: {}.", self.target_channel())),
            Some("If you want to stop the ping-pong, reply exactly \"REPLY_SKIP\".".into()),
        ])
    }

    fn announce_prompt(&self) -> String {
        let [session, channel] = self.requester_lines();
        prompt(&[
            Some("Agent-to-agent announce step:".into()),
            session,
            channel,
            Some(format!("Agent 2 (target) session: {}.", self.display_key)),
            Some(format!("Agent 2 (target) channel: {}.", self.target_channel())),
            Some(format!("Original request: {}", self.message)),
            Some(match &self.primary {
                Some(p) => format!("Round 1 reply: {p}"),
                None => "Round 1 reply: (not available).".into(),
            }),
            Some(match &self.latest {
                Some(l) => format!("Latest reply: {l}"),
                None => "Latest reply: (not available).".into(),
            }),
            Some("If you want to remain silent, reply exactly \"ANNOUNCE_SKIP\".".into()),
            Some("Any other reply will be posted to the target channel.".into()),
            Some("After this reply, the agent-to-agent conversation is over.".into()),
        ])
    }

    /// A fire-and-forget send: wait for the primary run first.
    pub fn wake_for_primary(&self, run_id: &str) -> Wake {
        Wake::RunEnd(WaitParams { run_id: run_id.to_string(), timeout_ms: self.announce_timeout_ms.min(STEP_WAIT_CAP_MS) })
    }

    fn fail(&self, env: &Env, what: &str, error: &str) -> Next<Self> {
        env.host.log(LogLevel::Warn, &format!("sessions_send agent-to-agent flow stopped ({what}): {error}"));
        Next::Done
    }

    /// Plans ping-pong turn `self.turn`, or the announce step when the turns are over: the
    /// step's key is kept with the flow before its run is started (see [`Flow`]).
    fn plan_next(mut self, env: &Env) -> Next<Self> {
        let key = env.host.new_uuid();
        self.phase = if self.turn >= 1 && self.turn <= self.max_turns { Phase::StartTurn { key } } else { Phase::StartAnnounce { key } };
        Next::Wait(self, Wake::Now)
    }

    /// Starts the planned ping-pong turn with its key.
    fn start_turn(mut self, env: &Env, key: &str) -> Next<Self> {
        // The turn's inputs (who speaks, the message it answers) are the flow's own, never
        // re-read from a transcript the step may already have written to.
        let incoming = self.latest.clone().unwrap_or_default();
        match start_step(env, key, &self.current, &incoming, self.reply_prompt(), self.announce_timeout_ms) {
            Ok((run_id, wake)) => {
                self.phase = Phase::AwaitTurn { run_id };
                Next::Wait(self, wake)
            }
            Err(e) => self.fail(env, "reply step", &e.message),
        }
    }

    /// Starts the planned announce step with its key.
    fn start_announce(mut self, env: &Env, key: &str) -> Next<Self> {
        match start_step(env, key, &self.target_key, ANNOUNCE_MESSAGE, self.announce_prompt(), self.announce_timeout_ms) {
            Ok((run_id, wake)) => {
                self.phase = Phase::AwaitAnnounce { run_id };
                Next::Wait(self, wake)
            }
            Err(e) => self.fail(env, "announce step", &e.message),
        }
    }

    /// Delivers the announce with its key (a repeat is dropped by the gateway).
    fn deliver(self, env: &Env, key: &str, text: &str) -> Next<Self> {
        if let Some(target) = &self.target {
            let params = send_params(target, text.to_string(), key.to_string());
            if let Err(e) = env.gw.send(&params) {
                env.host.log(LogLevel::Warn, &format!("sessions_send announce delivery failed: {e}"));
            }
        }
        Next::Done
    }

    /// With the round-1 reply known: resolve the announce target, then ping-pong.
    fn begin(mut self, env: &Env) -> Next<Self> {
        if self.latest.as_deref().is_none_or(str::is_empty) {
            return Next::Done;
        }
        self.target = resolve_target(env.gw, &self.target_key, &self.display_key);
        let ping_pong = self.max_turns > 0 && self.requester_key.is_some() && self.distinct_sessions;
        if ping_pong {
            self.turn = 1;
            self.current = self.requester_key.clone().unwrap_or_default();
            self.next = self.target_key.clone();
        } else {
            self.turn = self.max_turns + 1;
        }
        self.plan_next(env)
    }
}

impl Flow for A2aFlow {
    const KIND: &'static str = "a2a";

    fn session_key(&self) -> &str {
        self.requester_key.as_deref().unwrap_or(&self.target_key)
    }

    fn resume(mut self, env: &Env, wakeup: Wakeup) -> Next<Self> {
        let waited = match wakeup {
            Wakeup::RunEnded(result) => Some(result),
            Wakeup::Now | Wakeup::Timer => None,
        };
        match (self.phase.clone(), waited) {
            (Phase::Begin, _) => self.begin(env),
            // A planned step is made whatever woke the flow: its key is already kept.
            (Phase::StartTurn { key }, _) => self.start_turn(env, &key),
            (Phase::StartAnnounce { key }, _) => self.start_announce(env, &key),
            (Phase::Deliver { key, text }, _) => self.deliver(env, &key, &text),
            (Phase::AwaitPrimary { .. }, Some(Ok(wait))) => {
                if wait.status.as_deref() == Some("ok") {
                    match read_latest_reply(env.gw, &self.target_key) {
                        Ok((reply, _)) => {
                            self.primary = reply.clone();
                            self.latest = reply;
                        }
                        Err(e) => return self.fail(env, "reading the reply", &e.message),
                    }
                }
                self.phase = Phase::Begin;
                self.begin(env)
            }
            (Phase::AwaitTurn { .. }, Some(Ok(wait))) => {
                let reply = if wait.status.as_deref() == Some("ok") {
                    match read_latest_reply(env.gw, &self.current) {
                        Ok((reply, _)) => reply,
                        Err(e) => return self.fail(env, "reading the reply", &e.message),
                    }
                } else {
                    None
                };
                match reply {
                    Some(text) if !text.is_empty() && !is_reply_skip(&text) => {
                        self.latest = Some(text);
                        std::mem::swap(&mut self.current, &mut self.next);
                        self.turn += 1;
                    }
                    _ => self.turn = self.max_turns + 1,
                }
                self.plan_next(env)
            }
            (Phase::AwaitAnnounce { .. }, Some(Ok(wait))) => {
                if wait.status.as_deref() != Some("ok") {
                    return Next::Done;
                }
                let reply = match read_latest_reply(env.gw, &self.target_key) {
                    Ok((reply, _)) => reply,
                    Err(e) => return self.fail(env, "reading the announce", &e.message),
                };
                let text = reply.as_deref().map(js_trim).unwrap_or("");
                if self.target.is_none() || text.is_empty() || is_announce_skip(text) {
                    return Next::Done;
                }
                // The delivery is planned with its key before it is made.
                self.phase = Phase::Deliver { key: env.host.new_uuid(), text: text.to_string() };
                Next::Wait(self, Wake::Now)
            }
            (_, Some(Err(e))) => match retry_after(env, &e) {
                Some(later) => {
                    env.host.log(LogLevel::Info, &format!("sessions_send flow: agent.wait failed ({e}); asking again later"));
                    Next::Wait(self, later)
                }
                None => self.fail(env, "agent.wait", &e.message),
            },
            // Woken without the run's end: the wait is made again (a retry after a
            // transient failure, or a host that lost the wait).
            (Phase::AwaitPrimary { run_id } | Phase::AwaitTurn { run_id } | Phase::AwaitAnnounce { run_id }, None) => {
                let wake = Wake::RunEnd(WaitParams { run_id, timeout_ms: self.announce_timeout_ms.min(STEP_WAIT_CAP_MS) });
                Next::Wait(self, wake)
            }
        }
    }
}
