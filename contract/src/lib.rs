//! The contract of the session-tools components in Rust: the records of the WIT `types`
//! interface, the [`Gateway`] port (one method per `gateway` function) and the [`Host`]
//! port (`host`). The tools (`guest/`), the N15 guard (`guard/`), the gateway wire and the
//! host speak these types; each component's bindings convert them to its WIT records one
//! to one.

#![forbid(unsafe_code)]

pub mod calls;
pub mod policy;
pub mod wit;

pub use calls::{Caller, Job, ToolError, ToolOutput, Wake, Wakeup};

/// What kind of failure a gateway error is (WIT `error-kind`): what the tools decide on a
/// failure, they decide on this, never on the message's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// No answer in time (the request may or may not have been done).
    Timeout,
    /// What was named does not exist.
    NotFound,
    /// The caller may not do it (a policy, a scope, the host's N15 guard).
    Forbidden,
    /// The gateway cannot be reached, or is restarting.
    Unavailable,
    /// Over a size limit.
    TooLarge,
    /// Refused as malformed.
    Invalid,
    Other,
}

impl ErrorKind {
    /// Whether trying again later may succeed (the gateway was slow or away).
    pub fn is_transient(self) -> bool {
        matches!(self, ErrorKind::Timeout | ErrorKind::Unavailable)
    }
}

/// A gateway error: its kind, and the message the gateway (or the host) answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayError {
    pub kind: ErrorKind,
    pub message: String,
}

impl GatewayError {
    /// An error of kind [`ErrorKind::Other`].
    pub fn new(message: impl Into<String>) -> Self {
        Self::of(ErrorKind::Other, message)
    }

    pub fn of(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}

impl std::fmt::Display for GatewayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

pub type GatewayResult<T> = Result<T, GatewayError>;

/// A thread or topic id as the session stores it: a string, or a number.
#[derive(Debug, Clone, PartialEq)]
pub enum ThreadId {
    Text(String),
    Number(f64),
}

impl ThreadId {
    /// Whether there is nothing in it (an empty string).
    pub fn is_empty(&self) -> bool {
        matches!(self, ThreadId::Text(t) if t.is_empty())
    }

    /// The id as text (numbers in decimal), for targets built from it.
    pub fn to_text(&self) -> String {
        match self {
            ThreadId::Text(t) => t.clone(),
            ThreadId::Number(n) => number_text(*n),
        }
    }
}

/// A number as JavaScript writes it: whole numbers without a fraction.
fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 9.2e18 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// A string stays a string and a number a number (a whole number without a fraction).
impl serde::Serialize for ThreadId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ThreadId::Text(t) => s.serialize_str(t),
            ThreadId::Number(n) if n.fract() == 0.0 && n.abs() < 9.2e18 => s.serialize_i64(*n as i64),
            ThreadId::Number(n) => s.serialize_f64(*n),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeliveryContext {
    pub channel: Option<String>,
    pub to: Option<String>,
    pub account_id: Option<String>,
    pub thread_id: Option<ThreadId>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListParams {
    pub limit: Option<u32>,
    pub active_minutes: Option<u32>,
    pub include_global: Option<bool>,
    pub include_unknown: Option<bool>,
    pub spawned_by: Option<String>,
    pub label: Option<String>,
    pub agent_id: Option<String>,
    pub search: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRow {
    pub key: String,
    pub kind: Option<String>,
    pub channel: Option<String>,
    pub label: Option<String>,
    pub display_name: Option<String>,
    pub delivery_context: Option<DeliveryContext>,
    pub updated_at: Option<i64>,
    pub session_id: Option<String>,
    pub model: Option<String>,
    pub context_tokens: Option<f64>,
    pub total_tokens: Option<f64>,
    pub thinking_level: Option<String>,
    pub verbose_level: Option<String>,
    pub system_sent: Option<bool>,
    pub aborted_last_run: Option<bool>,
    pub send_policy: Option<String>,
    pub last_channel: Option<String>,
    pub last_to: Option<String>,
    pub last_account_id: Option<String>,
    pub spawned_by: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionList {
    pub path: Option<String>,
    pub sessions: Vec<SessionRow>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResolveParams {
    pub key: Option<String>,
    pub session_id: Option<String>,
    pub label: Option<String>,
    pub agent_id: Option<String>,
    pub spawned_by: Option<String>,
    pub include_global: Option<bool>,
    pub include_unknown: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryParams {
    pub session_key: String,
    pub limit: Option<u32>,
}

/// One raw transcript message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TranscriptMessage {
    pub role: Option<String>,
    pub json: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    pub session_id: Option<String>,
    pub messages: Vec<TranscriptMessage>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentParams {
    pub message: String,
    pub session_key: Option<String>,
    pub idempotency_key: String,
    pub deliver: Option<bool>,
    pub channel: Option<String>,
    pub lane: Option<String>,
    pub extra_system_prompt: Option<String>,
    pub thinking: Option<String>,
    pub timeout: Option<u32>,
    pub label: Option<String>,
    pub spawned_by: Option<String>,
    pub group_id: Option<String>,
    pub group_channel: Option<String>,
    pub group_space: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentAccepted {
    pub run_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitParams {
    pub run_id: String,
    pub timeout_ms: u64,
}

#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct WaitResult {
    pub status: Option<String>,
    pub error: Option<String>,
    pub started_at: Option<i64>,
    pub ended_at: Option<i64>,
    pub usage: Option<Usage>,
    pub model: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SendParams {
    pub to: String,
    pub message: String,
    pub channel: Option<String>,
    pub account_id: Option<String>,
    pub idempotency_key: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PatchParams {
    pub key: String,
    pub label: Option<String>,
    pub model: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeleteParams {
    pub key: String,
    pub delete_transcript: bool,
}

/// The gateway methods the tools call (reference §1.1).
pub trait Gateway {
    fn sessions_list(&self, params: &ListParams) -> GatewayResult<SessionList>;
    /// Answers the canonical key, or the empty string when the gateway gave none.
    fn sessions_resolve(&self, params: &ResolveParams) -> GatewayResult<String>;
    fn chat_history(&self, params: &HistoryParams) -> GatewayResult<History>;
    /// `chat.history` for several sessions: one answer for each params, in order. A
    /// gateway that can answer them together overrides this one-by-one default.
    fn chat_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        params.iter().map(|p| self.chat_history(p)).collect()
    }
    fn agent(&self, params: &AgentParams) -> GatewayResult<AgentAccepted>;
    fn agent_wait(&self, params: &WaitParams) -> GatewayResult<WaitResult>;
    fn send(&self, params: &SendParams) -> GatewayResult<()>;
    fn sessions_patch(&self, params: &PatchParams) -> GatewayResult<()>;
    fn sessions_delete(&self, params: &DeleteParams) -> GatewayResult<()>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

/// The services the host grants: a clock, ids and a log.
pub trait Host {
    fn now_ms(&self) -> u64;
    fn new_uuid(&self) -> String;
    fn log(&self, level: LogLevel, message: &str);
}
