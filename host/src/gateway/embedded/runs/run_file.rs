//! A run's file: what it was asked (enough to run it again), who runs it, and how it ended.

use serde::{Deserialize, Serialize};
use session_tools_contract::{Usage, WaitResult};

use super::super::runtime::RunRequest;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finished {
    /// `ok`, `error`, or `timeout` when the run was stopped at its timeout.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub started_at: i64,
    pub ended_at: i64,
    /// The transcript entry id the reply is (to be) appended under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_entry: Option<String>,
}

impl Finished {
    pub(super) fn failed(error: String, started_at: i64, ended_at: i64) -> Finished {
        Finished {
            status: "error".into(),
            error: Some(error),
            reply: None,
            usage: None,
            model: None,
            started_at,
            ended_at,
            reply_entry: None,
        }
    }

    pub(super) fn wait_result(&self) -> WaitResult {
        WaitResult {
            status: Some(self.status.clone()),
            error: self.error.clone(),
            started_at: Some(self.started_at),
            ended_at: Some(self.ended_at),
            usage: self.usage.clone(),
            model: self.model.clone(),
        }
    }
}

/// What a run was asked, as kept in its file (enough to run it again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asked {
    pub agent_id: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_system_prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(default)]
    pub params: serde_json::Value,
    /// The run's timeout, in seconds.
    pub timeout_s: u64,
}

/// One run's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFile {
    pub version: u32,
    pub run_id: String,
    pub session_key: String,
    /// The process running it, by its liveness lock (see [`Liveness`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// How many times it was started.
    pub attempts: u32,
    pub started_at: i64,
    pub asked: Asked,
    /// The transcript entry id of the run's message.
    pub message_entry: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<Finished>,
    /// Whether the end is recorded in the transcript and the session entry.
    #[serde(default)]
    pub recorded: bool,
}

impl RunFile {
    pub(super) fn request(&self) -> RunRequest {
        RunRequest {
            run_id: self.run_id.clone(),
            session_key: self.session_key.clone(),
            agent_id: self.asked.agent_id.clone(),
            message: self.asked.message.clone(),
            extra_system_prompt: self.asked.extra_system_prompt.clone(),
            lane: self.asked.lane.clone(),
            channel: self.asked.channel.clone(),
            params: self.asked.params.clone(),
        }
    }
}
